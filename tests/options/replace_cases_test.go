package options_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/sink"
)

// replaceCases are the behavioural cases of replaceWhere (selective
// overwrite, applied per micro-batch).
func replaceCases() []optionCase {
	return []optionCase{
		{name: "replaceWhere on a partition column replaces that partition's rows in one commit; other partitions stay", options: []string{"replaceWhere"}, run: func(t *testing.T) {
			base := map[string]string{"cloudFiles.inferColumnTypes": "true", "cloudFiles.schemaHints": "day DATE", "partitionBy": "day"}
			for _, where := range []string{"", "day = '2024-01-01'", "day BETWEEN DATE '2024-01-01' AND DATE '2024-01-01'", "DAY IN ('2024-01-01') AND day IS NOT NULL"} {
				p := newPipe(t)
				p.write("1.json", `{"id":1,"day":"2024-01-01"}`+"\n"+`{"id":2,"day":"2024-01-01"}`+"\n"+`{"id":3,"day":"2024-01-02"}`+"\n")
				p.mustRun(base)
				before := p.snapshot().Version
				p.write("2.json", `{"id":10,"day":"2024-01-01"}`+"\n")
				opts := maps.Clone(base)
				if where != "" {
					opts["replaceWhere"] = where
				}
				p.mustRun(opts)
				var got []string
				for _, r := range p.rows() {
					got = append(got, fmtValue(r["id"])+"@"+fmtValue(r["day"]))
				}
				want := []string{"10@2024-01-01", "3@2024-01-02"}
				if where == "" {
					want = []string{"10@2024-01-01", "1@2024-01-01", "2@2024-01-01", "3@2024-01-02"}
				}
				if !slices.Equal(got, want) {
					t.Errorf("replaceWhere=%q: rows %v, want %v", where, got, want)
				}
				if v := p.snapshot().Version; v != before+1 {
					t.Errorf("replaceWhere=%q: %d commits, want 1", where, v-before)
				}
				if where == "" {
					continue
				}
				removes, adds := 0, 0
				for _, a := range lastCommit(t, p) {
					switch {
					case a.Remove != nil:
						removes++
						if !a.Remove.DataChange || !strings.Contains(a.Remove.Path, "day=2024-01-01") {
							t.Errorf("replaceWhere=%q: remove %+v", where, a.Remove)
						}
					case a.Add != nil:
						adds++
					case a.CommitInfo != nil:
						ci := a.CommitInfo
						if ci.Operation != "WRITE" || ci.OperationParameters["mode"] != "Overwrite" || ci.OperationParameters["predicate"] != where ||
							ci.OperationMetrics["numDeletedRows"] != "2" || ci.OperationMetrics["numRemovedFiles"] != "1" {
							t.Errorf("replaceWhere=%q: commitInfo %s %v %v", where, ci.Operation, ci.OperationParameters, ci.OperationMetrics)
						}
					case a.Txn != nil:
						if a.Txn.Version != 1 {
							t.Errorf("replaceWhere=%q: txn %+v, want the batch id 1", where, a.Txn)
						}
					}
				}
				if removes != 1 || adds != 1 {
					t.Errorf("replaceWhere=%q: %d removes and %d adds, want 1 and 1", where, removes, adds)
				}
			}
		}},
		{name: "replaceWhere on data columns: files partly matching are rewritten, rows where it is NULL are kept", options: []string{"replaceWhere"}, run: func(t *testing.T) {
			base := map[string]string{"cloudFiles.inferColumnTypes": "true"}
			p := newPipe(t)
			p.write("1.json", `{"id":1,"v":"a"}`+"\n"+`{"id":5,"v":"b"}`+"\n"+`{"id":10,"v":"c"}`+"\n"+`{"id":null,"v":"n"}`+"\n")
			p.write("2.json", `{"id":20,"v":"d"}`+"\n"+`{"id":30,"v":"e"}`+"\n")
			p.mustRun(map[string]string{"cloudFiles.inferColumnTypes": "true", "cloudFiles.maxFilesPerTrigger": "1"})
			p.write("3.json", `{"id":12,"v":"new"}`+"\n"+`{"id":99,"v":"new"}`+"\n")
			opts := maps.Clone(base)
			opts["replaceWhere"] = "id >= 10 AND id < 50 OR id = 99"
			p.mustRun(opts)
			var got []string
			for _, r := range p.rows() {
				got = append(got, fmtValue(r["id"])+"="+fmtValue(r["v"]))
			}
			want := []string{"12=new", "1=a", "5=b", "99=new", "null=n"}
			if !slices.Equal(got, want) {
				t.Errorf("rows %v, want %v", got, want)
			}
			removes := 0
			for _, a := range lastCommit(t, p) {
				if a.Remove != nil {
					removes++
				}
				if a.CommitInfo != nil {
					if m := a.CommitInfo.OperationMetrics; m["numCopiedRows"] != "3" || m["numDeletedRows"] != "3" || m["numRemovedFiles"] != "2" {
						t.Errorf("metrics %v", m)
					}
				}
			}
			if removes != 2 {
				t.Errorf("%d removes, want 2 (the straddling file and the wholly matching one)", removes)
			}
		}},
		{name: "replaceWhere: a batch row outside the predicate fails the batch with DELTA_REPLACE_WHERE_MISMATCH, nothing committed; a fixed predicate commits it once", options: []string{"replaceWhere"}, run: func(t *testing.T) {
			base := map[string]string{"cloudFiles.inferColumnTypes": "true"}
			p := newPipe(t)
			p.write("1.json", `{"id":1}`+"\n"+`{"id":20}`+"\n")
			p.mustRun(base)
			before := p.snapshot().Version
			p.write("2.json", `{"id":21}`+"\n"+`{"id":3}`+"\n")
			opts := maps.Clone(base)
			opts["replaceWhere"] = "id > 10"
			_, err := p.run(opts)
			if !errors.Is(err, sink.ErrReplaceWhereMismatch) {
				t.Fatalf("run: %v, want ErrReplaceWhereMismatch", err)
			}
			for _, want := range []string{"[DELTA_REPLACE_WHERE_MISMATCH] Written data does not conform to partial table overwrite condition or constraint 'id > 10'.",
				"violated by row with values:\n - id : 3", "2.json"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q lacks %q", err, want)
				}
			}
			if v := p.snapshot().Version; v != before {
				t.Errorf("table at version %d after the refused batch, want %d", v, before)
			}
			if got := p.column("id"); !slices.Equal(got, []string{"1", "20"}) {
				t.Errorf("rows after the refused batch %v", got)
			}
			// The same batch again, with a predicate its rows satisfy.
			opts["replaceWhere"] = "id > 10 OR id = 3"
			p.mustRun(opts)
			if got := p.column("id"); !slices.Equal(got, []string{"1", "21", "3"}) {
				t.Errorf("rows %v, want [1 21 3]", got)
			}
			if v := p.snapshot().Version; v != before+1 {
				t.Errorf("%d commits, want 1", v-before)
			}
			p.mustRun(opts) // nothing new: nothing changes
			if v := p.snapshot().Version; v != before+1 {
				t.Errorf("a run without new files committed (version %d)", v)
			}
		}},
		{name: "replaceWhere: bad predicates and combinations are refused with the option's name", options: []string{"replaceWhere"}, run: func(t *testing.T) {
			p := newPipe(t)
			for _, opts := range []map[string]string{
				{"replaceWhere": "id ="},
				{"replaceWhere": "upper(v) = 'A'"},
				{"replaceWhere": "id = 1", "mergeKeys": "id"},
				{"replaceWhere": "id = 1", "outputMode": "complete", "overwriteSchema": "true"},
			} {
				if _, err := p.load(opts); !errors.Is(err, options.ErrInvalidOption) || !strings.Contains(err.Error(), "replaceWhere") {
					t.Errorf("load %v: %v, want an invalid replaceWhere", opts, err)
				}
			}
			p.write("1.json", `{"id":1}`+"\n")
			_, err := p.run(map[string]string{"replaceWhere": "nope = 1"})
			if err == nil || !strings.Contains(err.Error(), "option replaceWhere=nope = 1") || !strings.Contains(err.Error(), "column nope is not in the table") {
				t.Errorf("unknown column: %v", err)
			}
			if p.snapshot() != nil {
				t.Errorf("a table was created by a refused batch")
			}
		}},
		{name: "replaceWhere on a Delta-source stream: each batch replaces the sink's matching rows", options: []string{"replaceWhere"}, run: func(t *testing.T) {
			for _, where := range []string{"", "id < 100"} {
				s := newSilver(t)
				s.add(1, 2)
				s.mustRun(nil)
				s.add(3)
				opts := map[string]string{}
				if where != "" {
					opts["replaceWhere"] = where
				}
				s.mustRun(opts)
				want := []int{1, 2, 3}
				if where != "" {
					want = []int{3}
				}
				wantIDs(t, fmt.Sprintf("replaceWhere=%q", where), s.ids(), want...)
			}
			s := newSilver(t)
			s.add(1)
			s.add(500)
			if _, err := s.run(map[string]string{"replaceWhere": "id < 100"}); !errors.Is(err, sink.ErrReplaceWhereMismatch) {
				t.Errorf("Delta source, row outside the predicate: %v", err)
			}
			if s.out.snapshot() != nil {
				t.Errorf("the refused batch created the sink table")
			}
		}},
	}
}
