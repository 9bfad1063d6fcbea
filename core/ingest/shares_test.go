package ingest

import (
	"context"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/ingest/fanout"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/core/state/memstate"
)

// converters is an in-process fan-out runner over a world: every share is
// converted by a fresh engine of the world, as a separate function
// invocation would. hook, when set, adjusts each converter's engine.
type converters struct {
	t     testing.TB
	w     *world
	hook  func(e *Engine, req fanout.Request)
	calls atomic.Int64
}

func (c *converters) Convert(ctx context.Context, req fanout.Request) error {
	c.calls.Add(1)
	e := c.w.engine(c.t, Limits{})
	if c.hook != nil {
		c.hook(e, req)
	}
	_, err := e.ConvertShare(ctx, req)
	return err
}

// fanEngine is the world's engine with fan-out to c over at most max
// converters of per bytes each.
func (w *world) fanEngine(t testing.TB, lim Limits, c fanout.Runner, maxConv int, per int64) *Engine {
	e := w.engine(t, lim)
	e.Fanout = &fanout.Config{Runner: c, MaxConverters: maxConv, BytesPerConverter: per}
	return e
}

// reportKeys lists the share reports in the world's checkpoint.
func (w *world) reportKeys(t testing.TB) []string {
	var keys []string
	for info, err := range w.cp.List(context.Background(), objstore.ListOptions{Prefix: fanout.ReportsPrefix}) {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, info.Key)
	}
	return keys
}

// sourceBytes is the size of every source file.
func (w *world) sourceBytes(t testing.TB) int64 {
	var n int64
	for info, err := range w.src.List(context.Background(), objstore.ListOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		n += info.Size
	}
	return n
}

// tableVersions counts the commits of the world's table.
func (w *world) tableVersions(t testing.TB) int64 {
	v, err := delta.NewTable(w.table).LatestVersion(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v + 1
}

// dataFiles counts the Parquet files in the table store (active or not).
func (w *world) dataFiles(t testing.TB) int {
	n := 0
	for info, err := range w.table.List(context.Background(), objstore.ListOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(info.Key, ".parquet") && !strings.HasPrefix(info.Key, "_delta_log/") {
			n++
		}
	}
	return n
}

func activeFiles(t testing.TB, w *world) int {
	snap, err := delta.NewTable(w.table).Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for range snap.Files() {
		n++
	}
	return n
}

// A batch split into shares commits every row once, in one version per
// batch, with one report per share; it holds the rows the unsplit engine
// writes.
func TestFanoutCommitsAllSharesInOneVersion(t *testing.T) {
	tests := []struct {
		name       string
		files      int
		maxConv    int
		per        int64
		wantShares int
	}{
		{"two converters", 8, 2, 1, 2},
		{"four converters", 9, 4, 1, 4},
		{"eight converters, fewer files", 5, 8, 1, 5},
		{"bytes per converter bound the width", 12, 8, -3, 3}, // per: a third of the batch
		{"one converter is off", 6, 1, 1, 0},
		{"batch under one converter's bytes", 6, 8, 1 << 30, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld()
			for i := 0; i < tc.files; i++ {
				w.addFile(t, 20) // ~2.3 KB each
			}
			w.discover(t)
			c := &converters{t: t, w: w}
			per := tc.per
			if per < 0 {
				per = w.sourceBytes(t)/-per + 1
			}
			sum, err := w.fanEngine(t, Limits{}, c, tc.maxConv, per).RunAvailableNow(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Batches) != 1 || sum.Rows() != int64(w.rows) {
				t.Fatalf("summary %+v, want one batch of %d rows", sum, w.rows)
			}
			if got := int(c.calls.Load()); got != tc.wantShares {
				t.Fatalf("converter calls %d, want %d", got, tc.wantShares)
			}
			if got := len(w.reportKeys(t)); got != tc.wantShares {
				t.Fatalf("reports %d, want %d", got, tc.wantShares)
			}
			if v := w.tableVersions(t); v != 1 {
				t.Fatalf("table versions %d, want 1", v)
			}
			checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
			checkLog(t, w.table)
			if n := w.dataFiles(t); n != activeFiles(t, w) || n < max(tc.wantShares, 1) {
				t.Fatalf("%d data files in the table store, %d active, want one or more per share and no orphans", n, activeFiles(t, w))
			}
			if p := sum.Batches[0]; p.NumOutputFiles != activeFiles(t, w) || p.NumInputFiles != tc.files {
				t.Fatalf("progress %+v", p)
			}
		})
	}
}

