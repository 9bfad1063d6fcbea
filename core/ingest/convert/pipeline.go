package convert

import (
	"context"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/hivepart"
	"io"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/objstore/prefetch"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// pipeline decodes a batch's files in order, each in a goroutine that
// hands chunks of rows to the encoder (copyNext); a file's decoder starts
// the next file's once it has decoded its last row, so that decoding never
// waits for the encoder to finish a file (small files keep both cores
// busy). One aheadGate bounds the decoded rows not yet written across all
// files, so memory stays what one file's pipeline took.
type pipeline struct {
	c      *Converter
	ctx    context.Context
	cancel context.CancelFunc
	bad    *BadSink
	sch    *schema.StructType
	files  []string
	ahead  *aheadGate
	rescue int          // index of the rescued data column, -1 if none
	widens bool         // values that do not fit their type may widen it (addNewColumnsWithTypeWidening)
	next   chan *decode // the decode of the next file to copy
	// columnar: files whose reader decodes into column batches are read
	// so (colpipe.go); free holds written batches for reuse.
	columnar bool
	free     chan *parquetio.ColumnBatch
	taken    int               // decodes received from next
	src      Source            // c.Source reading through fetch
	fetch    *prefetch.Fetcher // the files, opened ahead of the decoders
}

// decode is one file being decoded.
type decode struct {
	path    string
	part    hivepart.Partition
	err     error // opening failed (no goroutine runs)
	r       io.Closer
	rr      formats.RowReader
	chunks  chan chunk
	decoded chan error    // the decoder's result, once it has sent every chunk
	ended   chan struct{} // closed when the decoder goroutine has returned
	rows    int64         // rows decoded (read after decoded)
	rescued int64
}

// chunk is a run of decoded rows handed to the encoder: rows, or a
// column batch.
type chunk struct {
	rows  [][]any
	batch *parquetio.ColumnBatch
	bytes int64
}

// startPipeline starts decoding files[0].
func (c *Converter) startPipeline(ctx context.Context, bad *BadSink, sch *schema.StructType, files []string, columnar bool) *pipeline {
	ctx, cancel := context.WithCancel(ctx)
	pl := &pipeline{columnar: columnar, free: make(chan *parquetio.ColumnBatch, 8), c: c, ctx: ctx, cancel: cancel, bad: bad, sch: sch, files: files, ahead: newAheadGate(),
		rescue: -1, next: make(chan *decode, 1), widens: c.Widens, src: c.Source}
	// The files are opened ahead of the decoders (a small file is a
	// round trip to the store otherwise).
	pl.fetch = prefetch.New(ctx, c.Source.Store, prefetch.Keys(files), prefetch.Options{})
	pl.src.Store = pl.fetch.Store(c.Source.Store)
	if c.Rescued != "" {
		pl.rescue = sch.FieldIndex(c.Rescued)
	}
	if len(files) > 0 {
		go pl.start(0) // not in the caller: start may block handing over a decode
	}
	return pl
}

// start opens files[i] and starts its decoder; the decode is sent on
// pl.next. When the decoder has ended (decoded the file, failed, or was
// cancelled) it starts files[i+1], so that every file's decode is sent on
// pl.next exactly once and in order; once pl.ctx is cancelled the rest are
// sent without opening their files.
func (pl *pipeline) start(i int) {
	path := pl.files[i]
	d := &decode{path: path, chunks: make(chan chunk, 4), decoded: make(chan error, 1), ended: make(chan struct{})}
	then := func() {
		if i+1 < len(pl.files) {
			pl.start(i + 1)
		}
	}
	if err := pl.ctx.Err(); err != nil {
		d.err = err
	} else if d.part, d.err = pl.c.Partitions.Of(path); d.err != nil {
		d.err = &FileError{Path: path, Fault: FaultUnusable, Err: d.err}
	} else if ra, ok := pl.c.Source.RandomAccess(); ok {
		if sf, err := pl.src.OpenFile(pl.ctx, path); err != nil {
			d.err = err
		} else {
			d.r = sf
			if d.rr, err = ra.OpenFile(pl.ctx, sf, pl.sch, pl.c.ReadOptions(path, pl.bad.hook(path))); err != nil {
				sf.Close()
				d.r, d.err = nil, fmt.Errorf("opening input file %s: %w", path, err)
			}
		}
	} else if r, err := pl.src.Open(pl.ctx, path); err != nil {
		d.err = err
	} else {
		d.r = r
		if opts, err := pl.c.Source.withModTime(pl.ctx, path, pl.c.ReadOptions(path, pl.bad.hook(path))); err != nil {
			r.Close()
			d.r, d.err = nil, err
		} else if d.rr, err = pl.c.Source.Format.Open(pl.ctx, r, pl.sch, opts); err != nil {
			r.Close()
			d.r, d.err = nil, fmt.Errorf("opening input file %s: %w", path, err)
		}
	}
	if d.err != nil {
		close(d.chunks)
		close(d.ended)
		pl.next <- d
		then()
		return
	}
	pl.next <- d
	go pl.run(d, then)
}

// run decodes d into chunks, then calls then.
func (pl *pipeline) run(d *decode, then func()) {
	defer then()
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
		close(d.chunks)
		d.decoded <- err
	}
	for {
		if err := pl.ahead.wait(ctx); err != nil {
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
	d := <-pl.next
	pl.taken++
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
	derr := <-d.decoded
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
		return 0, 0, &FileError{Path: d.path, Fault: FaultCorrupt, Rows: d.rows, Rescued: d.rescued, Unknown: d.rr.Stats().UnknownFields, Err: derr}
	}
	if st := d.rr.Stats(); evolve && (len(st.UnknownFields) > 0 || pl.widens && len(st.MismatchedFields) > 0) {
		return 0, 0, &NewColumns{File: d.path, Paths: st.UnknownFields, Mismatched: st.MismatchedFields}
	}
	return d.rows, d.rescued, nil
}

// close waits for d's decoder and closes its reader and source.
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
	for ; pl.taken < len(pl.files); pl.taken++ {
		d := <-pl.next
		for c := range d.chunks {
			pl.ahead.done(c.bytes)
		}
		pl.close(d)
	}
	pl.fetch.Close()
}
