package jsoninfer

import (
	"context"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsontape"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsonlines"
)

// Parallel inference. A file's lines are cut into chunks of about
// ChunkBytes that worker goroutines (GOMAXPROCS of them) infer, each
// into a struct type of its own; the chunks' types are merged into the
// inferrer's in file order, so that the result is the serial one: Spark's
// type merge is associative, the first-seen spelling of a field is the
// first chunk's, and FAILFAST reports the first malformed line. A file
// smaller than a chunk is inferred in the caller, without goroutines. Schema
// hints, inferTimestamp and samplingRatio keep inference serial (hints make
// the merge depend on the order of values; the others hold per-inferrer
// state).

// ChunkBytes is the size of a chunk of lines handed to a worker.
const ChunkBytes = 128 << 10

// parallel reports whether in may infer a file's chunks in parallel.
func (in *inferrer) parallel() bool {
	return in.chunk >= 0 && runtime.GOMAXPROCS(0) > 1 && in.hints == nil && in.dt == nil && in.sampler == nil
}

// inferChunk is a run of a file's lines and, once done is closed, what
// they inferred.
type inferChunk struct {
	buf   []byte
	ends  []int   // end offset in buf of each line
	lines []int64 // line number of each line
	// block: buf is a run of whole lines read with jsonlines.Block (ends
	// and lines unused), numbered from 1 in the chunk (each): the
	// reader does not count them (CountLater); n is how many each cut,
	// and mergeHead, which merges the chunks in order, adds the lines
	// before the chunk to errLine.
	block bool
	n     int64
	// release, when set, gives back the mapped window buf is a slice of
	// (jsonlines.Reader.BlockShared): buf is read in place, not a buffer
	// of ours to reuse.
	release func()
	done    chan struct{}

	root    itype
	records int64
	err     error // FAILFAST: the malformed line's parse error
	errLine int64
}

// parInfer infers one file's chunks in parallel.
type parInfer struct {
	in      *inferrer
	path    string
	workers int
	work    chan *inferChunk
	queue   []*inferChunk // handed to the workers, not merged yet, in order
	free    []*inferChunk // merged chunks whose buffers are reused
	cur     *inferChunk
	inPlace bool // the blocks are read in place (no buffers needed)
	wg      sync.WaitGroup
	started bool
	abandon atomic.Bool
	nums    jsonlines.Lines // the block chunks merged
}

func newParInfer(in *inferrer, path string) *parInfer {
	p := &parInfer{in: in, path: path, workers: runtime.GOMAXPROCS(0), free: in.parFree}
	in.parFree = nil
	return p
}

// add appends one non-blank line (number no) to the current chunk.
func (p *parInfer) add(line []byte, no int64) error {
	if p.cur == nil {
		if n := len(p.free); n > 0 && cap(p.free[n-1].buf) >= len(line) {
			p.cur, p.free = p.free[n-1], p.free[:n-1]
		} else {
			p.cur = &inferChunk{buf: make([]byte, 0, max(ChunkBytes+ChunkBytes/4, len(line)))}
		}
	}
	c := p.cur
	c.buf = append(c.buf, line...)
	c.ends = append(c.ends, len(c.buf))
	c.lines = append(c.lines, no)
	size := ChunkBytes
	if p.in.chunk > 0 {
		size = p.in.chunk
	}
	if len(c.buf) < size {
		return nil
	}
	p.cur = nil
	return p.send(c)
}

// addBlocks reads the rest of lr's file in blocks of lines (straight into
// the chunks' buffers, or in place from a mapped file: the workers split
// the lines) and infers them, a file of one block in the caller.
func (p *parInfer) addBlocks(ctx context.Context, lr *jsonlines.Reader) error {
	size := ChunkBytes
	if p.in.chunk > 0 {
		size = p.in.chunk
	}
	p.nums.Start(lr) // the workers count the lines as they cut them
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		c := &inferChunk{block: true}
		if p.inPlace {
			// No buffer: the block is a slice of a mapped window.
		} else if n := len(p.free); n > 0 {
			c.buf, p.free = p.free[n-1].buf, p.free[:n-1]
		} else {
			c.buf = make([]byte, 0, size+size/4)
		}
		spare := c.buf
		var err error
		c.buf, _, c.release, err = lr.BlockShared(c.buf, size)
		if c.release != nil {
			p.inPlace = true
			if cap(spare) > 0 {
				p.free = append(p.free, &inferChunk{buf: spare[:0]})
			}
		}
		if errors.Is(err, io.EOF) {
			p.recycle(c)
			return p.finish()
		}
		if err != nil {
			p.recycle(c)
			if perr := p.finish(); perr != nil {
				return perr
			}
			return fmt.Errorf("jsonfmt: read %s: %w", p.path, err)
		}
		if !p.started && lr.Exhausted() {
			p.cur = c // the whole file: finish infers it here
			return p.finish()
		}
		if err := p.send(c); err != nil {
			return err
		}
	}
}

