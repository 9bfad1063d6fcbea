package jsonfmt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsoninfer"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsonlines"
	"github.com/tributary-io/tributary/core/parquetio"
)

// Parallel columnar read. With more than one CPU (GOMAXPROCS), ReadBatch
// cuts a file's lines into chunks of about jsoninfer.ChunkBytes (split at line
// boundaries by the line reader) that worker goroutines decode, each with
// a reader of its own, into a ColumnBatch per chunk; ReadBatch hands the
// chunks' batches out in file order and merges their read statistics and
// bad records in that order, so the rows, counts, reported paths, bad
// records and FAILFAST's error are the serial read's. A file of one chunk
// is decoded in the caller, without goroutines. multiLine files are read
// serially (one record).

// batchChunk is a run of a file's lines and, once done is closed, their
// rows.
type batchChunk struct {
	buf   []byte
	ends  []int   // end offset in buf of each line
	lines []int64 // line number of each line
	// block: buf is a run of whole lines read with jsonlines.Block (ends
	// and lines unused), the first numbered first+1 (rel: not known to
	// its worker, 0 until number); n is how many, counted by decodeChunk.
	block    bool
	rel      bool
	lineErr  bool
	first, n int64
	size     int64 // bytes in the block
	// release, when set, gives back the mapped window buf is a slice of
	// (jsonlines.Reader.BlockShared): the rows must not point into buf,
	// which is unmapped once they are decoded.
	release func()
	done    chan struct{}

	b     *parquetio.ColumnBatch
	stats fileformat.ReadStats
	bad   []fileformat.BadRecord
	err   error
}

// parAhead is how many chunks per worker are read ahead of the one handed
// out. The encoder is the slower stage and takes the decoded chunks
// unevenly (a few at once, then a page flush); with 2 per worker the
// workers ran dry while it held the cores, then it waited for them. One
// 100 MB file at 2 threads, 24 and 30 paired CLI runs: wall -0.010 s
// median (15 of 24, 19 of 30 faster), peak RSS +0.7 to +2.6 MB median;
// 8 per worker gained nothing more and held 3.5 MB more.
const parAhead = 4

// parBatch runs the workers of one file.
type parBatch struct {
	rd      *reader
	workers int
	chunk   int // bytes of lines per chunk
	work    chan *batchChunk
	queue   []*batchChunk // chunks read, not handed out yet, in order
	free    []*parquetio.ColumnBatch
	wg      sync.WaitGroup
	started bool
	inPlace bool // the blocks are read in place (no buffers needed)
	eof     bool
	readErr error
	abandon atomic.Bool
	// bufHint and lineHint are the capacities the last chunk's buffer and
	// line slices reached.
	bufHint, lineHint int
	// bufs are the buffers of block chunks handed out (read with Block,
	// not in place), for the next blocks: no value points into them (the
	// batch copies its bytes, the tape its strings: Tape.Owned is false).
	bufs [][]byte
	nums jsonlines.Lines // the block chunks handed out (see batchChunk)
}

// parallel reports whether ReadBatch decodes the file in chunks.
func (rd *reader) parallel() bool {
	if !rd.parDecided {
		rd.parDecided = true
		n := rd.parWorkers
		if n == 0 {
			n = rd.opts.Workers
		}
		if n == 0 {
			n = runtime.GOMAXPROCS(0)
		}
		if n > 1 && !rd.lr.Whole {
			rd.par = &parBatch{rd: rd, workers: n, chunk: jsoninfer.ChunkBytes}
			if rd.parChunk > 0 {
				rd.par.chunk = rd.parChunk
			}
		}
	}
	return rd.par != nil
}

// fill reads the next chunk of lines; nil at the end of the file.
func (p *parBatch) fill() *batchChunk {
	rd := p.rd
	if rd.lr.Blocks() {
		return p.fillBlock()
	}
	var c *batchChunk
	for !p.eof {
		line, err := rd.lr.Next()
		if errors.Is(err, io.EOF) {
			p.eof = true
			break
		}
		if err != nil {
			p.eof, p.readErr = true, fmt.Errorf("jsonfmt: read %s: %w", rd.file, err)
			break
		}
		if jsonlines.IsBlank(line) {
			continue
		}
		if c == nil {
			// A fresh buffer per chunk.
			// The first grows from a few KiB: a small file does not pay
			// for a chunk; the next ones start at the size the previous
			// one reached (no copies while they grow).
			c = &batchChunk{buf: make([]byte, 0, max(min(p.chunk+p.chunk/4, max(4<<10, p.bufHint)), len(line))),
				ends: make([]int, 0, p.lineHint), lines: make([]int64, 0, p.lineHint)}
		}
		if cap(c.buf)-len(c.buf) < len(line) && cap(c.buf) >= 16<<10 {
			// Past 16 KiB the file is not small: grow to a whole chunk
			// at once rather than by doubling.
			c.buf = slices.Grow(c.buf, max(p.chunk+p.chunk/4, len(c.buf)+len(line))-len(c.buf))
		}
		c.buf = append(c.buf, line...)
		c.ends = append(c.ends, len(c.buf))
		c.lines = append(c.lines, rd.lr.Line())
		if len(c.buf) >= p.chunk {
			break
		}
	}
	if c != nil {
		p.bufHint, p.lineHint = cap(c.buf), cap(c.ends)
	}
	return c
}

