package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/discovery"
	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/core/state/memstate"
)

// world is one stream's set of stores, shared by every engine of a test.
type world struct {
	src, table, cp *memstore.Store
	st             state.Store
	rows           int // rows written to the source so far
	files          int
	engineHook     func(*Engine) // adjusts every engine the world builds
}

func newWorld() *world {
	return &world{src: memstore.New(), table: memstore.New(), cp: memstore.New(), st: memstate.New()}
}

// addFile writes an NDJSON file of n rows with globally unique ids.
func (w *world) addFile(t testing.TB, n int) {
	t.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"id": %d, "name": "row %d", "tags": ["x", null], "nested": {"a": %d, "b": null}}`+"\n", w.rows, w.rows, w.rows%7)
		w.rows++
	}
	key := fmt.Sprintf("in/part %03d.json", w.files)
	w.files++
	if err := w.src.Put(context.Background(), key, strings.NewReader(b.String())); err != nil {
		t.Fatal(err)
	}
}

func (w *world) engine(t testing.TB, lim Limits) *Engine {
	t.Helper()
	f, err := formats.Lookup("json")
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{
		Config: Config{
			StreamID: "stream-1",
			Format:   f,
			Limits:   lim,
			Schema:   SchemaConfig{InferColumnTypes: true},
		},
		Source:     w.src,
		Table:      delta.NewTable(w.table),
		Checkpoint: w.cp,
		State:      w.st,
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		TempDir:    t.TempDir(),
	}
	if w.engineHook != nil {
		w.engineHook(e)
	}
	return e
}

func (w *world) discover(t testing.TB) discovery.Result {
	t.Helper()
	r := &discovery.Registrar{State: w.st, Stream: "stream-1"}
	res, err := r.RegisterAll(context.Background(), discovery.List(context.Background(), w.src, discovery.Filter{}))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// tableIDs reads every active data file of the table and returns the count
// of each id.
func tableIDs(t testing.TB, store objstore.Store) map[int64]int {
	t.Helper()
	ctx := context.Background()
	snap, err := delta.NewTable(store).Snapshot(ctx)
	if errors.Is(err, delta.ErrNotATable) {
		return map[int64]int{}
	}
	if err != nil {
		t.Fatal(err)
	}
	idx := snap.Schema().FieldIndex("id")
	if idx < 0 {
		t.Fatalf("table schema has no id column: %s", snap.Schema())
	}
	ids := map[int64]int{}
	for add := range snap.Files() {
		rc, err := store.Get(ctx, add.Path)
		if err != nil {
			t.Fatalf("data file %s of the log: %v", add.Path, err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		_, rows, err := parquetio.ReadFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("reading %s: %v", add.Path, err)
		}
		st, err := add.ParseStats()
		if err != nil || st.NumRecords != int64(len(rows)) {
			t.Fatalf("%s: stats numRecords %v, file has %d rows (err %v)", add.Path, st, len(rows), err)
		}
		for _, r := range rows {
			ids[r[idx].(int64)]++
		}
	}
	return ids
}

// checkExactlyOnce asserts ids 0..n-1 each appear once.
func checkExactlyOnce(t testing.TB, ids map[int64]int, n int) {
	t.Helper()
	if len(ids) != n {
		t.Fatalf("table holds %d distinct ids, want %d", len(ids), n)
	}
	for id, c := range ids {
		if c != 1 || id < 0 || id >= int64(n) {
			t.Fatalf("id %d appears %d times", id, c)
		}
	}
}

// checkLog asserts the commit-level invariants on every log version.
func checkLog(t testing.TB, store objstore.Store) {
	t.Helper()
	ctx := context.Background()
	for info, err := range store.List(ctx, objstore.ListOptions{Prefix: "_delta_log/"}) {
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(info.Key, ".json") {
			continue
		}
		rc, err := store.Get(ctx, info.Key)
		if err != nil {
			t.Fatal(err)
		}
		paths := map[string]bool{}
		txns := map[string]int{}
		err = delta.ReadActions(bufio.NewReader(rc), func(a delta.Action) error {
			if a.Add != nil {
				if paths[a.Add.Path] {
					return fmt.Errorf("duplicate add %s", a.Add.Path)
				}
				paths[a.Add.Path] = true
			}
			if a.Txn != nil {
				txns[a.Txn.AppID]++
				if txns[a.Txn.AppID] > 1 {
					return fmt.Errorf("two txn actions for %s", a.Txn.AppID)
				}
			}
			return nil
		})
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", info.Key, err)
		}
	}
}

func TestAvailableNowBatchesByLimits(t *testing.T) {
	tests := []struct {
		name        string
		files       int
		lim         Limits
		wantBatches int
	}{
		{"one batch", 5, Limits{MaxFiles: 1000}, 1},
		{"maxFiles 2", 5, Limits{MaxFiles: 2}, 3},
		{"maxFiles 1", 4, Limits{MaxFiles: 1}, 4},
		// each file is about 1.2 KB: a 1-byte soft limit still admits one file
		{"maxBytes tiny", 3, Limits{MaxBytes: 1}, 3},
		{"maxBytes crossing file included", 4, Limits{MaxBytes: 2000}, 2},
		{"both limits, files first", 6, Limits{MaxFiles: 2, MaxBytes: 1 << 30}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld()
			for i := 0; i < tc.files; i++ {
				w.addFile(t, 10)
			}
			w.discover(t)
			sum, err := w.engine(t, tc.lim).RunAvailableNow(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Batches) != tc.wantBatches {
				t.Fatalf("batches = %d, want %d", len(sum.Batches), tc.wantBatches)
			}
			if sum.Rows() != int64(w.rows) {
				t.Fatalf("rows = %d, want %d", sum.Rows(), w.rows)
			}
			checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
			checkLog(t, w.table)
		})
	}
}

func TestRerunAddsNothingAndNewFileAddsOneVersion(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	for i := 0; i < 3; i++ {
		w.addFile(t, 20)
	}
	w.discover(t)
	if _, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil); err != nil {
		t.Fatal(err)
	}
	v0, err := delta.NewTable(w.table).LatestVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res := w.discover(t); res.New != 0 {
		t.Fatalf("second discovery registered %d files", res.New)
	}
	sum, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil)
	if err != nil || len(sum.Batches) != 0 {
		t.Fatalf("rerun: %d batches, err %v", len(sum.Batches), err)
	}
	w.addFile(t, 7)
	if res := w.discover(t); res.New != 1 {
		t.Fatalf("new file: registered %d", res.New)
	}
	sum, err = w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil)
	if err != nil || len(sum.Batches) != 1 || sum.Rows() != 7 {
		t.Fatalf("after new file: %+v, err %v", sum, err)
	}
	v1, _ := delta.NewTable(w.table).LatestVersion(ctx)
	if v1 != v0+1 {
		t.Fatalf("version %d -> %d, want one new version", v0, v1)
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
}

var errCrash = errors.New("injected crash")

// TestCrashAtEveryStep crashes the commit path at random protocol steps
// over many seeds, reruns until the backlog is drained, and checks that
// every input row is in the table exactly once.
func TestCrashAtEveryStep(t *testing.T) {
	steps := []Step{StepPlanned, StepWritten, StepCommitted, StepFinished}
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 99))
			w := newWorld()
			crashes := map[Step]int{}
			for round := 0; round < 4; round++ {
				for i := rng.IntN(4); i >= 0; i-- {
					w.addFile(t, 1+rng.IntN(30))
				}
				w.discover(t)
				for attempt := 0; ; attempt++ {
					if attempt > 200 {
						t.Fatal("no progress after 200 attempts")
					}
					e := w.engine(t, Limits{MaxFiles: 1 + rng.IntN(3)})
					e.fault = func(s Step, _ int64) error {
						if rng.IntN(3) == 0 {
							crashes[s]++
							return errCrash
						}
						return nil
					}
					_, err := e.RunAvailableNow(context.Background(), nil)
					if err == nil {
						break
					}
					if !errors.Is(err, errCrash) {
						t.Fatal(err)
					}
				}
			}
			checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
			checkLog(t, w.table)
			// Every file ends committed in the state store.
			for e, err := range w.st.Entries(context.Background(), "stream-1") {
				if err != nil {
					t.Fatal(err)
				}
				if e.State != state.Committed || e.CommitTime == nil {
					t.Fatalf("%s: state %s commit %v", e.Path, e.State, e.CommitTime)
				}
			}
			_ = steps
		})
	}
}

// TestCrashCoversEveryStep makes sure the random crashes above really hit
// each step: one deterministic crash per step.
func TestCrashCoversEveryStep(t *testing.T) {
	for _, step := range []Step{StepPlanned, StepWritten, StepCommitted, StepFinished} {
		t.Run(string(step), func(t *testing.T) {
			w := newWorld()
			w.addFile(t, 5)
			w.addFile(t, 6)
			w.discover(t)
			e := w.engine(t, Limits{MaxFiles: 1})
			hit := false
			e.fault = func(s Step, batch int64) error {
				if s == step && batch == 0 && !hit {
					hit = true
					return errCrash
				}
				return nil
			}
			if _, err := e.RunAvailableNow(context.Background(), nil); !errors.Is(err, errCrash) {
				t.Fatalf("want the injected crash, got %v", err)
			}
			if _, err := w.engine(t, Limits{MaxFiles: 1}).RunAvailableNow(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
		})
	}
}

// TestRacingCommitters runs several committers on one stream at once.
func TestRacingCommitters(t *testing.T) {
	for seed := 0; seed < 5; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			w := newWorld()
			for i := 0; i < 12; i++ {
				w.addFile(t, 10+i)
			}
			w.discover(t)
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for i := 0; i < 4; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, err := w.engine(t, Limits{MaxFiles: 1 + (i+seed)%3}).RunAvailableNow(context.Background(), nil)
					errs <- err
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
			checkLog(t, w.table)
		})
	}
}

func TestCorruptFileIsSkippedNotBlocking(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	w.engineHook = func(e *Engine) { e.Config.Reader.IgnoreCorruptFiles = true }
	w.addFile(t, 10)
	if err := w.src.Put(ctx, "in/broken.json.gz", strings.NewReader("this is not gzip")); err != nil {
		t.Fatal(err)
	}
	w.addFile(t, 10)
	w.discover(t)
	sum, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Batches) != 1 || sum.Batches[0].NumSkippedFiles != 1 {
		t.Fatalf("want one batch with one skipped file, got %+v", sum.Batches)
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
	e, err := w.st.Get(ctx, "stream-1", "in/broken.json.gz")
	if err != nil || e.State != state.Skipped || !strings.Contains(e.Error, "gzip") || e.CommitTime == nil {
		t.Fatalf("state of the broken file: %+v %v", e, err)
	}
}

func TestCheckpointEveryTenCommits(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	for i := 0; i < 12; i++ {
		w.addFile(t, 3)
	}
	w.discover(t)
	sum, err := w.engine(t, Limits{MaxFiles: 1}).RunAvailableNow(ctx, nil)
	if err != nil || len(sum.Batches) != 12 {
		t.Fatalf("%d batches, err %v", len(sum.Batches), err)
	}
	if _, err := w.table.Head(ctx, "_delta_log/00000000000000000010.checkpoint.parquet"); err != nil {
		t.Fatalf("no checkpoint at version 10: %v", err)
	}
	snap, err := delta.NewTable(w.table).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if snap.CheckpointVersion() != 10 || snap.Version != 11 {
		t.Fatalf("snapshot version %d from checkpoint %d", snap.Version, snap.CheckpointVersion())
	}
	if v, _ := snap.TxnVersion("stream-1"); v != 11 {
		t.Fatalf("txn version from checkpoint + log = %d", v)
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
}

// TestInferenceSamplesBeyondTheFirstBatch: a column that first appears in a
// later file is part of the inferred schema even with maxFilesPerTrigger=1.
func TestInferenceSamplesBeyondTheFirstBatch(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	w.addFile(t, 2)
	if err := w.src.Put(ctx, "in/zz-late.json", strings.NewReader(`{"id": 1000, "late": true}`+"\n")); err != nil {
		t.Fatal(err)
	}
	w.discover(t)
	if _, err := w.engine(t, Limits{MaxFiles: 1}).RunAvailableNow(ctx, nil); err != nil {
		t.Fatal(err)
	}
	snap, err := delta.NewTable(w.table).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Schema().FieldIndex("late") < 0 {
		t.Fatalf("schema %s lacks the column of the second file", snap.Schema())
	}
}

func TestFileDeletedAfterDiscoveryIsSkipped(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	w.engineHook = func(e *Engine) { e.Config.Reader.IgnoreMissingFiles = true }
	w.addFile(t, 4)
	if err := w.src.Put(ctx, "in/gone.json", strings.NewReader(`{"id": 999}`+"\n")); err != nil {
		t.Fatal(err)
	}
	w.addFile(t, 4)
	w.discover(t)
	if err := w.src.Delete(ctx, "in/gone.json"); err != nil {
		t.Fatal(err)
	}
	sum, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Batches) != 1 || sum.Batches[0].NumSkippedFiles != 1 {
		t.Fatalf("batches %+v", sum.Batches)
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
}

// readingStore hides the store's state.PendingCounter: the engine counts
// the backlog from the entries it reads.
type readingStore struct{ state.Store }

// The backlog a batch reports is the same whether the store counts it
// (state.PendingCounter) or the engine reads the entries.
func TestProgressCountsOutstandingFiles(t *testing.T) {
	var perStore [][2][]int64
	for _, counting := range []bool{true, false} {
		t.Run(fmt.Sprintf("counting=%v", counting), func(t *testing.T) {
			w := newWorld()
			if !counting {
				w.st = readingStore{w.st}
			}
			if _, ok := w.st.(state.PendingCounter); ok != counting {
				t.Fatalf("store counts: %v, want %v", ok, counting)
			}
			for i := 0; i < 5; i++ {
				w.addFile(t, 1+i)
			}
			w.discover(t)
			sum, err := w.engine(t, Limits{MaxFiles: 2}).RunAvailableNow(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var files, bytes []int64
			for _, b := range sum.Batches {
				files, bytes = append(files, b.NumFilesOutstanding), append(bytes, b.NumBytesOutstanding)
				if (b.NumFilesOutstanding == 0) != (b.NumBytesOutstanding == 0) || b.BacklogCapped {
					t.Fatalf("batch %d: %d files, %d bytes outstanding, capped %v", b.BatchID, b.NumFilesOutstanding, b.NumBytesOutstanding, b.BacklogCapped)
				}
			}
			if fmt.Sprint(files) != "[3 1 0]" || !(bytes[0] > bytes[1] && bytes[1] > 0) {
				t.Fatalf("outstanding per batch %v files, %v bytes; want [3 1 0] files", files, bytes)
			}
			perStore = append(perStore, [2][]int64{files, bytes})
		})
	}
	if len(perStore) == 2 && fmt.Sprint(perStore[0]) != fmt.Sprint(perStore[1]) {
		t.Fatalf("counting store %v, reading store %v", perStore[0], perStore[1])
	}
}
