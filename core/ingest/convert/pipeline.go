package convert

import (
	"context"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/hivepart"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/objstore/prefetch"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// pipeline decodes a batch's files in order on a few long-lived decoder
// goroutines that hand chunks of rows to the encoder (copyNext), which
// takes the files in order. With one decoder (one CPU, a batch of one
// file, or badRecordsPath, whose exception files list bad records in file
// order) a file's decoding starts once the previous file is decoded, so
// decoding never waits for the encoder to finish a file; with more, up to
// that many files are decoded at once, each on one goroutine (the readers
// then decode a file serially: the files are the parallelism). No goroutine
// is started per file. One aheadGate bounds the decoded rows not yet
// written across all files, so memory stays what one file's pipeline took;
// the decoder of the file the encoder is taking is exempt from it (its
// chunk channel bounds it), so it never waits for the files after it.
type pipeline struct {
	c      *Converter
	ctx    context.Context
	cancel context.CancelFunc
	bad    *BadSink
	sch    *schema.StructType
	files  []string
	ahead  *aheadGate
	rescue int  // index of the rescued data column, -1 if none
	widens bool // values that do not fit their type may widen it (addNewColumnsWithTypeWidening)
	// columnar: files whose reader decodes into column batches are read
	// so (colpipe.go); free holds written batches for reuse.
	columnar bool
	free     chan *parquetio.ColumnBatch
	src      Source            // c.Source reading through fetch
	fetch    *prefetch.Fetcher // the files, opened ahead of the decoders
	serial   bool              // the readers decode a file on one goroutine (several decoders)
	reuse    formats.Reuse     // what closed readers leave to the next ones (a compiled plan)

	// The decoders take files in order (claimed, under mu), opening them
	// under openMu until a local file is seen (so the Fetcher sees them
	// taken in order), and publish each file's decode in slots.
	openMu  sync.Mutex
	claimed int // files taken by a decoder (under mu)
	// local is set once a file opened is a local one (Source.open): the
	// Fetcher then reads directly, and the decoders open their files
	// outside openMu.
	local    atomic.Bool
	sizes    []int64 // the files' listed sizes (nil: unknown)
	decoders int
	workers  sync.WaitGroup

	mu      sync.Mutex
	ready   *sync.Cond // signalled when a slot is filled (the encoder waits)
	room    *sync.Cond // broadcast when the encoder takes a file (decoders wait)
	slots   []*decode  // by file index, set once opened (or failed)
	taken   int        // decodes taken by copyNext (or stop)
	copying atomic.Int64
}

// decode is one file being decoded.
type decode struct {
	i       int
	path    string
	part    hivepart.Partition
	err     error // opening failed (not decoded)
	r       io.Closer
	sf      *File         // r, when the format reads at random offsets
	rc      io.ReadCloser // r, when the format reads a stream
	rr      formats.RowReader
	stats   formats.ReadStats // rr's, once decoded (release)
	chunks  chan chunk        // closed once the decoder has sent every chunk
	derr    error             // the decoder's result (read after chunks is closed)
	ended   chan struct{}     // closed when the decoder is done with the file
	rows    int64             // rows decoded (read after chunks is closed)
	rescued int64
}

// chunk is a run of decoded rows handed to the encoder: rows, or a
// column batch.
type chunk struct {
	rows  [][]any
	batch *parquetio.ColumnBatch
	bytes int64
}

// maxDecoders bounds the decoder goroutines of a pipeline.
const maxDecoders = 4

// filesAhead bounds the files each decoder may take past the file the
// encoder takes; past the first, only while the decoded rows waiting for
// the encoder hold less than filesAheadBytes (small files: larger ones
// keep one file per decoder, and their memory). A small file is decoded
// in less time than a hand-off between goroutines takes: with one file
// per decoder the decoders waited for the encoder after every file, and
// every file cost futex wake-ups both ways. A decoder closes a file's
// reader and source as soon as it is decoded (release), so the files open
// at once are the decoders' (within what a formats.Reuse keeps, 8, so
// that their readers' compiled plans are reused rather than compiled
// again) however many decoded files wait; 16 per decoder (3 before
// readers were released early) keeps the decoders from waiting for the
// encoder after every few files.
const (
	filesAhead      = 16
	filesAheadBytes = 1 << 20
)

// Chunks a decoder hands over before the encoder takes them (a file's
// chunk channel). With several decoders, a decoder ahead of the encoder
// decodes a file of up to chunksAhead chunks (of chunkRows rows: a 1 MB
// CSV file of the benchmark's 16 columns is about 6) to its end, instead
// of stopping at the channel while the encoder waits for the file before
// it, which left only that file's decoder running: with 4, 100 CSV files
// of 1 MB at two threads left a processor idle for a tenth of the write
// (cmd/traceidle) and took 6–8 % longer. One decoder (one thread, or one
// file) is never ahead of the encoder: it keeps chunksNear, as the
// decoder of the file the encoder takes, exempt from the aheadGate, is
// bounded by its channel (8 held the chunks longer before they were
// encoded: one thread +1 % CPU, one big JSON file +7 MB of peak RSS).
const (
	chunksAhead = 8
	chunksNear  = 4
)

// chunkCap is a file's chunk channel's capacity: chunksAhead with several
// decoders, chunksNear with one.
func (pl *pipeline) chunkCap() int {
	if pl.decoders > 1 {
		return chunksAhead
	}
	return chunksNear
}

// startPipeline starts decoding files.
func (c *Converter) startPipeline(ctx context.Context, bad *BadSink, sch *schema.StructType, files []string, sizes []int64, columnar bool, lane bool) *pipeline {
	ctx, cancel := context.WithCancel(ctx)
	pl := &pipeline{columnar: columnar, free: make(chan *parquetio.ColumnBatch, maxDecoders*filesAhead+4), c: c, ctx: ctx, cancel: cancel, bad: bad, sch: sch, files: files, ahead: newAheadGate(),
		rescue: -1, widens: c.Widens, src: c.Source, slots: make([]*decode, len(files))}
	if len(sizes) == len(files) {
		pl.sizes = sizes
	}
	pl.ready = sync.NewCond(&pl.mu)
	pl.room = sync.NewCond(&pl.mu)
	// The files are opened ahead of the decoders (a small file is a
	// round trip to the store otherwise).
	pl.fetch = prefetch.New(ctx, c.Source.Store, prefetch.Keys(files), prefetch.Options{})
	pl.src.Store = pl.fetch.Store(c.Source.Store)
	if c.Rescued != "" {
		pl.rescue = sch.FieldIndex(c.Rescued)
	}
	decoders := 1
	if bad == nil && !lane {
		decoders = min(runtime.GOMAXPROCS(0), len(files), maxDecoders)
	}
	pl.decoders = max(decoders, 1)
	pl.serial = pl.decoders > 1 || lane
	for range pl.decoders {
		pl.workers.Add(1)
		go pl.decoder()
	}
	return pl
}

// decoder takes the next file (at most pl.decoders past the encoder's),
// opens it, publishes its decode and decodes it, until no file is left. Once pl.ctx is cancelled the files left are
// published failed, without opening them, so that every file's slot is
// filled exactly once.
func (pl *pipeline) decoder() {
	defer pl.workers.Done()
	for {
		d, ok := pl.claim()
		if !ok {
			return
		}
		pl.openReader(d)
		pl.mu.Lock()
		pl.slots[d.i] = d
		pl.ready.Signal() // the encoder (the only one waiting on ready)
		pl.mu.Unlock()
		if d.err == nil {
			pl.run(d)
		}
	}
}

// claim takes the next file, once there is room for it (one file per
// decoder past the one the encoder takes, up to filesAhead while the rows
// waiting for the encoder are few), and opens its source; false when no
// file is left. Until a local file is seen the files are claimed and
// opened under openMu, in order (the Fetcher sees them taken in order);
// then a decoder waits for room holding only mu and opens its file
// outside both, so that the decoders neither queue on openMu behind one
// waiting for room nor open their files one at a time.
func (pl *pipeline) claim() (*decode, bool) {
	local := pl.local.Load()
	if !local {
		pl.openMu.Lock()
		defer pl.openMu.Unlock()
	}
	pl.mu.Lock()
	for pl.claimed < len(pl.files) && !pl.hasRoom(pl.claimed) {
		pl.room.Wait()
	}
	i := pl.claimed
	if i >= len(pl.files) {
		pl.mu.Unlock()
		return nil, false
	}
	pl.claimed++
	pl.mu.Unlock()
	return pl.openSource(i), true
}

// hasRoom reports whether a decoder may take files[i] now (called with mu
// held): one file per decoder past the one the encoder takes, up to
// filesAhead while the rows waiting for the encoder are few.
func (pl *pipeline) hasRoom(i int) bool {
	return i < pl.taken+pl.decoders || i < pl.taken+pl.decoders*filesAhead && pl.ahead.below(filesAheadBytes)
}

// openSource opens files[i]'s source (under openMu: the Fetcher sees the
// files taken in order; local files, once one is seen, outside it); a
// failure is the decode's err. openReader then
// opens the format's reader on it, outside openMu, so that the decoders
// open their files' readers at once.
func (pl *pipeline) openSource(i int) *decode {
	path := pl.files[i]
	d := &decode{i: i, path: path, chunks: make(chan chunk, pl.chunkCap()), ended: make(chan struct{})}
	if err := pl.ctx.Err(); err != nil {
		d.err = err
	} else if d.part, d.err = pl.c.Partitions.Of(path); d.err != nil {
		d.err = &FileError{Path: path, Fault: FaultUnusable, Err: d.err}
	} else if _, ok := pl.c.Source.RandomAccess(); ok {
		if sf, err := pl.src.OpenFile(pl.ctx, path); err != nil {
			d.err = err
		} else {
			d.r, d.sf = sf, sf
		}
	} else if r, local, err := pl.source().open(pl.ctx, path, pl.size(i)); err != nil {
		d.err = err
	} else {
		d.r, d.rc = r, r
		if local {
			pl.local.Store(true)
		}
	}
	if d.err != nil {
		close(d.chunks)
		close(d.ended)
	}
	return d
}

// openReader opens the format's reader of d's source (opened by
// openSource); a failure is the decode's err.
func (pl *pipeline) openReader(d *decode) {
	if d.err != nil {
		return
	}
	path := d.path
	var err error
	if ra, ok := pl.c.Source.RandomAccess(); ok {
		if d.rr, err = ra.OpenFile(pl.ctx, d.sf, pl.sch, pl.readOptions(path)); err != nil {
			d.err = fmt.Errorf("opening input file %s: %w", path, err)
		}
	} else if opts, oerr := pl.c.Source.withModTime(pl.ctx, path, pl.readOptions(path)); oerr != nil {
		d.err = oerr
	} else if d.rr, err = pl.c.Source.Format.Open(pl.ctx, d.rc, pl.sch, opts); err != nil {
		d.err = fmt.Errorf("opening input file %s: %w", path, err)
	}
	if d.err != nil {
		d.r.Close()
		d.r, d.sf, d.rc, d.rr = nil, nil, nil, nil
		close(d.chunks)
		close(d.ended)
	}
}

// source is where files are opened: through the Fetcher until a local
// file is seen, then directly (the Fetcher would read directly too, after
// a look-up of the key).
func (pl *pipeline) source() Source {
	if pl.local.Load() {
		return pl.c.Source
	}
	return pl.src
}

// size is files[i]'s listed size (-1: unknown).
func (pl *pipeline) size(i int) int64 {
	if i < len(pl.sizes) {
		return pl.sizes[i]
	}
	return -1
}

// readOptions are path's read options.
func (pl *pipeline) readOptions(path string) formats.ReadOptions {
	opts := pl.c.ReadOptions(path, pl.bad.hook(path))
	opts.Reuse = &pl.reuse
	if pl.serial {
		opts.Workers = 1
	}
	return opts
}

// wait blocks d's decoder while the decoded rows waiting for the encoder
// are too many, unless the encoder is taking d.
func (pl *pipeline) wait(d *decode) error {
	return pl.ahead.waitUnless(pl.ctx, func() bool { return pl.copying.Load() >= int64(d.i) })
}

// take returns the decode of the next file, once it is published.
func (pl *pipeline) take() *decode {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for pl.slots[pl.taken] == nil {
		pl.ready.Wait()
	}
	d := pl.slots[pl.taken]
	pl.slots[pl.taken] = nil
	pl.taken++
	pl.room.Broadcast() // a decoder may take one more file
	return d
}

// run decodes d into chunks.
func (pl *pipeline) run(d *decode) {
	defer close(d.ended)
	if br, ok := pl.batchReader(d); ok {
		pl.runBatches(d, br)
		return
	}
	ctx := pl.ctx
	buf := make([][]any, 0, chunkRows)
	var bufBytes int64
	send := func() bool {
		pl.ahead.add(bufBytes)
		select {
		case d.chunks <- chunk{rows: buf, bytes: bufBytes}:
			return true
		case <-ctx.Done():
			pl.ahead.done(bufBytes)
			return false
		}
	}
	finish := func(err error) {
		d.derr = err
		pl.release(d)
		close(d.chunks)
	}
	for {
		if err := pl.wait(d); err != nil {
			finish(err)
			return
		}
		row, err := d.rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// The rows read before the failure are written too.
			if len(buf) > 0 && !send() {
				finish(ctx.Err())
				return
			}
			finish(err)
			return
		}
		if pl.rescue >= 0 && row[pl.rescue] != nil {
			d.rescued++
		}
		d.rows++
		buf = append(buf, row)
		bufBytes += rowBytes(row)
		if len(buf) == chunkRows || bufBytes >= chunkBytes {
			if !send() {
				finish(ctx.Err())
				return
			}
			buf, bufBytes = make([][]any, 0, chunkRows), 0
		}
	}
	if len(buf) > 0 && !send() {
		finish(ctx.Err())
		return
	}
	finish(nil)
}

