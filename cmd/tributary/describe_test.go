package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/tributary-io/tributary/core/parquetio"
)

const sharedDelta = "../../../shared/testdata/delta"

// TestDescribeCountsRows: numRecords is the live row count on real tables,
// including those written without stats (counted from Parquet footers) and
// those with deletion vectors (deleted rows not counted).
func TestDescribeCountsRows(t *testing.T) {
	c := &cli{t: t}
	describe := func(dir string) tableDetail {
		t.Helper()
		out, errs, code := c.exec("describe", dir, "--json")
		if code != 0 {
			t.Fatalf("describe %s: %d %s", dir, code, errs)
		}
		var d tableDetail
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	// Spark golden tables with expected rows: the expected row count.
	expected, _ := filepath.Glob(filepath.Join(sharedDelta, "spark-golden", "*", "*", "expected"))
	if len(expected) < 35 {
		t.Fatalf("%d golden tables with expected rows", len(expected))
	}
	for _, exp := range expected {
		dir := filepath.Join(filepath.Dir(exp), "delta")
		t.Run(filepath.Base(filepath.Dir(exp)), func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join(exp, "*.parquet"))
			var want int64
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				n, err := parquetio.NumRows(bytes.NewReader(b), int64(len(b)))
				if err != nil {
					t.Fatal(err)
				}
				want += n
			}
			if d := describe(dir); d.NumRecords != want {
				t.Errorf("numRecords = %d, expected/ holds %d rows", d.NumRecords, want)
			}
		})
	}
	// Databricks tables with deletion vectors.
	for _, tc := range []struct {
		table string
		want  int64
	}{
		{"kernel/table-with-dv-small", 8}, // 10 rows, DELETE WHERE value IN (0, 9)
		{"kernel/with-short-dv", 7},       // 2 files of 5 rows, a DV of 3 rows on the first
		{"delta-rs/table_with_column_mapping", 5},
	} {
		if d := describe(filepath.Join(sharedDelta, filepath.FromSlash(tc.table))); d.NumRecords != tc.want {
			t.Errorf("%s: numRecords = %d, want %d", tc.table, d.NumRecords, tc.want)
		}
	}
}
