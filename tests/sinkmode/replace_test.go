package sinkmode

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

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
