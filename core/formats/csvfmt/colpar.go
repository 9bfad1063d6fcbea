package csvfmt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"

	"github.com/tributary-io/tributary/core/formats/csvfmt/csvpar"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/parquetio"
)

// Parallel columnar read. Without multiLine, with the default line ends
// and a header, a record never spans a "\n" (a quoted value ends with its
// line), so ReadBatch cuts the lines after the header into chunks of
// about parChunkBytes (csvpar.Chunks: slices of shared windows of a file
// read in place, else copies) that worker goroutines (GOMAXPROCS, or
// ReadOptions.Workers) decode in place, each with a reader of its own,
// into a ColumnBatch per chunk; the chunks are handed out in file order with
// their statistics and bad records merged in that order, and their lines
// numbered from where they begin, so rows, counts, reported columns, bad
// records and FAILFAST's error are the serial read's. A file whose rest is
// one chunk is decoded in the caller. A read error, or a run of more than
// eight chunks' bytes without a "\n", ends the parallel part: the chunks
// handed out are taken and the rest is read serially.

// parChunkBytes is the size of a chunk of lines handed to a worker.
var parChunkBytes = 128 << 10 // a variable for the tests

// csvChunk is a run of whole lines, its first line numbered first (rel:
// from 1 until number knows), and once decoded its rows and lines. What a
// worker records with rd.line must be a bad record or its error.
type csvChunk struct {
	buf     []byte
	release func() // gives back buf's window (csvpar.Chunks.Next)
	first   int64
	rel     bool
	lines   int64
	b       *parquetio.ColumnBatch
	stats   fileformat.ReadStats
	bad     []fileformat.BadRecord
	err     error // io.EOF: none
}

// parRead is the state of a parallel read.
type parRead struct {
	cut     *csvpar.Chunks
	pool    *csvpar.Ordered[*csvChunk]
	workers int
	next    int64 // line number of the next chunk's first line
	eof     bool
	serial  io.Reader // the rest, read serially once the chunks in flight are taken
	batches []*parquetio.ColumnBatch
}

// startPar decides, before the first record, whether ReadBatch reads the
// file in parallel; it then reads the header and sets rd.par.
func (rd *reader) startPar() error {
	o := &rd.o
	n := rd.workers
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	if n < 2 || o.MultiLine || rd.lineSep != "" || !o.Header || strings.ContainsAny(o.Sep+string([]rune{o.Quote, o.Escape, o.CharToEscapeQuoteEscape, o.Comment}), "\r\n") {
		return nil
	}
	err := rd.tk.Next()
	if errors.Is(err, io.EOF) {
		rd.done = true
		return nil
	}
	if err != nil {
		return fmt.Errorf("csvfmt: read %s line %d: %w", rd.file, rd.tk.Line(), err)
	}
	rd.started = true
	if err := rd.header(); err != nil {
		return err
	}
	if rd.fold != nil {
		if err := rd.fold.start(rd.tk, rd.file); err != nil {
			return err
		}
	}
	rest, ok := rd.tk.Rest()
	if !ok {
		return nil // read on serially
	}
	rd.recycle = nil // its input goes on in the chunks
	// The workers' readers are made here, from rd as the header left it.
	ws := make(chan *reader, n)
	for range n {
		ws <- rd.worker()
	}
	m, off, _ := rd.tk.RestShared() // in place, when it can be
	p := &parRead{cut: csvpar.NewChunks(rest, m, off, parChunkBytes), workers: n, next: rd.tk.Cur()}
	p.pool = csvpar.NewOrdered(n, func() func(*csvChunk) {
		w := <-ws
		return func(c *csvChunk) { w.decodeChunk(c); c.release = csvpar.Decoded(c.release, c.err) }
	})
	rd.par = p
	return nil
}

// worker returns a reader for a worker goroutine: rd's options and header,
// a tokenizer, statistics and column state of its own.
func (rd *reader) worker() *reader {
	w := *rd
	w.tk = newTokenizer(bytes.NewReader(nil), &w.o, "")
	w.par, w.workers = nil, 1
	w.colIdx = slices.Clone(rd.colIdx)
	w.colName = slices.Clone(rd.colName)
	w.caseOnly = slices.Clone(rd.caseOnly)
	w.rescue = fileformat.Rescue{}
	w.col = colState{decided: true, ok: true}
	w.fold = rd.fold.clone()
	return &w
}

