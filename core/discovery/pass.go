package discovery

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/tributary-io/tributary/core/objstore"
)

// Pass is a listing pass of a stream's source, split into key ranges
// (Parts) that are listed concurrently and each keep their own position.
// A pass stopped by its time budget (PassOptions.StopAt) is kept in the
// checkpoint's Cursor and resumed by the next bounded run, so a listing too
// large for one run completes across several.
type Pass struct {
	// Incremental is set for a pass that lists only keys after the
	// cursor's LastKey (cloudFiles.useIncrementalListing=true); its
	// greatest key becomes the next LastKey when it completes.
	Incremental bool `json:"incremental,omitempty"`
	// Parts are the pass's key ranges, in key order.
	Parts []Part `json:"parts"`
	// MaxKey is the greatest accepted key the pass has registered.
	MaxKey string `json:"maxKey,omitempty"`
	// Runs counts the runs that have worked on the pass.
	Runs int `json:"runs"`
	// Started is when the pass's first run began.
	Started time.Time `json:"started"`
}

// Part is one key range of a Pass: the keys strictly after After and
// strictly before Until ("" for no upper bound). After advances as the
// part's files are registered.
type Part struct {
	// After is the part's position: every key up to it is done.
	After string `json:"after,omitempty"`
	// Until is the part's exclusive upper bound ("": none).
	Until string `json:"until,omitempty"`
	// Done is set when the part has been listed to its end.
	Done bool `json:"done,omitempty"`
}

// left reports the parts not yet done.
func (p *Pass) left() int {
	n := 0
	for _, pt := range p.Parts {
		if !pt.Done {
			n++
		}
	}
	return n
}

// partsPerWorker is how many key ranges a pass aims at per worker, so that
// a worker that finishes a small range early takes another one.
const partsPerWorker = 2

// DefaultSaveEvery is how often a bounded pass stores its position while
// it runs, so that a run killed without warning loses at most that much
// listing (the files themselves are registered idempotently).
const DefaultSaveEvery = time.Minute

