package gcpace

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
)

// Pacing of the CLI (SmallHeap): a process converting many small files
// keeps a small live heap (~21 MB on 10,000 NDJSON files of 1 KB, up to
// ~28 MB on the same as CSV) and collects every time it doubles — 21 and
// 79 collections — while one converting a large file keeps a live heap of
// 50–60 MB (its row group's pages) and collects ~9 times. The default
// (GOGC=100) gives the heap a headroom of one live heap over the live
// heap; SmallHeap gives it SmallHeapRoom instead while that is more (but
// at most two live heaps, GOGC=200): small live heaps collect about half
// as often, for at most SmallHeapRoom/2 more memory (at a live heap of
// SmallHeapRoom/2), and from a live heap of SmallHeapRoom on the pacing is
// the default's. There is no memory limit, so it cannot thrash on a row
// group of incompressible values.
const (
	// SmallHeapRoom is the least headroom over the live heap SmallHeap
	// gives the heap (two live heaps if that is less).
	SmallHeapRoom = 40 << 20
	// SmallHeapPercent is the GC percent of the smallest live heaps.
	SmallHeapPercent = 200
)

// percentFor is the GC percent for a live heap of live bytes: the heap may
// grow by max(live, min(2 × live, SmallHeapRoom)).
func percentFor(live uint64) int {
	switch {
	case live*2 <= SmallHeapRoom:
		return SmallHeapPercent
	case live >= SmallHeapRoom:
		return 100
	}
	return int(100 * SmallHeapRoom / live)
}

// smallHeap re-chooses the GC percent after every collection.
type smallHeap struct {
	stopped atomic.Bool
	mu      sync.Mutex
	percent int
	sample  []metrics.Sample
}

// sentinel is garbage whose finalizer runs after a collection (it holds
// a pointer, so it is not batched by the tiny allocator).
type sentinel struct{ _ *byte }

// SmallHeap starts pacing the collector by the live heap (see above),
// unless the environment sets GOGC or GOMEMLIMIT (the operator's choice,
// which the runtime applied). It returns a function that stops it and
// restores GOGC=100; started is false when the environment decided.
func SmallHeap(getenv func(string) string) (stop func(), started bool) {
	if strings.TrimSpace(getenv("GOGC")) != "" || strings.TrimSpace(getenv("GOMEMLIMIT")) != "" {
		return func() {}, false
	}
	h := &smallHeap{percent: SmallHeapPercent, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	debug.SetGCPercent(SmallHeapPercent)
	h.arm()
	return func() {
		h.stopped.Store(true)
		h.mu.Lock()
		defer h.mu.Unlock()
		h.percent = 100
		debug.SetGCPercent(100)
	}, true
}

// arm sets a sentinel that calls cycle after the next collection.
func (h *smallHeap) arm() {
	s := &sentinel{}
	runtime.SetFinalizer(s, func(*sentinel) {
		if h.stopped.Load() {
			return
		}
		h.cycle()
		h.arm()
	})
}

// cycle sets the GC percent for the live heap the last collection left.
func (h *smallHeap) cycle() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped.Load() {
		return
	}
	metrics.Read(h.sample)
	if h.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	if p := percentFor(h.sample[0].Value.Uint64()); p != h.percent {
		h.percent = p
		debug.SetGCPercent(p)
	}
}
