package ingest

import (
	"context"
	"errors"
	"runtime/trace"
	"slices"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/tableprops"
	"github.com/tributary-io/tributary/core/ingest/badrecords"
	"github.com/tributary-io/tributary/core/ingest/convert"
	"github.com/tributary-io/tributary/core/ingest/hivepart"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// Contract errors of input files that cannot be read (package convert's
// errors, here for callers of the engine). A batch that fails with one of
// them commits nothing; its sealed plan is replayed by the next run.
var (
	// ErrCorruptFile: an input file's content cannot be read and
	// ignoreCorruptFiles is false.
	ErrCorruptFile = convert.ErrCorruptFile
	// ErrMissingFile: an input file was deleted after it was discovered
	// and ignoreMissingFiles is false.
	ErrMissingFile = convert.ErrMissingFile
	// ErrUnstableRead: reading an input file failed several times, at
	// different points each time; the next run tries again.
	ErrUnstableRead = convert.ErrUnstableRead
)

// output is what the write step produced for one batch.
type output struct {
	convert.Output
	schema      *schema.StructType
	schemaNew   bool // the table's schema must be (re)written in this commit
	outstanding backlog
}

// write converts the plan's files into Parquet data files in the table.
func (e *Engine) write(ctx context.Context, snap *delta.Snapshot, p *Plan) (*output, error) {
	// The data files' statistics follow the table's properties
	// (delta.dataSkippingNumIndexedCols, delta.dataSkippingStatsColumns).
	var stats parquetio.WriterOptions
	var err error
	stats.NumIndexedCols, stats.NoStats, stats.StatsColumns, err = tableprops.StatsOptions(e.tableConfig(snap))
	if err != nil {
		return nil, err
	}
	region := trace.StartRegion(ctx, "ingest.schema")
	sch, version, isNew, out, err := e.resolveOnePass(ctx, snap, p, stats)
	if sch == nil && err == nil {
		sch, version, isNew, err = e.resolveSchema(ctx, snap, p)
	}
	region.End()
	if err != nil || out != nil {
		return out, err
	}
	failures := convert.Failures{}
	evolve := e.Config.Schema.evolves()
	for {
		region := trace.StartRegion(ctx, "ingest.convert")
		out, err := e.writeOnce(ctx, sch, p, failures, evolve, stats)
		region.End()
		if nc := (*convert.NewColumns)(nil); errors.As(err, &nc) {
			if err := e.schemas().OnNewColumns(ctx, sch, version, nc, p); err != nil {
				return nil, err
			}
			evolve = false // nothing to add: keep the values rescued
			continue
		}
		if errors.Is(err, convert.ErrRetryBatch) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out.schema, out.schemaNew = sch, isNew
		return out, nil
	}
}

// writeOnce is one attempt to write the plan's files (convert.Converter.Write).
func (e *Engine) writeOnce(ctx context.Context, sch *schema.StructType, p *Plan, failures convert.Failures, evolve bool, stats parquetio.WriterOptions) (*output, error) {
	out, err := e.converter().Write(ctx, convBatch(p, sch, stats, evolve, e.newBadSink(p)), failures)
	if err != nil {
		return nil, err
	}
	return &output{Output: *out}, nil
}

// convBatch is plan p's write attempt with schema sch.
func convBatch(p *Plan, sch *schema.StructType, stats parquetio.WriterOptions, evolve bool, bad *convert.BadSink) convert.Batch {
	files := make([]string, len(p.Files))
	sizes := make([]int64, len(p.Files))
	for i, f := range p.Files {
		files[i], sizes[i] = f.Path, f.Size
	}
	return convert.Batch{ID: p.BatchID, Files: files, Sizes: sizes, Schema: sch, Stats: stats, Evolve: evolve, Bad: bad}
}

// converter converts the stream's files into the table's data files.
func (e *Engine) converter() *convert.Converter {
	return &convert.Converter{
		Stream:         e.Config.StreamID,
		Source:         e.source(),
		Table:          e.Table.Store(),
		Codec:          e.Config.ParquetCodec,
		TargetFileRows: e.Config.TargetFileRows,
		Partitions:     e.sourceParts(),
		PartitionBy:    e.Config.PartitionBy,
		Rescued:        e.Config.Schema.rescuedColumn(),
		Widens:         e.Config.Schema.EvolutionMode == options.EvolveAddNewColumnsWithTypeWidening,
		Policy:         e.filePolicy(),
		ReadOptions:    e.readOptions,
		Now:            e.now,
		Logger:         e.log(),
	}
}

// source is the stream's source files.
func (e *Engine) source() convert.Source {
	return convert.Source{Store: e.Source, Format: e.Config.Format, TempDir: e.TempDir, URI: e.Config.SourceURI}
}

// filePolicy is what an unreadable input file does: skipped with
// ignoreMissingFiles / ignoreCorruptFiles, or recorded with badRecordsPath.
func (e *Engine) filePolicy() convert.Policy {
	r := e.Config.Reader
	return convert.Policy{
		IgnoreMissing: r.IgnoreMissingFiles || r.BadRecordsPath != "",
		IgnoreCorrupt: r.IgnoreCorruptFiles || r.BadRecordsPath != "",
		Name:          e.fullPath,
	}
}

// newBadSink returns one write attempt's badRecordsPath sink, or nil
// without badRecordsPath.
func (e *Engine) newBadSink(p *Plan) *convert.BadSink {
	if e.Config.Reader.BadRecordsPath == "" {
		return nil
	}
	return convert.NewBadSink(badrecords.New(e.BadRecords, e.TempDir, p.CreatedAt, p.BatchID), e.fullPath)
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
