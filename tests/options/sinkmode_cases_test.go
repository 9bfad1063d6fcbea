package options_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/infra/localfs"
)

// sinkmodeCases are the behavioural cases of the sinkmode area's options.
func sinkmodeCases() []optionCase {
	return []optionCase{
		{name: "outputMode complete replaces the table's rows with each batch's", options: []string{"outputMode"}, run: func(t *testing.T) {
			for _, mode := range []string{"append", "complete"} {
				p := newPipe(t)
				opts := map[string]string{"outputMode": mode}
				p.write("1.json", `{"a":"1"}`+"\n"+`{"a":"2"}`+"\n")
				p.mustRun(opts)
				p.write("2.json", `{"a":"3"}`+"\n")
				p.mustRun(opts)
				want := []string{"1", "2", "3"}
				if mode == "complete" {
					want = []string{"3"}
				}
				if got := p.column("a"); !slices.Equal(got, want) {
					t.Errorf("outputMode=%s: rows %v, want %v", mode, got, want)
				}
				acts := lastCommit(t, p)
				removes, adds := 0, 0
				for _, a := range acts {
					if a.Remove != nil {
						removes++
						if !a.Remove.DataChange {
							t.Errorf("outputMode=%s: remove %s without dataChange", mode, a.Remove.Path)
						}
					}
					if a.Add != nil {
						adds++
					}
					if a.CommitInfo != nil && mode == "complete" && a.CommitInfo.OperationParameters["outputMode"] != "Complete" {
						t.Errorf("outputMode=complete: commitInfo %v", a.CommitInfo.OperationParameters)
					}
				}
				if wantRemoves := map[string]int{"append": 0, "complete": 1}[mode]; removes != wantRemoves || adds != 1 {
					t.Errorf("outputMode=%s: second commit has %d removes and %d adds, want %d and 1", mode, removes, adds, wantRemoves)
				}
			}
		}},
		{name: "mergeKeys upserts: a key arriving in three batches is held once with its last value", options: []string{"mergeKeys", "outputMode"}, run: func(t *testing.T) {
			batches := []string{
				`{"id":1,"v":"a"}` + "\n" + `{"id":2,"v":"a"}` + "\n" + `{"id":null,"v":"n1"}` + "\n",
				`{"id":1,"v":"b"}` + "\n",
				`{"id":1,"v":"c"}` + "\n" + `{"id":3,"v":"c"}` + "\n" + `{"id":1,"v":"d"}` + "\n" + `{"id":null,"v":"n2"}` + "\n",
			}
			for _, opts := range []map[string]string{
				{"cloudFiles.maxFilesPerTrigger": "1"},
				{"cloudFiles.maxFilesPerTrigger": "1", "mergeKeys": "id"},
				{"cloudFiles.maxFilesPerTrigger": "1", "mergeKeys": "ID", "outputMode": "update"},
			} {
				p := newPipe(t)
				for i, b := range batches {
					p.write(string(rune('a'+i))+".json", b)
				}
				sum := p.mustRun(opts)
				if len(sum.Batches) != 3 {
					t.Fatalf("%v: %d batches, want 3", opts, len(sum.Batches))
				}
				var got []string
				for _, r := range p.rows() {
					got = append(got, fmtValue(r["id"])+"="+fmtValue(r["v"]))
				}
				slices.Sort(got)
				want := []string{"1=a", "1=b", "1=c", "1=d", "2=a", "3=c", "null=n1", "null=n2"}
				if opts["mergeKeys"] != "" {
					// NULL keys never match (SQL): both are inserted.
					want = []string{"1=d", "2=a", "3=c", "null=n1", "null=n2"}
				}
				if !slices.Equal(got, want) {
					t.Errorf("%v: rows %v, want %v", opts, got, want)
				}
				if opts["mergeKeys"] != "" {
					for _, a := range lastCommit(t, p) {
						if a.CommitInfo != nil && (a.CommitInfo.Operation != "MERGE" || a.CommitInfo.OperationMetrics["numTargetRowsUpdated"] != "1") {
							t.Errorf("%v: last commitInfo %s %v, want MERGE updating 1 row", opts, a.CommitInfo.Operation, a.CommitInfo.OperationMetrics)
						}
					}
				}
			}
			// A key column the data lacks fails the batch naming the option;
			// with complete, mergeKeys is refused.
			p := newPipe(t)
			p.write("a.json", `{"id":1}`+"\n")
			if _, err := p.run(map[string]string{"mergeKeys": "nope"}); err == nil || !strings.Contains(err.Error(), "mergeKeys") || !strings.Contains(err.Error(), "nope") {
				t.Errorf("unknown key column: %v", err)
			}
			if _, err := p.load(map[string]string{"mergeKeys": "id", "outputMode": "complete"}); !errors.Is(err, options.ErrInvalidOption) {
				t.Errorf("mergeKeys with complete: %v", err)
			}
		}},
		{name: "overwriteSchema: a complete overwrite drops the columns the stream lacks; without it they are kept", options: []string{"overwriteSchema"}, run: func(t *testing.T) {
			for _, ow := range []bool{false, true} {
				p := newPipe(t)
				opts := map[string]string{"outputMode": "complete"}
				if ow {
					opts["overwriteSchema"] = "true"
				}
				p.write("1.json", `{"a":"1"}`+"\n")
				p.mustRun(opts)
				otherWriterAppend(t, p, "extra", `{"a":"other","extra":"x"}`)
				p.write("2.json", `{"a":"2"}`+"\n")
				p.mustRun(opts)
				hasExtra := slices.Contains(p.schema(), "extra STRING")
				if hasExtra == ow {
					t.Errorf("overwriteSchema=%v: schema %v", ow, p.schema())
				}
				if got := p.column("a"); !slices.Equal(got, []string{"2"}) {
					t.Errorf("overwriteSchema=%v: rows %v, want the last batch's", ow, got)
				}
			}
			p := newPipe(t)
			if _, err := p.load(map[string]string{"overwriteSchema": "true"}); !errors.Is(err, options.ErrInvalidOption) || !strings.Contains(err.Error(), "complete") {
				t.Errorf("overwriteSchema with append: %v, want refused naming complete", err)
			}
		}},
		{name: "a Delta-source stream (bronze -> silver) upserts by mergeKeys and replaces its sink with outputMode complete", options: []string{"mergeKeys", "outputMode", "overwriteSchema"}, run: func(t *testing.T) {
			for _, mode := range []string{"append", "mergeKeys", "complete", "overwriteSchema"} {
				s := newSilver(t)
				opts := map[string]string{"maxFilesPerTrigger": "1"}
				switch mode {
				case "mergeKeys":
					opts["mergeKeys"] = "id"
				case "complete":
					opts["outputMode"] = "complete"
				case "overwriteSchema":
					opts["outputMode"], opts["overwriteSchema"] = "complete", "true"
				}
				s.bronze.write("1.json", `{"id":1,"v":"a"}`+"\n"+`{"id":2,"v":"a"}`+"\n")
				s.bronze.mustRun(nil)
				s.mustRun(opts)
				if mode == "overwriteSchema" || mode == "complete" {
					otherWriterAppend(t, s.out, "extra", `{"id":"9","v":"other","extra":"x"}`)
				}
				s.bronze.write("2.json", `{"id":1,"v":"b"}`+"\n")
				s.bronze.mustRun(nil)
				s.bronze.write("3.json", `{"id":1,"v":"c"}`+"\n"+`{"id":3,"v":"c"}`+"\n")
				s.bronze.mustRun(nil)
				if sum := s.mustRun(opts); len(sum.Batches) != 2 {
					t.Fatalf("%s: %d batches, want 2", mode, len(sum.Batches))
				}
				var got []string
				for _, r := range s.out.rows() {
					got = append(got, fmtValue(r["id"])+"="+fmtValue(r["v"]))
				}
				slices.Sort(got)
				want := map[string][]string{
					"append":          {"1=a", "1=b", "1=c", "2=a", "3=c"},
					"mergeKeys":       {"1=c", "2=a", "3=c"},
					"complete":        {"1=c", "3=c"},
					"overwriteSchema": {"1=c", "3=c"},
				}[mode]
				if !slices.Equal(got, want) {
					t.Errorf("%s: silver rows %v, want %v", mode, got, want)
				}
				if hasExtra := slices.Contains(s.out.schema(), "extra STRING"); hasExtra != (mode == "complete") {
					t.Errorf("%s: silver schema %v", mode, s.out.schema())
				}
			}
		}},
		{name: "partitionBy partitions the table by data columns (NULL and '' to __HIVE_DEFAULT_PARTITION__)", options: []string{"partitionBy"}, run: func(t *testing.T) {
			for _, by := range []string{"", "country", "country,n"} {
				p := newPipe(t)
				opts := map[string]string{"cloudFiles.inferColumnTypes": "true"}
				if by != "" {
					opts["partitionBy"] = by
				}
				p.write("1.json", `{"id":1,"country":"fr","n":1}`+"\n"+`{"id":2,"country":"de","n":1}`+"\n"+`{"id":3,"country":null,"n":2}`+"\n"+`{"id":4,"country":"","n":2}`+"\n"+`{"id":5,"country":"fr","n":2}`+"\n")
				p.mustRun(opts)
				snap := p.snapshot()
				wantParts := map[string][]string{"": {}, "country": {"country"}, "country,n": {"country", "n"}}[by]
				if !slices.Equal(snap.Metadata.PartitionColumns, wantParts) {
					t.Errorf("partitionBy=%q: partition columns %v", by, snap.Metadata.PartitionColumns)
				}
				dirs := map[string]bool{}
				for a := range snap.Files() {
					key, _ := delta.ObjectKey(a.Path)
					dirs[filepath.Dir(key)] = true
					if by != "" && a.PartitionValues["country"] == nil && !strings.Contains(key, "country=__HIVE_DEFAULT_PARTITION__/") {
						t.Errorf("partitionBy=%q: NULL country file %s", by, key)
					}
				}
				wantDirs := map[string]int{"": 1, "country": 3, "country,n": 4}[by]
				if len(dirs) != wantDirs {
					t.Errorf("partitionBy=%q: data directories %v, want %d", by, dirs, wantDirs)
				}
				var got []string
				for _, r := range p.rows() {
					got = append(got, fmtValue(r["id"])+"="+fmtValue(r["country"]))
				}
				slices.Sort(got)
				want := []string{"1=fr", "2=de", "3=null", "4=", "5=fr"}
				if by != "" {
					want[3] = "4=null" // Spark writes an empty partition value as NULL
				}
				if !slices.Equal(got, want) {
					t.Errorf("partitionBy=%q: rows %v, want %v", by, got, want)
				}
			}
			p := newPipe(t)
			if _, err := p.load(map[string]string{"partitionBy": "country", "mergeKeys": "id"}); err == nil || !strings.Contains(err.Error(), "country") {
				t.Errorf("partitionBy outside mergeKeys: %v, want refused naming the column", err)
			}
			if _, err := p.load(map[string]string{"partitionBy": "d", "cloudFiles.partitionColumns": "d"}); !errors.Is(err, options.ErrInvalidOption) {
				t.Errorf("partitionBy repeating cloudFiles.partitionColumns: %v", err)
			}
		}},
		{name: "an append adopts a nullable column another writer added (its rows read NULL there)", options: []string{"outputMode"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.write("1.json", `{"a":"1"}`+"\n")
			p.mustRun(nil)
			otherWriterAppend(t, p, "extra", `{"a":"other","extra":"x"}`)
			p.write("2.json", `{"a":"2"}`+"\n")
			p.mustRun(nil)
			p.write("3.json", `{"a":"3"}`+"\n")
			p.mustRun(nil)
			if got := p.schema(); !slices.Contains(got, "extra STRING") {
				t.Errorf("schema %v lost the other writer's column", got)
			}
			var got []string
			for _, r := range p.rows() {
				got = append(got, fmtValue(r["a"])+"="+fmtValue(r["extra"]))
			}
			slices.Sort(got)
			if want := []string{"1=null", "2=null", "3=null", "other=x"}; !slices.Equal(got, want) {
				t.Errorf("rows %v, want %v", got, want)
			}
		}},
	}
}

