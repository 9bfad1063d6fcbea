package csvfmt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"

	"github.com/tributary-io/tributary/core/formats/csvfmt/csvpar"
	"github.com/tributary-io/tributary/core/formats/csvfmt/csvtok"
	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// Parallel inference. Without multiLine and with the default line ends a
// record never spans a "\n", so the records after a file's header can be
// cut into blocks of whole lines (after a "\n") that worker goroutines
// (GOMAXPROCS of them) tokenize and fold on their own. The blocks' results
// are taken in file order, and the result is the serial one exactly:
//
// Spark's fold of a column's values (inferField) depends on the type it
// starts from, and merging two blocks' types is not the fold of their
// values in order (a DECIMAL(5,2) column meeting "7" stays DECIMAL(5,2);
// merging it with the INT of a block that holds "7" gives DECIMAL(12,2)).
// So a worker folds its block from a guess, the types the inferrer had
// when the block was handed out, and reports for each column whether
// every value of the block keeps the type it ended with (stable). Taking
// the block, the inferrer's type S of a column becomes the block's type
// when S is the guess (the fold from S is the one done); stays S when S
// is the block's type and stable (every value keeps S: the fold from S is
// S); otherwise the block is folded again from S on the calling
// goroutine. Records counts and malformed records do not depend on the
// types; FAILFAST's error (or a parser limit) is the first block's that
// has one, at the first such record, with the types and counts of the
// records before it folded in, as the serial read stops there.
//
// A file whose rest is one block is folded in the caller, without
// goroutines. samplingRatio keeps inference serial (one random sequence
// over the records). A read error, or a run of more than eight blocks' bytes
// without a "\n" (lines ended by a lone "\r"), ends the parallel
// part: the blocks handed out are taken and the rest is read serially.

// inferBlockBytes is the size of a block of lines handed to a worker.
const inferBlockBytes = 128 << 10

// parallel reports whether in may infer a file's records in blocks.
func (in *inferrer) parallel() bool {
	if in.par.workers == 0 {
		in.par.workers = runtime.GOMAXPROCS(0)
	}
	if in.par.block == 0 {
		in.par.block = inferBlockBytes
	}
	return in.par.workers > 1 && in.sampler == nil && !in.o.MultiLine && in.opts.Text.LineSep == ""
}

// parConfig is parallel inference's configuration (tests set it).
type parConfig struct {
	workers int // 0: GOMAXPROCS; 1: serial
	block   int // bytes per block; 0: inferBlockBytes
	// free are block buffers kept from one file to the next.
	free [][]byte
}

// inferBlock is a block of whole lines and, once folded, what folding it
// gave.
type inferBlock struct {
	buf   []byte
	guess []icol // the types the fold started from (inferrer.cols)

	types   []icol // the fold from guess (names unused)
	stable  []bool // per column: every value keeps types' type
	records int64
	lines   int64 // line ends in the block
	// err is a tokenizer error or (FAILFAST) the first malformed
	// record's reason (bad), at line errLine of the block (from 1).
	err     error
	bad     string
	errLine int64
}

// parInfer infers the records after a file's header in blocks: br is the
// rest of the file, whose first line is line base.
func (in *inferrer) parInfer(ctx context.Context, path string, br io.Reader, f *folder, base int64) error {
	p := &parRun{in: in, path: path, f: f, workers: in.par.workers, free: in.par.free}
	defer p.stop()
	cut := csvpar.NewCutter(br, in.par.block)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		buf, last, stop, err := cut.Next(p.buffer())
		if stop {
			// A read error or a long run without "\n": take the blocks
			// in flight and read the rest serially, from this block on.
			if err := p.finish(&base); err != nil {
				return err
			}
			tk := p.tokenizer()
			tk.Resume(cut.Rest(buf, err))
			f.last = nil
			return in.records(ctx, f, tk, path, base)
		}
		b := &inferBlock{buf: buf}
		if !p.started && last {
			// The whole rest in one block: fold it here.
			b.guess = slices.Clone(in.cols)
			p.fold(p.tokenizer(), b)
			return p.take(b, &base)
		}
		if err := p.send(b, &base); err != nil {
			return err
		}
		if last {
			return p.finish(&base)
		}
	}
}

// parRun runs the workers of one file.
type parRun struct {
	in      *inferrer
	path    string
	f       *folder // the file's columns; its types are the inferrer's
	workers int
	pool    *csvpar.Ordered[*inferBlock]
	free    [][]byte
	tk      *csvtok.Tokenizer // the caller's, for blocks folded again
	started bool
}

// buffer returns an empty block buffer.
func (p *parRun) buffer() []byte {
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		return b[:0]
	}
	return make([]byte, 0, inferBlockBytes+inferBlockBytes/4)
}

