package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestHistoryGolden prints the history of real tables (Spark, Databricks
// and delta-rs writers, txn actions, a cleaned-up log) as text and JSON and
// compares with testdata/history/*.golden (go test -update rewrites them).
func TestHistoryGolden(t *testing.T) {
	c := &cli{t: t}
	tests := []struct {
		name  string
		table string
		args  []string
	}{
		{"app-txn-checkpoint", "kernel/app-txn-checkpoint", nil},
		{"table-with-dv-small", "kernel/table-with-dv-small", nil},
		{"table_with_column_mapping", "delta-rs/table_with_column_mapping", nil},
		{"checkpoints_vacuumed-limit3", "delta-rs/checkpoints_vacuumed", []string{"--limit", "3"}},
		{"basic-with-inserts-overwrite-restore", "spark-golden/basic-with-inserts-overwrite-restore/basic-with-inserts-overwrite-restore/delta", nil},
	}
	for _, tc := range tests {
		for _, format := range []string{"txt", "json"} {
			t.Run(tc.name+"."+format, func(t *testing.T) {
				args := append([]string{"history", filepath.Join(sharedDelta, filepath.FromSlash(tc.table))}, tc.args...)
				if format == "json" {
					args = append(args, "--json")
				}
				out, errs, code := c.exec(args...)
				if code != 0 {
					t.Fatalf("history: %d %s", code, errs)
				}
				golden := filepath.Join("testdata", "history", tc.name+"."+format+".golden")
				if *updateGolden {
					if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test -update to create it)", err)
				}
				if out != string(want) {
					t.Errorf("history differs from %s:\n%s", golden, out)
				}
			})
		}
	}
}

// TestHistoryOfATributaryTable: each streaming batch is a STREAMING UPDATE
// commit carrying the stream's txn (appId = stream id, version = batch id),
// newest first — what a user reads to pick a startingVersion.
func TestHistoryOfATributaryTable(t *testing.T) {
	c := newCLI(t)
	c.file("a.json", `{"id":1}`+"\n")
	c.file("b.json", `{"id":2}`+"\n")
	if _, errs, code := c.run("cloudFiles.maxFilesPerTrigger=1"); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code := c.exec("history", c.table, "--json")
	if code != 0 {
		t.Fatal(errs)
	}
	var rows []historyRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Version != 1 || rows[1].Version != 0 {
		t.Fatalf("history %s", out)
	}
	for i, r := range rows {
		batch := int64(len(rows) - 1 - i)
		if r.Operation != "STREAMING UPDATE" || len(r.Txns) != 1 || r.Txns[0].Version != batch ||
			r.OperationParameters["epochId"] != strconv.FormatInt(batch, 10) || r.EngineInfo != "tributary" {
			t.Errorf("commit %d: %+v", r.Version, r)
		}
	}
	text, _, _ := c.exec("history", c.table, "--limit", "1")
	if lines := strings.Split(strings.TrimSpace(text), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], "1 ") {
		t.Errorf("--limit 1:\n%s", text)
	}
	for _, bad := range [][]string{{"history"}, {"history", c.table, "--limit", "-1"}, {"history", c.table, "--bogus"}} {
		if _, _, code := c.exec(bad...); code != 2 {
			t.Errorf("%v: exit %d, want 2", bad, code)
		}
	}
	if _, errs, code := c.exec("history", t.TempDir()); code != 1 || !strings.Contains(errs, "not a Delta table") {
		t.Errorf("history of an empty directory: %d %s", code, errs)
	}
}
