package discovery

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/core/state/memstate"
)

// countingState counts how often each path is passed to Register, and
// fails every Register call after failAfter calls (0: never).
type countingState struct {
	state.Store
	mu        sync.Mutex
	calls     int
	failAfter int
	seen      map[string]int
	known     []bool // RegisterOptions.MostlyKnown of each call
	onFail    func() // called at each injected failure
}

var errInjected = errors.New("injected state failure")

func newCountingState() *countingState {
	return &countingState{Store: memstate.New(), seen: map[string]int{}}
}

func (c *countingState) Register(ctx context.Context, stream string, files []state.File, opts state.RegisterOptions) ([]bool, error) {
	c.mu.Lock()
	c.calls++
	if c.failAfter > 0 && c.calls > c.failAfter {
		if c.onFail != nil {
			c.onFail()
		}
		c.mu.Unlock()
		return nil, errInjected
	}
	for _, f := range files {
		c.seen[f.Path]++
	}
	c.known = append(c.known, opts.MostlyKnown)
	c.mu.Unlock()
	return c.Store.Register(ctx, stream, files, opts)
}

// listCounter counts the keys a store's listings yield.
type listCounter struct {
	*memstore.Store
	mu    sync.Mutex
	keys  int
	after []string
}

func (l *listCounter) List(ctx context.Context, o objstore.ListOptions) iter.Seq2[objstore.ObjectInfo, error] {
	l.mu.Lock()
	l.after = append(l.after, o.StartAfter)
	l.mu.Unlock()
	return func(yield func(objstore.ObjectInfo, error) bool) {
		for info, err := range l.Store.List(ctx, o) {
			l.mu.Lock()
			l.keys++
			l.mu.Unlock()
			if !yield(info, err) {
				return
			}
		}
	}
}

// tickClock is a clock that advances by step on every reading.
type tickClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *tickClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// datedSource puts days×hours×3 files under dated prefixes, plus files at
// the top, hidden files and folders; it returns the store and the keys a
// pass must register.
func datedSource(t *testing.T, days, hours int) (*memstore.Store, map[string]bool) {
	t.Helper()
	ctx := t.Context()
	src := memstore.New()
	keys := []string{"top.json", "_hidden/x.json", ".tmp/y.json", "2026/11/_SUCCESS", "2026/_temporary/0/z.json",
		"2026/loose.json", "other/a+b.json", "zz/_x=1/p.json", "zz/_x0", "dir._COPYING_/a.json", "dir._COPYING_0"}
	for d := range days {
		for h := range hours {
			for i := range 3 {
				keys = append(keys, fmt.Sprintf("2026/11/%02d/%02d/part %d.json", d, h, i))
			}
		}
	}
	want := map[string]bool{}
	for _, k := range keys {
		if err := src.Put(ctx, k, strings.NewReader(k)); err != nil {
			t.Fatal(err)
		}
		if (Filter{}).Accept(k) {
			want[k] = true
		}
	}
	return src, want
}

func checkRegistered(t *testing.T, st *countingState, want map[string]bool) {
	t.Helper()
	for k := range want {
		if _, err := st.Get(t.Context(), "s", k); err != nil {
			t.Errorf("%s not registered: %v", k, err)
		}
	}
	for k := range st.seen {
		if !want[k] {
			t.Errorf("%s registered, but it is not input", k)
		}
	}
}

