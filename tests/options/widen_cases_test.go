package options_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/maintenance"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/infra/localfs"
)

// seed002 are the options of seed 002's example: CSV with a header, typed
// inference.
func seed002(more map[string]string) map[string]string {
	o := map[string]string{"cloudFiles.format": "csv", "header": "true", "cloudFiles.inferColumnTypes": "true"}
	for k, v := range more {
		o[k] = v
	}
	return o
}

// fileStats returns the stats of the table's data files, in path order.
func fileStats(t *testing.T, p *pipe) []*delta.Stats {
	t.Helper()
	var out []*delta.Stats
	for a := range p.snapshot().Files() {
		st, err := a.ParseStats()
		if err != nil || st == nil {
			t.Fatalf("%s: stats %v, %v", a.Path, st, err)
		}
		out = append(out, st)
	}
	return out
}

// parquetFile writes one row of the DDL schema cols as a Parquet file.
func parquetFile(t *testing.T, cols string, row []any) []byte {
	t.Helper()
	st, err := schema.ParseDDLType("STRUCT<" + cols + ">")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, err := parquetio.NewWriter(&b, st.(*schema.StructType), parquetio.WriterOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([][]any{row}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// widenCases are the behavioural cases of the widen area's options (owner:
// helper widen): type widening and the Delta table properties.
func widenCases() []optionCase {
	return []optionCase{
		{name: "addNewColumnsWithTypeWidening: seed 002 widens id INT to BIGINT (typeWidening feature, delta.typeChanges), stops once, then ingests Bob whole", options: []string{"cloudFiles.schemaEvolutionMode", "delta.enableTypeWidening"}, run: func(t *testing.T) {
			opts := seed002(map[string]string{"cloudFiles.schemaEvolutionMode": "addNewColumnsWithTypeWidening", "delta.enableTypeWidening": "true"})
			p := newPipe(t)
			p.write("1.csv", "id,name\n1,John\n2,Mary\n")
			p.mustRun(opts)
			p.write("2.csv", "id,name,age\n2147483648,Bob,25\n")
			if _, err := p.run(opts); !errors.Is(err, ingest.ErrSchemaEvolved) || !strings.Contains(err.Error(), "id: integer -> long") || !strings.Contains(err.Error(), "2.csv") {
				t.Fatalf("run 2: %v, want the schema evolved (id widened, age added) naming 2.csv", err)
			}
			p.mustRun(opts)
			if got, want := p.schema(), []string{"id BIGINT", "name STRING", "age INT", "_rescued_data STRING"}; !reflect.DeepEqual(got, want) {
				t.Errorf("schema %v, want %v", got, want)
			}
			if got, want := fmt.Sprint(p.column("id")), "[1 2 2147483648]"; got != want {
				t.Errorf("id %s, want %s", got, want)
			}
			if got := fmt.Sprint(p.column("_rescued_data")); got != "[null null null]" {
				t.Errorf("rescued %s, want nothing rescued", got)
			}
			snap := p.snapshot()
			if !snap.Protocol.HasReaderFeature(delta.FeatureTypeWidening) || !snap.Protocol.HasWriterFeature(delta.FeatureTypeWidening) {
				t.Errorf("protocol %+v, want the typeWidening reader-writer feature", snap.Protocol)
			}
			md := snap.Schema().Fields[0].Metadata
			if got := fmt.Sprint(md["delta.typeChanges"]); got != "[map[fromType:integer toType:long]]" {
				t.Errorf("id's delta.typeChanges %s", got)
			}
			// addNewColumns on the same files: id stays INT, Bob's id rescued.
			q := newPipe(t)
			q.write("1.csv", "id,name\n1,John\n2,Mary\n")
			q.mustRun(seed002(nil))
			q.write("2.csv", "id,name,age\n2147483648,Bob,25\n")
			q.run(seed002(nil))
			q.mustRun(seed002(nil))
			if got := q.schema()[0]; got != "id INT" {
				t.Errorf("addNewColumns: %s, want id INT", got)
			}
		}},
		{name: "addNewColumnsWithTypeWidening (parquet): int -> long, date -> timestamp_ntz, float -> double from the footers; a change that is no widening (CSV: INT meets text) stays rescued without a stop", options: []string{"cloudFiles.schemaEvolutionMode"}, run: func(t *testing.T) {
			opts := map[string]string{"cloudFiles.format": "parquet", "cloudFiles.schemaEvolutionMode": "addNewColumnsWithTypeWidening", "delta.enableTypeWidening": "true"}
			p := newPipe(t)
			p.writeBytes("1.parquet", parquetFile(t, "id INT, d DATE, f FLOAT", []any{int32(1), schema.Date(19723), float32(1.5)}))
			p.mustRun(opts)
			p.writeBytes("2.parquet", parquetFile(t, "id BIGINT, d TIMESTAMP_NTZ, f DOUBLE", []any{int64(2147483648), time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), 1e300}))
			if _, err := p.run(opts); !errors.Is(err, ingest.ErrSchemaEvolved) || !strings.Contains(err.Error(), "d: date -> timestamp_ntz") {
				t.Fatalf("run 2: %v, want id, d and f widened", err)
			}
			p.mustRun(opts)
			if got, want := p.schema(), []string{"id BIGINT", "d TIMESTAMP_NTZ", "f DOUBLE", "_rescued_data STRING"}; !reflect.DeepEqual(got, want) {
				t.Errorf("schema %v, want %v", got, want)
			}
			var changes []string
			for _, f := range p.snapshot().Schema().Fields {
				if tc, ok := f.Metadata["delta.typeChanges"]; ok {
					changes = append(changes, f.Name+fmt.Sprint(tc))
				}
			}
			if got := strings.Join(changes, " "); got != "id[map[fromType:integer toType:long]] d[map[fromType:date toType:timestamp_ntz]] f[map[fromType:float toType:double]]" {
				t.Errorf("typeChanges %s", got)
			}
			// CSV: date -> timestamp_ntz is Parquet only (the CSV reader
			// reads the timestamp text as its date, as Spark's date parser
			// does), INT -> STRING is no widening.
			csv := seed002(map[string]string{"cloudFiles.schemaEvolutionMode": "addNewColumnsWithTypeWidening", "delta.enableTypeWidening": "true"})
			q := newPipe(t)
			q.write("1.csv", "id,d\n1,2024-01-01\n")
			q.mustRun(csv)
			q.write("2.csv", "id,d\nabc,2024-01-02T03:04:05\n")
			sum := q.mustRun(csv) // no stop: nothing widens
			if got, want := q.schema(), []string{"id INT", "d DATE", "_rescued_data STRING"}; !reflect.DeepEqual(got, want) || sum.Rows() != 1 {
				t.Errorf("csv: schema %v (rows %d), want %v", got, sum.Rows(), want)
			}
			if got := strings.Join(q.column("_rescued_data"), " "); !strings.Contains(got, `"id":"abc"`) {
				t.Errorf("csv: rescued %s", got)
			}
		}},
		{name: "delta.enableTypeWidening: a widening on a table without it fails naming the property and the file, changes nothing; set later, a metaData commit enables it", options: []string{"delta.enableTypeWidening"}, run: func(t *testing.T) {
			opts := seed002(map[string]string{"cloudFiles.schemaEvolutionMode": "addNewColumnsWithTypeWidening"})
			p := newPipe(t)
			p.write("1.csv", "id,name\n1,John\n")
			p.mustRun(opts)
			p.write("2.csv", "id,name\n2147483648,Bob\n")
			for range 2 {
				_, err := p.run(opts)
				if !errors.Is(err, ingest.ErrTypeWideningOff) || !strings.Contains(err.Error(), "delta.enableTypeWidening") || !strings.Contains(err.Error(), "2.csv") {
					t.Fatalf("run without delta.enableTypeWidening: %v", err)
				}
			}
			if v := p.snapshot().Version; v != 0 {
				t.Fatalf("table at version %d, want nothing committed", v)
			}
			opts["delta.enableTypeWidening"] = "true"
			opts["mergeSchema"] = "false"
			if _, err := p.run(opts); !errors.Is(err, ingest.ErrMergeSchemaOff) || !strings.Contains(err.Error(), "id: integer -> long") {
				t.Fatalf("mergeSchema=false: %v, want the widening refused", err)
			}
			delete(opts, "mergeSchema")
			if _, err := p.run(opts); !errors.Is(err, ingest.ErrSchemaEvolved) {
				t.Fatalf("run with the property: %v, want the schema to evolve", err)
			}
			p.mustRun(opts)
			snap := p.snapshot()
			if on, err := snap.TypeWideningEnabled(); !on || err != nil || !snap.Protocol.HasReaderFeature(delta.FeatureTypeWidening) {
				t.Errorf("enableTypeWidening %v %v, protocol %+v", on, err, snap.Protocol)
			}
			if got := fmt.Sprint(p.column("id")); got != "[1 2147483648]" {
				t.Errorf("id %s", got)
			}
		}},
		{name: "failOnNewColumns: fails naming the column and the file, again on restart, until the schema has the column (schemaHints) or the file is removed", options: []string{"cloudFiles.schemaEvolutionMode"}, run: func(t *testing.T) {
			for _, fix := range []string{"hint", "remove"} {
				opts := seed002(map[string]string{"cloudFiles.schemaEvolutionMode": "failOnNewColumns"})
				p := newPipe(t)
				p.write("1.csv", "id,name\n1,John\n2,Mary\n")
				p.mustRun(opts)
				bob := p.write("2.csv", "id,name,age\n2147483648,Bob,25\n")
				for range 2 {
					_, err := p.run(opts)
					if !errors.Is(err, ingest.ErrNewColumns) || !strings.Contains(err.Error(), "2.csv") || !strings.Contains(err.Error(), "age") {
						t.Fatalf("%s: %v, want a failure naming age and 2.csv", fix, err)
					}
				}
				if v := p.snapshot().Version; v != 0 {
					t.Fatalf("%s: table at version %d, want nothing committed", fix, v)
				}
				switch fix {
				case "hint":
					opts["cloudFiles.schemaHints"] = "age INT"
					p.mustRun(opts)
					if got, want := fmt.Sprint(p.column("age")), "[25 null null]"; got != want {
						t.Errorf("hint: age %s, want %s", got, want)
					}
				case "remove":
					if err := os.Remove(bob); err != nil {
						t.Fatal(err)
					}
					opts["ignoreMissingFiles"] = "true"
					p.mustRun(opts)
					if got, want := fmt.Sprint(p.column("name")), "[John Mary]"; got != want {
						t.Errorf("remove: names %s, want %s", got, want)
					}
				}
				p.write("3.csv", "id,name\n3,Ann\n")
				p.mustRun(opts)
				if got := len(p.rows()); got != map[string]int{"hint": 4, "remove": 3}[fix] {
					t.Errorf("%s: %d rows after the next file", fix, got)
				}
			}
		}},
		{name: "delta.checkpointInterval: a checkpoint every N commits, set on a new table and changed later by a metaData action", options: []string{"delta.checkpointInterval"}, run: func(t *testing.T) {
			p := newPipe(t)
			for i := range 3 {
				p.write(fmt.Sprintf("%d.json", i), fmt.Sprintf(`{"a":%d}`, i))
			}
			opts := map[string]string{"cloudFiles.maxFilesPerTrigger": "1", "delta.checkpointInterval": "2"}
			p.mustRun(opts)
			if _, err := os.Stat(filepath.Join(p.table, filepath.FromSlash(delta.CheckpointKey(2)))); err != nil {
				t.Errorf("no checkpoint at version 2 with interval 2: %v", err)
			}
			if n, _ := p.snapshot().CheckpointInterval(); n != 2 {
				t.Errorf("interval %d", n)
			}
			q := newPipe(t)
			for i := range 3 {
				q.write(fmt.Sprintf("%d.json", i), fmt.Sprintf(`{"a":%d}`, i))
			}
			q.mustRun(map[string]string{"cloudFiles.maxFilesPerTrigger": "1"})
			if _, err := os.Stat(filepath.Join(q.table, filepath.FromSlash(delta.CheckpointKey(2)))); err == nil {
				t.Errorf("a checkpoint at version 2 without the property (default 10)")
			}
			q.write("3.json", `{"a":3}`)
			q.mustRun(map[string]string{"delta.checkpointInterval": "3"})
			if n, _ := q.snapshot().CheckpointInterval(); n != 3 {
				t.Errorf("changed interval %d, want 3", n)
			}
			if _, err := os.Stat(filepath.Join(q.table, filepath.FromSlash(delta.CheckpointKey(3)))); err != nil {
				t.Errorf("no checkpoint at version 3 after changing the interval to 3: %v", err)
			}
		}},
		{name: "delta.appendOnly: the table refuses a commit that removes data", options: []string{"delta.appendOnly"}, run: func(t *testing.T) {
			for _, on := range []bool{true, false} {
				p := newPipe(t)
				p.write("1.json", `{"a":1}`)
				opts := map[string]string{}
				if on {
					opts["delta.appendOnly"] = "true"
				}
				p.mustRun(opts)
				snap := p.snapshot()
				var path string
				for a := range snap.Files() {
					path = a.Path
				}
				store, err := localfs.New(p.table)
				if err != nil {
					t.Fatal(err)
				}
				_, err = delta.NewTable(store).CommitSnapshot(t.Context(), snap, []delta.Action{{Remove: &delta.Remove{Path: path, DataChange: true, DeletionTimestamp: time.Now().UnixMilli()}}})
				if on && (!errors.Is(err, delta.ErrInvalidCommit) || !strings.Contains(err.Error(), "append-only")) {
					t.Errorf("appendOnly: remove commit %v, want refused", err)
				}
				if !on && err != nil {
					t.Errorf("default: remove commit %v, want accepted", err)
				}
			}
		}},
		{name: "delta.logRetentionDuration, delta.deletedFileRetentionDuration: the table carries them for log cleanup and VACUUM; months refused", options: []string{"delta.logRetentionDuration", "delta.deletedFileRetentionDuration"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.write("1.json", `{"a":1}`)
			p.mustRun(map[string]string{"delta.logRetentionDuration": "interval 2 days", "delta.deletedFileRetentionDuration": "36 hours"})
			snap := p.snapshot()
			lr, err1 := snap.LogRetentionDuration()
			dr, err2 := snap.DeletedFileRetentionDuration()
			if lr != 48*time.Hour || dr != 36*time.Hour || err1 != nil || err2 != nil {
				t.Errorf("retention %v %v (%v %v), config %v", lr, dr, err1, err2, snap.Configuration())
			}
			q := newPipe(t)
			q.write("1.json", `{"a":1}`)
			q.mustRun(nil)
			if lr, _ := q.snapshot().LogRetentionDuration(); lr != delta.DefaultLogRetentionDuration {
				t.Errorf("default log retention %v", lr)
			}
			if _, err := q.run(map[string]string{"delta.logRetentionDuration": "interval 1 month"}); err == nil || !strings.Contains(err.Error(), "delta.logRetentionDuration") {
				t.Errorf("months: %v, want refused naming the option", err)
			}
		}},
		{name: "delta.logRetentionDuration, delta.deletedFileRetentionDuration: log cleanup and VACUUM keep history and removed files for the table's durations", options: []string{"delta.logRetentionDuration", "delta.deletedFileRetentionDuration"}, run: func(t *testing.T) {
			for _, set := range []bool{true, false} {
				p := newPipe(t)
				opts := map[string]string{"delta.checkpointInterval": "2", "outputMode": "complete"}
				if set {
					opts["delta.logRetentionDuration"] = "interval 2 days"
					opts["delta.deletedFileRetentionDuration"] = "36 hours"
				}
				for i := range 3 { // versions 0, 1, 2 (checkpointed); each replaces the last's file
					p.write(fmt.Sprintf("%d.json", i), fmt.Sprintf(`{"a":%d}`, i))
					p.mustRun(opts)
				}
				store, err := localfs.New(p.table)
				if err != nil {
					t.Fatal(err)
				}
				tbl := delta.NewTable(store)
				later := func(d time.Duration) maintenance.Options {
					return maintenance.Options{Now: func() time.Time { return time.Now().Add(d) }}
				}
				lc, err := maintenance.CleanupLog(t.Context(), tbl, maintenance.LogCleanupOptions{Options: later(3 * 24 * time.Hour), DryRun: true})
				if err != nil {
					t.Fatal(err)
				}
				if set != (len(lc.Files) > 0) {
					t.Errorf("logRetentionDuration set=%v: log cleanup 3 days later would delete %v", set, lc.Files)
				}
				vac, err := maintenance.Vacuum(t.Context(), tbl, maintenance.VacuumOptions{Options: later(40 * time.Hour), DryRun: true})
				if err != nil {
					t.Fatal(err)
				}
				if set != (len(vac.Files) == 2) || !set && len(vac.Files) != 0 {
					t.Errorf("deletedFileRetentionDuration set=%v: VACUUM 40 hours later would delete %v, want the 2 replaced files only when set", set, vac.Files)
				}
				retain := 48 * time.Hour
				_, err = maintenance.Vacuum(t.Context(), tbl, maintenance.VacuumOptions{Retention: &retain, DryRun: true})
				if set != (err == nil) || !set && !errors.Is(err, maintenance.ErrRetentionTooShort) {
					t.Errorf("deletedFileRetentionDuration set=%v: VACUUM RETAIN 48 HOURS: %v (refused only below the table's retention)", set, err)
				}
			}
		}},
		{name: "delta.dataSkippingNumIndexedCols, delta.dataSkippingStatsColumns: which columns the data files' stats cover", options: []string{"delta.dataSkippingNumIndexedCols", "delta.dataSkippingStatsColumns"}, run: func(t *testing.T) {
			data := `{"a":1,"b":"x","c":{"d":2.5,"e":"y"}}` + "\n" + `{"a":3,"b":"z","c":{"d":1.5,"e":null}}` + "\n"
			for _, tc := range []struct {
				opts        map[string]string
				mins, nulls string
			}{
				{nil, "[a b c]", "[_rescued_data a b c]"},
				{map[string]string{"delta.dataSkippingNumIndexedCols": "1"}, "[a]", "[a]"},
				{map[string]string{"delta.dataSkippingNumIndexedCols": "0"}, "[]", "[]"},
				{map[string]string{"delta.dataSkippingStatsColumns": "b, c.e"}, "[b c]", "[b c]"},
			} {
				p := newPipe(t)
				p.write("1.json", data)
				opts := map[string]string{"cloudFiles.inferColumnTypes": "true"} // c is a struct
				for k, v := range tc.opts {
					opts[k] = v
				}
				p.mustRun(opts)
				st := fileStats(t, p)
				if len(st) != 1 || st[0].NumRecords != 2 {
					t.Fatalf("%v: stats %+v", tc.opts, st)
				}
				if got := fmt.Sprint(keysOf(st[0].MinValues)); got != tc.mins {
					t.Errorf("%v: minValues columns %s, want %s", tc.opts, got, tc.mins)
				}
				if got := fmt.Sprint(keysOf(st[0].NullCount)); got != tc.nulls {
					t.Errorf("%v: nullCount columns %s, want %s", tc.opts, got, tc.nulls)
				}
				if c, ok := st[0].MinValues["c"].(map[string]any); tc.opts["delta.dataSkippingStatsColumns"] != "" && (!ok || fmt.Sprint(keysOf(c)) != "[e]") {
					t.Errorf("stats columns: c's minValues %v, want e only", st[0].MinValues["c"])
				}
			}
		}},
	}
}
