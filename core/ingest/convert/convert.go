// Package convert turns a batch's source files into Parquet data files of
// a Delta table: the files are decoded in order by a pipeline that runs
// ahead of the encoder, their rows written into one rolling data file per
// partition directory, uploaded under attempt-unique names. A batch of
// many small files at several CPUs is converted in lanes, runs of
// consecutive files each with a pipeline and data files of its own
// (lanes.go). A file that
// cannot be read is judged (Policy.Judge): the attempt is written again,
// the file is skipped keeping the rows read before the failure, or the
// batch fails naming it. Converting commits nothing: the adds it returns
// are committed by the ingest engine.
package convert

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/ingest/badrecords"
	"github.com/tributary-io/tributary/core/ingest/hivepart"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// ErrRetryBatch asks the caller to drop an attempt's output and write the
// batch again (a read failure that may be the storage's).
var ErrRetryBatch = errors.New("retry the batch")

// NewColumns is returned by Write when a file holds fields the schema
// lacks (or, with Widens, values that do not fit their column's type) and
// the batch evolves on them.
type NewColumns struct {
	// File is the source key of the file.
	File string
	// Paths are the new columns (dotted paths).
	Paths []string
	// Mismatched are columns with values that do not fit their type
	// (addNewColumnsWithTypeWidening: their type may widen).
	Mismatched []string
}

// Error names the file and the columns.
func (n *NewColumns) Error() string {
	if len(n.Paths) == 0 {
		return fmt.Sprintf("file %s has values that do not fit the type of column(s) %s", n.File, strings.Join(n.Mismatched, ", "))
	}
	return fmt.Sprintf("file %s has columns not in the schema: %s", n.File, strings.Join(n.Paths, ", "))
}

// Converter holds what converting a stream's files needs.
type Converter struct {
	// Stream is the stream id (in logs).
	Stream string
	// Source is where the input files are read.
	Source Source
	// Table is the store rooted at the table: data files are uploaded there.
	Table objstore.Store
	// Codec is the data files' compression codec (parquetio's names).
	Codec string
	// TargetFileRows rolls to a new data file after this many rows
	// (0: 1,000,000).
	TargetFileRows int
	// Partitions are cloudFiles.partitionColumns, read from the source
	// files' directories.
	Partitions hivepart.Columns
	// PartitionBy are partitionBy's columns, whose values choose each
	// row's partition.
	PartitionBy []string
	// Rescued is the rescued data column ("" when none).
	Rescued string
	// Widens is addNewColumnsWithTypeWidening: values that do not fit
	// their type may widen it (NewColumns.Mismatched).
	Widens bool
	// Policy is what an unreadable file does.
	Policy Policy
	// ReadOptions are the format's read options for a source file; bad,
	// when not nil, receives its bad records.
	ReadOptions func(path string, bad func(formats.BadRecord)) formats.ReadOptions
	// Now is the clock of the adds' modification times (time.Now when nil).
	Now func() time.Time
	// Logger receives skipped and retried files (slog.Default() when nil).
	Logger *slog.Logger

	// laneFiles is the fewest files a lane takes (0: laneMinFiles; tests
	// set it lower).
	laneFiles int
}

func (c *Converter) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Converter) log() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.Default()
}

// Batch is one write attempt's input.
type Batch struct {
	// ID is the batch id (in logs).
	ID int64
	// Files are the source keys, in the plan's order.
	Files []string
	// Sizes are the files' listed sizes, by index (nil: unknown); a
	// small local file of a known size is read whole in one read(2).
	Sizes []int64
	// Schema is the table schema the rows are read with (partition
	// columns included).
	Schema *schema.StructType
	// Stats are the data files' statistics options (the table's
	// delta.dataSkipping* properties).
	Stats parquetio.WriterOptions
	// Evolve stops the attempt with a *NewColumns when a file has
	// columns the schema lacks.
	Evolve bool
	// Bad is badRecordsPath's sink (nil without it).
	Bad *BadSink
}

// Output is what a write attempt produced.
type Output struct {
	// Adds are the uploaded data files.
	Adds []delta.Add
	// Rows and Rescued count the rows written and those with rescued data.
	Rows, Rescued int64
	// OutBytes is the size of the data files.
	OutBytes int64
	// Skipped are the input files skipped (whole or after a failure).
	Skipped []Skipped
}

// Skipped is an input file skipped, with the reason.
type Skipped struct {
	// Path is the source key.
	Path string
	// Err is the reason.
	Err error
}

// SkippedPaths returns the set of skipped input files.
func (o *Output) SkippedPaths() map[string]bool {
	m := make(map[string]bool, len(o.Skipped))
	for _, s := range o.Skipped {
		m[s.Path] = true
	}
	return m
}

