package ingest

import (
	"context"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"github.com/tributary-io/tributary/core/ingest/schemalog"
	"github.com/tributary-io/tributary/core/ingest/schemamerge"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/schema"
)

// SchemaConfig holds the schema options of a stream.
type SchemaConfig struct {
	// User is a user-specified schema (no inference when set).
	User *schema.StructType
	// InferColumnTypes is cloudFiles.inferColumnTypes.
	InferColumnTypes bool
	// Hints is cloudFiles.schemaHints (SQL DDL).
	Hints string
	// RescuedDataColumn is cloudFiles.rescuedDataColumn ("_rescued_data" when empty).
	RescuedDataColumn string
	// NoRescue disables the rescued data column.
	NoRescue bool
	// SampleFiles and SampleBytes cap inference (1000 files, 50 GB by default).
	SampleFiles int
	SampleBytes int64
	// EvolutionMode is cloudFiles.schemaEvolutionMode; "" behaves as rescue
	// (never evolve, never fail: unknown values go to the rescued column).
	EvolutionMode options.SchemaEvolutionMode
}

// DefaultRescuedDataColumn is Auto Loader's rescued data column name.
const DefaultRescuedDataColumn = "_rescued_data"

func (c SchemaConfig) rescuedColumn() string {
	if c.NoRescue {
		return ""
	}
	if c.RescuedDataColumn != "" {
		return c.RescuedDataColumn
	}
	return DefaultRescuedDataColumn
}

// schemaRecord is one version of the schema history (schemalog.Record).
type schemaRecord = schemalog.Record

// schemasPrefix is the schema history's key prefix (schemalog.Prefix).
const schemasPrefix = schemalog.Prefix

func schemaKey(v int) string { return schemalog.Key(v) }

// latestSchema returns the newest schema in the history, or nil (version
// -1); a corrupt history needs a full refresh.
func latestSchema(ctx context.Context, st objstore.Store) (*schema.StructType, int, error) {
	s, v, err := schemalog.Latest(ctx, st)
	return s, v, corruptHistory(err)
}

// saveSchema writes version v of the history unless it exists, and returns
// the schema that is stored at v (another committer may have won).
func saveSchema(ctx context.Context, st objstore.Store, v int, s *schema.StructType) (*schema.StructType, error) {
	got, err := schemalog.Save(ctx, st, v, s)
	return got, corruptHistory(err)
}

// corruptHistory turns a schemalog.CorruptError into an error wrapping
// ErrFullRefreshNeeded that says how to recover.
func corruptHistory(err error) error {
	var ce *schemalog.CorruptError
	if errors.As(err, &ce) {
		return fmt.Errorf("%w: the schema history %s is corrupt (%v): restore it, or %s", ErrFullRefreshNeeded, ce.Key, ce.Err, RefreshHowTo)
	}
	return err
}

// resolveSchema returns the schema batch p is written with and whether the
// table's metadata must be written with it (a new table or a changed schema).
// Restarts read the latest schema history version; they never re-infer.
func (e *Engine) resolveSchema(ctx context.Context, snap *delta.Snapshot, p *Plan) (*schema.StructType, int, bool, error) {
	st := e.schemaStore()
	sch, v, err := latestSchema(ctx, st)
	if err != nil {
		return nil, 0, false, err
	}
	if sch == nil && p.BatchID > 0 {
		// The batch before recorded schema version 0: the history was
		// deleted. (An append-once batch numbered by txnVersion has no
		// batch before it.)
		if _, ok, err := batchplan.Read(ctx, e.Checkpoint, p.BatchID-1); err != nil {
			return nil, 0, false, err
		} else if ok {
			return nil, 0, false, fmt.Errorf("%w: the schema history (%s in the schema location) is gone, but the stream is at batch %d: inferring the schema again could change it under the table; restore it, or %s",
				ErrFullRefreshNeeded, schemasPrefix, p.BatchID, RefreshHowTo)
		}
	}
	if sch == nil {
		inferred, err := e.initialSchema(ctx, p)
		if err != nil {
			return nil, 0, false, err
		}
		if sch, err = saveSchema(ctx, st, 0, inferred); err != nil {
			return nil, 0, false, err
		}
		v = 0
	} else if sch, v, err = e.applySchemaChanges(ctx, st, sch, v); err != nil {
		return nil, 0, false, err
	}
	if snap == nil {
		return sch, v, true, nil
	}
	if err := e.checkMergeSchema(snap, sch, p); err != nil {
		return nil, 0, false, err
	}
	// A schema the table cannot simply take (a column the stream lacks, an
	// overwrite) is decided when the commit is built (tableChange).
	tbl, err := e.tableSchema(snap, sch)
	return sch, v, err != nil || !schema.Equal(snap.Schema(), tbl), nil
}

// initialSchema is the user schema, or the schema inferred from the plan's
// files within the sample caps, with hints applied and the rescued column last.
func (e *Engine) initialSchema(ctx context.Context, p *Plan) (*schema.StructType, error) {
	cfg := e.Config.Schema
	if cfg.User != nil {
		return e.sourceParts().WithPartitions(schemamerge.WithRescued(e.sourceParts().DataSchema(cfg.User), cfg.rescuedColumn())), nil
	}
	if fs, ok := e.Config.Format.(formats.FixedSchema); ok {
		// text, binaryFile: nothing to sample.
		return e.sourceParts().WithPartitions(schemamerge.WithRescued(e.sourceParts().DataSchema(fs.Schema()), cfg.rescuedColumn())), nil
	}
	var hints []schema.HintField
	if cfg.Hints != "" {
		h, err := schema.ParseDDL(cfg.Hints)
		if err != nil {
			return nil, fmt.Errorf("option cloudFiles.schemaHints: %w", err)
		}
		hints = h
	}
	inf := e.Config.Format.NewInferrer(e.inferOptions(hints, cfg.SampleBytes))
	maxFiles := cfg.SampleFiles
	if maxFiles <= 0 {
		maxFiles = formats.DefaultSampleFiles
	}
	// Sample like Auto Loader: the first files discovered, not only this
	// batch's (a small maxFilesPerTrigger must not shrink the sample).
	sample := append([]PlanFile(nil), p.Files...)
	if len(sample) < maxFiles {
		more, err := e.State.Pending(ctx, e.Config.StreamID, maxFiles-len(sample))
		if err != nil {
			return nil, fmt.Errorf("listing files for schema inference: %w", err)
		}
		for _, m := range more {
			sample = append(sample, PlanFile{Path: m.Path, Size: m.Size, ETag: m.ETag})
		}
	}
	for i, f := range sample {
		if i >= maxFiles || inf.Full() {
			break
		}
		if err := e.converter().Sample(ctx, inf, f.Path); err != nil {
			return nil, err
		}
	}
	return e.sourceParts().WithPartitions(schemamerge.WithRescued(e.sourceParts().DataSchema(inf.Schema()), cfg.rescuedColumn())), nil
}

// fullPath names a source key as the user knows it (SourceURI/key).
func (e *Engine) fullPath(key string) string { return e.source().Name(key) }