// tokenizer returns the caller's tokenizer (made once).
func (p *parRun) tokenizer() *csvtok.Tokenizer {
	if p.tk == nil {
		p.tk = newTokenizer(bytes.NewReader(nil), &p.in.o, "")
		p.in.skipUTF8(p.tk)
	}
	return p.tk
}

// send hands b to the workers, taking finished blocks so that at most
// eight per worker are in flight; base is the line the next block to be
// taken starts on.
func (p *parRun) send(b *inferBlock, base *int64) error {
	if !p.started {
		p.started = true
		p.pool = csvpar.NewOrdered(p.workers, func() func(*inferBlock) {
			tk := newTokenizer(bytes.NewReader(nil), &p.in.o, "")
			p.in.skipUTF8(tk)
			return func(b *inferBlock) { p.fold(tk, b) }
		})
	}
	b.guess = slices.Clone(p.in.cols)
	p.pool.Send(b)
	for p.pool.Pending() > 8*p.workers {
		if err := p.take(p.pool.Take(), base); err != nil {
			return err
		}
	}
	return nil
}

// finish takes every block in flight.
func (p *parRun) finish(base *int64) error {
	for p.started && p.pool.Pending() > 0 {
		if err := p.take(p.pool.Take(), base); err != nil {
			return err
		}
	}
	return nil
}

// take merges folded block b into the inferrer (see the comment above).
func (p *parRun) take(b *inferBlock, base *int64) error {
	in := p.in
	again := false
	for _, j := range p.f.cols {
		s := in.cols[j].t
		switch {
		case s == b.guess[j].t:
		case s == b.types[j].t && b.stable[j]:
		default:
			again = true
		}
	}
	if again {
		b.guess = slices.Clone(in.cols)
		p.fold(p.tokenizer(), b)
	}
	for _, j := range p.f.cols {
		in.cols[j].t = b.types[j].t
	}
	in.sample.Records += b.records
	p.f.records += b.records
	if b.err != nil {
		return fmt.Errorf("csvfmt: read %s line %d: %w", p.path, *base+b.errLine-1, b.err)
	}
	if b.bad != "" {
		return fmt.Errorf("csvfmt: %s line %d: %w: %s", p.path, *base+b.errLine-1, fileformat.ErrMalformedRecord, b.bad)
	}
	*base += b.lines
	if cap(b.buf) <= 2*inferBlockBytes && len(p.free) < 8*p.workers+2 {
		p.free = append(p.free, b.buf[:0])
	}
	b.buf = nil
	return nil
}

// stop ends the workers; blocks in flight are dropped.
func (p *parRun) stop() {
	if p.started {
		p.pool.Stop()
	}
	p.in.par.free, p.free = p.free, nil
}

// fold folds block b from b.guess with tk: its types, stable, counts and
// first error.
func (p *parRun) fold(tk *csvtok.Tokenizer, b *inferBlock) {
	in := p.in
	f := &folder{o: p.f.o, infer: p.f.infer, pd: p.f.pd, cols: p.f.cols, types: slices.Clone(b.guess)}
	f.last = make([]int64, len(f.types))
	for j := range f.last {
		f.last[j] = -1
	}
	b.err, b.bad, b.errLine = nil, "", 0
	tk.Resume(bytes.NewReader(b.buf))
	for {
		err := tk.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			b.err, b.errLine = err, tk.Line()
			break
		}
		if tk.Bad() != "" {
			if in.mode == fileformat.FailFast {
				b.bad, b.errLine = tk.Bad(), tk.Line()
				break
			}
			continue
		}
		if f.infer {
			f.fold(tk)
		}
		f.records++
	}
	b.lines = tk.Cur() - 1
	b.types, b.records = f.types, f.records
	b.stable = make([]bool, len(f.types))
	lastChange := int64(-1)
	for j := range b.stable {
		b.stable[j] = f.last[j] < 0
		lastChange = max(lastChange, f.last[j])
	}
	if lastChange < 0 {
		return
	}
	// The columns whose type changed: every value up to the last change
	// must keep the final type (the later ones did).
	for j := range b.stable {
		b.stable[j] = true
	}
	tk.Resume(bytes.NewReader(b.buf))
	for rec := int64(0); rec <= lastChange; {
		if err := tk.Next(); err != nil {
			break // met in the fold: after the last change
		}
		if tk.Bad() != "" {
			continue
		}
		for i := 0; i < min(len(f.cols), tk.Len()); i++ {
			j := f.cols[i]
			t := b.types[j].t
			if rec > f.last[j] || !b.stable[j] || t.K == kString {
				continue
			}
			s, null := tokenView(tk, i, f.o)
			if !null {
				s, null = repair(tk, i, s, f.o)
			}
			if !null && f.o.inferField(t, s, f.pd) != t {
				b.stable[j] = false
			}
		}
		rec++
	}
}
