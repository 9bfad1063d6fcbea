package options_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/ingest"
)

// sinkCases are the behavioural cases of the sink area (owner: helper identity).
func sinkCases() []optionCase {
	return []optionCase{
		{name: "mergeSchema: the table evolves by default; false fails on a new column, naming it and the file", options: []string{"mergeSchema"}, run: func(t *testing.T) {
			// Default: the new column reaches the table (addNewColumns stops
			// once, the next run commits with the new schema).
			p := newPipe(t)
			p.write("1.json", `{"a":"x"}`+"\n")
			p.mustRun(nil)
			p.write("2.json", `{"a":"y","b":"new"}`+"\n")
			if _, err := p.run(nil); !errors.Is(err, ingest.ErrSchemaEvolved) {
				t.Fatalf("default, new column: %v, want the stream to stop once with the evolved schema", err)
			}
			p.mustRun(nil)
			if got := p.schema(); !slices.Contains(got, "b STRING") {
				t.Errorf("default: table schema %v lacks the new column b", got)
			}
			if got := p.column("b"); !slices.Equal(got, []string{"new", "null"}) {
				t.Errorf("default: b = %v", got)
			}

			// mergeSchema=false: every run fails, nothing is committed.
			q := newPipe(t)
			off := map[string]string{"mergeSchema": "false"}
			q.write("1.json", `{"a":"x"}`+"\n")
			q.mustRun(off)
			q.write("2.json", `{"a":"y","b":"new"}`+"\n")
			for range 2 {
				_, err := q.run(off)
				if !errors.Is(err, ingest.ErrMergeSchemaOff) || !strings.Contains(err.Error(), "b") || !strings.Contains(err.Error(), "2.json") {
					t.Fatalf("mergeSchema=false, new column: %v, want ErrMergeSchemaOff naming b and 2.json", err)
				}
			}
			if got := q.schema(); slices.Contains(got, "b STRING") {
				t.Errorf("mergeSchema=false: table schema %v gained b", got)
			}
			if got := q.column("a"); !slices.Equal(got, []string{"x"}) {
				t.Errorf("mergeSchema=false: rows %v, want only the first file's", got)
			}
			// With rescue, the new field is kept in the rescued column and
			// the table's schema need not change.
			sum := q.mustRun(map[string]string{"mergeSchema": "false", "cloudFiles.schemaEvolutionMode": "rescue"})
			if sum.Rows() != 1 {
				t.Errorf("rescue with mergeSchema=false: %d rows, want 1", sum.Rows())
			}
		}},
		{name: "txnVersion with txnAppId writes once; the same txnVersion again commits nothing", options: []string{"txnVersion", "txnAppId"}, run: func(t *testing.T) {
			p := newPipe(t)
			once := map[string]string{"txnAppId": "backfill", "txnVersion": "3", "cloudFiles.maxFilesPerTrigger": "1"}
			p.write("a.json", `{"a":"a"}`+"\n")
			p.write("b.json", `{"a":"b"}`+"\n")
			sum := p.mustRun(once)
			// One batch of every outstanding file (the limits do not split
			// an idempotent write), committed with txn{backfill, 3}.
			if len(sum.Batches) != 1 || sum.Batches[0].NumInputFiles != 2 || sum.Batches[0].BatchID != 3 {
				t.Fatalf("first run: %+v, want one batch 3 of 2 files", sum.Batches)
			}
			if v, ok := p.snapshot().TxnVersion("backfill"); !ok || v != 3 {
				t.Errorf("table txn for backfill = %d %v, want 3", v, ok)
			}
			p.write("c.json", `{"a":"c"}`+"\n")
			sum = p.mustRun(once)
			if len(sum.Batches) != 0 || sum.Skipped != 1 {
				t.Errorf("same txnVersion again: %d batches, %d skipped; want nothing committed", len(sum.Batches), sum.Skipped)
			}
			if got := p.column("a"); !slices.Equal(got, []string{"a", "b"}) {
				t.Errorf("same txnVersion again: rows %v", got)
			}
			// A lower txnVersion is skipped too, as Delta skips it.
			lower := map[string]string{"txnAppId": "backfill", "txnVersion": "2"}
			if sum := p.mustRun(lower); len(sum.Batches) != 0 {
				t.Errorf("lower txnVersion committed %d batches", len(sum.Batches))
			}
			// A higher one writes what is outstanding.
			higher := map[string]string{"txnAppId": "backfill", "txnVersion": "4"}
			if sum := p.mustRun(higher); sum.Rows() != 1 {
				t.Errorf("txnVersion 4: %d rows, want c.json's 1", sum.Rows())
			}
			if got := p.column("a"); !slices.Equal(got, []string{"a", "b", "c"}) {
				t.Errorf("after txnVersion 4: rows %v", got)
			}
		}},
	}
}
