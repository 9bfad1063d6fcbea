// Package traceidle reads a Go execution trace (runtime/trace, as the CLI
// writes it with TRIBUTARY_TRACE) and tells, for each trace region of one
// goroutine, how long it lasted and how much processor time went unused
// meanwhile: GOMAXPROCS minus the goroutines running or in a system call,
// summed over the region's time. The regions that leave processors unused
// are the serial steps that keep two threads under twice the speed of one
// (docs/performance.md).
//
// The counts are the Go scheduler's: a goroutine the kernel has taken off
// its CPU still counts as running, and one blocked in a system call counts
// as running too (an fsync counts as busy; its wait shows as the other
// processors' idle time). So each region also tells how long the root's
// goroutine waited in system calls that sync a file to the disk (fsync,
// fdatasync): time that two threads cannot halve, however the rest of the
// work is spread.
//
// Of the idle time, each region also tells how much a goroutine was
// ready to run (runnable) meanwhile: processors the scheduler had work
// for but had not started yet. On a virtual machine whose kernel is slow
// to run a thread woken on an idle CPU (a Firecracker guest, as AWS
// Lambda is) that is time lost to late wake-ups, not to serial work.
package traceidle

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"golang.org/x/exp/trace"
)

// Options says how to read a trace.
type Options struct {
	// Procs is the GOMAXPROCS of the traced run (at least 1).
	Procs int
	// Root is the region whose beginning starts the count; the regions
	// open on the goroutine that began it name each moment after it.
	Root string
	// Bucket, when positive, also sums the idle time per Bucket of time
	// from Root's beginning (Result.Buckets).
	Bucket time.Duration
}

// Span is the total of one region name over the trace.
type Span struct {
	// Name is the outermost region open on the root's goroutine, then "/"
	// and the innermost when regions are nested; "(none)" when none is.
	Name string
	// Wall is the time the name was current.
	Wall time.Duration
	// Idle is the processor time unused while it was current.
	Idle time.Duration
	// Sync is the time the root's goroutine spent in a system call that
	// syncs a file (fsync or fdatasync) while it was current.
	Sync time.Duration
	// Ready is the part of Idle with a goroutine runnable: per moment,
	// the idle processors up to the number of runnable goroutines.
	Ready time.Duration
}

// Result is what a trace shows from Root's beginning to its end.
type Result struct {
	// Spans are the region names, most idle time first.
	Spans []Span
	// Buckets is the idle time per Options.Bucket from Root's beginning.
	Buckets []time.Duration
	// Wall, Idle, Sync and Ready are the totals of Spans.
	Wall, Idle, Sync, Ready time.Duration
}

// ErrNoRoot is returned when the trace has no region named Options.Root.
var ErrNoRoot = errors.New("traceidle: the trace has no root region")

// Read reads a trace written by runtime/trace and sums it.
func Read(r io.Reader, o Options) (Result, error) {
	if o.Procs < 1 {
		return Result{}, fmt.Errorf("traceidle: Procs %d: want at least 1", o.Procs)
	}
	tr, err := trace.NewReader(r)
	if err != nil {
		return Result{}, fmt.Errorf("traceidle: %w", err)
	}
	c := counter{o: o, open: map[trace.GoID][]string{}, spans: map[string]*Span{}}
	for {
		ev, err := tr.ReadEvent()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Result{}, fmt.Errorf("traceidle: %w", err)
		}
		c.event(ev)
	}
	if !c.started {
		return Result{}, fmt.Errorf("%w %q", ErrNoRoot, o.Root)
	}
	return c.result(), nil
}

// counter sums a trace's events in order.
type counter struct {
	o       Options
	open    map[trace.GoID][]string // regions open, by goroutine
	root    trace.GoID              // the goroutine that began Root
	started bool                    // Root has begun
	start   trace.Time              // when
	last    trace.Time              // the previous event's time
	running int                     // goroutines running or in a system call
	ready   int                     // goroutines runnable
	syncing bool                    // the root's goroutine is in a sync system call
	spans   map[string]*Span
	buckets []time.Duration
}

// event adds the time since the previous event to the current name, then
// applies ev.
func (c *counter) event(ev trace.Event) {
	now := ev.Time()
	if c.started && now > c.last {
		c.add(now)
	}
	c.last = now
	switch ev.Kind() {
	case trace.EventRegionBegin:
		g, name := ev.Goroutine(), ev.Region().Type
		if !c.started && name == c.o.Root {
			c.root, c.started, c.start = g, true, now
		}
		c.open[g] = append(c.open[g], name)
	case trace.EventRegionEnd:
		g := ev.Goroutine()
		if s := c.open[g]; len(s) > 0 {
			c.open[g] = s[:len(s)-1]
		}
	case trace.EventStateTransition:
		st := ev.StateTransition()
		if st.Resource.Kind != trace.ResourceGoroutine {
			return
		}
		from, to := st.Goroutine()
		if c.started && st.Resource.Goroutine() == c.root {
			c.syncing = to == trace.GoSyscall && syncCall(st.Stack)
		}
		if busy(from) {
			c.running--
		}
		if busy(to) {
			c.running++
		}
		if from == trace.GoRunnable {
			c.ready--
		}
		if to == trace.GoRunnable {
			c.ready++
		}
	}
}

// syncCall reports whether a goroutine entering a system call with stack
// st is syncing a file: a frame named like syscall.Fsync, unix.Fdatasync
// or bbolt's fdatasync.
func syncCall(st trace.Stack) bool {
	for f := range st.Frames() {
		name := f.Func[strings.LastIndexByte(f.Func, '.')+1:]
		if strings.EqualFold(name, "fsync") || strings.EqualFold(name, "fdatasync") {
			return true
		}
	}
	return false
}

// busy reports whether a goroutine in state s holds a processor.
func busy(s trace.GoState) bool { return s == trace.GoRunning || s == trace.GoSyscall }

// add counts the time from the previous event to now.
func (c *counter) add(now trace.Time) {
	dt := time.Duration(now - c.last)
	free := max(c.o.Procs-c.running, 0)
	idle := dt * time.Duration(free)
	name := "(none)"
	if s := c.open[c.root]; len(s) > 0 {
		name = s[0]
		if len(s) > 1 {
			name += "/" + s[len(s)-1]
		}
	}
	sp := c.spans[name]
	if sp == nil {
		sp = &Span{Name: name}
		c.spans[name] = sp
	}
	sp.Wall += dt
	sp.Idle += idle
	sp.Ready += dt * time.Duration(min(free, max(c.ready, 0)))
	if c.syncing {
		sp.Sync += dt
	}
	if c.o.Bucket > 0 {
		b := int(time.Duration(c.last-c.start) / c.o.Bucket)
		for len(c.buckets) <= b {
			c.buckets = append(c.buckets, 0)
		}
		c.buckets[b] += idle
	}
}

func (c *counter) result() Result {
	res := Result{Buckets: c.buckets}
	for _, sp := range c.spans {
		res.Spans = append(res.Spans, *sp)
		res.Wall += sp.Wall
		res.Idle += sp.Idle
		res.Sync += sp.Sync
		res.Ready += sp.Ready
	}
	slices.SortFunc(res.Spans, func(a, b Span) int {
		return cmp.Or(cmp.Compare(b.Idle, a.Idle), strings.Compare(a.Name, b.Name))
	})
	return res
}
