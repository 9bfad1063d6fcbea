package delta

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/tributary-io/tributary/core/delta/checkpoint"
	"github.com/tributary-io/tributary/core/delta/internal/dirstore"
	"github.com/tributary-io/tributary/core/delta/internal/logkey"
)

// copyLog copies a fixture's JSON commits (no checkpoints) into a new
// directory.
func copyLog(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dst, "_delta_log"), 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(filepath.Join(src, "_delta_log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || strings.Contains(e.Name(), "checkpoint") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, "_delta_log", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, "_delta_log", e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// sharedTables returns every shared test table whose log starts at
// version 0 (the JSON commits alone rebuild it).
func sharedTables(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(testdataRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || d.Name() != "_delta_log" {
			return err
		}
		if _, err := os.Stat(filepath.Join(p, "00000000000000000000.json")); err == nil {
			rel, _ := filepath.Rel(testdataRoot, filepath.Dir(p))
			out = append(out, filepath.ToSlash(rel))
		}
		return filepath.SkipDir
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every shared table (Spark, delta-rs, kernel) that Tributary can load is
// checkpointed from its JSON commits and reloads from the checkpoint alone
// with the same state; the tables named here must be among them.
func TestCheckpointWriteRoundTrip(t *testing.T) {
	ctx := context.Background()
	must := map[string]bool{
		"spark-golden/dv-with-columnmapping/dv-with-columnmapping/delta":                                 true,
		"spark-golden/basic-with-inserts-deletes-checkpoint/basic-with-inserts-deletes-checkpoint/delta": true,
		"spark-golden/data-reader-escaped-chars/data-reader-escaped-chars/delta":                         true,
		"kernel/app-txn-no-checkpoint":       true,
		"kernel/basic_partitioned":           true,
		"delta-rs/partition-type-primitives": true,
	}
	tables := sharedTables(t)
	var checked, unloadable, v2 int
	for _, rel := range tables {
		t.Run(rel, func(t *testing.T) {
			dir := copyLog(t, fixture(t, rel))
			// Keep every tombstone: the fixtures are old.
			tbl := NewTable(dirstore.New(dir), WithClock(func() time.Time { return time.UnixMilli(0) }))
			snap, err := tbl.Snapshot(ctx)
			if err != nil {
				if must[rel] {
					t.Fatal(err)
				}
				unloadable++ // a reader feature Tributary refuses, a log cleaned up
				return
			}
			if snap.Protocol.HasWriterFeature(FeatureV2Checkpoint) {
				v2++ // no classic checkpoint allowed (TestCheckpointRefusesV2Tables)
				return
			}
			checked++
			delete(must, rel)
			if err := tbl.Checkpoint(ctx, snap); err != nil {
				t.Fatalf("Checkpoint: %v", err)
			}
			var lc LastCheckpoint
			b, err := os.ReadFile(filepath.Join(dir, "_delta_log", "_last_checkpoint"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &lc); err != nil || lc.Version != snap.Version || lc.NumOfAddFiles != int64(snap.NumFiles()) ||
				lc.Size != int64(2+len(snap.Txns())+snap.NumFiles()+snap.NumTombstones()) || lc.SizeInBytes <= 0 {
				t.Fatalf("_last_checkpoint %s (err %v)", b, err)
			}
			// Hide the JSON commits up to the checkpoint: the reload must
			// come from the checkpoint alone.
			for v := int64(0); v <= snap.Version; v++ {
				if err := os.Remove(filepath.Join(dir, filepath.FromSlash(CommitKey(v)))); err != nil {
					t.Fatal(err)
				}
			}
			back, err := NewTable(dirstore.New(dir)).Snapshot(ctx)
			if err != nil {
				t.Fatalf("reload: %v", err)
			}
			if back.CheckpointVersion() != snap.Version || back.Version != snap.Version {
				t.Fatalf("reload: version %d from checkpoint %d", back.Version, back.CheckpointVersion())
			}
			if !reflect.DeepEqual(back.Protocol, snap.Protocol) && !(len(back.Protocol.ReaderFeatures)+len(snap.Protocol.ReaderFeatures) == 0) {
				t.Errorf("protocol %+v vs %+v", back.Protocol, snap.Protocol)
			}
			if back.Metadata.ID != snap.Metadata.ID || back.Metadata.SchemaString != snap.Metadata.SchemaString ||
				!slices.Equal(back.Metadata.PartitionColumns, snap.Metadata.PartitionColumns) ||
				len(back.Metadata.Configuration) != len(snap.Metadata.Configuration) {
				t.Errorf("metadata %+v vs %+v", back.Metadata, snap.Metadata)
			}
			if !slices.Equal(paths(back), paths(snap)) {
				t.Errorf("files differ")
			}
			for a := range snap.Files() {
				b, _ := back.File(a.Path)
				if b == nil || b.Size != a.Size || b.Stats != a.Stats || b.ModificationTime != a.ModificationTime ||
					b.DeletionVector.UniqueID() != a.DeletionVector.UniqueID() ||
					len(a.PartitionValues) > 0 && !reflect.DeepEqual(a.PartitionValues, b.PartitionValues) {
					t.Errorf("add %s:\n%+v\n%+v", a.Path, a, b)
				}
			}
			if back.NumTombstones() != snap.NumTombstones() || !reflect.DeepEqual(back.Txns(), snap.Txns()) {
				t.Errorf("tombstones %d vs %d, txns %v vs %v", back.NumTombstones(), snap.NumTombstones(), back.Txns(), snap.Txns())
			}
		})
	}
	t.Logf("%d shared tables checkpointed; %d not loadable, %d with v2Checkpoint", checked, unloadable, v2)
	if len(must) > 0 || checked < 30 {
		t.Fatalf("checkpointed %d of %d shared tables; not among them: %v", checked, len(tables), must)
	}
}

func TestCheckpointManyRowGroupsAndRetention(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	now := time.UnixMilli(100 * 24 * 3600 * 1000)
	tbl := NewTable(dirstore.New(dir), WithClock(func() time.Time { return now }))
	if _, err := tbl.Commit(ctx, -1, createActions(t)); err != nil {
		t.Fatal(err)
	}
	const files = 3*checkpoint.RowGroupRows + 17
	acts := make([]Action, 0, files)
	for i := range files {
		acts = append(acts, addAction(fmt.Sprintf("p=x/f-%05d.parquet", i), int64(i)))
	}
	if _, err := tbl.Commit(ctx, 0, acts); err != nil {
		t.Fatal(err)
	}
	old := now.Add(-8 * 24 * time.Hour).UnixMilli()
	recent := now.Add(-time.Hour).UnixMilli()
	if _, err := tbl.Commit(ctx, 1, []Action{
		{Remove: &Remove{Path: "p=x/f-00000.parquet", DataChange: true, DeletionTimestamp: old}},
		{Remove: &Remove{Path: "p=x/f-00001.parquet", DataChange: true, DeletionTimestamp: recent}},
	}); err != nil {
		t.Fatal(err)
	}
	back := checkpointAndReload(t, tbl, dir)
	if back.NumFiles() != files-2 || back.NumTombstones() != 1 {
		t.Fatalf("files %d tombstones %d; want %d, 1 (expired one dropped)", back.NumFiles(), back.NumTombstones(), files-2)
	}
	var recs int64
	for a := range back.Files() {
		st, err := a.ParseStats()
		if err != nil {
			t.Fatal(err)
		}
		recs += st.NumRecords
	}
	if want := int64(files*(files-1)/2 - 1); recs != want {
		t.Fatalf("numRecords sum %d, want %d", recs, want)
	}
}

// noCommitsBelow builds a store view without commits below a version.
type noCommitsBelow struct {
	dir   string
	below int64
}

func (n noCommitsBelow) store() *dirstore.Store {
	for v := int64(0); v < n.below; v++ {
		os.Remove(filepath.Join(n.dir, filepath.FromSlash(CommitKey(v))))
	}
	return dirstore.New(n.dir)
}

func TestCheckpointRefusesV2Tables(t *testing.T) {
	snap, err := openFixture(t, "spark-golden/v2-checkpoint-json/v2-checkpoint-json/delta").Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	err = NewTable(dirstore.New(t.TempDir())).Checkpoint(context.Background(), snap)
	if !errors.Is(err, ErrUnsupportedProtocol) {
		t.Fatalf("err = %v, want ErrUnsupportedProtocol", err)
	}
}

func TestCorruptCheckpointIsAnError(t *testing.T) {
	dir := copyLog(t, fixture(t, "kernel/app-txn-no-checkpoint"))
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(CheckpointKey(1))), []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := NewTable(dirstore.New(dir)).Snapshot(context.Background())
	if err == nil || !strings.Contains(err.Error(), "checkpoint 1") {
		t.Fatalf("err = %v, want a checkpoint error", err)
	}
}

// TestCheckpointKeepsNullPartitionValues: a NULL partition value (JSON
// null) stays NULL through a checkpoint we write — a null map value in the
// Parquet file, not "" (which Spark reads back as an empty string).
func TestCheckpointKeepsNullPartitionValues(t *testing.T) {
	ctx := context.Background()
	dir := copyLog(t, fixture(t, "kernel/basic_partitioned"))
	tbl := NewTable(dirstore.New(dir))
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nulls := func(s *Snapshot) (n, empty int) {
		for a := range s.Files() {
			v, ok := a.PartitionValues["letter"]
			switch {
			case !ok:
				t.Fatalf("%s has no letter partition value", a.Path)
			case v == nil:
				n++
			case *v == "":
				empty++
			}
		}
		return n, empty
	}
	if n, e := nulls(snap); n != 1 || e != 0 {
		t.Fatalf("JSON replay: %d null and %d empty partition values, want 1 and 0", n, e)
	}
	if err := tbl.Checkpoint(ctx, snap); err != nil {
		t.Fatal(err)
	}
	back, err := NewTable(dirstore.New(dir)).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if back.CheckpointVersion() != snap.Version {
		t.Fatalf("not loaded from the checkpoint")
	}
	if n, e := nulls(back); n != 1 || e != 0 {
		t.Fatalf("from our checkpoint: %d null and %d empty partition values, want 1 and 0", n, e)
	}
	// The Parquet file itself: read the value column with parquet-go.
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(CheckpointKey(snap.Version))))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	col, ok := pf.Schema().Lookup("add", "partitionValues", "key_value", "value")
	if !ok {
		t.Fatalf("no add.partitionValues.key_value.value column in %s", pf.Schema())
	}
	var nullVals, vals int
	for _, rg := range pf.RowGroups() {
		pages := rg.ColumnChunks()[col.ColumnIndex].Pages()
		for {
			p, err := pages.ReadPage()
			if err != nil {
				break
			}
			buf := make([]parquet.Value, p.NumValues())
			n, _ := p.Values().ReadValues(buf)
			for _, v := range buf[:n] {
				switch {
				case v.DefinitionLevel() == col.MaxDefinitionLevel:
					vals++
				case v.DefinitionLevel() == col.MaxDefinitionLevel-1:
					nullVals++ // the key exists, its value is null
				}
			}
		}
		pages.Close()
	}
	if nullVals != 1 || vals != 5 {
		t.Errorf("checkpoint partition values: %d null, %d set; want 1 and 5", nullVals, vals)
	}
}

// TestMaybeCheckpointWhenAnotherWriterTookTheMultiple: checkpoints follow
// the interval even when the multiples are versions another writer
// committed (without checkpointing), and are not duplicated when another
// writer did checkpoint.
func TestMaybeCheckpointWhenAnotherWriterTookTheMultiple(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	tbl := NewTable(dirstore.New(dir))
	proto := Protocol{MinReaderVersion: 1, MinWriterVersion: 2}
	meta := &Metadata{ID: "t", SchemaString: `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]}`,
		Configuration: map[string]string{PropCheckpointInterval: "3"}}
	add := func(i int) Action {
		return Action{Add: &Add{Path: fmt.Sprintf("f%d.parquet", i), Size: 1, DataChange: true, Stats: `{"numRecords":1}`}}
	}
	if _, err := tbl.Commit(ctx, -1, []Action{{Protocol: &proto}, {Metadata: meta}, add(0)}); err != nil {
		t.Fatal(err)
	}
	other := NewTable(dirstore.New(dir)) // a writer that never checkpoints
	ours, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checkpoints := func() []int64 {
		var out []int64
		ents, _ := os.ReadDir(filepath.Join(dir, "_delta_log"))
		for _, e := range ents {
			if f, ok := logkey.Parse(LogDir + e.Name()); ok && f.Kind == logkey.Checkpoint {
				out = append(out, f.Version)
			}
		}
		return out
	}
	// step commits version v by the writer named and then lets ours decide.
	step := func(v int64, byOther bool) bool {
		t.Helper()
		w := tbl
		if byOther {
			w = other
		}
		if _, err := w.Commit(ctx, v-1, []Action{add(int(v))}); err != nil {
			t.Fatal(err)
		}
		if byOther {
			return false
		}
		wrote, err := tbl.MaybeCheckpoint(ctx, ours, v)
		if err != nil {
			t.Fatal(err)
		}
		return wrote
	}
	step(1, false)
	step(2, false)
	step(3, true) // the other writer takes the multiple
	if !step(4, false) {
		t.Fatalf("no checkpoint after the skipped multiple 3; checkpoints %v", checkpoints())
	}
	if step(5, false) {
		t.Fatalf("checkpoint at 5 although 4 covers the interval")
	}
	step(6, true)
	step(7, true)
	step(8, true)
	step(9, true) // 6 and 9 both passed
	if !step(10, false) || !slices.Equal(checkpoints(), []int64{4, 10}) {
		t.Fatalf("checkpoints %v, want [4 10]", checkpoints())
	}
	// Another writer checkpoints at 12: ours does not write a second one.
	step(11, true)
	step(12, true)
	s12, err := other.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Checkpoint(ctx, s12); err != nil {
		t.Fatal(err)
	}
	if step(13, false) || !slices.Equal(checkpoints(), []int64{4, 10, 12}) {
		t.Fatalf("checkpoints %v, want [4 10 12]", checkpoints())
	}
	back, err := NewTable(dirstore.New(dir)).Snapshot(ctx)
	if err != nil || back.Version != 13 || back.CheckpointVersion() != 12 || back.NumFiles() != 14 {
		t.Fatalf("reload: version %d from checkpoint %d, %d files, %v", back.Version, back.CheckpointVersion(), back.NumFiles(), err)
	}
}

// TestCheckpointTombstoneRetentionProperty: a checkpoint keeps the
// tombstones (remove actions) younger than the table's
// delta.deletedFileRetentionDuration and drops the older ones, for a
// property shorter and one longer than the 7-day default.
func TestCheckpointTombstoneRetentionProperty(t *testing.T) {
	ctx := context.Background()
	now := time.UnixMilli(100 * 24 * 3600 * 1000)
	for _, tc := range []struct {
		retention string
		want      []string
	}{
		{"interval 2 days", []string{"p=x/1h.parquet"}},
		{"interval 30 days", []string{"p=x/1h.parquet", "p=x/3d.parquet", "p=x/8d.parquet"}},
	} {
		t.Run(tc.retention, func(t *testing.T) {
			dir := t.TempDir()
			tbl := NewTable(dirstore.New(dir), WithClock(func() time.Time { return now }))
			create := createActions(t)
			create[1].Metadata.Configuration = map[string]string{PropDeletedFileRetentionDuration: tc.retention}
			if _, err := tbl.Commit(ctx, -1, create); err != nil {
				t.Fatal(err)
			}
			ages := map[string]time.Duration{"p=x/1h.parquet": time.Hour, "p=x/3d.parquet": 3 * 24 * time.Hour, "p=x/8d.parquet": 8 * 24 * time.Hour}
			var adds, removes []Action
			for path, age := range ages {
				adds = append(adds, addAction(path, 1))
				removes = append(removes, Action{Remove: &Remove{Path: path, DataChange: true, DeletionTimestamp: now.Add(-age).UnixMilli()}})
			}
			if _, err := tbl.Commit(ctx, 0, adds); err != nil {
				t.Fatal(err)
			}
			if _, err := tbl.Commit(ctx, 1, removes); err != nil {
				t.Fatal(err)
			}
			back := checkpointAndReload(t, tbl, dir)
			var got []string
			for r := range back.Tombstones() {
				got = append(got, r.Path)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("checkpoint tombstones %v, want %v (deletedFileRetentionDuration %s)", got, tc.want, tc.retention)
			}
		})
	}
}

// checkpointAndReload checkpoints tbl (a table in dir of three commits)
// and loads it again from that checkpoint alone (its commits hidden).
func checkpointAndReload(t *testing.T, tbl *Table, dir string) *Snapshot {
	t.Helper()
	ctx := context.Background()
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.Checkpoint(ctx, snap); err != nil {
		t.Fatal(err)
	}
	back, err := NewTable(noCommitsBelow{dir: dir, below: 3}.store()).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return back
}