// copyNext streams the next file's rows into fw and returns the rows (and
// rescued rows) it wrote. A file that cannot be read gives a *fileError
// counting the rows written before the failure: every row the reader
// returned before it, so the cut point depends only on the bytes read.
func (pl *pipeline) copyNext(fw *fileWriter, evolve bool) (rows, rescued int64, err error) {
	d := pl.take()
	pl.copying.Store(int64(d.i))
	pl.ahead.wake()
	defer pl.close(d)
	if d.err != nil {
		return 0, 0, d.err
	}
	var werr error
	for c := range d.chunks {
		if werr == nil {
			if c.batch != nil {
				werr = fw.writeBatch(pl.ctx, d.part, c.batch)
			} else {
				werr = fw.write(pl.ctx, d.part, c.rows)
			}
			if werr != nil {
				pl.cancel() // stop the decoders; drain what this one sent
			}
		}
		if c.batch != nil {
			pl.freeBatch(c.batch)
		}
		pl.ahead.done(c.bytes)
	}
	derr := d.derr
	if werr != nil {
		return 0, 0, werr
	}
	if derr != nil {
		switch {
		case pl.ctx.Err() != nil:
			return 0, 0, pl.ctx.Err()
		case errors.Is(derr, formats.ErrMalformedRecord):
			return 0, 0, fmt.Errorf("mode FAILFAST: %w", derr)
		}
		return 0, 0, &FileError{Path: d.path, Fault: FaultCorrupt, Rows: d.rows, Rescued: d.rescued, Unknown: d.stats.UnknownFields, Err: derr}
	}
	if st := d.stats; evolve && (len(st.UnknownFields) > 0 || pl.widens && len(st.MismatchedFields) > 0) {
		return 0, 0, &NewColumns{File: d.path, Paths: st.UnknownFields, Mismatched: st.MismatchedFields}
	}
	return d.rows, d.rescued, nil
}

