package convert

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/trace"
	"slices"

	"github.com/google/uuid"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/ingest/hivepart"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// defaultTargetFileRows is the rows of a data file when TargetFileRows is 0.
const defaultTargetFileRows = 1_000_000

// chunkRows is how many decoded rows are handed to the encoder at once.
const chunkRows = 512

// maxOpenPartitions bounds the Parquet files a batch writes at once (each
// buffers a row group): past it, every open file is finished and new ones
// start, so memory stays bounded however many partitions a batch touches.
const maxOpenPartitions = 32

// fileWriter rolls Parquet output files into the table directory, one open
// file per partition directory.
type fileWriter struct {
	c       *Converter
	sch     *schema.StructType // the data schema (no partition columns)
	batch   int64
	parts   map[string]*partFile
	adds    []delta.Add
	seq     int
	written []string // table keys uploaded by this attempt
	// stats holds the statistics options of the table (NumIndexedCols,
	// NoStats, StatsColumns).
	stats parquetio.WriterOptions
	by    *hivepart.By // the sink's partitionBy (nil: none)
	// gathered holds small column batches not written yet, of partition
	// gatheredPart (writeBatch).
	gathered     *parquetio.ColumnBatch
	gatheredPart hivepart.Partition
}

// partFile is the Parquet file being written for one partition: in place
// in the table when its store is an objstore.Creator (a local directory:
// committing the file renames it), else to a temporary file that close
// uploads with Put (S3).
type partFile struct {
	part hivepart.Partition
	key  string                 // the data file's table key
	obj  objstore.PendingObject // the file in the table (Creator), or nil
	tmp  *os.File               // the temporary file (no Creator), or nil
	out  *countWriter           // obj or tmp, counting the bytes written
	pw   *parquetio.Writer
	rows int
}

// countWriter counts the bytes written through it (a data file's size).
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// discard drops the file being written (on error paths).
func (pf *partFile) discard() {
	if pf.obj != nil {
		pf.obj.Abort()
	}
	if pf.tmp != nil {
		pf.tmp.Close()
		os.Remove(pf.tmp.Name())
	}
}

func (fw *fileWriter) target() int {
	if fw.c.TargetFileRows > 0 {
		return fw.c.TargetFileRows
	}
	return defaultTargetFileRows
}

func (fw *fileWriter) write(ctx context.Context, part hivepart.Partition, rows [][]any) error {
	if err := fw.flushGathered(ctx); err != nil {
		return err
	}
	if fw.by != nil {
		return fw.writeSplit(ctx, part, rows)
	}
	return fw.writeRows(ctx, part, rows)
}

// writeRows writes rows of one partition.
func (fw *fileWriter) writeRows(ctx context.Context, part hivepart.Partition, rows [][]any) error {
	for len(rows) > 0 {
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
		n := min(len(rows), fw.target()-pf.rows)
		if err := pf.pw.Write(rows[:n]); err != nil {
			return fmt.Errorf("writing Parquet: %w", err)
		}
		pf.rows += n
		rows = rows[n:]
		if pf.rows >= fw.target() {
			if err := fw.close(ctx, pf); err != nil {
				return err
			}
		}
	}
	return nil
}

func (fw *fileWriter) open(ctx context.Context, part hivepart.Partition) (*partFile, error) {
	key := fmt.Sprintf("%spart-%05d-%s-c000%s.parquet", part.Dir, fw.seq, uuid.NewString(), parquetio.CodecInfix(fw.c.Codec))
	fw.seq++
	pf := &partFile{part: part, key: key}
	if cr, ok := fw.c.Table.(objstore.Creator); ok {
		obj, err := cr.Create(ctx, key)
		if err != nil {
			return nil, fmt.Errorf("creating data file %s: %w", key, err)
		}
		pf.obj, pf.out = obj, &countWriter{w: obj}
	} else {
		tmp, err := os.CreateTemp(fw.c.Source.TempDir, "tributary-*.parquet")
		if err != nil {
			return nil, fmt.Errorf("creating temporary Parquet file: %w", err)
		}
		pf.tmp, pf.out = tmp, &countWriter{w: tmp}
	}
	pw, err := parquetio.NewWriter(pf.out, fw.sch, parquetio.WriterOptions{TempDir: fw.c.Source.TempDir, Compression: fw.c.Codec,
		NumIndexedCols: fw.stats.NumIndexedCols, NoStats: fw.stats.NoStats, StatsColumns: fw.stats.StatsColumns})
	if err != nil {
		pf.discard()
		return nil, fmt.Errorf("creating Parquet writer: %w", err)
	}
	pf.pw = pw
	return pf, nil
}