// PassOptions configure Registrar.Pass.
type PassOptions struct {
	// Source is the store rooted at the source location.
	Source objstore.Store
	// Filter selects input keys.
	Filter Filter
	// Checkpoint holds the Cursor (CursorKey).
	Checkpoint objstore.Store
	// Workers bounds how many parts are listed at once (<= 1: one).
	Workers int
	// Incremental lists only keys after the cursor's LastKey
	// (cloudFiles.useIncrementalListing=true; the first pass lists
	// everything and sets it).
	Incremental bool
	// StopAt, when set, is when the pass stops taking new keys: each part
	// registers what it has listed, the pass is stored in the cursor, and
	// the next run with StopAt set resumes it (Result.Stopped). A zero
	// StopAt lists to the end and, outside incremental mode, neither reads
	// nor writes the cursor (a complete listing needs no position).
	StopAt time.Time
	// ResumeOnly (with StopAt set) only continues a stopped pass: when the
	// cursor holds no unfinished pass of this mode, Pass lists nothing and
	// returns a zero Result (a continuation must not start a new pass).
	ResumeOnly bool
	// SaveEvery is how often a bounded pass stores its position while it
	// runs (DefaultSaveEvery when zero).
	SaveEvery time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Pass lists the source and registers the files it finds, as RegisterAll
// does, in key ranges listed by up to o.Workers goroutines (stores that are
// an objstore.LevelLister are split at their '/' prefixes; others are one
// range). With o.StopAt set it resumes the pass a previous bounded run
// stopped, and stops in time itself, keeping its position in the cursor.
// Every file is registered at least once per completed pass; a file seen
// again (a range resumed after a killed run) costs a read, not a write
// (state.RegisterOptions.MostlyKnown).
func (r *Registrar) Pass(ctx context.Context, o PassOptions) (Result, error) {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	bounded := !o.StopAt.IsZero()
	useCursor := bounded || o.Incremental
	var cur Cursor
	if useCursor {
		var err error
		if r.cursorSeen.Load() {
			// This process has read or written it: it exists (a plain
			// GET), unless a reset deleted the checkpoint since.
			cur, err = ReadCursor(ctx, o.Checkpoint)
		}
		if !r.cursorSeen.Load() || err != nil {
			if cur, err = openCursor(ctx, o.Checkpoint); err != nil {
				return Result{}, err
			}
		}
	}
	pass := cur.Pass
	stale := pass == nil || pass.Incremental != o.Incremental || pass.left() == 0
	if bounded && o.ResumeOnly && stale {
		return Result{}, nil
	}
	if !bounded || stale {
		// A run without a time budget lists everything it must now; a
		// pending pass of another mode is stale.
		parts, err := planParts(ctx, o.Source, o.Workers, o.Incremental, cur.LastKey)
		if err != nil {
			return Result{}, err
		}
		pass = &Pass{Incremental: o.Incremental, Parts: parts, Started: now().UTC()}
	}
	if useCursor {
		r.cursorSeen.Store(true)
	}
	pass.Runs++
	run := passRun{r: r, o: o, now: now, pass: pass, cur: cur, lastSave: now()}
	res, err := run.listParts(ctx)
	res.Parts, res.PartsLeft, res.PassRuns = len(pass.Parts), pass.left(), pass.Runs
	res.Stopped = err == nil && res.PartsLeft > 0
	if !useCursor {
		return res, err
	}
	if err != nil {
		// Keep what was registered: the next bounded run resumes there.
		if bounded {
			if serr := run.save(context.WithoutCancel(ctx), false); serr != nil {
				err = errors.Join(err, serr)
			}
		}
		return res, err
	}
	return res, run.save(ctx, res.PartsLeft == 0)
}

// passRun is one run's work on a pass.
type passRun struct {
	r    *Registrar
	o    PassOptions
	now  func() time.Time
	pass *Pass
	cur  Cursor

	mu       sync.Mutex // guards pass, res, lastSave and saving
	res      Result
	lastSave time.Time
}

// save stores the cursor: the pass when it is unfinished, the new LastKey
// (incremental) when it is complete.
func (p *passRun) save(ctx context.Context, complete bool) error {
	c := Cursor{LastKey: p.cur.LastKey}
	if complete {
		if p.pass.Incremental && p.pass.MaxKey > c.LastKey {
			c.LastKey = p.pass.MaxKey
		}
		if c.LastKey == p.cur.LastKey && p.cur.Pass == nil {
			return nil // nothing changed: no write
		}
	} else {
		cp := *p.pass
		cp.Parts = slices.Clone(p.pass.Parts)
		c.Pass = &cp
	}
	return WriteCursor(ctx, p.o.Checkpoint, c)
}

// listParts lists the parts not yet done with up to Workers goroutines.
func (p *passRun) listParts(ctx context.Context) (Result, error) {
	var todo []int
	for i, pt := range p.pass.Parts {
		if !pt.Done {
			todo = append(todo, i)
		}
	}
	workers := min(max(p.o.Workers, 1), len(todo))
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	var errMu sync.Mutex
	var errs []error
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := p.listPart(ctx, i); err != nil {
					errMu.Lock()
					errs = append(errs, err)
					errMu.Unlock()
					cancel(err)
					return
				}
			}
		}()
	}
feed:
	for _, i := range todo {
		if p.stop() {
			break
		}
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(errs) > 0 {
		return p.res, errs[0]
	}
	return p.res, ctx.Err()
}

// stop reports whether the run's time is up.
func (p *passRun) stop() bool {
	return !p.o.StopAt.IsZero() && !p.now().Before(p.o.StopAt)
}

// listPart lists and registers part i from its position until its end or
// the run's stop, recording its position after every registered chunk.
func (p *passRun) listPart(ctx context.Context, i int) error {
	p.mu.Lock()
	part := p.pass.Parts[i]
	p.mu.Unlock()
	seen := part.After // greatest key handled so far
	maxKey := ""       // greatest accepted key yielded
	exhausted := false // the part was listed to its end
	files := func(yield func(Found, error) bool) {
		for info, err := range p.o.Source.List(ctx, objstore.ListOptions{StartAfter: part.After, Unreadable: true}) {
			if err != nil {
				yield(Found{}, fmt.Errorf("listing source after %q: %w", part.After, err))
				return
			}
			if part.Until != "" && info.Key >= part.Until {
				break
			}
			if p.stop() {
				return
			}
			seen = info.Key
			if !p.o.Filter.acceptInfo(info) {
				continue
			}
			if info.Key > maxKey {
				maxKey = info.Key
			}
			if !yield(foundOf(info), nil) {
				return
			}
		}
		exhausted = true
	}
	progress := func(done bool) error {
		p.mu.Lock()
		defer p.mu.Unlock()
		pt := &p.pass.Parts[i]
		pt.After, pt.Done = seen, done
		if maxKey > p.pass.MaxKey {
			p.pass.MaxKey = maxKey
		}
		if done || p.o.StopAt.IsZero() {
			return nil
		}
		every := p.o.SaveEvery
		if every <= 0 {
			every = DefaultSaveEvery
		}
		if t := p.now(); t.Sub(p.lastSave) >= every {
			p.lastSave = t
			return p.save(ctx, false)
		}
		return nil
	}
	// A listing mostly sees files it saw before, which the store checks
	// with reads; an incremental one after a LastKey sees new files,
	// written straight away.
	mostlyKnown := !(p.pass.Incremental && p.cur.LastKey != "")
	// A pass without a time budget stores no position until it is done:
	// its chunks are registered while the next ones are listed.
	overlap := p.o.StopAt.IsZero()
	res, err := p.r.registerAll(ctx, iter.Seq2[Found, error](files), mostlyKnown, overlap, func() error { return progress(false) })
	p.mu.Lock()
	p.res.add(res)
	p.mu.Unlock()
	if err != nil {
		return err
	}
	return progress(exhausted)
}

