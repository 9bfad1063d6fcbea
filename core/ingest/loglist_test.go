package ingest

import (
	"context"
	"io"
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore"
)

// requestCounter counts the requests made to a table store the way S3
// bills them: one LIST per listing (a page holds 1,000 keys; these logs
// are shorter), one GET, HEAD or PUT per call. The memstore it wraps is
// not a delta.DirectoryStore, so the table treats it as S3.
type requestCounter struct {
	objstore.Store
	mu                    sync.Mutex
	logLists, lists       int
	gets, heads, puts     int
	conditionalPutsFailed int
}

type requestCount struct {
	logLists, lists, gets, heads, puts, failedPuts int
}

func (c *requestCounter) take() requestCount {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := requestCount{c.logLists, c.lists, c.gets, c.heads, c.puts, c.conditionalPutsFailed}
	c.logLists, c.lists, c.gets, c.heads, c.puts, c.conditionalPutsFailed = 0, 0, 0, 0, 0, 0
	return n
}

func (c *requestCounter) List(ctx context.Context, o objstore.ListOptions) iter.Seq2[objstore.ObjectInfo, error] {
	c.mu.Lock()
	c.lists++
	if strings.HasPrefix(o.Prefix, delta.LogDir) {
		c.logLists++
	}
	c.mu.Unlock()
	return c.Store.List(ctx, o)
}

func (c *requestCounter) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	c.mu.Lock()
	c.gets++
	c.mu.Unlock()
	return c.Store.Get(ctx, key)
}

func (c *requestCounter) Head(ctx context.Context, key string) (objstore.ObjectInfo, error) {
	c.mu.Lock()
	c.heads++
	c.mu.Unlock()
	return c.Store.Head(ctx, key)
}

func (c *requestCounter) Put(ctx context.Context, key string, r io.Reader) error {
	c.mu.Lock()
	c.puts++
	c.mu.Unlock()
	return c.Store.Put(ctx, key, r)
}

func (c *requestCounter) PutIfAbsent(ctx context.Context, key string, r io.Reader) error {
	err := c.Store.PutIfAbsent(ctx, key, r)
	c.mu.Lock()
	c.puts++
	if err != nil {
		c.conditionalPutsFailed++
	}
	c.mu.Unlock()
	return err
}

