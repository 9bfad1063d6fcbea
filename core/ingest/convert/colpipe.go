package convert

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tributary-io/tributary/core/ingest/hivepart"
	"github.com/tributary-io/tributary/core/parquetio"
)

// The columnar pipeline: a file whose reader decodes straight into
// parquetio.ColumnBatch (parquetio.BatchReader, decided once per file by
// BatchReadable) is handed to the encoder as column batches instead of
// [][]any rows, when the sink does not split rows by partitionBy values.
// Batches go back to pl.free once written, so a file reuses a few.

// batchReader returns d's reader as a BatchReader when d is read in
// column batches.
func (pl *pipeline) batchReader(d *decode) (parquetio.BatchReader, bool) {
	if !pl.columnar {
		return nil, false
	}
	br, ok := d.rr.(parquetio.BatchReader)
	if !ok || !br.BatchReadable() {
		return nil, false
	}
	return br, true
}

// newBatch takes a free batch or makes one.
func (pl *pipeline) newBatch() (*parquetio.ColumnBatch, error) {
	select {
	case b := <-pl.free:
		return b, nil
	default:
	}
	return parquetio.NewColumnBatch(pl.sch)
}

// freeBatch returns a written batch for reuse.
func (pl *pipeline) freeBatch(b *parquetio.ColumnBatch) {
	b.Reset()
	select {
	case pl.free <- b:
	default:
	}
}

// runBatches is run for a file read in column batches.
func (pl *pipeline) runBatches(d *decode, br parquetio.BatchReader) {
	ctx := pl.ctx
	finish := func(err error) {
		d.derr = err
		pl.release(d)
		close(d.chunks)
	}
	send := func(b *parquetio.ColumnBatch) bool {
		d.rows += int64(b.Rows())
		d.rescued += b.Rescued
		n := b.Bytes()
		pl.ahead.add(n)
		select {
		case d.chunks <- chunk{batch: b, bytes: n}:
			return true
		case <-ctx.Done():
			pl.ahead.done(n)
			return false
		}
	}
	for {
		if err := pl.wait(d); err != nil {
			finish(err)
			return
		}
		b, err := pl.newBatch()
		if err != nil {
			finish(err)
			return
		}
		rerr := br.ReadBatch(b, chunkRows, chunkBytes)
		if b.Rows() == 0 {
			pl.freeBatch(b)
		} else if !send(b) {
			finish(ctx.Err())
			return
		}
		if errors.Is(rerr, io.EOF) {
			finish(nil)
			return
		}
		if rerr != nil {
			// The rows read before the failure were sent.
			finish(rerr)
			return
		}
	}
}

// gatherRows: a column batch of fewer rows is gathered before it is
// written (writeBatch). A batch of the parallel JSON reader (a chunk of
// 128 KiB of lines: a few hundred rows) is written as it comes: gathering
// copied every one of them (one 100 MB file at 2 threads: +18 % CPU).
const gatherRows = 64

// writeBatch writes a column batch of one partition. A batch of fewer
// than gatherRows rows (a small file's, or a file's last) is gathered with
// the small batches that follow it in the same partition, up to chunkRows
// rows or chunkBytes: a write of a few rows costs about what a write of
// hundreds does (every leaf column's writer is called), and a gathered
// write is large enough to be encoded on several goroutines. The rows
// reach the file in the same order either way; anything else written
// (a large batch, rows, another partition, the end) writes the gathered
// rows first.
func (fw *fileWriter) writeBatch(ctx context.Context, part hivepart.Partition, b *parquetio.ColumnBatch) error {
	if b.Rows() >= gatherRows || b.Bytes() >= chunkBytes {
		if err := fw.flushGathered(ctx); err != nil {
			return err
		}
		return fw.writeBatchNow(ctx, part, b)
	}
	if fw.gathered != nil && fw.gathered.Rows() > 0 && fw.gatheredPart.Dir != part.Dir {
		if err := fw.flushGathered(ctx); err != nil {
			return err
		}
	}
	if fw.gathered == nil {
		g, err := parquetio.NewColumnBatch(fw.sch)
		if err != nil {
			return err
		}
		fw.gathered = g
	}
	if err := fw.gathered.Append(b); err != nil {
		return fmt.Errorf("writing Parquet: %w", err)
	}
	fw.gatheredPart = part
	if fw.gathered.Rows() >= chunkRows || fw.gathered.Bytes() >= chunkBytes {
		return fw.flushGathered(ctx)
	}
	return nil
}

// flushGathered writes the gathered small batches.
func (fw *fileWriter) flushGathered(ctx context.Context) error {
	if fw.gathered == nil || fw.gathered.Rows() == 0 {
		return nil
	}
	err := fw.writeBatchNow(ctx, fw.gatheredPart, fw.gathered)
	fw.gathered.Reset()
	return err
}

// writeBatchNow writes a column batch of one partition, rolling files at
// the target row count as writeRows does.
func (fw *fileWriter) writeBatchNow(ctx context.Context, part hivepart.Partition, b *parquetio.ColumnBatch) error {
	for from := 0; from < b.Rows(); {
		pf := fw.parts[part.Dir]
		if pf == nil {
			if len(fw.parts) >= maxOpenPartitions {
				if err := fw.closeAll(ctx); err != nil {
					return err
				}
			}
			var err error
			if pf, err = fw.open(ctx, part); err != nil {
				return err
			}
			fw.parts[part.Dir] = pf
		}
		n := min(b.Rows()-from, fw.target()-pf.rows)
		if err := pf.pw.WriteBatch(b, from, from+n); err != nil {
			return fmt.Errorf("writing Parquet: %w", err)
		}
		pf.rows += n
		from += n
		if pf.rows >= fw.target() {
			if err := fw.close(ctx, pf); err != nil {
				return err
			}
		}
	}
	return nil
}