// fillBlock reads the next chunk as a block of lines, in place from a
// mapped file or straight from the file into the chunk's buffer: the
// workers split the lines. The buffer is a fresh one, sized as fill sizes
// it.
func (p *parBatch) fillBlock() *batchChunk {
	rd := p.rd
	var buf []byte
	p.nums.Start(rd.lr)
	if n := len(p.bufs); n > 0 && !p.inPlace {
		buf, p.bufs = p.bufs[n-1], p.bufs[:n-1]
	} else if !p.inPlace {
		buf = make([]byte, 0, min(p.chunk+p.chunk/4, max(4<<10, p.bufHint)))
	}
	b, _, release, err := rd.lr.BlockShared(buf, p.chunk)
	p.inPlace = release != nil
	if errors.Is(err, io.EOF) {
		p.eof = true
		return nil
	}
	if err != nil {
		p.eof, p.readErr = true, fmt.Errorf("jsonfmt: read %s: %w", rd.file, err)
		return nil
	}
	p.eof = rd.lr.Exhausted()
	if release == nil {
		p.bufHint = cap(b)
	}
	return &batchChunk{buf: b, block: true, rel: true, size: int64(len(b)), release: release}
}

// unmap gives back the mapped window c's block was read from, if any.
func (c *batchChunk) unmap() {
	if c.release != nil {
		c.release()
		c.release, c.buf = nil, nil
	}
}

// batch returns an empty batch for a chunk.
func (p *parBatch) batch() (*parquetio.ColumnBatch, error) {
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		return b, nil
	}
	return parquetio.NewColumnBatch(p.rd.schema)
}

// readPar is ReadBatch's parallel read: it hands out the next chunk's rows.
func (rd *reader) readPar(b *parquetio.ColumnBatch) error {
	p := rd.par
	if rd.done {
		return io.EOF
	}
	for !p.eof && len(p.queue) < parAhead*p.workers {
		if err := rd.ctx.Err(); err != nil {
			return err
		}
		c := p.fill()
		if c == nil {
			break
		}
		if !p.started && p.eof && len(p.queue) == 0 {
			// The whole file is one chunk: decode it here, into b.
			c.b = b
			c.first, c.rel = p.nums.Line(), false
			rd.decodeChunk(c)
			c.unmap()
			return p.last(p.hand(c, nil))
		}
		var err error
		if c.b, err = p.batch(); err != nil {
			c.unmap()
			return err
		}
		n := len(c.ends)
		if c.block {
			n = p.nums.Guess(c.buf)
		}
		c.b.Grow(n) // a fresh batch does not grow step by step

		p.send(c)
	}
	if len(p.queue) == 0 {
		if p.readErr != nil {
			return p.readErr
		}
		rd.done = true
		return io.EOF
	}
	c := p.queue[0]
	p.queue[0] = nil
	p.queue = p.queue[1:]
	<-c.done
	p.number(c)
	err := p.hand(c, b)
	if c.block && c.release == nil && cap(c.buf) <= 2*p.chunk {
		p.bufs = append(p.bufs, c.buf[:0])
	}
	c.buf = nil
	return p.last(err)
}

// number numbers block chunk c's lines, handed out next, now that the
// lines before it are known: its bad records', or, when it failed on a
// line (lineErr), its error, decoding it again. What a worker records with
// rd.lineNo must be a bad record or end the read.
func (p *parBatch) number(c *batchChunk) {
	if !c.block {
		return
	}
	c.first, c.rel = p.nums.Next(c.size, c.n), false
	if c.lineErr {
		c.err, c.bad, c.lineErr = nil, nil, false
		c.b.Reset()
		p.rd.decodeChunk(c)
	} else {
		for i := range c.bad {
			c.bad[i].Line += c.first
		}
	}
	c.unmap()
}

