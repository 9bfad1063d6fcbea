package sinkmode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/sink"
	"github.com/tributary-io/tributary/core/state"
)

// TestReplaceWhereReadBack runs a partitioned stream whose later batches
// are selective overwrites (replaceWhere): one on the partition column
// whose commit crashes after its files were written and is run again, one
// on partition and data columns that rewrites a file partly matching. The
// table is then read back by delta-rs and by Spark: the same rows, one
// WRITE commit per replaceWhere batch, the stream's txn.
func TestReplaceWhereReadBack(t *testing.T) {
	root := t.TempDir()
	s := newStream(t, filepath.Join(root, "replace"))
	base := map[string]string{"cloudFiles.inferColumnTypes": "true", "cloudFiles.schemaHints": "day DATE", "partitionBy": "day"}
	with := func(where string) map[string]string {
		m := map[string]string{"replaceWhere": where}
		for k, v := range base {
			m[k] = v
		}
		return m
	}

	// Batch 0: an append over three days.
	s.write(t, "b0.json", `{"id":1,"day":"2024-01-01"}`+"\n"+`{"id":2,"day":"2024-01-02"}`+"\n"+`{"id":3,"day":"2024-01-02"}`+"\n"+
		`{"id":101,"day":"2024-01-03"}`+"\n"+`{"id":5,"day":"2024-01-03"}`+"\n"+`{"id":null,"day":"2024-01-03"}`+"\n")
	if err := s.run(t, base, false); err != nil {
		t.Fatal(err)
	}
	// Batch 1 replaces 2024-01-02; its first commit crashes.
	s.write(t, "b1.json", `{"id":20,"day":"2024-01-02"}`+"\n")
	if err := s.run(t, with("day = '2024-01-02'"), true); !errors.Is(err, errCrash) {
		t.Fatalf("crashing run: %v, want the injected crash", err)
	}
	if err := s.run(t, with("day = '2024-01-02'"), false); err != nil {
		t.Fatalf("run after the crash: %v", err)
	}
	// Batch 2 replaces the rows of 2024-01-03 on with id > 100: in
	// 2024-01-03 only 101 goes (5 stays, NULL stays); 2024-01-04 is new.
	s.write(t, "b2.json", `{"id":150,"day":"2024-01-03"}`+"\n"+`{"id":200,"day":"2024-01-04"}`+"\n")
	if err := s.run(t, with("day >= DATE '2024-01-03' AND id > 100"), false); err != nil {
		t.Fatal(err)
	}
	for f, st := range s.states(t) {
		if st != state.Committed {
			t.Errorf("%s: %v, want COMMITTED", f, st)
		}
	}
	want := []string{"150/2024-01-03", "1/2024-01-01", "200/2024-01-04", "20/2024-01-02", "5/2024-01-03", "<nil>/2024-01-03"}
	slices.Sort(want)

	repo := repoRoot(t)
	for _, engine := range []struct{ name, script string }{{"deltalake", "pyenv.sh"}, {"spark", "spark-env.sh"}} {
		out := readAll(t, repo, engine.script, engine.name, map[string]string{s.table: "id"})[s.table]
		if got := rowStrings(out.Rows, "id", "day"); !slices.Equal(got, want) {
			t.Errorf("%s: rows %v, want %v", engine.name, got, want)
		}
		if got := out.PartitionColumns; !slices.Equal(got, []string{"day"}) {
			t.Errorf("%s: partition columns %v", engine.name, got)
		}
		if out.Txn["upsert"].String() != "2" {
			t.Errorf("%s: txn %v, want the stream at batch 2", engine.name, out.Txn)
		}
		var ops []string
		for _, h := range out.History {
			ops = append(ops, fmt.Sprintf("%v:%s", h.Version, h.Operation))
		}
		slices.Sort(ops)
		if wantOps := []string{"0:STREAMING UPDATE", "1:WRITE", "2:WRITE"}; !slices.Equal(ops, wantOps) {
			t.Errorf("%s: history %v, want %v", engine.name, ops, wantOps)
		}
	}
}