// decodeChunk reads c's lines into c.b, its statistics and bad records into c.
func (rd *reader) decodeChunk(c *csvChunk) {
	rd.tk.Resume(fileformat.NewBytesMapper(c.buf)) // read in place: the batch copies
	rd.lineBase, rd.done, c.bad = c.first-1, false, nil
	rd.stats, rd.seenU, rd.seenM = fileformat.ReadStats{}, map[string]bool{}, map[string]bool{}
	if rd.badHook != nil {
		rd.badHook = func(br fileformat.BadRecord) { c.bad = append(c.bad, br) }
	}
	c.err = rd.ReadBatch(c.b, math.MaxInt, math.MaxInt64)
	c.stats = rd.stats
	c.lines = rd.tk.Cur() - 1
}

// number numbers chunk c's lines, taken next: its bad records', or its
// error's, decoding it again (the reading goroutine does not count them).
func (rd *reader) number(c *csvChunk) {
	p := rd.par
	if c.rel {
		c.first, c.rel = p.next, false
		if c.err != nil && !errors.Is(c.err, io.EOF) {
			c.b.Reset()
			rd.worker().decodeChunk(c)
		} else {
			for i := range c.bad {
				c.bad[i].Line += c.first - 1
			}
		}
	}
	p.next += c.lines
}

// stop ends the workers, giving back the chunks they dropped and the cutter's window.
func (p *parRead) stop() {
	for _, c := range p.pool.Stop() {
		p.cut.Done(c.buf, c.release)
	}
	p.cut.Close()
}

// readPar is ReadBatch's parallel read: the next chunk's rows, or the rest read serially after a stop.
func (rd *reader) readPar(b *parquetio.ColumnBatch, maxRows int, maxBytes int64) error {
	p := rd.par
	for !p.eof && p.serial == nil && p.pool.Pending() < 2*p.workers {
		if err := rd.ctx.Err(); err != nil {
			return err
		}
		block, release, last, stop, err := p.cut.Next()
		if stop {
			p.serial = p.cut.Rest(block, err)
			break
		}
		p.eof = last
		c := &csvChunk{buf: block, release: release, first: 1, rel: true}
		if last && p.pool.Pending() == 0 {
			// The rest is one chunk: decode it here, into b.
			c.b, c.first, c.rel = b, p.next, false
			rd.worker().decodeChunk(c)
			return rd.hand(c, nil)
		}
		if n := len(p.batches); n > 0 {
			c.b, p.batches = p.batches[n-1], p.batches[:n-1]
		} else if c.b, err = parquetio.NewColumnBatch(rd.s); err != nil {
			return err
		}
		p.pool.Send(c)
	}
	if p.pool.Pending() > 0 {
		c := p.pool.Take()
		rd.number(c)
		return rd.hand(c, b)
	}
	if p.serial == nil {
		rd.done = true
		return io.EOF
	}
	// Go on serially from where the chunks end, with a tokenizer of its own.
	tk := newTokenizer(bytes.NewReader(nil), &rd.o, "")
	tk.Resume(p.serial)
	rd.tk = tk
	rd.lineBase, rd.par = p.next-1, nil
	return rd.ReadBatch(b, maxRows, maxBytes)
}

// hand moves chunk c's rows into b (nil: they are there) and merges its
// statistics and bad records in; c's error ends the read.
func (rd *reader) hand(c *csvChunk, b *parquetio.ColumnBatch) error {
	p := rd.par
	var err error
	if b != nil {
		if b.Rows() == 0 {
			b.Swap(c.b)
		} else {
			err = b.Append(c.b)
		}
		c.b.Reset()
		p.batches = append(p.batches, c.b)
	}
	p.cut.Done(c.buf, c.release)
	rd.stats.Merge(c.stats, rd.seenU, rd.seenM)
	for _, br := range c.bad {
		rd.badHook(br)
	}
	if err == nil && !errors.Is(c.err, io.EOF) {
		err = c.err
	}
	if err != nil {
		p.stop()
		rd.done = true
		return err
	}
	if p.eof && p.pool.Pending() == 0 {
		rd.done = true
		return io.EOF
	}
	return nil
}