// One commit run lists _delta_log once, whatever its number of batches,
// whether the engine is new (a cold start loads the snapshot) or kept from
// the previous run (a warm Lambda instance updates it), and across
// checkpoints; an empty run lists it once too. The table is on a store
// that behaves like S3 (no directory stat shortcut).
func TestOneLogListingPerRun(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	counter := &requestCounter{Store: w.table}
	build := func() *Engine {
		e := w.engine(t, Limits{MaxFiles: 1})
		e.Table = delta.NewTable(counter, delta.WithBackoff(0))
		return e
	}
	kept := build()
	runs := []struct {
		name  string
		files int
		fresh bool // a new engine (cold start) instead of the kept one
	}{
		{"first run creates the table", 1, false},
		{"trickle: one file, warm", 1, false},
		{"trickle: one file, cold", 1, true},
		{"nothing to do, warm", 0, false},
		{"nothing to do, cold", 0, true},
		{"12 batches across the checkpoint at 10, warm", 12, false},
		{"9 batches across the checkpoint at 20, cold", 9, true},
		{"3 batches, warm", 3, false},
	}
	total := 0
	for _, r := range runs {
		for range r.files {
			w.addFile(t, 2)
		}
		w.discover(t)
		e := kept
		if r.fresh {
			e = build()
		}
		counter.take()
		sum, err := e.RunAvailableNow(ctx, nil)
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		n := counter.take()
		total += r.files
		if len(sum.Batches) != r.files {
			t.Fatalf("%s: %d batches, want %d", r.name, len(sum.Batches), r.files)
		}
		t.Logf("%-46s %2d batches: %d LIST of _delta_log (%d LIST in all), %d GET, %d HEAD, %d PUT (%d refused)",
			r.name, len(sum.Batches), n.logLists, n.lists, n.gets, n.heads, n.puts, n.failedPuts)
		if n.logLists != 1 {
			t.Errorf("%s: %d listings of _delta_log, want 1 per run", r.name, n.logLists)
		}
		if n.failedPuts != 0 {
			t.Errorf("%s: %d refused conditional puts with no other writer", r.name, n.failedPuts)
		}
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
	checkLog(t, w.table)
	snap, err := delta.NewTable(w.table).Snapshot(ctx)
	if err != nil || snap.CheckpointVersion() < 20 {
		t.Fatalf("checkpoint %d (err %v): the runs should have written checkpoints at 10 and 20", snap.CheckpointVersion(), err)
	}
}

// A writer that commits between the run's listing and its commit is
// detected by the refused put-if-absent: the engine lists again, retries
// on top of that commit, and nothing is lost or written twice — for
// another writer of the table (a blind append) and for a racing committer
// of the same stream (which commits the sealed batch first).
func TestWriterBetweenListingAndCommit(t *testing.T) {
	for _, tc := range []struct {
		name       string
		sameStream bool
	}{{"another writer appends", false}, {"the same stream's other committer", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			w := newWorld()
			counter := &requestCounter{Store: w.table}
			e := w.engine(t, Limits{MaxFiles: 1})
			e.Table = delta.NewTable(counter, delta.WithBackoff(0))
			w.addFile(t, 3)
			w.discover(t)
			if _, err := e.RunAvailableNow(ctx, nil); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				w.addFile(t, 3)
			}
			w.discover(t)
			other := w.engine(t, Limits{MaxFiles: 1})
			raced := false
			e.fault = func(step Step, batch int64) error {
				if step != StepWritten || batch != 2 || raced {
					return nil
				}
				raced = true
				if tc.sameStream {
					_, err := other.RunBatch(ctx)
					return err
				}
				tbl := delta.NewTable(w.table)
				_, err := tbl.CommitTxn(ctx, "someone-else", 0, func(*delta.Snapshot) ([]delta.Action, error) {
					return []delta.Action{{Add: &delta.Add{Path: "elsewhere.parquet", Size: 1, DataChange: true,
						PartitionValues: map[string]*string{}}}}, nil
				})
				return err
			}
			counter.take()
			sum, err := e.RunAvailableNow(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			n := counter.take()
			t.Logf("%d batches, %d skipped: %d LIST of _delta_log, %d refused put-if-absent", len(sum.Batches), sum.Skipped, n.logLists, n.failedPuts)
			if !raced || n.failedPuts != 1 || n.logLists != 2 {
				t.Fatalf("raced %v: %d refused put-if-absent, %d listings; want the race detected by one refused put and one more listing", raced, n.failedPuts, n.logLists)
			}
			wantBatches, wantSkipped := 3, 0
			if tc.sameStream {
				wantBatches, wantSkipped = 2, 1
			}
			if len(sum.Batches) != wantBatches || sum.Skipped != wantSkipped {
				t.Fatalf("%d batches, %d skipped; want %d, %d", len(sum.Batches), sum.Skipped, wantBatches, wantSkipped)
			}
			snap, err := delta.NewTable(w.table).Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if v, _ := snap.TxnVersion("stream-1"); v != 3 {
				t.Fatalf("stream txn %d, want 3", v)
			}
			if _, ok := snap.File("elsewhere.parquet"); ok == tc.sameStream {
				t.Fatalf("the other writer's file in the table: %v", ok)
			}
			if !tc.sameStream {
				// The other writer's add has no data file: count ours.
				if snap.NumFiles() != 5 {
					t.Fatalf("%d files, want 4 batches + 1", snap.NumFiles())
				}
				return
			}
			checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
			checkLog(t, w.table)
		})
	}
}