// Write reads every file of b into Parquet data files. A file that cannot
// be read is judged with failures (Policy.Judge): ErrRetryBatch asks for
// another attempt, the file is skipped keeping the rows read before the
// failure, or the batch fails. On any error the attempt's uploaded files
// are removed.
func (c *Converter) Write(ctx context.Context, b Batch, failures Failures) (*Output, error) {
	if n := c.lanes(b); n > 1 {
		return c.writeLanes(ctx, b, failures, n)
	}
	defer b.Bad.discard()
	judge := func(fe *FileError) (Verdict, error) { return c.Policy.Judge(failures, fe) }
	out, fw, err := c.writeLane(ctx, b, judge, false)
	if err != nil {
		return nil, err
	}
	if err := b.Bad.upload(ctx); err != nil {
		fw.discardAll(ctx)
		return nil, err
	}
	return out, nil
}

// writeLane reads b's files into data files: with lane, on one decoder
// (the batch's other lanes run beside it). On error its uploaded files
// are removed; on success the caller may still remove them (fw.discardAll).
func (c *Converter) writeLane(ctx context.Context, b Batch, judge func(*FileError) (Verdict, error), lane bool) (*Output, *fileWriter, error) {
	out := &Output{}
	data := c.Partitions.DataSchema(b.Schema)
	fw := &fileWriter{c: c, sch: data, batch: b.ID, parts: map[string]*partFile{}, stats: b.Stats}
	var err error
	if fw.by, err = hivepart.NewBy(c.PartitionBy, fw.sch); err != nil {
		return nil, nil, err
	}
	if fw.by != nil {
		fw.sch = fw.by.FileSchema(fw.sch)
	}
	bad := b.Bad
	done := false
	defer func() {
		if !done {
			fw.discardAll(ctx)
		}
	}()
	// The files are decoded in a pipeline that runs ahead of the encoder:
	// the next file's decoding starts as soon as the previous file is
	// decoded (with more than one CPU, several files are decoded at once),
	// while its last rows are still encoded; the encoder takes them in order.
	pl := c.startPipeline(ctx, bad, data, b.Files, b.Sizes, fw.by == nil, lane)
	defer pl.stop()
	for _, path := range b.Files {
		rows, rescued, err := pl.copyNext(fw, b.Evolve)
		if fe := (*FileError)(nil); errors.As(err, &fe) {
			v, ferr := judge(fe)
			switch v {
			case RetryBatch:
				c.log().Warn("input file unreadable; writing the batch again to read it once more", "stream", c.Stream,
					"batchId", b.ID, "file", path, "rowsRead", fe.Rows, "error", fe.Err.Error())
				return nil, nil, ErrRetryBatch
			case FailBatch:
				return nil, nil, ferr
			}
			if b.Evolve && len(fe.Unknown) > 0 {
				return nil, nil, &NewColumns{File: path, Paths: fe.Unknown}
			}
			c.log().Error("skipping unreadable input file", "stream", c.Stream,
				"batchId", b.ID, "file", path, "rowsKept", fe.Rows, "error", fe.Err.Error())
			out.Skipped = append(out.Skipped, Skipped{Path: path, Err: errors.New(fe.Reason())})
			bad.file(fe)
			rows, rescued = fe.Rows, fe.Rescued
		} else if err != nil {
			return nil, nil, err
		}
		out.Rows += rows
		out.Rescued += rescued
	}
	adds, err := fw.finish(ctx)
	if err != nil {
		return nil, nil, err
	}
	out.Adds = adds
	for _, a := range adds {
		out.OutBytes += a.Size
	}
	done = true
	return out, fw, nil
}

// BadSink is one write attempt's badRecordsPath exception files
// (badrecords.Sink), naming files as users know them. A nil *BadSink
// records nothing.
type BadSink struct {
	s    *badrecords.Sink
	name func(string) string
}

// NewBadSink wraps s; name names a source key in the records.
func NewBadSink(s *badrecords.Sink, name func(string) string) *BadSink {
	return &BadSink{s: s, name: name}
}

// hook returns the read option that receives path's bad records (nil
// without badRecordsPath).
func (b *BadSink) hook(path string) func(formats.BadRecord) {
	if b == nil {
		return nil
	}
	return b.s.Hook(b.name(path))
}

// file records a skipped input file.
func (b *BadSink) file(fe *FileError) {
	if b != nil {
		b.s.File(b.name(fe.Path), fe.Reason())
	}
}

// upload writes the exception files before the batch commits.
func (b *BadSink) upload(ctx context.Context) error {
	if b == nil {
		return nil
	}
	return b.s.Upload(ctx)
}

// discard removes the spool.
func (b *BadSink) discard() {
	if b != nil {
		b.s.Discard()
	}
}
