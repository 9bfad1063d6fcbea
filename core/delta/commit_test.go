package delta

import (
	"github.com/tributary-io/tributary/core/delta/action"

	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tributary-io/tributary/core/delta/internal/dirstore"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/schema"
)

func testSchema(t *testing.T) string {
	t.Helper()
	s, err := schema.MarshalDeltaJSON(&schema.StructType{Fields: []schema.Field{
		{Name: "id", Type: schema.Long, Nullable: true},
		{Name: "p", Type: schema.String, Nullable: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func createActions(t *testing.T) []Action {
	p := ProtocolFor(false, nil)
	return []Action{
		{Protocol: &p},
		{Metadata: &Metadata{ID: "tbl", SchemaString: testSchema(t), PartitionColumns: []string{"p"}}},
	}
}

func addAction(path string, n int64) Action {
	st, _ := (&Stats{NumRecords: n}).Encode()
	return Action{Add: &Add{Path: path, PartitionValues: action.PartitionValuesOf(map[string]string{"p": "x"}), Size: 100, ModificationTime: 1, DataChange: true, Stats: st}}
}

func TestCommitCreatesAndAppends(t *testing.T) {
	ctx := context.Background()
	tbl := NewTable(dirstore.New(t.TempDir()))
	v, err := tbl.Commit(ctx, -1, createActions(t))
	if err != nil || v != 0 {
		t.Fatalf("create: %d, %v", v, err)
	}
	v, err = tbl.Commit(ctx, 0, []Action{addAction("p=x/a%20b.parquet", 3), {Txn: &Txn{AppID: "s", Version: 0}}})
	if err != nil || v != 1 {
		t.Fatalf("append: %d, %v", v, err)
	}
	_, err = tbl.Commit(ctx, 0, []Action{addAction("p=x/c.parquet", 1)})
	if !errors.Is(err, ErrConcurrentCommit) || !errors.Is(err, objstore.ErrExists) {
		t.Fatalf("second commit at version 1: err = %v, want ErrConcurrentCommit wrapping ErrExists", err)
	}
	s, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != 1 || s.NumFiles() != 1 {
		t.Fatalf("version %d files %d", s.Version, s.NumFiles())
	}
	a, ok := s.File("p=x/a%20b.parquet")
	if !ok {
		t.Fatal("file missing")
	}
	if k, _ := ObjectKey(a.Path); k != "p=x/a b.parquet" {
		t.Errorf("key %q", k)
	}
	if v, ok := s.TxnVersion("s"); !ok || v != 0 {
		t.Errorf("txn %d %v", v, ok)
	}
	if s.Metadata.PartitionColumns[0] != "p" || s.Protocol.MinReaderVersion != 1 || s.Protocol.MinWriterVersion != 2 {
		t.Errorf("metadata/protocol: %+v %+v", s.Metadata, s.Protocol)
	}
}

func TestCommitValidation(t *testing.T) {
	ctx := context.Background()
	ntz, _ := schema.MarshalDeltaJSON(&schema.StructType{Fields: []schema.Field{{Name: "t", Type: schema.TimestampNTZ, Nullable: true}}})
	inv, _ := schema.MarshalDeltaJSON(&schema.StructType{Fields: []schema.Field{{Name: "x", Type: schema.Long, Nullable: true, Metadata: map[string]any{"delta.invariants": "{}"}}}})
	p12 := Protocol{MinReaderVersion: 1, MinWriterVersion: 2}
	tests := []struct {
		name        string
		readVersion int64
		actions     []Action
		wantSub     string
	}{
		{"empty", 0, nil, "no actions"},
		{"duplicate add", 0, []Action{addAction("a", 1), addAction("a", 1)}, "DELTA_DUPLICATE_ACTIONS_FOUND"},
		{"duplicate remove", 0, []Action{{Remove: &Remove{Path: "a"}}, {Remove: &Remove{Path: "a"}}}, "DELTA_DUPLICATE_ACTIONS_FOUND"},
		{"two txns for one app", 0, []Action{{Txn: &Txn{AppID: "s", Version: 1}}, {Txn: &Txn{AppID: "s", Version: 2}}}, "more than one txn"},
		{"two kinds in one action", 0, []Action{{Add: addAction("a", 1).Add, Txn: &Txn{AppID: "s"}}}, "2 kinds"},
		{"create without protocol", -1, []Action{{Metadata: &Metadata{ID: "x", SchemaString: testSchema(t)}}}, "needs protocol and metaData"},
		{"unknown writer feature", -1, []Action{{Protocol: &Protocol{MinReaderVersion: 3, MinWriterVersion: 7, WriterFeatures: []string{"rowTracking"}}}, {Metadata: &Metadata{ID: "x", SchemaString: testSchema(t)}}}, "rowTracking"},
		{"legacy writer 4", -1, []Action{{Protocol: &Protocol{MinReaderVersion: 1, MinWriterVersion: 4}}, {Metadata: &Metadata{ID: "x", SchemaString: testSchema(t)}}}, "minWriterVersion 4"},
		{"timestamp_ntz without feature", -1, []Action{{Protocol: &p12}, {Metadata: &Metadata{ID: "x", SchemaString: ntz}}}, "timestampNtz"},
		{"type widening without feature", -1, []Action{{Protocol: &p12}, {Metadata: &Metadata{ID: "x", SchemaString: testSchema(t), Configuration: map[string]string{PropEnableTypeWidening: "true"}}}}, "typeWidening"},
		{"invariants", -1, []Action{{Protocol: &p12}, {Metadata: &Metadata{ID: "x", SchemaString: inv}}}, "delta.invariants"},
		{"bad partition column", -1, []Action{{Protocol: &p12}, {Metadata: &Metadata{ID: "x", SchemaString: testSchema(t), PartitionColumns: []string{"nope"}}}}, "partition column"},
		{"bad path", 0, []Action{addAction("a/../b", 1)}, "invalid key"},
		{"sidecar in commit", 0, []Action{{Sidecar: &Sidecar{Path: "x"}}}, "only allowed in checkpoints"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := dirstore.New(t.TempDir())
			_, err := NewTable(store).Commit(ctx, tc.readVersion, tc.actions)
			if !errors.Is(err, ErrInvalidCommit) && !errors.Is(err, action.ErrMalformedAction) || !strings.Contains(err.Error(), tc.wantSub) {
				t.Fatalf("err = %v, want ErrInvalidCommit mentioning %q", err, tc.wantSub)
			}
			for range store.List(ctx, objstore.ListOptions{Prefix: LogDir}) {
				t.Fatal("a refused commit wrote to the log")
			}
		})
	}
}

func TestProtocolFor(t *testing.T) {
	if p := ProtocolFor(false, nil); p.MinReaderVersion != 1 || p.MinWriterVersion != 2 || p.ReaderFeatures != nil {
		t.Errorf("plain: %+v", p)
	}
	p := ProtocolFor(true, map[string]string{PropEnableTypeWidening: "true"})
	if p.MinReaderVersion != 3 || p.MinWriterVersion != 7 || !p.HasReaderFeature(FeatureTimestampNTZ) || !p.HasWriterFeature(FeatureTypeWidening) || !p.HasWriterFeature(FeatureAppendOnly) {
		t.Errorf("features: %+v", p)
	}
	// A table created with it commits and reads back.
	ctx := context.Background()
	ntz, _ := schema.MarshalDeltaJSON(&schema.StructType{Fields: []schema.Field{{Name: "t", Type: schema.TimestampNTZ, Nullable: true}}})
	tbl := NewTable(dirstore.New(t.TempDir()))
	if _, err := tbl.Commit(ctx, -1, []Action{{Protocol: &p}, {Metadata: &Metadata{ID: "x", SchemaString: ntz, Configuration: map[string]string{PropEnableTypeWidening: "true"}}}}); err != nil {
		t.Fatal(err)
	}
	s, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Protocol.ReaderFeatures, p.ReaderFeatures) || !slices.Equal(s.Protocol.WriterFeatures, p.WriterFeatures) {
		t.Errorf("read back %+v", s.Protocol)
	}
}

func TestCommitSnapshotRefusesTableFeatures(t *testing.T) {
	ctx := context.Background()
	// An existing Spark table whose protocol lists a writer feature
	// (deletionVectors) this writer does not implement.
	src, err := openFixture(t, "kernel/table-with-dv-small").Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tbl := NewTable(dirstore.New(t.TempDir()))
	_, err = tbl.CommitSnapshot(ctx, src, []Action{addAction("x.parquet", 1)})
	if !errors.Is(err, ErrUnsupportedProtocol) || !strings.Contains(err.Error(), "deletionVectors") {
		t.Fatalf("err = %v, want ErrUnsupportedProtocol naming deletionVectors", err)
	}
	// Append-only tables refuse data-changing removes.
	ao := NewTable(dirstore.New(t.TempDir()))
	acts := createActions(t)
	acts[1].Metadata.Configuration = map[string]string{PropAppendOnly: "true"}
	if _, err := ao.Commit(ctx, -1, append(acts, addAction("a", 1))); err != nil {
		t.Fatal(err)
	}
	s, err := ao.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ao.CommitSnapshot(ctx, s, []Action{{Remove: &Remove{Path: "a", DataChange: true}}}); !errors.Is(err, ErrInvalidCommit) || !strings.Contains(err.Error(), "append-only") {
		t.Fatalf("append-only remove: %v", err)
	}
	if _, err := ao.CommitSnapshot(ctx, s, []Action{{Remove: &Remove{Path: "a", DataChange: false}}, addAction("b", 1)}); err != nil {
		t.Fatalf("compaction on append-only table: %v", err)
	}
}

func TestCommitTxnExactlyOnce(t *testing.T) {
	ctx := context.Background()
	tbl := NewTable(dirstore.New(t.TempDir()), WithBackoff(0))
	build := func(path string) func(*Snapshot) ([]Action, error) {
		return func(s *Snapshot) ([]Action, error) {
			acts := []Action{addAction(path, 1)}
			if s == nil {
				acts = append(createActions(t), acts...)
			}
			return acts, nil
		}
	}
	r, err := tbl.CommitTxn(ctx, "stream", 0, build("f0"))
	if err != nil || r.Version != 0 || r.AlreadyCommitted || r.Attempts != 1 {
		t.Fatalf("first: %+v %v", r, err)
	}
	r, err = tbl.CommitTxn(ctx, "stream", 0, build("f0-retry"))
	if err != nil || !r.AlreadyCommitted || r.Attempts != 0 {
		t.Fatalf("replay: %+v %v", r, err)
	}
	r, err = tbl.CommitTxn(ctx, "stream", 1, build("f1"))
	if err != nil || r.Version != 1 {
		t.Fatalf("second: %+v %v", r, err)
	}
	acts, err := tbl.ReadCommit(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if acts[0].CommitInfo == nil || acts[0].CommitInfo.Operation != "STREAMING UPDATE" || *acts[0].CommitInfo.ReadVersion != 0 || !*acts[0].CommitInfo.IsBlindAppend {
		t.Errorf("commitInfo: %+v", acts[0].CommitInfo)
	}
	last := acts[len(acts)-1]
	if last.Txn == nil || last.Txn.AppID != "stream" || last.Txn.Version != 1 || last.Txn.LastUpdated == nil {
		t.Errorf("txn: %+v", last.Txn)
	}
	// build errors and duplicate txns surface.
	if _, err := tbl.CommitTxn(ctx, "stream", 2, func(*Snapshot) ([]Action, error) { return nil, errors.New("boom") }); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("build error: %v", err)
	}
	if _, err := tbl.CommitTxn(ctx, "stream", 2, func(*Snapshot) ([]Action, error) {
		return []Action{{Txn: &Txn{AppID: "stream", Version: 2}}}, nil
	}); !errors.Is(err, ErrInvalidCommit) {
		t.Errorf("txn from build: %v", err)
	}
}

// TestCommitTxnConcurrent races committers on one table.
func TestCommitTxnConcurrent(t *testing.T) {
	ctx := context.Background()
	const workers = 6

	countAdds := func(t *testing.T, tbl *Table) (int, *Snapshot) {
		s, err := tbl.Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s.NumFiles(), s
	}

	t.Run("same appId and version: exactly one write", func(t *testing.T) {
		tbl := NewTable(dirstore.New(t.TempDir()), WithBackoff(0), WithMaxAttempts(50))
		var wg sync.WaitGroup
		results := make([]CommitResult, workers)
		errs := make([]error, workers)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[w], errs[w] = tbl.CommitTxn(ctx, "stream", 0, func(s *Snapshot) ([]Action, error) {
					acts := []Action{addAction(fmt.Sprintf("w%d.parquet", w), 1)}
					if s == nil {
						acts = append(createActions(t), acts...)
					}
					return acts, nil
				})
			}()
		}
		wg.Wait()
		written := 0
		for w := range workers {
			if errs[w] != nil {
				t.Fatalf("worker %d: %v", w, errs[w])
			}
			if !results[w].AlreadyCommitted {
				written++
			}
		}
		if n, s := countAdds(t, tbl); written != 1 || n != 1 || s.Version != 0 {
			t.Fatalf("written %d, files %d, version %d; want 1, 1, 0", written, n, s.Version)
		}
	})

	t.Run("distinct appIds: no lost commit", func(t *testing.T) {
		tbl := NewTable(dirstore.New(t.TempDir()), WithBackoff(0), WithMaxAttempts(100))
		if _, err := tbl.Commit(ctx, -1, createActions(t)); err != nil {
			t.Fatal(err)
		}
		const batches = 4
		var wg sync.WaitGroup
		errs := make(chan error, workers*batches)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				app := fmt.Sprintf("app-%d", w)
				for b := range int64(batches) {
					_, err := tbl.CommitTxn(ctx, app, b, func(*Snapshot) ([]Action, error) {
						return []Action{addAction(fmt.Sprintf("%s-%d.parquet", app, b), 1)}, nil
					})
					if err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		n, s := countAdds(t, tbl)
		if n != workers*batches || s.Version != workers*batches {
			t.Fatalf("files %d version %d; want %d", n, s.Version, workers*batches)
		}
		for w := range workers {
			if v, ok := s.TxnVersion(fmt.Sprintf("app-%d", w)); !ok || v != batches-1 {
				t.Errorf("app-%d txn %d %v", w, v, ok)
			}
		}
	})

	t.Run("duplicate committers replay the same batches", func(t *testing.T) {
		tbl := NewTable(dirstore.New(t.TempDir()), WithBackoff(0), WithMaxAttempts(100))
		if _, err := tbl.Commit(ctx, -1, createActions(t)); err != nil {
			t.Fatal(err)
		}
		const batches = 5
		var wg sync.WaitGroup
		errs := make(chan error, workers*batches)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for b := range int64(batches) {
					_, err := tbl.CommitTxn(ctx, "stream", b, func(*Snapshot) ([]Action, error) {
						return []Action{addAction(fmt.Sprintf("batch-%d.parquet", b), 1)}, nil
					})
					if err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		n, s := countAdds(t, tbl)
		if n != batches || s.Version != batches {
			t.Fatalf("files %d version %d; want %d each", n, s.Version, batches)
		}
	})
}

func TestCommitTxnGivesUp(t *testing.T) {
	ctx := context.Background()
	tbl := NewTable(dirstore.New(t.TempDir()), WithBackoff(0), WithMaxAttempts(3))
	if _, err := tbl.Commit(ctx, -1, createActions(t)); err != nil {
		t.Fatal(err)
	}
	// A rival commits inside every build, so every attempt loses.
	rival := 0
	r, err := tbl.CommitTxn(ctx, "s", 0, func(s *Snapshot) ([]Action, error) {
		rival++
		if _, err := tbl.Commit(ctx, s.Version, []Action{addAction(fmt.Sprintf("rival-%d", rival), 1)}); err != nil {
			return nil, err
		}
		return []Action{addAction(fmt.Sprintf("mine-%d", rival), 1)}, nil
	})
	if !errors.Is(err, ErrConcurrentCommit) || r.Attempts != 3 {
		t.Fatalf("err = %v attempts %d; want ErrConcurrentCommit after 3", err, r.Attempts)
	}
}

func TestSnapshotUpdateIsIncremental(t *testing.T) {
	ctx := context.Background()
	cs := &countingStore{Store: dirstore.New(t.TempDir())}
	tbl := NewTable(cs)
	if _, err := tbl.Commit(ctx, -1, createActions(t)); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := tbl.Commit(ctx, int64(i), []Action{addAction(fmt.Sprintf("f%d", i), 1)}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other := NewTable(cs)
	for i := 5; i < 7; i++ {
		if _, err := other.Commit(ctx, int64(i), []Action{addAction(fmt.Sprintf("f%d", i), 1), {Remove: &Remove{Path: "f0", DataChange: true}}}[:1+min(i-5, 1)]); err != nil {
			t.Fatal(err)
		}
	}
	cs.reset()
	if err := s.Update(ctx); err != nil {
		t.Fatal(err)
	}
	got := cs.reset()
	want := []string{CommitKey(6), CommitKey(7)}
	if !slices.Equal(got, want) {
		t.Errorf("Update read %v, want only %v", got, want)
	}
	if s.Version != 7 || s.NumFiles() != 6 {
		t.Errorf("after update: version %d, %d files; want 7, 6", s.Version, s.NumFiles())
	}
	// No new commits: no commit read (only the _last_checkpoint hint,
	// which tells that no log cleanup removed the next version).
	if err := s.Update(ctx); err != nil {
		t.Fatal(err)
	}
	if got := cs.reset(); len(got) > 1 || len(got) == 1 && got[0] != LastCheckpointKey {
		t.Errorf("idle update read %v", got)
	}
}