// each calls f with every non-blank line of c and its number (a block's
// from 1 in the block, its lines counted into c.n), until f fails.
func (c *inferChunk) each(f func(line []byte, no int64) error) error {
	if c.block {
		no, cut := int64(0), jsonlines.Cutter(c.buf)
		for rest := c.buf; len(rest) > 0; {
			var line []byte
			line, rest = cut(rest)
			no++
			if jsonlines.IsBlank(line) {
				continue
			}
			if err := f(line, no); err != nil {
				c.n = no
				return err
			}
		}
		c.n = no
		return nil
	}
	start := 0
	for i, end := range c.ends {
		if err := f(c.buf[start:end], c.lines[i]); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// send hands c to the workers, merging finished chunks so that at most
// eight per worker are in flight. A deep queue lets the reading goroutine
// read several chunks each time it gets a core (at two threads it shares
// the cores with the workers): with two per worker in flight the workers
// waited on it, the inference of one 100 MB file ran on ~1.6 of 2 cores.
// Eight chunks per worker are 1.25 MiB of buffers each.
func (p *parInfer) send(c *inferChunk) error {
	if !p.started {
		p.started = true
		p.work = make(chan *inferChunk, 4*p.workers)
		for range p.workers {
			p.wg.Add(1)
			go p.worker()
		}
	}
	c.done = make(chan struct{})
	p.queue = append(p.queue, c)
	p.work <- c
	for len(p.queue) > 8*p.workers {
		if err := p.mergeHead(); err != nil {
			return err
		}
	}
	return nil
}

// mergeHead waits for the oldest chunk in flight and merges it.
func (p *parInfer) mergeHead() error {
	c := p.queue[0]
	p.queue[0] = nil
	p.queue = p.queue[1:]
	<-c.done
	mergeType(&p.in.root, &c.root)
	p.in.sample.Records += c.records
	if c.block {
		c.errLine += p.nums.Next(0, c.n)
	}
	if c.err != nil {
		return fmt.Errorf("jsonfmt: %s line %d: %w: %v", p.path, c.errLine, fileformat.ErrMalformedRecord, c.err)
	}
	p.recycle(c)
	return nil
}

// recycle keeps c's buffers for the next chunks (not a huge line's, nor
// a mapped window).
func (p *parInfer) recycle(c *inferChunk) {
	c.unmap()
	if c.buf != nil && cap(c.buf) <= 2*ChunkBytes {
		p.free = append(p.free, &inferChunk{buf: c.buf[:0], ends: c.ends[:0], lines: c.lines[:0]})
	}
}

// unmap gives back the mapped window c's block was read from, if any;
// the block must not be used afterwards.
func (c *inferChunk) unmap() {
	if c.release != nil {
		c.release()
		c.release, c.buf = nil, nil
	}
}

// finish infers what is left: the last chunk (in the caller when no
// worker was started) and every chunk in flight.
func (p *parInfer) finish() error {
	if c := p.cur; c != nil {
		p.cur = nil
		if !p.started {
			if err := c.each(func(line []byte, no int64) error {
				if err := p.in.line(line); err != nil {
					if c.block {
						no += p.nums.Line()
					}
					return fmt.Errorf("jsonfmt: %s line %d: %w: %v", p.path, no, fileformat.ErrMalformedRecord, err)
				}
				return nil
			}); err != nil {
				c.unmap()
				return err
			}
			p.recycle(c)
			return nil
		}
		if err := p.send(c); err != nil {
			return err
		}
	}
	for len(p.queue) > 0 {
		if err := p.mergeHead(); err != nil {
			return err
		}
	}
	return nil
}

// stop ends the workers; chunks still in flight are dropped. The free
// chunks go back to the inferrer for the next file: a file smaller than a
// chunk (many small files) then reuses one buffer instead of allocating
// a chunk's (160 KiB, zeroed) per file.
func (p *parInfer) stop() {
	if p.started {
		p.abandon.Store(true)
		close(p.work)
		p.wg.Wait()
	}
	p.in.parFree = p.free
	p.queue, p.cur, p.free = nil, nil, nil
}

// worker infers chunks with an inferrer of its own.
func (p *parInfer) worker() {
	defer p.wg.Done()
	in := p.in
	w := &inferrer{opts: in.opts, mode: in.mode, corrupt: in.corrupt, max: in.max, tape: jsontape.Tape{Syn: in.tape.Syn}, sc: scanState{off: in.sc.off}}
	for c := range p.work {
		if !p.abandon.Load() {
			w.root, w.sample.Records = itype{kind: iStruct}, 0
			_ = c.each(func(line []byte, no int64) error {
				if err := w.line(line); err != nil {
					c.err, c.errLine = err, no
					return err
				}
				return nil
			})
			c.root, c.records = w.root, w.sample.Records
			w.root = itype{}
			w.tape.B = nil
		}
		c.unmap()
		close(c.done)
	}
}

// mergeType widens dst with src, which was inferred from values that
// follow dst's: the result is what inferring all of them in order gives
// (src is not used afterwards). Fields keep dst's spelling and order, then
// src's new fields in src's order.
func mergeType(dst, src *itype) {
	switch {
	case src.kind == iNull || dst.kind == iString:
		return
	case dst.kind == iNull:
		*dst = *src
		return
	case src.kind == iString:
		dst.toString()
		return
	case dst.kind == iStruct && src.kind == iStruct:
		for _, f := range src.fields {
			mergeType(dst.field(f.name), f.t)
		}
		return
	case dst.kind == iArray && src.kind == iArray:
		if dst.elem == nil {
			dst.elem = &itype{}
		}
		if src.elem != nil {
			mergeType(dst.elem, src.elem)
		}
		return
	case dst.kind == iStruct || dst.kind == iArray || src.kind == iStruct || src.kind == iArray:
		dst.toString()
		return
	}
	dst.merge(src)
}
