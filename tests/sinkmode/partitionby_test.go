package sinkmode

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestPartitionByReadByDeltaRs: a table partitioned by data columns
// (partitionBy, a string with NULL and ” values and a long) reads back in
// delta-rs with every row, its partition values typed, and the partition
// columns delta-rs reports.
func TestPartitionByReadByDeltaRs(t *testing.T) {
	root := t.TempDir()
	s := stream{src: filepath.Join(root, "src"), table: filepath.Join(root, "table"), checkpoint: filepath.Join(root, "checkpoint")}
	if err := os.MkdirAll(s.src, 0o755); err != nil {
		t.Fatal(err)
	}
	s.write(t, "1.json", `{"id":1,"country":"fr","n":1}`+"\n"+`{"id":2,"country":"de","n":1}`+"\n"+
		`{"id":3,"country":null,"n":2}`+"\n"+`{"id":4,"country":"","n":2}`+"\n"+`{"id":5,"country":"a b/c","n":2}`+"\n")
	if err := s.run(t, map[string]string{"partitionBy": "country,n", "cloudFiles.inferColumnTypes": "true", "cloudFiles.schemaHints": "n BIGINT"}, false); err != nil {
		t.Fatal(err)
	}
	out := readWith(t, repoRoot(t), "pyenv.sh", "deltalake", s.table, "id")
	var got []string
	for _, r := range out.Rows {
		got = append(got, fmt.Sprintf("%v:%v:%v", r["id"], r["country"], r["n"]))
	}
	slices.Sort(got)
	if want := []string{"1:fr:1", "2:de:1", "3:<nil>:2", "4:<nil>:2", "5:a b/c:2"}; !slices.Equal(got, want) {
		t.Errorf("delta-rs rows %v, want %v", got, want)
	}
	if !slices.Equal(out.PartitionColumns, []string{"country", "n"}) {
		t.Errorf("delta-rs partition columns %v", out.PartitionColumns)
	}
}