// release ends d's read once its decoder is done with it (before it
// closes d.chunks): the reader's statistics are kept in d.stats and the
// reader and its source closed. The files open at once are then the
// ones being decoded, however many wait decoded for the encoder, and a
// closed reader leaves its compiled plan (formats.Reuse) to the next file
// at once. What was decoded does not depend on the reader: a reader's
// rows and batches outlive its later reads (it goes on decoding while the
// encoder writes them) and the buffers it releases at io.EOF.
func (pl *pipeline) release(d *decode) {
	d.stats = d.rr.Stats()
	d.rr.Close()
	if d.r != nil {
		d.r.Close()
	}
	d.rr, d.r, d.sf, d.rc = nil, nil, nil, nil
}

// close waits for d's decoder and closes its reader and source, when the
// decoder has not (a file that failed to open).
func (pl *pipeline) close(d *decode) {
	if d == nil {
		return
	}
	<-d.ended
	if d.rr != nil {
		d.rr.Close()
	}
	if d.r != nil {
		d.r.Close()
	}
}

// stop cancels the decoding still under way (after an error, or when the
// copy loop returned early) and releases every file it opened.
func (pl *pipeline) stop() {
	pl.cancel()
	for pl.taken < len(pl.files) {
		d := pl.take()
		for c := range d.chunks {
			pl.ahead.done(c.bytes)
		}
		pl.close(d)
	}
	pl.workers.Wait()
	pl.fetch.Close()
}