// last turns a successful hand-over of the file's last rows into io.EOF
// (with the rows), saving the caller another call and batch.
func (p *parBatch) last(err error) error {
	if err == nil && p.eof && len(p.queue) == 0 && p.readErr == nil {
		p.rd.done = true
		return io.EOF
	}
	return err
}

// hand moves chunk c's rows into b (nil: they are there) and merges its statistics and bad
// records; c's error (FAILFAST) ends the read. A b that already holds rows
// (ReadBatch appends) gets a copy of c's rows after them.
func (p *parBatch) hand(c *batchChunk, b *parquetio.ColumnBatch) error {
	rd := p.rd
	if b != nil {
		var err error
		if b.Rows() == 0 {
			b.Swap(c.b)
		} else {
			err = b.Append(c.b)
		}
		c.b.Reset()
		p.free = append(p.free, c.b)
		if err != nil {
			p.stop()
			p.eof, p.queue = true, nil
			rd.done = true
			return fmt.Errorf("jsonfmt: %s: %w", rd.file, err)
		}
	}
	rd.stats.Merge(c.stats, rd.seenU, rd.seenM)
	for _, br := range c.bad {
		rd.badHook(br)
	}
	if c.err != nil {
		p.stop()
		p.eof, p.queue = true, nil
		rd.done = true
		return c.err
	}
	return nil
}

// send hands c to the workers.
func (p *parBatch) send(c *batchChunk) {
	if !p.started {
		p.started = true
		p.work = make(chan *batchChunk, parAhead*p.workers)
		for range p.workers {
			p.wg.Add(1)
			go p.worker()
		}
	}
	c.done = make(chan struct{})
	p.queue = append(p.queue, c)
	p.work <- c
}

// stop ends the workers; chunks in flight are dropped.
func (p *parBatch) stop() {
	if !p.started {
		return
	}
	p.started = false
	p.abandon.Store(true)
	close(p.work)
	p.wg.Wait()
	for _, c := range p.queue {
		c.unmap() // kept by a worker for number
	}
}

// worker decodes chunks with a reader of its own.
func (p *parBatch) worker() {
	defer p.wg.Done()
	var w *reader
	defer func() {
		if w != nil {
			w.Close()
		}
	}()
	for c := range p.work {
		if !p.abandon.Load() {
			if w == nil {
				var err error
				opts := p.rd.opts
				opts.Reuse = nil // the file's reader's alone
				if w, err = open(p.rd.ctx, bytes.NewReader(nil), p.rd.schema, opts); err == nil {
					w.noFast = p.rd.noFast
				}
				if err == nil && !w.BatchReadable() {
					err = errors.New("jsonfmt: schema not readable into column batches")
				}
				if err != nil {
					w = nil
					c.err = err
					c.unmap()
					close(c.done)
					continue
				}
			}
			w.decodeChunk(c)
		}
		if !c.lineErr {
			c.unmap() // else number decodes it again
		}
		close(c.done)
	}
}

// decodeChunk decodes c's lines into c.b, with rd's statistics and bad
// records collected into c.
func (rd *reader) decodeChunk(c *batchChunk) {
	if err := rd.bindTo(c.b.Root()); err != nil {
		c.err = err
		return
	}
	hook := rd.badHook
	if hook != nil {
		rd.badHook = func(br fileformat.BadRecord) { c.bad = append(c.bad, br) }
	}
	saved, savedU, savedM := rd.stats, rd.seenU, rd.seenM
	rd.stats, rd.seenU, rd.seenM = fileformat.ReadStats{}, map[string]bool{}, map[string]bool{}
	// No decoded string points into the chunk: its buffer is reused
	// (block chunks) or a mapped window, unmapped once decoded.
	rd.tape.Owned = false
	if c.block {
		no, cut := c.first, jsonlines.Cutter(c.buf)
		for rest := c.buf; len(rest) > 0; {
			var line []byte
			line, rest = cut(rest)
			no++
			if jsonlines.IsBlank(line) {
				continue
			}
			rd.lineNo = no
			if err := rd.batchLine(line[:len(line):len(line)], c.b); err != nil {
				c.err, c.lineErr = err, c.rel
				no += jsonlines.CountLines(rest)
				break
			}
		}
		c.n = no - c.first
	}
	start := 0
	for i, end := range c.ends {
		rd.lineNo = c.lines[i]
		if err := rd.batchLine(c.buf[start:end:end], c.b); err != nil {
			c.err = err
			break
		}
		start = end
	}
	rd.tape.B = nil
	c.stats = rd.stats
	rd.stats, rd.seenU, rd.seenM, rd.badHook = saved, savedU, savedM, hook
}