// TestReplaceWhereMatchesSpark is a differential test: for each predicate
// the same initial rows and the same batch go through Tributary (a stream
// whose second batch has replaceWhere) and through Spark + delta-spark
// (write.mode("overwrite").option("replaceWhere", ...)); Spark then reads
// both tables. The rows must be equal, and a batch Spark refuses with
// DELTA_REPLACE_WHERE_MISMATCH must be refused by Tributary too. (Spark
// takes ~20 s per case on the shared machine: the cases are few, each
// covering a different rule: partition values, NULL partition, NULL data
// values, string-to-date/number casts, decimals, NOT and <=> with NULL,
// date vs timestamp, the constraint with a value and with NULL.)
func TestReplaceWhereMatchesSpark(t *testing.T) {
	const ddl = "id BIGINT, name STRING, day DATE, ts TIMESTAMP, amount DECIMAL(10,2), score DOUBLE, p STRING"
	initial := strings.Join([]string{
		`{"id":1,"name":"x","day":"2024-01-01","ts":"2024-01-01T10:00:00Z","amount":10.5,"score":1.5,"p":"a"}`,
		`{"id":2,"name":"y","day":"2024-01-02","ts":"2024-01-02T11:59:59Z","amount":10.49,"score":2.5,"p":"a"}`,
		`{"id":3,"name":null,"day":"2024-01-03","ts":"2024-01-02T12:00:00Z","amount":null,"score":null,"p":"b"}`,
		`{"id":4,"name":"x","day":null,"ts":null,"amount":20,"score":0.5,"p":"b"}`,
		`{"id":null,"name":"z","day":"2024-01-02","ts":"2024-01-03T00:00:00Z","amount":5,"score":3.0,"p":null}`,
		`{"id":6,"name":"w","day":"2024-01-05","ts":"2024-01-01T00:00:00Z","amount":11,"score":1.5,"p":"c"}`,
	}, "\n") + "\n"
	cases := []struct{ where, batch string }{
		{"p = 'a'", `{"id":10,"p":"a"}`},
		{"p IS NULL", `{"id":11,"p":null}`},
		{"id > 3", `{"id":13,"p":"a"}`},
		{"day >= '2024-01-02'", `{"id":14,"day":"2024-01-09","p":"c"}`},
		{"day = DATE '2024-01-03' OR name IS NULL", `{"id":15,"name":null,"p":"a"}`},
		{"amount >= 10.5", `{"id":17,"amount":99.99,"p":"b"}`},
		{"NOT (name = 'x')", `{"id":19,"name":"q","p":"a"}`},
		{"name <> 'x' OR id <=> NULL", `{"id":null,"name":"x","p":"a"}`},
		{"id IN ('3', 4) AND p = 'b'", `{"id":3,"p":"b"}`},
		{"ts >= DATE '2024-01-02' AND ts < TIMESTAMP '2024-01-03 00:00:00'", `{"id":21,"ts":"2024-01-02T05:00:00Z","p":"a"}`},
		{"id > 3", `{"id":1,"p":"a"}`},
		{"name = 'x'", `{"id":23,"name":null,"p":"a"}`},
	}
	root := t.TempDir()
	base := map[string]string{"cloudFiles.schemaHints": ddl, "partitionBy": "p"}
	type specCase struct {
		Name      string `json:"name"`
		Initial   string `json:"initial"`
		Batch     string `json:"batch"`
		Where     string `json:"where"`
		Tributary string `json:"tributary"`
	}
	var specCases []specCase
	refused := map[string]error{}
	for i, c := range cases {
		name := fmt.Sprintf("%d: %s", i, c.where)
		s := newStream(t, filepath.Join(root, fmt.Sprint(i)))
		s.write(t, "0.json", initial)
		if err := s.run(t, base, false); err != nil {
			t.Fatal(err)
		}
		s.write(t, "1.json", c.batch+"\n")
		opts := map[string]string{"replaceWhere": c.where}
		for k, v := range base {
			opts[k] = v
		}
		if err := s.run(t, opts, false); err != nil {
			refused[name] = err
		}
		inDir := filepath.Join(root, fmt.Sprint(i), "in")
		if err := os.MkdirAll(inDir, 0o755); err != nil {
			t.Fatal(err)
		}
		ini, bat := filepath.Join(inDir, "initial.json"), filepath.Join(inDir, "batch.json")
		os.WriteFile(ini, []byte(initial), 0o644)
		os.WriteFile(bat, []byte(c.batch+"\n"), 0o644)
		specCases = append(specCases, specCase{Name: name, Initial: ini, Batch: bat, Where: c.where, Tributary: s.table})
	}

	repo := repoRoot(t)
	cmd := exec.Command("bash", filepath.Join(repo, "scripts", "spark-env.sh"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	bin, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/spark-env.sh: %v\n%s", err, stderr.String())
	}
	ivy := filepath.Join(repo, ".cache", "ivy")
	if v := os.Getenv("TRIBUTARY_SPARK_VENV"); v != "" {
		ivy = filepath.Join(filepath.Dir(v), "ivy")
	}
	spec, _ := json.Marshal(map[string]any{"schema": ddl, "partitionBy": []string{"p"}, "work": root, "cases": specCases})
	specPath, outPath := filepath.Join(root, "spec.json"), filepath.Join(root, "out.json")
	if err := os.WriteFile(specPath, spec, 0o644); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(filepath.Join(strings.TrimSpace(string(bin)), "python"), filepath.Join(repo, "tests", "sinkmode", "spark_replace.py"), ivy, specPath, outPath)
	run.Dir = root
	var log bytes.Buffer
	run.Stdout, run.Stderr = &log, &log
	if err := run.Run(); err != nil {
		t.Fatalf("spark_replace.py: %v\n%s", err, log.String())
	}
	raw, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Cases []struct {
			Name       string   `json:"name"`
			Spark      []string `json:"spark"`
			SparkError string   `json:"sparkError"`
			Tributary  []string `json:"tributary"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &out); err != nil || len(out.Cases) != len(cases) {
		t.Fatalf("spark_replace.py output: %v (%d cases)\n%s", err, len(out.Cases), log.String())
	}
	mismatches := 0
	for _, c := range out.Cases {
		terr := refused[c.Name]
		switch {
		case c.SparkError != "":
			mismatches++
			if c.SparkError != "DELTA_REPLACE_WHERE_MISMATCH" {
				t.Errorf("%s: Spark failed with %s", c.Name, c.SparkError)
			}
			if !errors.Is(terr, sink.ErrReplaceWhereMismatch) {
				t.Errorf("%s: Spark refused the batch (%s), Tributary: %v", c.Name, c.SparkError, terr)
			}
		case terr != nil:
			t.Errorf("%s: Tributary refused the batch Spark accepted: %v", c.Name, terr)
		case !slices.Equal(c.Tributary, c.Spark):
			t.Errorf("%s: rows differ\n tributary %v\n spark     %v", c.Name, c.Tributary, c.Spark)
		}
	}
	if mismatches != 2 {
		t.Errorf("%d cases refused by Spark, want the 2 with a row outside the predicate", mismatches)
	}
}