// close finishes one partition's file and publishes it under its
// attempt-unique name: commits it in place, or uploads the temporary file.
// The two steps are trace regions (convert.closeFile: the last row group
// encoded and copied out; convert.publishFile: the sync and rename, or the
// upload).
func (fw *fileWriter) close(ctx context.Context, pf *partFile) error {
	delete(fw.parts, pf.part.Dir)
	defer pf.discard() // after a Commit, Abort does nothing
	region := trace.StartRegion(ctx, "convert.closeFile")
	stats, err := pf.pw.Close()
	region.End()
	if err != nil {
		return fmt.Errorf("finishing Parquet file: %w", err)
	}
	size, key := pf.out.n, pf.key
	region = trace.StartRegion(ctx, "convert.publishFile")
	err = fw.publish(ctx, pf)
	region.End()
	if err != nil {
		return err
	}
	fw.written = append(fw.written, key)
	// tightBounds is only meaningful with deletion vectors; Spark leaves
	// it out of plain appends, and so do we.
	stats.TightBounds = false
	statsJSON, err := stats.JSON()
	if err != nil {
		return err
	}
	fw.adds = append(fw.adds, delta.Add{
		Path:             delta.EncodePath(key),
		PartitionValues:  pf.part.Values,
		Size:             size,
		ModificationTime: fw.c.now().UnixMilli(),
		DataChange:       true,
		Stats:            statsJSON,
	})
	return nil
}

// publish makes the closed file the data file at its key: commits it in
// place, or uploads the temporary file.
func (fw *fileWriter) publish(ctx context.Context, pf *partFile) error {
	if pf.obj != nil {
		if err := pf.obj.Commit(ctx); err != nil {
			return fmt.Errorf("committing data file %s: %w", pf.key, err)
		}
		return nil
	}
	if _, err := pf.tmp.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewinding data file %s: %w", pf.key, err)
	}
	if err := fw.c.Table.Put(ctx, pf.key, pf.tmp); err != nil {
		return fmt.Errorf("uploading data file %s: %w", pf.key, err)
	}
	return nil
}

// closeAll finishes every open file, in a stable order.
func (fw *fileWriter) closeAll(ctx context.Context) error {
	dirs := make([]string, 0, len(fw.parts))
	for d := range fw.parts {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	for _, d := range dirs {
		if err := fw.close(ctx, fw.parts[d]); err != nil {
			return err
		}
	}
	return nil
}

func (fw *fileWriter) finish(ctx context.Context) ([]delta.Add, error) {
	if err := fw.flushGathered(ctx); err != nil {
		return nil, err
	}
	if err := fw.closeAll(ctx); err != nil {
		return nil, err
	}
	return fw.adds, nil
}

// abort drops the files still being written (on error paths).
func (fw *fileWriter) abort() {
	for d, pf := range fw.parts {
		pf.discard()
		delete(fw.parts, d)
	}
}

// discardAll removes the data files this attempt uploaded (best effort:
// leftovers are orphans that VACUUM removes).
func (fw *fileWriter) discardAll(ctx context.Context) {
	fw.abort()
	for _, k := range fw.written {
		if err := fw.c.Table.Delete(ctx, k); err != nil {
			fw.c.log().Warn("could not remove orphan data file", "file", k, "error", err.Error())
		}
	}
	fw.written, fw.adds = nil, nil
}

// writeSplit writes rows of one source partition into the partitions
// their values choose (partitionBy).
func (fw *fileWriter) writeSplit(ctx context.Context, base hivepart.Partition, rows [][]any) error {
	parts, groups := fw.by.Split(base, rows)
	for i := range parts {
		if err := fw.writeRows(ctx, parts[i], groups[i]); err != nil {
			return err
		}
	}
	return nil
}