func TestPassSeesEveryFileOnce(t *testing.T) {
	src, want := datedSource(t, 5, 7)
	for _, workers := range []int{1, 2, 8, 64} {
		st := newCountingState()
		r := &Registrar{State: st, Stream: "s", ChunkSize: 4}
		res, err := r.Pass(t.Context(), PassOptions{Source: src, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if res.New != len(want) || res.Listed != len(want) || res.Stopped || res.PartsLeft != 0 || res.PassRuns != 1 {
			t.Fatalf("workers %d: %+v, want %d new", workers, res, len(want))
		}
		if workers > 1 && res.Parts < 2 {
			t.Errorf("workers %d: %d parts, want the listing split", workers, res.Parts)
		}
		checkRegistered(t, st, want)
		for k, n := range st.seen {
			if n != 1 {
				t.Errorf("workers %d: %s registered %d times", workers, k, n)
			}
		}
	}
}

func TestPassUnboundedLeavesNoCursor(t *testing.T) {
	src, _ := datedSource(t, 1, 2)
	cp := memstore.New()
	r := &Registrar{State: newCountingState(), Stream: "s"}
	if _, err := r.Pass(t.Context(), PassOptions{Source: src, Checkpoint: cp, Workers: 4}); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.Head(t.Context(), CursorKey); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("a complete listing without a budget wrote the cursor: %v", err)
	}
}

// TestPassResumesAcrossRuns gives each run a budget of a few clock readings
// (the clock advances on each), so that a pass takes many runs: every file
// is still registered, each exactly once, and no run lists from the start.
func TestPassResumesAcrossRuns(t *testing.T) {
	for _, workers := range []int{1, 3, 8} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			ctx := t.Context()
			mem, want := datedSource(t, 4, 6)
			src := &listCounter{Store: mem}
			cp := memstore.New()
			st := newCountingState()
			clock := &tickClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), step: time.Second}
			r := &Registrar{State: st, Stream: "s", ChunkSize: 5}
			total := Result{}
			runs := 0
			for {
				runs++
				if runs > 200 {
					t.Fatal("the pass never completed")
				}
				res, err := r.Pass(ctx, PassOptions{Source: src, Checkpoint: cp, Workers: workers,
					StopAt: clock.now().Add(12 * time.Second), Now: clock.now})
				if err != nil {
					t.Fatal(err)
				}
				total.add(res)
				if res.PassRuns != runs {
					t.Fatalf("run %d: PassRuns %d", runs, res.PassRuns)
				}
				cur, err := ReadCursor(ctx, cp)
				if err != nil {
					t.Fatal(err)
				}
				if !res.Stopped {
					if cur.Pass != nil || res.PartsLeft != 0 {
						t.Fatalf("complete pass left %+v (%+v)", cur.Pass, res)
					}
					break
				}
				if cur.Pass == nil || cur.Pass.left() != res.PartsLeft || res.PartsLeft == 0 {
					t.Fatalf("stopped pass stored as %+v (%+v)", cur.Pass, res)
				}
			}
			if runs < 4 {
				t.Fatalf("the pass took %d runs; the budget should need several", runs)
			}
			if total.New != len(want) {
				t.Errorf("%d new over %d runs, want %d", total.New, runs, len(want))
			}
			checkRegistered(t, st, want)
			for k, n := range st.seen {
				if n != 1 {
					t.Errorf("%s registered %d times across runs", k, n)
				}
			}
			// Resumed runs list from their position: the keys listed stay
			// near one pass's worth (one overrun key per part and run).
			if limit := 2*len(want) + 20*runs; src.keys > limit {
				t.Errorf("listed %d keys over %d runs for %d files: runs restart instead of resuming", src.keys, runs, len(want))
			}
			// A new pass starts after a completed one.
			res, err := r.Pass(ctx, PassOptions{Source: src, Checkpoint: cp, Workers: workers, StopAt: clock.now().Add(time.Hour), Now: clock.now})
			if err != nil || res.Stopped || res.Listed != len(want) || res.New != 0 || res.PassRuns != 1 {
				t.Fatalf("next pass = %+v, %v", res, err)
			}
		})
	}
}

// TestPassFailedRunKeepsPosition: a bounded run that fails (the state store
// errs after a few chunks) keeps the position of what it registered, and
// the next run resumes there.
func TestPassFailedRunKeepsPosition(t *testing.T) {
	ctx := t.Context()
	src, want := datedSource(t, 3, 4)
	cp := memstore.New()
	st := newCountingState()
	st.failAfter = 3
	clock := &tickClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), step: time.Millisecond}
	r := &Registrar{State: st, Stream: "s", ChunkSize: 4}
	_, err := r.Pass(ctx, PassOptions{Source: src, Checkpoint: cp, Workers: 1, StopAt: clock.now().Add(time.Hour), Now: clock.now})
	if !errors.Is(err, errInjected) {
		t.Fatalf("err = %v, want the injected failure", err)
	}
	cur, err := ReadCursor(ctx, cp)
	if err != nil || cur.Pass == nil || cur.Pass.Parts[0].After == "" {
		t.Fatalf("cursor after the failure = %+v, %v", cur, err)
	}
	st.failAfter = 0
	res, err := r.Pass(ctx, PassOptions{Source: src, Checkpoint: cp, Workers: 1, StopAt: clock.now().Add(time.Hour), Now: clock.now})
	if err != nil || res.Stopped || res.PassRuns != 2 || res.New != len(want)-12 {
		t.Fatalf("resumed run = %+v, %v; want the %d files after the first 12", res, err, len(want)-12)
	}
	checkRegistered(t, st, want)
}

