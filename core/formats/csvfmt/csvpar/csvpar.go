// Package csvpar holds what csvfmt's reads of one file share: cutting a
// text into blocks of whole lines (Cutter from a reader, InPlace from the
// shared windows of a file read in place, Chunks either) and running work
// on worker goroutines with the results taken in the order it was handed
// out (Ordered), for the parallel reads. It knows nothing of CSV.
package csvpar

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"sync"
	"sync/atomic"
)

// Cutter reads a text in blocks of whole lines: about size bytes, then on
// to the next "\n".
type Cutter struct {
	r     io.Reader
	size  int
	carry []byte
	eof   bool
}

// NewCutter returns a cutter reading r in blocks of about size bytes.
func NewCutter(r io.Reader, size int) *Cutter {
	return &Cutter{r: r, size: size}
}

// Next reads the next block into buf (emptied, grown as needed): whole
// lines, the last one ending with "\n", except that the text's last block
// (last) holds all that is left. stop is set instead when no "\n" is met
// within 8 blocks' bytes (lines ended by a lone "\r") or reading failed
// (err): block is then what was read past the blocks before, and the
// caller reads the rest itself, as Rest gives it.
func (c *Cutter) Next(buf []byte) (block []byte, last, stop bool, err error) {
	buf = append(buf[:0], c.carry...)
	c.carry = c.carry[:0]
	cut := -1
	for !c.eof {
		if len(buf) >= c.size {
			if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
				cut = i + 1
				break
			}
			if len(buf) >= 8*c.size {
				return buf, false, true, nil
			}
		}
		// Up to size bytes, then on to the next "\n".
		want := c.size - len(buf)
		if want <= 0 {
			want = c.size
		}
		buf = slices.Grow(buf, want)
		n, rerr := c.r.Read(buf[len(buf) : len(buf)+want])
		buf = buf[:len(buf)+n]
		switch {
		case errors.Is(rerr, io.EOF):
			c.eof = true
		case rerr != nil:
			return buf, false, true, rerr
		}
	}
	if c.eof {
		return buf, true, false, nil
	}
	c.carry = append(c.carry, buf[cut:]...)
	return buf[:cut], false, false, nil
}

// Rest returns the text after the block Next returned with stop set:
// that block, then the rest of the source (or err, the read error).
func (c *Cutter) Rest(block []byte, err error) io.Reader {
	if err != nil {
		return io.MultiReader(bytes.NewReader(block), errReader{err})
	}
	return io.MultiReader(bytes.NewReader(block), c.r)
}

// errReader fails every read with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// Ordered runs items (pointers, each done once) on worker goroutines and
// hands them back in the order they were sent.
type Ordered[T any] struct {
	workers int
	// worker makes one worker's function (with its own state).
	worker  func() func(T)
	work    chan job[T]
	queue   []job[T]
	wg      sync.WaitGroup
	started bool
	abandon atomic.Bool
}

type job[T any] struct {
	item T
	done chan struct{}
}

// NewOrdered returns an Ordered of n workers, each running the function
// worker makes for it (called on the worker's goroutine).
func NewOrdered[T any](n int, worker func() func(T)) *Ordered[T] {
	return &Ordered[T]{workers: n, worker: worker}
}

// Send hands item to the workers (starting them on the first call).
func (o *Ordered[T]) Send(item T) {
	if !o.started {
		o.started = true
		o.work = make(chan job[T], 2*o.workers)
		for range o.workers {
			o.wg.Add(1)
			go o.run()
		}
	}
	j := job[T]{item: item, done: make(chan struct{})}
	o.queue = append(o.queue, j)
	o.work <- j
}

// Pending is the number of items sent and not taken.
func (o *Ordered[T]) Pending() int { return len(o.queue) }

// Take waits for the oldest item not taken (Pending > 0) and returns it.
func (o *Ordered[T]) Take() T {
	j := o.queue[0]
	o.queue[0] = job[T]{}
	o.queue = o.queue[1:]
	<-j.done
	return j.item
}

// Stop ends the workers: items not taken are dropped (those not started
// are not run) and returned, for the caller to release what they hold.
func (o *Ordered[T]) Stop() []T {
	if !o.started {
		return nil
	}
	o.started = false
	o.abandon.Store(true)
	close(o.work)
	o.wg.Wait()
	var dropped []T
	for _, j := range o.queue {
		dropped = append(dropped, j.item)
	}
	o.queue = nil
	return dropped
}

func (o *Ordered[T]) run() {
	defer o.wg.Done()
	var fn func(T)
	for j := range o.work {
		if !o.abandon.Load() {
			if fn == nil {
				fn = o.worker()
			}
			fn(j.item)
		}
		close(j.done)
	}
}
