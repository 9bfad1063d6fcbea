package ingest

import (
	"context"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/hivepart"
	"io"
	"os"
	"slices"

	"github.com/google/uuid"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/tableprops"
	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// output is what the write step produced for one batch.
type output struct {
	schema      *schema.StructType
	schemaNew   bool // the table's schema must be (re)written in this commit
	adds        []delta.Add
	rows        int64
	rescued     int64
	outBytes    int64
	skipped     []skippedFile
	outstanding backlog
}

// skippedPaths returns the set of skipped input files.
func (o *output) skippedPaths() map[string]bool {
	m := make(map[string]bool, len(o.skipped))
	for _, s := range o.skipped {
		m[s.Path] = true
	}
	return m
}

type skippedFile struct {
	Path string
	Err  error
}

// errRetryBatch asks write to drop an attempt's output and write the
// batch again.
var errRetryBatch = errors.New("retry the batch")

const defaultTargetFileRows = 1_000_000

// write converts the plan's files into Parquet data files in the table.
func (e *Engine) write(ctx context.Context, snap *delta.Snapshot, p *Plan) (*output, error) {
	sch, version, isNew, err := e.resolveSchema(ctx, snap, p)
	if err != nil {
		return nil, err
	}
	// The data files' statistics follow the table's properties
	// (delta.dataSkippingNumIndexedCols, delta.dataSkippingStatsColumns).
	var stats parquetio.WriterOptions
	stats.NumIndexedCols, stats.NoStats, stats.StatsColumns, err = tableprops.StatsOptions(e.tableConfig(snap))
	if err != nil {
		return nil, err
	}
	failures := readFailures{}
	evolve := e.Config.Schema.evolves()
	for {
		out, err := e.writeOnce(ctx, sch, p, failures, evolve, stats)
		if nc := (*newColumns)(nil); errors.As(err, &nc) {
			if err := e.onNewColumns(ctx, sch, version, nc, p); err != nil {
				return nil, err
			}
			evolve = false // nothing to add: keep the values rescued
			continue
		}
		if errors.Is(err, errRetryBatch) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out.schema, out.schemaNew = sch, isNew
		return out, nil
	}
}

// writeOnce reads every plan file into Parquet data files. A file that
// cannot be read is judged (judge): the attempt is retried, the file is
// skipped keeping the rows read before the failure, or the batch fails.
// On any error the attempt's uploaded files are removed.
func (e *Engine) writeOnce(ctx context.Context, sch *schema.StructType, p *Plan, failures readFailures, evolve bool, stats parquetio.WriterOptions) (*output, error) {
	out := &output{}
	fw := &fileWriter{e: e, sch: e.sourceParts().DataSchema(sch), batch: p.BatchID, parts: map[string]*partFile{}, stats: stats}
	var err error
	if fw.by, err = hivepart.NewBy(e.Config.PartitionBy, fw.sch); err != nil {
		return nil, err
	}
	if fw.by != nil {
		fw.sch = fw.by.FileSchema(fw.sch)
	}
	bad := e.newBadSink(p)
	defer bad.discard()
	done := false
	defer func() {
		if !done {
			fw.discardAll(ctx)
		}
	}()
	// The files are decoded one after the other in a pipeline that runs
	// ahead of the encoder: the next file's decoding starts as soon as the
	// previous file is decoded, while its last rows are still encoded.
	pl := e.startPipeline(ctx, bad, e.sourceParts().DataSchema(sch), p.Files)
	defer pl.stop()
	for _, f := range p.Files {
		rows, rescued, err := pl.copyNext(fw, evolve)
		if fe := (*fileError)(nil); errors.As(err, &fe) {
			v, ferr := e.judge(failures, fe)
			switch v {
			case retryBatch:
				e.log().Warn("input file unreadable; writing the batch again to read it once more", "stream", e.Config.StreamID,
					"batchId", p.BatchID, "file", f.Path, "rowsRead", fe.rows, "error", fe.err.Error())
				return nil, errRetryBatch
			case failBatch:
				return nil, ferr
			}
			if evolve && len(fe.unknown) > 0 {
				return nil, &newColumns{file: f.Path, paths: fe.unknown}
			}
			e.log().Error("skipping unreadable input file", "stream", e.Config.StreamID,
				"batchId", p.BatchID, "file", f.Path, "rowsKept", fe.rows, "error", fe.err.Error())
			out.skipped = append(out.skipped, skippedFile{Path: f.Path, Err: errors.New(fe.reason())})
			bad.file(fe)
			rows, rescued = fe.rows, fe.rescued
		} else if err != nil {
			return nil, err
		}
		out.rows += rows
		out.rescued += rescued
	}
	adds, err := fw.finish(ctx)
	if err != nil {
		return nil, err
	}
	if err := bad.upload(ctx); err != nil {
		return nil, err
	}
	out.adds = adds
	for _, a := range adds {
		out.outBytes += a.Size
	}
	done = true
	return out, nil
}

// openSource opens a source file, decompressed. A file deleted since its
// discovery gives a *fileError (faultMissing), a compression that cannot
// be opened one with faultCorrupt; other errors are I/O errors that fail
// the batch (the next run tries again).
func (e *Engine) openSource(ctx context.Context, path string) (io.ReadCloser, error) {
	rc, err := e.Source.Get(ctx, path)
	if errors.Is(err, objstore.ErrNotFound) {
		return nil, &fileError{path: path, fault: faultMissing, err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("opening source file %s: %w", path, err)
	}
	if raw, ok := e.Config.Format.(formats.RawContent); ok && raw.Raw() {
		return rc, nil // binaryFile: the stored bytes, as Spark reads them
	}
	r, err := formats.Decompress(path, rc)
	if err != nil {
		rc.Close()
		return nil, &fileError{path: path, fault: faultCorrupt, err: err}
	}
	return &sourceReader{ReadCloser: r, body: rc}, nil
}

// sourceReader closes the decompressor and the object body under it.
type sourceReader struct {
	io.ReadCloser
	body io.Closer
}

func (s *sourceReader) Close() error {
	return errors.Join(s.ReadCloser.Close(), s.body.Close())
}

// chunkRows is how many decoded rows are handed to the encoder at once.
const chunkRows = 512

// maxOpenPartitions bounds the Parquet files a batch writes at once (each
// buffers a row group): past it, every open file is finished and new ones
// start, so memory stays bounded however many partitions a batch touches.
const maxOpenPartitions = 32

// fileWriter rolls Parquet output files into the table directory, one open
// file per partition directory.
type fileWriter struct {
	e       *Engine
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
}

// partFile is the Parquet file being written for one partition.
type partFile struct {
	part hivepart.Partition
	tmp  *os.File
	pw   *parquetio.Writer
	rows int
}

func (fw *fileWriter) target() int {
	if fw.e.Config.TargetFileRows > 0 {
		return fw.e.Config.TargetFileRows
	}
	return defaultTargetFileRows
}

func (fw *fileWriter) write(ctx context.Context, part hivepart.Partition, rows [][]any) error {
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
			if pf, err = fw.open(part); err != nil {
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

func (fw *fileWriter) open(part hivepart.Partition) (*partFile, error) {
	tmp, err := os.CreateTemp(fw.e.TempDir, "tributary-*.parquet")
	if err != nil {
		return nil, fmt.Errorf("creating temporary Parquet file: %w", err)
	}
	pw, err := parquetio.NewWriter(tmp, fw.sch, parquetio.WriterOptions{TempDir: fw.e.TempDir, Compression: fw.e.Config.ParquetCodec,
		NumIndexedCols: fw.stats.NumIndexedCols, NoStats: fw.stats.NoStats, StatsColumns: fw.stats.StatsColumns})
	if err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return nil, fmt.Errorf("creating Parquet writer: %w", err)
	}
	return &partFile{part: part, tmp: tmp, pw: pw}, nil
}

// close finishes one partition's file and uploads it under an
// attempt-unique name.
func (fw *fileWriter) close(ctx context.Context, pf *partFile) error {
	delete(fw.parts, pf.part.Dir)
	defer func() {
		pf.tmp.Close()
		os.Remove(pf.tmp.Name())
	}()
	stats, err := pf.pw.Close()
	if err != nil {
		return fmt.Errorf("finishing Parquet file: %w", err)
	}
	size, err := pf.tmp.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	if _, err := pf.tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	key := fmt.Sprintf("%spart-%05d-%s-c000%s.parquet", pf.part.Dir, fw.seq, uuid.NewString(), parquetio.CodecInfix(fw.e.Config.ParquetCodec))
	fw.seq++
	if err := fw.e.Table.Store().Put(ctx, key, pf.tmp); err != nil {
		return fmt.Errorf("uploading data file %s: %w", key, err)
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
		ModificationTime: fw.e.now().UnixMilli(),
		DataChange:       true,
		Stats:            statsJSON,
	})
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
	if err := fw.closeAll(ctx); err != nil {
		return nil, err
	}
	return fw.adds, nil
}

// abort drops the files still being written (on error paths).
func (fw *fileWriter) abort() {
	for d, pf := range fw.parts {
		pf.tmp.Close()
		os.Remove(pf.tmp.Name())
		delete(fw.parts, d)
	}
}

// discardAll removes the data files this attempt uploaded (best effort:
// leftovers are orphans that VACUUM removes).
func (fw *fileWriter) discardAll(ctx context.Context) {
	fw.abort()
	for _, k := range fw.written {
		if err := fw.e.Table.Store().Delete(ctx, k); err != nil {
			fw.e.log().Warn("could not remove orphan data file", "file", k, "error", err.Error())
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

// sourceParts are cloudFiles.partitionColumns: the partition columns read
// from the source files' directories.
func (e *Engine) sourceParts() hivepart.Columns {
	return hivepart.Columns{Names: e.Config.PartitionColumns, Types: e.Config.PartitionTypes}
}

// tablePartitions are the table's partition columns: cloudFiles.partitionColumns
// (from source directories), then partitionBy (from the data).
func (e *Engine) tablePartitions() []string {
	return slices.Concat(e.Config.PartitionColumns, e.Config.PartitionBy)
}