// A converter that dies after writing its files but before reporting
// fails the batch; the rerun converts that share again (new files) and
// reuses the other shares' reports: every row once, the dead attempt's
// files orphaned outside the log.
func TestFanoutConverterDiesBeforeReport(t *testing.T) {
	w := newWorld()
	for i := 0; i < 8; i++ {
		w.addFile(t, 15)
	}
	w.discover(t)
	var died atomic.Bool
	c := &converters{t: t, w: w, hook: func(e *Engine, req fanout.Request) {
		if req.Share == 2 {
			e.fault = func(s Step, _ int64) error {
				if s == StepShareWritten && died.CompareAndSwap(false, true) {
					return errCrash
				}
				return nil
			}
		}
	}}
	_, err := w.fanEngine(t, Limits{}, c, 4, 1).RunAvailableNow(context.Background(), nil)
	if !errors.Is(err, errCrash) {
		t.Fatalf("want the converter's crash, got %v", err)
	}
	if _, err := delta.NewTable(w.table).LatestVersion(context.Background()); !errors.Is(err, delta.ErrNotATable) {
		t.Fatalf("nothing may be committed after the crash: %v", err)
	}
	reportsAfterCrash := len(w.reportKeys(t))
	if reportsAfterCrash > 3 {
		t.Fatalf("%d reports after the crash, want at most 3", reportsAfterCrash)
	}
	c.calls.Store(0)
	if _, err := w.fanEngine(t, Limits{}, c, 4, 1).RunAvailableNow(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := int(c.calls.Load()); got != 4-reportsAfterCrash {
		t.Fatalf("rerun converted %d shares, want %d (the unreported ones)", got, 4-reportsAfterCrash)
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
	checkLog(t, w.table)
	if orphans := w.dataFiles(t) - activeFiles(t, w); orphans < 1 {
		t.Fatalf("want the dead attempt's files as orphans, found %d", orphans)
	}
}

// A committer that dies after every share reported commits on its rerun
// without converting anything again.
func TestFanoutCommitterDiesAfterReports(t *testing.T) {
	for _, step := range []Step{StepWritten, StepCommitted, StepFinished} {
		t.Run(string(step), func(t *testing.T) {
			w := newWorld()
			for i := 0; i < 6; i++ {
				w.addFile(t, 10)
			}
			w.discover(t)
			c := &converters{t: t, w: w}
			e := w.fanEngine(t, Limits{}, c, 3, 1)
			e.fault = func(s Step, _ int64) error {
				if s == step {
					return errCrash
				}
				return nil
			}
			if _, err := e.RunAvailableNow(context.Background(), nil); !errors.Is(err, errCrash) {
				t.Fatalf("want the crash, got %v", err)
			}
			c.calls.Store(0)
			if _, err := w.fanEngine(t, Limits{}, c, 3, 1).RunAvailableNow(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			if n := c.calls.Load(); n != 0 {
				t.Fatalf("rerun converted %d shares, want none (all reported)", n)
			}
			checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
			checkLog(t, w.table)
			if v := w.tableVersions(t); v != 1 {
				t.Fatalf("table versions %d, want 1", v)
			}
		})
	}
}

// Two attempts of one share race: one report is sealed, the loser deletes
// its files, and the batch commits the winner's.
func TestFanoutRacingConvertersOfAShare(t *testing.T) {
	w := newWorld()
	for i := 0; i < 6; i++ {
		w.addFile(t, 12)
	}
	w.discover(t)
	inner := &converters{t: t, w: w}
	twice := fanout.RunnerFunc(func(ctx context.Context, req fanout.Request) error {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = inner.Convert(ctx, req)
			}()
		}
		wg.Wait()
		return errors.Join(errs...)
	})
	if _, err := w.fanEngine(t, Limits{}, twice, 3, 1).RunAvailableNow(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
	checkLog(t, w.table)
	if n, a := w.dataFiles(t), activeFiles(t, w); n != a {
		t.Fatalf("%d data files, %d active: a losing attempt left its files", n, a)
	}
}

// Racing committers, each fanning out, random crashes at every step of
// committer and converters: every row once, every file committed.
func TestFanoutCrashesAndRacingCommitters(t *testing.T) {
	allHits := map[Step]int{}
	t.Cleanup(func() {
		for _, s := range []Step{StepPlanned, StepShareWritten, StepWritten, StepCommitted, StepFinished} {
			if allHits[s] == 0 && !t.Failed() {
				t.Errorf("no crash injected at step %s: the seeds do not cover it", s)
			}
		}
	})
	for seed := uint64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			var mu sync.Mutex
			crash := func() bool {
				mu.Lock()
				defer mu.Unlock()
				return rng.IntN(4) == 0
			}
			w := newWorld()
			hits := map[Step]int{}
			fault := func(s Step, _ int64) error {
				if crash() {
					mu.Lock()
					hits[s]++
					mu.Unlock()
					return errCrash
				}
				return nil
			}
			c := &converters{t: t, w: w, hook: func(e *Engine, _ fanout.Request) { e.fault = fault }}
			for round := 0; round < 3; round++ {
				for i := 0; i < 3+int(seed)%4; i++ {
					w.addFile(t, 5+i)
				}
				w.discover(t)
				for attempt := 0; ; attempt++ {
					if attempt > 100 {
						t.Fatal("no progress after 100 attempts")
					}
					var wg sync.WaitGroup
					errs := make([]error, 3)
					for i := range errs {
						wg.Add(1)
						go func() {
							defer wg.Done()
							e := w.fanEngine(t, Limits{MaxFiles: 2 + i}, c, 1+(i+int(seed))%4, 1)
							e.fault = fault
							_, errs[i] = e.RunAvailableNow(context.Background(), nil)
						}()
					}
					wg.Wait()
					done := true
					for _, err := range errs {
						if err != nil && !errors.Is(err, errCrash) {
							t.Fatal(err)
						}
						done = done && err == nil
					}
					if done {
						break
					}
				}
			}
			for s, n := range hits {
				allHits[s] += n
			}
			checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
			checkLog(t, w.table)
			for e, err := range w.st.Entries(context.Background(), "stream-1") {
				if err != nil {
					t.Fatal(err)
				}
				if e.State != state.Committed {
					t.Fatalf("%s: state %s", e.Path, e.State)
				}
			}
		})
	}
}

