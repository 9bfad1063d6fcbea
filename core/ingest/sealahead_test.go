package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/state"
)

// sealWatch is a checkpoint store whose put-if-absent of a batch plan
// (offsets/) calls beforeSeal first and fails with fail when set.
type sealWatch struct {
	objstore.Store
	beforeSeal func(key string)
	fail       error
	sealed     atomic.Int64 // plans sealed through this store
}

func (s *sealWatch) PutIfAbsent(ctx context.Context, key string, r io.Reader) error {
	if !strings.HasPrefix(key, "offsets/") {
		return s.Store.PutIfAbsent(ctx, key, r)
	}
	if s.beforeSeal != nil {
		s.beforeSeal(key)
	}
	if s.fail != nil {
		return s.fail
	}
	err := s.Store.PutIfAbsent(ctx, key, r)
	if err == nil {
		s.sealed.Add(1)
	}
	return err
}

// sealFirst is a state store that records a claim made before its
// batch's plan was sealed, or of other files than the sealed plan's.
type sealFirst struct {
	state.Store
	cp     objstore.Store
	errs   chan string
	claims atomic.Int64
}

func (s *sealFirst) Claim(ctx context.Context, stream string, batch int64, paths []string) error {
	s.claims.Add(1)
	p, ok, err := batchplan.Read(ctx, s.cp, batch)
	switch {
	case err != nil:
		s.errs <- err.Error()
	case !ok:
		s.errs <- fmt.Sprintf("batch %d claimed before its plan was sealed", batch)
	case strings.Join(p.Paths(), ",") != strings.Join(paths, ","):
		s.errs <- fmt.Sprintf("batch %d claims %v, its sealed plan holds %v", batch, paths, p.Paths())
	}
	return s.Store.Claim(ctx, stream, batch, paths)
}

