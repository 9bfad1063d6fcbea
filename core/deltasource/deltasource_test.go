package deltasource

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/scan"
	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

const testdataRoot = "../../../shared/testdata/delta"

// loadDir copies a directory tree into a memory store.
func loadDir(t *testing.T, dir string) *memstore.Store {
	t.Helper()
	st := memstore.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return st.Put(context.Background(), filepath.ToSlash(rel), bytes.NewReader(data))
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// newSource is a stream from src into a new sink with a new checkpoint.
func newSource(t *testing.T, src objstore.Store, d options.DeltaSource) *Source {
	t.Helper()
	if d.MaxFilesPerTrigger == 0 {
		d.MaxFilesPerTrigger = 1000
	}
	return &Source{
		Config:     Config{StreamID: "silver", SourceURI: "mem://bronze", Delta: d},
		Table:      delta.NewTable(src),
		Sink:       delta.NewTable(memstore.New()),
		Checkpoint: memstore.New(),
		Logger:     quiet(),
		TempDir:    t.TempDir(),
	}
}

// again returns a new Source over the same stores (a new process).
func (s *Source) again() *Source {
	return &Source{Config: s.Config, Table: s.Table, Sink: s.Sink, Checkpoint: s.Checkpoint, Logger: s.Logger, TempDir: s.TempDir, Fault: s.Fault}
}

// sinkRows renders the sink's live rows, sorted.
func sinkRows(t *testing.T, sink *delta.Table) []string {
	t.Helper()
	var out []string
	snap, err := sink.Snapshot(context.Background())
	if errors.Is(err, delta.ErrNotATable) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := scan.Rows(context.Background(), snap, func(fr scan.FileRows) error {
		for _, r := range fr.Rows {
			out = append(out, render(r, snap.Schema()))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// render prints a row canonically: fields by lower-cased name, sorted.
func render(v any, t schema.Type) string {
	if v == nil {
		return "null"
	}
	switch tt := t.(type) {
	case *schema.StructType:
		vals := v.([]any)
		parts := make([]string, len(tt.Fields))
		for i, f := range tt.Fields {
			parts[i] = strings.ToLower(f.Name) + ":" + render(vals[i], f.Type)
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ",") + "}"
	case *schema.ArrayType:
		vals := v.([]any)
		parts := make([]string, len(vals))
		for i, e := range vals {
			parts[i] = render(e, tt.Element)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *schema.MapType:
		ents := v.([]schema.MapEntry)
		parts := make([]string, len(ents))
		for i, e := range ents {
			parts[i] = render(e.Key, tt.Key) + "=>" + render(e.Value, tt.Value)
		}
		sort.Strings(parts)
		return "map(" + strings.Join(parts, ",") + ")"
	}
	switch x := v.(type) {
	case schema.Decimal:
		r := new(big.Rat).SetFrac(x.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil))
		return "dec:" + r.RatString()
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case []byte:
		return fmt.Sprintf("0x%x", x)
	}
	return fmt.Sprintf("%v", v)
}

// expectedRows reads the expected/ Parquet files beside a golden table.
func expectedRows(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	var out []string
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		st, rows, err := parquetio.ReadFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("expected rows %s: %v", p, err)
		}
		for _, r := range rows {
			out = append(out, render(r, st))
		}
	}
	sort.Strings(out)
	return out
}

// TestDVAndColumnMappingTables streams every Spark-written golden table
// with expected rows (among them the deletion vector and column mapping
// tables) into a sink and compares the
// sink's rows with the table's expected rows: rows a deletion vector
// removes never reach the sink, columns are resolved by physical name or
// field id.
func TestDVAndColumnMappingTables(t *testing.T) {
	exps, err := filepath.Glob(filepath.Join(testdataRoot, "spark-golden", "*", "*", "expected"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, exp := range exps {
		name := filepath.Base(filepath.Dir(exp))
		t.Run(name, func(t *testing.T) {
			src := loadDir(t, filepath.Join(filepath.Dir(exp), "delta"))
			s := newSource(t, src, options.DeltaSource{MaxFilesPerTrigger: 2, FailOnDataLoss: true})
			sum, err := s.RunAvailableNow(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			got, want := sinkRows(t, s.Sink), expectedRows(t, exp)
			if !slices.Equal(got, want) {
				t.Errorf("sink rows (%d batches):\n got %d %v\nwant %d %v", len(sum.Batches), len(got), head(got), len(want), head(want))
			}
			checked++
		})
	}
	// delta-rs's column-mapping table has no expected rows: the source
	// must deliver exactly what the table's own scan reads.
	for _, rel := range []string{"delta-rs/table_with_column_mapping", "kernel/table-with-dv-small", "kernel/with-short-dv"} {
		t.Run(rel, func(t *testing.T) {
			src := loadDir(t, filepath.Join(testdataRoot, rel))
			s := newSource(t, src, options.DeltaSource{FailOnDataLoss: true})
			if _, err := s.RunAvailableNow(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			got := sinkRows(t, s.Sink)
			want := sinkRows(t, s.Table)
			if !slices.Equal(got, want) || len(got) == 0 {
				t.Errorf("sink rows %d %v, table rows %d %v", len(got), head(got), len(want), head(want))
			}
			checked++
		})
	}
	if checked < 35 {
		t.Fatalf("only %d DV/column-mapping tables checked", checked)
	}
}

func head(s []string) []string {
	if len(s) > 4 {
		return s[:4]
	}
	return s
}

// bronze builds a source table in memory, one commit per call.
type bronze struct {
	t     *testing.T
	table *delta.Table
	store *memstore.Store
	n     int
}

var idSchema = &schema.StructType{Fields: []schema.Field{{Name: "id", Type: schema.Long, Nullable: true}}}

func newBronze(t *testing.T) *bronze {
	st := memstore.New()
	return &bronze{t: t, store: st, table: delta.NewTable(st)}
}

// add commits one data file holding ids.
func (b *bronze) add(ids ...int64) string {
	b.t.Helper()
	var buf bytes.Buffer
	pw, err := parquetio.NewWriter(&buf, idSchema, parquetio.WriterOptions{})
	if err != nil {
		b.t.Fatal(err)
	}
	rows := make([][]any, len(ids))
	for i, id := range ids {
		rows[i] = []any{id}
	}
	if err := pw.Write(rows); err != nil {
		b.t.Fatal(err)
	}
	stats, err := pw.Close()
	if err != nil {
		b.t.Fatal(err)
	}
	js, _ := stats.JSON()
	key := fmt.Sprintf("part-%05d.parquet", b.n)
	b.n++
	if err := b.store.Put(context.Background(), key, bytes.NewReader(buf.Bytes())); err != nil {
		b.t.Fatal(err)
	}
	acts := []delta.Action{{Add: &delta.Add{Path: key, Size: int64(buf.Len()), ModificationTime: int64(b.n), DataChange: true, Stats: js}}}
	b.commit(acts...)
	return key
}

// commit commits acts (with protocol and metaData on the first commit).
func (b *bronze) commit(acts ...delta.Action) {
	b.t.Helper()
	snap, err := b.table.Snapshot(context.Background())
	if errors.Is(err, delta.ErrNotATable) {
		js, _ := schema.MarshalDeltaJSON(idSchema)
		proto := delta.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}
		acts = append([]delta.Action{{Protocol: &proto}, {Metadata: &delta.Metadata{ID: "bronze", SchemaString: js, Format: delta.Format{Provider: "parquet"}, PartitionColumns: []string{}, Configuration: map[string]string{}}}}, acts...)
		snap = nil
	} else if err != nil {
		b.t.Fatal(err)
	}
	acts = append(acts, delta.Action{CommitInfo: &delta.CommitInfo{Timestamp: 1, Operation: "WRITE"}})
	if _, err := b.table.CommitSnapshot(context.Background(), snap, acts); err != nil {
		b.t.Fatal(err)
	}
}

// remove commits a DELETE of a whole file.
func (b *bronze) remove(key string) {
	b.commit(delta.Action{Remove: &delta.Remove{Path: key, DeletionTimestamp: 1, DataChange: true}})
}

func ids(t *testing.T, sink *delta.Table) []string {
	return sinkRows(t, sink)
}

func idRows(ns ...int64) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = fmt.Sprintf("{id:%d}", n)
	}
	sort.Strings(out)
	return out
}

// TestExactlyOnceUnderCrashes crashes the stream after every protocol
// step of every batch (plan sealed, data written, committed, finished),
// restarts it as a new process would, and checks that every source row
// reaches the sink exactly once: over an initial snapshot, then commits
// including a DELETE skipped by skipChangeCommits.
func TestExactlyOnceUnderCrashes(t *testing.T) {
	steps := []ingest.Step{ingest.StepPlanned, ingest.StepWritten, ingest.StepCommitted, ingest.StepFinished}
	for _, startAt := range []string{"snapshot", "version 0"} {
		for _, step := range steps {
			batches := int64(3) // the snapshot's file, then ids 3 and 4
			if startAt != "snapshot" {
				batches = 4 // ids 0-1, 2, (the DELETE skipped) 3, 4
			}
			for batch := int64(0); batch < batches; batch++ {
				t.Run(fmt.Sprintf("%s/%s/batch%d", startAt, step, batch), func(t *testing.T) {
					b := newBronze(t)
					f0 := b.add(0, 1)
					b.add(2)
					d := options.DeltaSource{MaxFilesPerTrigger: 1, FailOnDataLoss: true, SkipChangeCommits: true}
					want := idRows(2, 3, 4)
					if startAt != "snapshot" {
						d.StartingVersion = &options.StartingVersion{Version: 0}
						want = idRows(0, 1, 2, 3, 4)
					} else {
						b.remove(f0) // before the stream starts: not in its snapshot
					}
					s := newSource(t, b.store, d)
					crashed := false
					s.Fault = func(st ingest.Step, id int64) error {
						if st == step && id == batch && !crashed {
							crashed = true
							return errors.New("crash")
						}
						return nil
					}
					if _, err := s.RunAvailableNow(context.Background(), nil); err != nil && !crashed {
						t.Fatal(err)
					}
					if startAt != "snapshot" {
						b.remove(f0) // a DELETE while the stream runs
					}
					b.add(3)
					b.add(4)
					for range 3 {
						if _, err := s.again().RunAvailableNow(context.Background(), nil); err != nil && err.Error() != "crash" {
							t.Fatal(err)
						}
					}
					if !crashed {
						t.Fatalf("the stream never reached %s of batch %d", step, batch)
					}
					if got := ids(t, s.Sink); !slices.Equal(got, want) {
						t.Errorf("sink rows %v, want %v", got, want)
					}
				})
			}
		}
	}
}

// TestChangeCommitFailsByDefault: a DELETE fails the stream with Delta's
// error after the rows before it were delivered; dataChange=false commits
// (compaction) are never re-delivered.
func TestChangeCommitFailsByDefault(t *testing.T) {
	b := newBronze(t)
	f0 := b.add(0)
	f1 := b.add(1)
	s := newSource(t, b.store, options.DeltaSource{MaxFilesPerTrigger: 1000, FailOnDataLoss: true})
	if _, err := s.RunAvailableNow(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	// OPTIMIZE: f0 and f1 rewritten into one file, dataChange=false.
	var buf bytes.Buffer
	pw, _ := parquetio.NewWriter(&buf, idSchema, parquetio.WriterOptions{})
	pw.Write([][]any{{int64(0)}, {int64(1)}})
	pw.Close()
	b.store.Put(context.Background(), "compacted.parquet", bytes.NewReader(buf.Bytes()))
	b.commit(delta.Action{Remove: &delta.Remove{Path: f0, DataChange: false}}, delta.Action{Remove: &delta.Remove{Path: f1, DataChange: false}},
		delta.Action{Add: &delta.Add{Path: "compacted.parquet", Size: int64(buf.Len()), DataChange: false}})
	b.add(2)
	if _, err := s.again().RunAvailableNow(context.Background(), nil); err != nil {
		t.Fatalf("after a compaction: %v", err)
	}
	if got := ids(t, s.Sink); !slices.Equal(got, idRows(0, 1, 2)) {
		t.Fatalf("after a compaction: %v, want ids 0 1 2 once", got)
	}
	b.remove("compacted.parquet")
	b.add(3)
	_, err := s.again().RunAvailableNow(context.Background(), nil)
	if !errors.Is(err, ErrChangeCommit) || !strings.Contains(err.Error(), "DELTA_SOURCE_IGNORE_DELETE") || !strings.Contains(err.Error(), "version 4") {
		t.Fatalf("DELETE: %v", err)
	}
	// The failure repeats (nothing is skipped silently).
	if _, err := s.again().RunAvailableNow(context.Background(), nil); !errors.Is(err, ErrChangeCommit) {
		t.Fatalf("second run: %v", err)
	}
}

// TestAvailableNowEndsAtTheStartVersion: an availableNow run takes what
// the source held when it started and stops there, however the source
// goes on committing meanwhile (Trigger.AvailableNow); the next run
// takes the rest. Once with a new Source (its first plan loads the
// source), once with one that ran before (it asks for the latest version).
func TestAvailableNowEndsAtTheStartVersion(t *testing.T) {
	b := newBronze(t)
	b.add(1)
	b.add(2)
	s := newSource(t, b.store, options.DeltaSource{MaxFilesPerTrigger: 1, FailOnDataLoss: true})
	// keepGoing is asked before each batch: the source commits id next
	// before the run's second batch.
	commitDuring := func(next int64) func() bool {
		calls := 0
		return func() bool {
			if calls++; calls == 2 {
				b.add(next)
			}
			return true
		}
	}
	for _, run := range []struct {
		s       *Source
		next    int64
		batches int
		want    []string
	}{
		{s, 3, 2, idRows(1, 2)},               // the initial snapshot's two files
		{s, 4, 1, idRows(1, 2, 3)},            // the same Source: version 2 (id 3) only
		{s.again(), 5, 1, idRows(1, 2, 3, 4)}, // a new process: version 3 (id 4) only
	} {
		sum, err := run.s.RunAvailableNow(context.Background(), commitDuring(run.next))
		if err != nil {
			t.Fatal(err)
		}
		if len(sum.Batches) != run.batches {
			t.Errorf("run with id %d committed meanwhile: %d batches, want %d", run.next, len(sum.Batches), run.batches)
		}
		if got := ids(t, s.Sink); !slices.Equal(got, run.want) {
			t.Errorf("run with id %d committed meanwhile: sink %v, want %v", run.next, got, run.want)
		}
	}
	if _, err := s.again().RunAvailableNow(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := ids(t, s.Sink); !slices.Equal(got, idRows(1, 2, 3, 4, 5)) {
		t.Errorf("last run: sink %v, want ids 1 to 5", got)
	}
}

// TestEventTimeOrderCheckpoint: a checkpoint whose initial snapshot was
// being read in event-time order (written when Tributary read
// withEventTimeOrder) is not finished in another order, which would skip
// some of the snapshot's files and repeat others: the stream stops asking
// for a full refresh, and the sink keeps what was committed.
func TestEventTimeOrderCheckpoint(t *testing.T) {
	ctx := context.Background()
	b := newBronze(t)
	b.add(1)
	b.add(2)
	s := newSource(t, b.store, options.DeltaSource{MaxFilesPerTrigger: 1, FailOnDataLoss: true})
	calls := 0
	if _, err := s.RunAvailableNow(ctx, func() bool { calls++; return calls == 1 }); err != nil { // one batch
		t.Fatal(err)
	}
	p, ok, err := readPlan(ctx, s.Checkpoint, 0)
	if err != nil || !ok || !p.End.Initial {
		t.Fatalf("plan 0: %+v %v %v, want one ending inside the initial snapshot", p, ok, err)
	}
	p.EventTimeOrder = true
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Checkpoint.Put(ctx, planKey(0), bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	s = s.again()
	if _, err := s.RunAvailableNow(ctx, nil); !errors.Is(err, ErrEventTimeOrderChanged) || !strings.Contains(err.Error(), "full refresh") {
		t.Fatalf("run: %v, want ErrEventTimeOrderChanged asking for a full refresh", err)
	}
	if got := ids(t, s.Sink); len(got) != 1 {
		t.Errorf("sink %v, want the first batch's one row", got)
	}
}

// TestLostLogEntry: a log entry removed by log cleanup fails the stream
// with DELTA_FILE_NOT_FOUND_DETAILED unless failOnDataLoss=false.
func TestLostLogEntry(t *testing.T) {
	b := newBronze(t)
	b.add(0)
	s := newSource(t, b.store, options.DeltaSource{MaxFilesPerTrigger: 1000, FailOnDataLoss: true})
	if _, err := s.RunAvailableNow(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	b.add(1)
	b.add(2)
	snap, err := b.table.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.table.Checkpoint(context.Background(), snap); err != nil {
		t.Fatal(err)
	}
	b.add(3)
	if err := b.store.Delete(context.Background(), delta.CommitKey(1)); err != nil {
		t.Fatal(err)
	}
	_, err = s.again().RunAvailableNow(context.Background(), nil)
	if !errors.Is(err, ErrDataLoss) || !strings.Contains(err.Error(), "DELTA_FILE_NOT_FOUND_DETAILED") {
		t.Fatalf("lost log entry: %v", err)
	}
	s2 := s.again()
	s2.Config.Delta.FailOnDataLoss = false
	if _, err := s2.RunAvailableNow(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := ids(t, s.Sink); !slices.Equal(got, idRows(0, 2, 3)) {
		t.Fatalf("failOnDataLoss=false: %v, want ids 0 2 3 (1 is lost)", got)
	}
}

// setSchema commits a metaData action changing the bronze schema.
func (b *bronze) setSchema(st *schema.StructType, id string) {
	b.t.Helper()
	snap, err := b.table.Snapshot(context.Background())
	if err != nil {
		b.t.Fatal(err)
	}
	md := snap.Metadata
	js, _ := schema.MarshalDeltaJSON(st)
	md.SchemaString = js
	if id != "" {
		md.ID = id
	}
	b.commit(delta.Action{Metadata: &md})
}

// TestSourceSchemaChanges: an added column stops a running stream (as
// Delta's source does); the restart reads with the new schema and the
// sink's schema evolves. A retyped column cannot be read past: a full
// refresh is needed. A source dropped and recreated is refused.
func TestSourceSchemaChanges(t *testing.T) {
	b := newBronze(t)
	b.add(1)
	s := newSource(t, b.store, options.DeltaSource{MaxFilesPerTrigger: 1000, FailOnDataLoss: true})
	if _, err := s.RunAvailableNow(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	wide := &schema.StructType{Fields: []schema.Field{{Name: "id", Type: schema.Long, Nullable: true}, {Name: "note", Type: schema.String, Nullable: true}}}
	b.setSchema(wide, "")
	b.add(2)
	// The same process (a processingTime trigger) meets the change.
	_, err := s.RunAvailableNow(context.Background(), nil)
	if !errors.Is(err, ErrSchemaChanged) || !strings.Contains(err.Error(), "DELTA_SCHEMA_CHANGED") {
		t.Fatalf("schema change while running: %v", err)
	}
	// A restart reads with the new schema.
	r := s.again()
	if _, err := r.RunAvailableNow(context.Background(), nil); err != nil {
		t.Fatalf("restart after an added column: %v", err)
	}
	snap, err := s.Sink.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if snap.Schema().FieldIndex("note") < 0 {
		t.Errorf("sink schema %v lacks the added column", snap.Schema())
	}
	if got := ids(t, s.Sink); !slices.Equal(got, []string{"{id:1,note:null}", "{id:2,note:null}"}) {
		t.Errorf("sink rows %v", got)
	}
	// A retyped column: incompatible.
	narrow := &schema.StructType{Fields: []schema.Field{{Name: "id", Type: schema.String, Nullable: true}, {Name: "note", Type: schema.String, Nullable: true}}}
	b.setSchema(narrow, "")
	b.setSchema(wide, "")
	if _, err := r.again().RunAvailableNow(context.Background(), nil); !errors.Is(err, ErrIncompatibleSchema) {
		t.Fatalf("retyped column: %v, want ErrIncompatibleSchema", err)
	}
	// Dropped and recreated: another table id.
	c := newBronze(t)
	c.add(1)
	s2 := newSource(t, c.store, options.DeltaSource{MaxFilesPerTrigger: 1000, FailOnDataLoss: true})
	if _, err := s2.RunAvailableNow(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	c.setSchema(idSchema, "recreated")
	c.add(2)
	if _, err := s2.again().RunAvailableNow(context.Background(), nil); !errors.Is(err, ErrSourceReplaced) {
		t.Fatalf("recreated source: %v, want ErrSourceReplaced", err)
	}
}

// FuzzReadPlan: a sealed plan's decoder never panics, and a plan it
// accepts names the batch asked for and a Delta source.
func FuzzReadPlan(f *testing.F) {
	f.Add(`{"batchId":0,"stream":"s","source":"delta","start":{"version":3,"index":0,"initial":true},"end":{"version":4,"index":0},"files":[{"version":3,"index":0,"add":{"path":"a.parquet","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}}]}`)
	f.Add(`{"batchId":0,"source":"files"}`)
	f.Add(`{`)
	f.Fuzz(func(t *testing.T, doc string) {
		st := memstore.New()
		if err := st.Put(context.Background(), planKey(0), strings.NewReader(doc)); err != nil {
			t.Fatal(err)
		}
		p, ok, err := readPlan(context.Background(), st, 0)
		if err == nil && ok && (p.BatchID != 0 || p.Source != "delta") {
			t.Fatalf("accepted plan %+v", p)
		}
	})
}

// FuzzCommitVersion: only _delta_log/<20 digits>.json names a commit.
func FuzzCommitVersion(f *testing.F) {
	f.Add("_delta_log/00000000000000000012.json")
	f.Add("_delta_log/00000000000000000012.checkpoint.parquet")
	f.Add("_delta_log/_last_checkpoint")
	f.Fuzz(func(t *testing.T, key string) {
		v, ok := commitVersion(key)
		if ok && (delta.CommitKey(v) != key || v < 0) {
			t.Fatalf("%q parsed as commit %d", key, v)
		}
	})
}