// A share that meets a column the schema lacks (addNewColumns) makes the
// batch go unsplit: the stream stops with ErrSchemaEvolved as it does
// without fan-out, and the rerun commits every row with the new column.
func TestFanoutSchemaEvolutionGoesUnsplit(t *testing.T) {
	w := newWorld()
	for i := 0; i < 5; i++ {
		w.addFile(t, 4)
	}
	body := fmt.Sprintf(`{"id": %d, "name": "late", "extra": 7}`+"\n", w.rows)
	w.rows++
	if err := w.src.Put(context.Background(), "in/zz-late.json", strings.NewReader(body)); err != nil {
		t.Fatal(err)
	}
	w.discover(t)
	c := &converters{t: t, w: w, hook: func(e *Engine, _ fanout.Request) {
		e.Config.Schema.EvolutionMode = options.EvolveAddNewColumns
	}}
	// The first batch infers the schema from its files only (sampling
	// includes the late file): make the sample miss it.
	run := func() (Summary, error) {
		e := w.fanEngine(t, Limits{}, c, 3, 1)
		e.Config.Schema.EvolutionMode = options.EvolveAddNewColumns
		e.Config.Schema.SampleFiles = 2
		return e.RunAvailableNow(context.Background(), nil)
	}
	_, err := run()
	if !errors.Is(err, ErrSchemaEvolved) {
		t.Fatalf("want ErrSchemaEvolved, got %v", err)
	}
	if _, err := run(); err != nil {
		t.Fatal(err)
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
	checkLog(t, w.table)
	snap, err := delta.NewTable(w.table).Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if snap.Schema().FieldIndex("extra") < 0 {
		t.Fatalf("schema %s lacks the new column", snap.Schema())
	}
}

// Unreadable files a share skips (ignoreCorruptFiles) are recorded as
// skipped by the committer and named in the commit, as unsplit.
func TestFanoutSkippedFiles(t *testing.T) {
	w := newWorld()
	for i := 0; i < 4; i++ {
		w.addFile(t, 6)
	}
	if err := w.src.Put(context.Background(), "in/zz-bad.json.gz", strings.NewReader("not gzip")); err != nil {
		t.Fatal(err)
	}
	w.discover(t)
	hook := func(e *Engine) { e.Config.Reader.IgnoreCorruptFiles = true }
	w.engineHook = hook
	c := &converters{t: t, w: w}
	sum, err := w.fanEngine(t, Limits{}, c, 4, 1).RunAvailableNow(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.calls.Load() != 4 || len(sum.Batches) != 1 || sum.Batches[0].NumSkippedFiles != 1 {
		t.Fatalf("calls %d, summary %+v", c.calls.Load(), sum)
	}
	en, err := w.st.Get(context.Background(), "stream-1", "in/zz-bad.json.gz")
	if err != nil || en.State != state.Skipped {
		t.Fatalf("bad file entry %+v, %v", en, err)
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
}

// A conversion request that does not fit the sealed plan is refused.
func TestConvertShareRefusesBadRequests(t *testing.T) {
	w := newWorld()
	for i := 0; i < 3; i++ {
		w.addFile(t, 3)
	}
	w.discover(t)
	e := w.engine(t, Limits{})
	e.fault = func(s Step, _ int64) error {
		if s == StepPlanned {
			return errCrash // seal plan 0, write nothing
		}
		return nil
	}
	if _, err := e.RunBatch(context.Background()); !errors.Is(err, errCrash) {
		t.Fatal(err)
	}
	p, _, err := batchplan.Read(context.Background(), w.cp, 0)
	if err != nil {
		t.Fatal(err)
	}
	digest, err := batchplan.Digest(p)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  fanout.Request
	}{
		{"other stream", fanout.Request{Stream: "other", Batch: 0, Shares: 2, Share: 0}},
		{"no plan", fanout.Request{Stream: "stream-1", Batch: 5, Shares: 2, Share: 0}},
		{"share out of range", fanout.Request{Stream: "stream-1", Batch: 0, Plan: digest, Shares: 2, Share: 2}},
		{"more shares than files", fanout.Request{Stream: "stream-1", Batch: 0, Plan: digest, Shares: 4, Share: 0}},
		{"another plan", fanout.Request{Stream: "stream-1", Batch: 0, Plan: "0123456789abcdef", Shares: 2, Share: 0}},
		{"no such schema version", fanout.Request{Stream: "stream-1", Batch: 0, Plan: digest, Shares: 2, Share: 0, SchemaVersion: 9}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.engine(t, Limits{}).ConvertShare(context.Background(), tc.req)
			if !errors.Is(err, ErrBadShare) {
				t.Fatalf("want ErrBadShare, got %v", err)
			}
		})
	}
}

// Reports sealed for another plan of the same batch id (the checkpoint was
// reset and the batch planned again) are never committed: the shares are
// converted again for the new plan.
func TestFanoutIgnoresReportsOfAnotherPlan(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	for i := 0; i < 6; i++ {
		w.addFile(t, 8)
	}
	w.discover(t)
	c := &converters{t: t, w: w}
	e := w.fanEngine(t, Limits{}, c, 3, 1)
	e.fault = func(s Step, _ int64) error {
		if s == StepWritten {
			return errCrash
		}
		return nil
	}
	if _, err := e.RunAvailableNow(ctx, nil); !errors.Is(err, errCrash) {
		t.Fatalf("want the crash, got %v", err)
	}
	// A reset that lost the plan and the file state but left the reports
	// (an interrupted checkpoint wipe): the batch is planned again.
	if err := w.cp.Delete(ctx, batchplan.Key(0)); err != nil {
		t.Fatal(err)
	}
	w.st = memstate.New()
	w.discover(t)
	c.calls.Store(0)
	if _, err := w.fanEngine(t, Limits{}, c, 3, 1).RunAvailableNow(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := c.calls.Load(); n != 3 {
		t.Fatalf("converted %d shares for the new plan, want 3", n)
	}
	if n := len(w.reportKeys(t)); n != 6 {
		t.Fatalf("%d reports, want 3 per plan", n)
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
}

// A report older than fanout.MaxAge may name files VACUUM removed: the
// committer writes the batch unsplit instead.
func TestFanoutOldReportsGoUnsplit(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	for i := 0; i < 6; i++ {
		w.addFile(t, 8)
	}
	w.discover(t)
	c := &converters{t: t, w: w}
	e := w.fanEngine(t, Limits{}, c, 3, 1)
	e.fault = func(s Step, _ int64) error {
		if s == StepWritten {
			return errCrash
		}
		return nil
	}
	if _, err := e.RunAvailableNow(ctx, nil); !errors.Is(err, errCrash) {
		t.Fatalf("want the crash, got %v", err)
	}
	late := w.fanEngine(t, Limits{}, c, 3, 1)
	late.Now = func() time.Time { return time.Now().Add(fanout.MaxAge + time.Hour) }
	c.calls.Store(0)
	if _, err := late.RunAvailableNow(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := c.calls.Load(); n != 0 {
		t.Fatalf("converted %d shares, want the batch written unsplit", n)
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
	if a := activeFiles(t, w); a != 1 {
		t.Fatalf("%d active files, want the unsplit write's one", a)
	}
}