// lastCommit returns the actions of the table's latest commit.
func lastCommit(t *testing.T, p *pipe) []delta.Action {
	t.Helper()
	store, err := localfs.New(p.table)
	if err != nil {
		t.Fatal(err)
	}
	tbl := delta.NewTable(store)
	v, err := tbl.LatestVersion(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	acts, err := tbl.ReadCommit(t.Context(), v)
	if err != nil {
		t.Fatal(err)
	}
	return acts
}

// otherWriterAppend commits, as another writer (delta-rs with
// schema_mode="merge") would, one row given as JSON of string columns that
// adds the nullable string column col to the table's schema.
func otherWriterAppend(t *testing.T, p *pipe, col, rowJSON string) {
	t.Helper()
	snap := p.snapshot()
	st := snap.Schema().Clone()
	st.Fields = append(st.Fields, schema.Field{Name: col, Type: schema.String, Nullable: true})
	data := dataColumns(st, snap.Metadata.PartitionColumns)
	row := make([]any, len(data.Fields))
	for i, f := range data.Fields {
		if v := jsonField(rowJSON, f.Name); v != "" {
			row[i] = v
		}
	}
	var buf bytes.Buffer
	w, err := parquetio.NewWriter(&buf, data, parquetio.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([][]any{row}); err != nil {
		t.Fatal(err)
	}
	stats, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	name := "part-00000-" + uuid.NewString() + "-c000.snappy.parquet"
	if err := os.WriteFile(filepath.Join(p.table, name), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	js, _ := stats.JSON()
	md := snap.Metadata
	if md.SchemaString, err = schema.MarshalDeltaJSON(st); err != nil {
		t.Fatal(err)
	}
	_, err = snap.Table().CommitSnapshot(t.Context(), snap, []delta.Action{
		{CommitInfo: &delta.CommitInfo{Operation: "WRITE", OperationParameters: map[string]any{"mode": "Append"}, EngineInfo: "delta-rs:test"}},
		{Metadata: &md},
		{Add: &delta.Add{Path: name, PartitionValues: map[string]*string{}, Size: int64(buf.Len()), ModificationTime: 1, DataChange: true, Stats: js}},
	})
	if err != nil {
		t.Fatalf("other writer's commit: %v", err)
	}
}

// dataColumns is st without the partition columns.
func dataColumns(st *schema.StructType, parts []string) *schema.StructType {
	out := &schema.StructType{}
	for _, f := range st.Fields {
		if !slices.Contains(parts, f.Name) {
			out.Fields = append(out.Fields, f)
		}
	}
	return out
}

// jsonField extracts a string field from a flat JSON object of strings.
func jsonField(obj, name string) string {
	key := `"` + name + `":"`
	i := strings.Index(obj, key)
	if i < 0 {
		return ""
	}
	rest := obj[i+len(key):]
	return rest[:strings.IndexByte(rest, '"')]
}