// A new plan is sealed while the batch is written (StartSealClaim): the
// data file may be written before the seal, but the claim waits for the
// seal, and the commit for both. The seal here holds until the batch's
// data file exists.
func TestSealAheadOrder(t *testing.T) {
	w := newWorld()
	for i := 0; i < 4; i++ {
		w.addFile(t, 2+i)
	}
	w.discover(t)
	sf := &sealFirst{Store: w.st, cp: w.cp, errs: make(chan string, 100)}
	w.st = sf
	var overlapped atomic.Int64
	var sw *sealWatch
	sw = &sealWatch{Store: w.cp, beforeSeal: func(string) {
		n := w.dataFiles(t)
		waitFor(2*time.Second, func() bool { return w.dataFiles(t) > n })
		if w.dataFiles(t) > n {
			overlapped.Add(1)
		}
	}}
	w.engineHook = func(e *Engine) {
		e.Checkpoint = sw
		// Inference samples the batch's files only, so that it does not
		// wait for the claim (and so the seal) to read more.
		e.Config.Schema.SampleFiles = 1
		e.Table = delta.NewTable(commitWatch{w.table, func(key string) {
			// Version v commits batch v here.
			var v int64
			fmt.Sscanf(strings.TrimPrefix(key, "_delta_log/"), "%d.json", &v)
			if _, ok, err := batchplan.Read(context.Background(), w.cp, v); err != nil || !ok {
				sf.errs <- fmt.Sprintf("commit %s before batch %d's plan was sealed (%v)", key, v, err)
			}
			if sf.claims.Load() <= v {
				sf.errs <- fmt.Sprintf("commit %s before batch %d's claim", key, v)
			}
		}})
	}
	e := w.engine(t, Limits{MaxFiles: 2})
	if !e.claimsAhead() {
		t.Fatal("the engine seals before writing: this test needs the claim ahead")
	}
	sum, err := e.RunAvailableNow(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	close(sf.errs)
	for v := range sf.errs {
		t.Error(v)
	}
	if len(sum.Batches) != 2 || sw.sealed.Load() != 2 {
		t.Fatalf("%d batches, %d plans sealed, want 2 and 2", len(sum.Batches), sw.sealed.Load())
	}
	if overlapped.Load() == 0 {
		t.Error("no data file was written while a plan was being sealed")
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
}

// A seal that fails (a crash while the plan was written, with data files
// written meanwhile or not) claims and commits nothing; the next run plans,
// writes and commits every row once.
func TestSealAheadCrash(t *testing.T) {
	for _, afterWrite := range []bool{false, true} {
		t.Run(map[bool]string{false: "at once", true: "after the write"}[afterWrite], func(t *testing.T) {
			w := newWorld()
			for i := 0; i < 3; i++ {
				w.addFile(t, 4)
			}
			w.discover(t)
			sw := &sealWatch{Store: w.cp, fail: errCrash}
			var written atomic.Bool // a data file existed while the seal held
			if afterWrite {
				sw.beforeSeal = func(string) {
					waitFor(2*time.Second, func() bool { return w.dataFiles(t) > 0 })
					written.Store(w.dataFiles(t) > 0)
				}
			}
			w.engineHook = func(e *Engine) {
				e.Checkpoint = sw
				e.Config.Schema.SampleFiles = 1
			}
			_, err := w.engine(t, Limits{MaxFiles: 2}).RunAvailableNow(context.Background(), nil)
			if !errors.Is(err, errCrash) {
				t.Fatalf("want the crash, got %v", err)
			}
			if _, err := delta.NewTable(w.table).LatestVersion(context.Background()); !errors.Is(err, delta.ErrNotATable) {
				t.Fatalf("a version was committed without a sealed plan (err %v)", err)
			}
			if afterWrite && !written.Load() {
				t.Fatal("no data file was written while the seal held")
			}
			if n := w.dataFiles(t); n != 0 {
				t.Fatalf("%d data files left by the write the failed seal stopped", n)
			}
			pending, err := w.st.Pending(context.Background(), "stream-1", 10)
			if err != nil || len(pending) != 3 {
				t.Fatalf("%d files pending after the failed seal (%v), want 3: a file was claimed without its plan", len(pending), err)
			}
			w.engineHook = nil
			if _, err := w.engine(t, Limits{MaxFiles: 2}).RunAvailableNow(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
			for e, err := range w.st.Entries(context.Background(), "stream-1") {
				if err != nil {
					t.Fatal(err)
				}
				if e.State != state.Committed {
					t.Fatalf("%s: state %s, want committed", e.Path, e.State)
				}
			}
		})
	}
}

// Another committer seals batch 0 with other files while this engine
// writes its own plan: the seal returns that plan, the batch is written
// again with its files and committed with them, and the rest follows in
// the next batch, every row once.
func TestSealAheadLosesTheRace(t *testing.T) {
	w := newWorld()
	for i := 0; i < 4; i++ {
		w.addFile(t, 3)
	}
	w.discover(t)
	pending, err := w.st.Pending(context.Background(), "stream-1", 10)
	if err != nil || len(pending) != 4 {
		t.Fatalf("%d pending (%v)", len(pending), err)
	}
	// The other committer's plan: the last file only.
	other := &batchplan.Plan{BatchID: 0, Stream: "stream-1", CreatedAt: time.Unix(1e9, 0).UTC(),
		Files: batchplan.Select(pending[3:], batchplan.Limits{})}
	raced := false
	sw := &sealWatch{Store: w.cp, beforeSeal: func(key string) {
		if key == batchplan.Key(0) && !raced {
			raced = true
			if _, err := batchplan.Seal(context.Background(), w.cp, other); err != nil {
				t.Error(err)
			}
		}
	}}
	w.engineHook = func(e *Engine) { e.Checkpoint = sw }
	sum, err := w.engine(t, Limits{MaxFiles: 2}).RunAvailableNow(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !raced {
		t.Fatal("the race was not run")
	}
	if len(sum.Batches) < 2 || sum.Batches[0].NumInputFiles != 1 || sum.Batches[0].NumInputRows != 3 {
		t.Fatalf("batches %+v: want batch 0 to be the other committer's plan (1 file, 3 rows)", sum.Batches)
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
	for e, err := range w.st.Entries(context.Background(), "stream-1") {
		if err != nil {
			t.Fatal(err)
		}
		if e.State != state.Committed {
			t.Fatalf("%s: state %s, want committed", e.Path, e.State)
		}
		if e.Path == other.Files[0].Path && e.BatchID != 0 {
			t.Fatalf("%s: batch %d, want 0 (the sealed plan's)", e.Path, e.BatchID)
		}
	}
}