// add adds o's counts to r.
func (r *Result) add(o Result) {
	r.Listed += o.Listed
	r.Existing += o.Existing
	r.New += o.New
	r.Bytes += o.Bytes
	r.Skipped += o.Skipped
}

// planEntries bounds the entries one level's prefix listing reads while a
// pass is planned (a few requests even on a level of millions of objects).
const planEntries = 5000

// planParts splits the key space a pass lists into ranges. An incremental
// pass after a LastKey is one range (its new keys are few and at the end);
// otherwise, on an objstore.PrefixLister with several workers, the
// hierarchy is expanded level by level ('/' delimiter, up to
// maxFanOutDepth levels, planEntries entries a level) until there are
// partsPerWorker prefixes per worker, and the key space is cut at those
// prefixes: each range is a prefix's subtree plus any objects between it
// and the next cut. Hidden prefixes (prunable) are left out entirely.
func planParts(ctx context.Context, src objstore.Store, workers int, incremental bool, lastKey string) ([]Part, error) {
	if incremental && lastKey != "" {
		return []Part{{After: lastKey}}, nil
	}
	pl, ok := src.(objstore.PrefixLister)
	if !ok || workers <= 1 {
		return []Part{{}}, nil
	}
	target := workers * partsPerWorker
	var cuts, hidden []string
	frontier := []string{""}
	for depth := 0; depth < maxFanOutDepth && len(frontier) > 0 && len(cuts)+len(frontier) < target; depth++ {
		levels, err := listLevels(ctx, pl, frontier, workers)
		if err != nil {
			return nil, err
		}
		var next []string
		for i, pre := range frontier {
			subs := levels[i]
			if len(subs) == 0 && pre != "" {
				cuts = append(cuts, pre) // a leaf: one range
			}
			for _, s := range subs {
				if prunable(s) {
					hidden = append(hidden, s)
				} else {
					next = append(next, s)
				}
			}
		}
		frontier = next
	}
	cuts = append(cuts, frontier...)
	return rangesAt(cuts, hidden), nil
}

// listLevels lists the sub-prefixes of each prefix, up to workers at once.
func listLevels(ctx context.Context, pl objstore.PrefixLister, prefixes []string, workers int) ([][]string, error) {
	out := make([][]string, len(prefixes))
	errs := make([]error, len(prefixes))
	sem := make(chan struct{}, max(workers, 1))
	var wg sync.WaitGroup
	for i, pre := range prefixes {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = pl.ListPrefixes(ctx, pre, planEntries)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("listing source level %q: %w", pre, errs[i])
			}
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// rangesAt cuts the key space at the given prefixes, leaving out the
// subtrees of the hidden ones.
func rangesAt(cuts, hidden []string) []Part {
	isHidden := map[string]bool{}
	for _, h := range hidden {
		isHidden[h] = true
	}
	cuts = append(slices.Clone(cuts), hidden...)
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	var parts []Part
	start := ""
	for _, c := range cuts {
		if c == "" || c < start {
			continue
		}
		if start < c {
			parts = append(parts, Part{After: start, Until: c})
		}
		start = c
		if isHidden[c] {
			// Leave out the hidden subtree: its keys are exactly those
			// from c up to c with its final '/' raised to '0'.
			start = c[:len(c)-1] + "0"
		}
	}
	return append(parts, Part{After: start})
}