func TestPassIncremental(t *testing.T) {
	ctx := t.Context()
	src := &listCounter{Store: memstore.New()}
	cp := memstore.New()
	put := func(keys ...string) {
		for _, k := range keys {
			if err := src.Put(ctx, k, strings.NewReader(k)); err != nil {
				t.Fatal(err)
			}
		}
	}
	put("2026-01/a.json", "2026-01/b.json", "2026-02/c.json")
	st := newCountingState()
	r := &Registrar{State: st, Stream: "s", ChunkSize: 2}
	o := PassOptions{Source: src, Checkpoint: cp, Workers: 4, Incremental: true}
	res, err := r.Pass(ctx, o)
	if err != nil || res.New != 3 {
		t.Fatalf("first pass = %+v, %v", res, err)
	}
	if cur, _ := ReadCursor(ctx, cp); cur.LastKey != "2026-02/c.json" || cur.Pass != nil {
		t.Fatalf("cursor = %+v", cur)
	}
	// The first (full) listing reads before writing; the incremental ones
	// after it see new files and write them straight away.
	if slices.Contains(st.known, false) {
		t.Errorf("the full listing registered with MostlyKnown=false: %v", st.known)
	}
	st.known = nil
	// A key after the last one is found; one before it is not (that is
	// the option's documented contract); the listing starts at the cursor.
	put("2026-01/late.json", "2026-03/d.json", "2026-03/e.json", "2026-04/f.json")
	src.after = nil
	clock := &tickClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), step: time.Second}
	var got int
	for runs := 1; ; runs++ {
		o.StopAt, o.Now = clock.now().Add(6*time.Second), clock.now
		res, err = r.Pass(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		got += res.New
		if !res.Stopped {
			break
		}
		if runs > 10 {
			t.Fatal("the incremental pass never completed")
		}
	}
	if got != 3 {
		t.Errorf("incremental passes found %d new files, want 3", got)
	}
	if len(st.known) == 0 || slices.Contains(st.known, true) {
		t.Errorf("incremental listings registered with MostlyKnown %v, want false", st.known)
	}
	if _, err := st.Get(ctx, "s", "2026-01/late.json"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("a key before the cursor was registered: %v", err)
	}
	if src.after[0] != "2026-02/c.json" {
		t.Errorf("the incremental listing started after %q", src.after[0])
	}
	if cur, _ := ReadCursor(ctx, cp); cur.LastKey != "2026-04/f.json" || cur.Pass != nil {
		t.Fatalf("cursor = %+v", cur)
	}
	// Without the option a bounded pass lists everything (and never moves
	// LastKey): the late file is found.
	o.Incremental = false
	o.StopAt = clock.now().Add(time.Hour)
	res, err = r.Pass(ctx, o)
	if err != nil || res.New != 1 || res.Listed != 7 {
		t.Fatalf("full pass = %+v, %v", res, err)
	}
}

func TestRangesAt(t *testing.T) {
	tests := []struct {
		name         string
		cuts, hidden []string
		want         []Part
	}{
		{"none", nil, nil, []Part{{}}},
		{"one", []string{"b/"}, nil, []Part{{Until: "b/"}, {After: "b/"}}},
		{"sorted and deduplicated", []string{"c/", "a/", "c/"}, nil, []Part{{Until: "a/"}, {After: "a/", Until: "c/"}, {After: "c/"}}},
		{"hidden subtree left out", []string{"a/", "c/"}, []string{"_b/"}, []Part{{Until: "_b/"}, {After: "_b0", Until: "a/"}, {After: "a/", Until: "c/"}, {After: "c/"}}},
		{"hidden last", []string{"a/"}, []string{"a/_tmp/"}, []Part{{Until: "a/"}, {After: "a/", Until: "a/_tmp/"}, {After: "a/_tmp0"}}},
	}
	for _, tc := range tests {
		if got := rangesAt(tc.cuts, tc.hidden); !slices.Equal(got, tc.want) {
			t.Errorf("%s: rangesAt(%q, %q) = %+v, want %+v", tc.name, tc.cuts, tc.hidden, got, tc.want)
		}
	}
}

