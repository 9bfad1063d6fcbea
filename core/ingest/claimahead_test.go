package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/state"
)

// claimWatch is a state store whose Claim waits (hold) before claiming,
// or fails (fail) as a crash during the claim would, and that records
// what must not happen while a claim is under way: a read of the pending
// files, or (with watchCommits) a Delta commit before the claim is done.
type claimWatch struct {
	state.Store
	cp      objstore.Store // the checkpoint, where the sealed plans are
	hold    func()
	fail    error
	claimed atomic.Int64 // batches claimed (the last one's id + 1)

	mu   sync.Mutex
	errs []string
}

func (c *claimWatch) violation(s string) {
	c.mu.Lock()
	c.errs = append(c.errs, s)
	c.mu.Unlock()
}

func (c *claimWatch) violations() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.errs...)
}

func (c *claimWatch) Claim(ctx context.Context, stream string, batch int64, paths []string) error {
	if c.hold != nil {
		c.hold()
	}
	if c.fail != nil {
		return c.fail
	}
	if err := c.Store.Claim(ctx, stream, batch, paths); err != nil {
		return err
	}
	c.claimed.Store(batch + 1)
	return nil
}

// Pending records a read of the pending files between the sealing of a
// batch's plan and the end of its claim: one that sees the batch's own
// files still pending.
func (c *claimWatch) Pending(ctx context.Context, stream string, limit int) ([]state.Entry, error) {
	ids, err := batchplan.IDs(ctx, c.cp)
	if err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		p, _, err := batchplan.Read(ctx, c.cp, ids[len(ids)-1])
		if err != nil {
			return nil, err
		}
		all, err := c.Store.Pending(ctx, stream, 1<<20)
		if err != nil {
			return nil, err
		}
		for _, e := range all {
			if slices.ContainsFunc(p.Files, func(f batchplan.PlanFile) bool { return f.Path == e.Path }) {
				c.violation(fmt.Sprintf("pending files read before batch %d's claim was done", p.BatchID))
				break
			}
		}
	}
	return c.Store.Pending(ctx, stream, limit)
}

// commitWatch is a table store that calls onCommit before a Delta commit
// (the put-if-absent of a _delta_log JSON file).
type commitWatch struct {
	objstore.Store
	onCommit func(key string)
}

func (s commitWatch) PutIfAbsent(ctx context.Context, key string, r io.Reader) error {
	if strings.HasPrefix(key, "_delta_log/") && strings.HasSuffix(key, ".json") {
		s.onCommit(key)
	}
	return s.Store.PutIfAbsent(ctx, key, r)
}

// waitFor polls cond every millisecond for up to d.
func waitFor(d time.Duration, cond func() bool) {
	for end := time.Now().Add(d); time.Now().Before(end) && !cond(); {
		time.Sleep(time.Millisecond)
	}
}

// The claim runs while the batch is written (claimsAhead), but nothing
// that depends on it runs before it is done: the Delta commit waits for it,
// and schema inference reads the pending files after it. The claim here
// holds until the batch's data file is written and then a while longer
// (or until a commit is attempted), so a commit or a pending read that did
// not wait for the claim is recorded.
func TestClaimAheadOrder(t *testing.T) {
	w := newWorld()
	for i := 0; i < 4; i++ {
		w.addFile(t, 3+i)
	}
	w.discover(t)
	var committing atomic.Bool
	cw := &claimWatch{Store: w.st, cp: w.cp}
	cw.hold = func() {
		// Until the batch's data file is written: the first batch infers
		// its schema (a read of the pending files) before it writes, so
		// that one is released by the time limit.
		n := w.dataFiles(t)
		committing.Store(false)
		waitFor(300*time.Millisecond, func() bool { return w.dataFiles(t) > n })
		waitFor(300*time.Millisecond, committing.Load)
	}
	w.st = cw
	w.engineHook = func(e *Engine) {
		e.Table = delta.NewTable(commitWatch{w.table, func(key string) {
			committing.Store(true)
			// Version v commits batch v here.
			v, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(key, "_delta_log/"), ".json"), 10, 64)
			if err != nil {
				cw.violation(err.Error())
			} else if cw.claimed.Load() <= v {
				cw.violation(fmt.Sprintf("commit %s before batch %d's claim was done", key, v))
			}
		}})
	}
	e := w.engine(t, Limits{MaxFiles: 2})
	if !e.claimsAhead() {
		t.Fatal("the engine claims before writing: this test needs the claim ahead")
	}
	sum, err := e.RunAvailableNow(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range cw.violations() {
		t.Error(v)
	}
	if len(sum.Batches) != 2 {
		t.Fatalf("%d batches, want 2", len(sum.Batches))
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
}

// A claim that fails (a crash while the batch's files were being claimed,
// with the data already written) commits nothing; the next run claims,
// writes and commits the batch's rows once.
func TestClaimAheadCrash(t *testing.T) {
	for _, afterWrite := range []bool{false, true} {
		t.Run(map[bool]string{false: "at once", true: "after the write"}[afterWrite], func(t *testing.T) {
			w := newWorld()
			for i := 0; i < 3; i++ {
				w.addFile(t, 5)
			}
			w.discover(t)
			st := w.st
			cw := &claimWatch{Store: st, cp: w.cp, fail: errCrash}
			var written atomic.Bool // a data file existed while the claim held
			if afterWrite {
				cw.hold = func() {
					waitFor(2*time.Second, func() bool { return w.dataFiles(t) > 0 })
					written.Store(w.dataFiles(t) > 0)
				}
				// Inference samples the batch's files only, so that it
				// does not wait for the claim to read more.
				w.engineHook = func(e *Engine) { e.Config.Schema.SampleFiles = 1 }
			}
			w.st = cw
			_, err := w.engine(t, Limits{MaxFiles: 2}).RunAvailableNow(context.Background(), nil)
			if !errors.Is(err, errCrash) {
				t.Fatalf("want the crash, got %v", err)
			}
			if _, err := delta.NewTable(w.table).LatestVersion(context.Background()); !errors.Is(err, delta.ErrNotATable) {
				t.Fatalf("a version was committed without the claim (err %v)", err)
			}
			if afterWrite && !written.Load() {
				t.Fatal("no data file was written while the claim held")
			}
			if n := w.dataFiles(t); n != 0 {
				t.Fatalf("%d data files left by the write the failed claim stopped", n)
			}
			pending, err := st.Pending(context.Background(), "stream-1", 10)
			if err != nil || len(pending) != 3 {
				t.Fatalf("%d files pending after the failed claim (%v), want 3", len(pending), err)
			}
			w.st = st
			if _, err := w.engine(t, Limits{MaxFiles: 2}).RunAvailableNow(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
			for e, err := range st.Entries(context.Background(), "stream-1") {
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