func TestPrunable(t *testing.T) {
	for p, want := range map[string]bool{
		"_tmp/": true, "a/.git/": true, "_x=1/": false, "a/": false,
		"dir._COPYING_/": false, // hidden, but its range bound would not be
		"a//":            false,
	} {
		if got := prunable(p); got != want {
			t.Errorf("prunable(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestPlanBoundsLevelListing: a level of many objects is split with a
// bounded prefix listing (memstore counts the keys it reads).
func TestPlanBoundsLevelListing(t *testing.T) {
	ctx := t.Context()
	mem := memstore.New()
	for i := range 3 * planEntries {
		if err := mem.Put(ctx, fmt.Sprintf("flat-%06d.json", i), strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"zz-a/", "zz-b/"} {
		if err := mem.Put(ctx, d+"f.json", strings.NewReader("x")); err != nil {
			t.Fatal(err)
		}
	}
	subs, err := mem.ListPrefixes(ctx, "", planEntries)
	if err != nil || len(subs) != 0 {
		t.Fatalf("bounded ListPrefixes = %q, %v; want none (the prefixes sort after the bound)", subs, err)
	}
	subs, err = mem.ListPrefixes(ctx, "", 0)
	if err != nil || !slices.Equal(subs, []string{"zz-a/", "zz-b/"}) {
		t.Fatalf("ListPrefixes = %q, %v", subs, err)
	}
	st := newCountingState()
	r := &Registrar{State: st, Stream: "s"}
	res, err := r.Pass(ctx, PassOptions{Source: mem, Workers: 4})
	if err != nil || res.New != 3*planEntries+2 {
		t.Fatalf("pass = %+v, %v", res, err)
	}
}

// s3LikeCheckpoint answers a GET of a missing key with access denied, as
// S3 does without s3:ListBucket, and counts conditional puts.
type s3LikeCheckpoint struct {
	*memstore.Store
	conditional int
}

var errAccessDenied = errors.New("AccessDenied")

func (c *s3LikeCheckpoint) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	rc, err := c.Store.Get(ctx, key)
	if errors.Is(err, objstore.ErrNotFound) {
		return nil, errAccessDenied
	}
	return rc, err
}

func (c *s3LikeCheckpoint) PutIfAbsent(ctx context.Context, key string, r io.Reader) error {
	c.conditional++
	return c.Store.PutIfAbsent(ctx, key, r)
}

// TestPassCursorWithoutListBucket: the cursor is created with a
// conditional put (never read while missing), once per process; a cursor
// deleted since (a reset) is created again.
func TestPassCursorWithoutListBucket(t *testing.T) {
	ctx := t.Context()
	src, want := datedSource(t, 1, 2)
	cp := &s3LikeCheckpoint{Store: memstore.New()}
	r := &Registrar{State: newCountingState(), Stream: "s"}
	o := PassOptions{Source: src, Checkpoint: cp, Workers: 2, StopAt: time.Now().Add(time.Hour)}
	for range 3 {
		if res, err := r.Pass(ctx, o); err != nil || res.Listed != len(want) {
			t.Fatalf("pass = %+v, %v", res, err)
		}
	}
	if cp.conditional != 1 {
		t.Errorf("%d conditional puts of the cursor over 3 passes of one process, want 1", cp.conditional)
	}
	if err := cp.Delete(ctx, CursorKey); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Pass(ctx, o); err != nil {
		t.Fatalf("pass after the cursor was deleted: %v", err)
	}
	if cp.conditional != 2 {
		t.Errorf("the deleted cursor was not created again (%d conditional puts)", cp.conditional)
	}
}

// dyingCheckpoint stops writing once dead is set: the process was killed.
type dyingCheckpoint struct {
	*memstore.Store
	dead *bool
}

func (c dyingCheckpoint) Put(ctx context.Context, key string, r io.Reader) error {
	if *c.dead {
		return errors.New("killed")
	}
	return c.Store.Put(ctx, key, r)
}

// TestPassKilledRunResumesFromPeriodicSave: a run killed without warning
// (nothing written after the kill) leaves the position it saved last
// (SaveEvery); the next run resumes there, and the files listed again are
// registered again idempotently (new only once).
func TestPassKilledRunResumesFromPeriodicSave(t *testing.T) {
	ctx := t.Context()
	src, want := datedSource(t, 4, 5)
	dead := false
	cp := dyingCheckpoint{Store: memstore.New(), dead: &dead}
	st := newCountingState()
	st.failAfter = 7 // the kill: registration fails from the 8th chunk on
	clock := &tickClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), step: time.Second}
	r := &Registrar{State: st, Stream: "s", ChunkSize: 4}
	o := PassOptions{Source: src, Checkpoint: cp, Workers: 1, SaveEvery: 10 * time.Second, Now: clock.now}
	o.StopAt = clock.now().Add(time.Hour)
	// The state store dies with the process: no save after the failure.
	st.mu.Lock()
	st.onFail = func() { dead = true }
	st.mu.Unlock()
	first, err := r.Pass(ctx, o)
	if !errors.Is(err, errInjected) {
		t.Fatalf("first run = %+v, %v; want the kill", first, err)
	}
	cur, err := ReadCursor(ctx, cp)
	if err != nil || cur.Pass == nil || cur.Pass.Parts[0].After == "" {
		t.Fatalf("no periodic save before the kill: %+v, %v", cur, err)
	}
	dead, st.failAfter = false, 0
	second, err := r.Pass(ctx, o)
	if err != nil || second.Stopped || second.PassRuns != 2 {
		t.Fatalf("resumed run = %+v, %v", second, err)
	}
	if first.New+second.New != len(want) {
		t.Errorf("%d + %d new files, want %d", first.New, second.New, len(want))
	}
	checkRegistered(t, st, want)
	// 28 files were registered before the kill; the run resumes at the
	// last save at or before them, not at the start.
	if again := second.Listed - (len(want) - 28); again < 0 || second.Listed >= len(want) {
		t.Errorf("the resumed run listed %d of %d files: it should resume at the last save before the kill", second.Listed, len(want))
	} else {
		t.Logf("listed again after the kill: %d files (saves every 10 s of listing)", again)
	}
}

// TestPassResumeOnly: a ResumeOnly run continues a stopped pass and, once
// the pass is complete (or before any pass), lists nothing: a continuation
// never starts a new pass.
func TestPassResumeOnly(t *testing.T) {
	ctx := t.Context()
	mem, want := datedSource(t, 2, 4)
	src := &listCounter{Store: mem}
	cp := memstore.New()
	st := newCountingState()
	clock := &tickClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), step: time.Second}
	r := &Registrar{State: st, Stream: "s", ChunkSize: 5}
	resume := func(budget time.Duration) Result {
		t.Helper()
		res, err := r.Pass(ctx, PassOptions{Source: src, Checkpoint: cp, Workers: 2, ResumeOnly: true,
			StopAt: clock.now().Add(budget), Now: clock.now})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := resume(time.Hour); res != (Result{}) || src.keys != 0 {
		t.Fatalf("resume without a pass = %+v after listing %d keys, want nothing", res, src.keys)
	}
	first, err := r.Pass(ctx, PassOptions{Source: src, Checkpoint: cp, Workers: 2, StopAt: clock.now().Add(8 * time.Second), Now: clock.now})
	if err != nil || !first.Stopped {
		t.Fatalf("first run = %+v, %v; want it stopped", first, err)
	}
	total, runs := first, 1
	for res := first; res.Stopped; {
		if runs++; runs > 100 {
			t.Fatal("the pass never completed")
		}
		res = resume(8 * time.Second)
		if res.PassRuns != runs {
			t.Fatalf("resumed run %d = %+v", runs, res)
		}
		total.add(res)
	}
	if total.New != len(want) {
		t.Fatalf("%d new, want %d", total.New, len(want))
	}
	checkRegistered(t, st, want)
	listed := src.keys
	if res := resume(time.Hour); res != (Result{}) || src.keys != listed {
		t.Fatalf("resume after the pass completed = %+v, listed %d more keys; want nothing", res, src.keys-listed)
	}
}
