package ingest

import (
	"context"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"github.com/tributary-io/tributary/core/ingest/evolve"
	"github.com/tributary-io/tributary/core/ingest/schemalog"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/core/state"
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

// schemasPrefix is the schema history's key prefix (schemalog.Prefix).
const schemasPrefix = schemalog.Prefix

// fullPath names a source key as the user knows it (SourceURI/key).
func (e *Engine) fullPath(key string) string { return e.source().Name(key) }

// Schema evolution errors (package evolve's). Each stops the batch before
// anything is committed; its sealed plan is replayed by the next run.
var (
	// ErrSchemaEvolved (addNewColumns): new columns were appended to the
	// schema history; the next run ingests the batch with the new schema.
	ErrSchemaEvolved = evolve.ErrSchemaEvolved
	// ErrNewColumns (failOnNewColumns): the data has columns the schema
	// lacks; the stream fails until the schema is changed by hand.
	ErrNewColumns = evolve.ErrNewColumns
	// ErrMergeSchemaOff: a batch would add columns to an existing table
	// and mergeSchema is false.
	ErrMergeSchemaOff = evolve.ErrMergeSchemaOff
	// ErrTypeWideningOff: a column's type must widen but the table does
	// not enable type widening.
	ErrTypeWideningOff = evolve.ErrTypeWideningOff
)

// evolves reports whether the mode stops a batch on new columns.
func (c SchemaConfig) evolves() bool { return evolve.Evolves(c.EvolutionMode) }

// schemas decides the stream's schema versions (package evolve); its
// Want is set by withSchemas.
func (e *Engine) schemas() *evolve.Schemas {
	c := e.Config
	return &evolve.Schemas{
		Stream: c.StreamID, AppID: e.appID(), Format: c.Format,
		User: c.Schema.User, Hints: c.Schema.Hints, Rescued: c.Schema.rescuedColumn(), Mode: c.Schema.EvolutionMode,
		SampleFiles: c.Schema.SampleFiles, SampleBytes: c.Schema.SampleBytes,
		Partitions: e.sourceParts(), NoMergeSchema: c.NoMergeSchema, TableProperties: c.TableProperties,
		History: e.schemaStore(), Checkpoint: e.Checkpoint, State: e.pendingAfterClaim(), Table: e.snap,
		Recorded: e.recorded, InferOptions: e.inferOptions, Sample: e.converter().Sample, Logger: e.log(),
	}
}

// withSchemas runs f with the stream's Schemas, knowing the identity the
// stream runs with, and keeps the identity record f may have replaced.
func (e *Engine) withSchemas(f func(s *evolve.Schemas) error) error {
	s := e.schemas()
	var err error
	if s.Want, err = e.identity(); err != nil {
		return err
	}
	err = f(s)
	e.recorded = s.Recorded
	return err
}

// resolveSchema returns the schema batch p is written with, its version,
// and whether the table's metadata must be written with it
// (evolve.Schemas.Resolve).
func (e *Engine) resolveSchema(ctx context.Context, snap *delta.Snapshot, p *Plan) (sch *schema.StructType, v int, isNew bool, err error) {
	err = e.withSchemas(func(s *evolve.Schemas) error {
		sch, v, isNew, err = s.Resolve(ctx, snap, p)
		return err
	})
	return sch, v, isNew, err
}

// resolveOnePass resolves the schema of a first batch converted while its
// schema is inferred, without badRecordsPath
// (evolve.Schemas.ResolveOnePass): out is the batch's output when that
// conversion stands; sch is nil when the batch is to be resolved as usual.
func (e *Engine) resolveOnePass(ctx context.Context, snap *delta.Snapshot, p *Plan, stats parquetio.WriterOptions) (sch *schema.StructType, v int, isNew bool, out *output, err error) {
	if e.Config.Reader.BadRecordsPath != "" || e.twoPass {
		return nil, 0, false, nil, nil
	}
	var ok bool
	err = e.withSchemas(func(s *evolve.Schemas) error {
		sch, v, isNew, ok, err = s.ResolveOnePass(ctx, snap, p, func(sch *schema.StructType, fold formats.Inferrer, n int) error {
			o, err := e.converter().WriteFolded(ctx, convBatch(p, sch, stats, e.Config.Schema.evolves(), nil), fold, n)
			if err == nil {
				out = &output{Output: *o, schema: sch}
			}
			return err
		})
		return err
	})
	if out != nil && (!ok || err != nil) {
		e.removeAdds(context.WithoutCancel(ctx), out.Adds) // never committed (the write may have been stopped)
		out = nil
	}
	if out != nil {
		out.schema, out.schemaNew = sch, isNew
	}
	return sch, v, isNew, out, err
}

// checkSchemaChanges applies (or refuses) a changed user schema or
// cloudFiles.schemaHints once per engine, when the stream starts.
func (e *Engine) checkSchemaChanges(ctx context.Context) error {
	if e.recorded == nil || e.schemaChecked {
		return nil
	}
	if err := e.withSchemas(func(s *evolve.Schemas) error { return s.CheckChanges(ctx) }); err != nil {
		return err
	}
	e.schemaChecked = true
	return nil
}

// tableConfig is the configuration the table has once this stream's table
// properties are applied (snap nil: a table not created yet).
func (e *Engine) tableConfig(snap *delta.Snapshot) map[string]string {
	return e.schemas().TableConfig(snap)
}

// pendingAfterClaim is the state store as schema inference sees it
// (batchplan.AfterClaim of the batch's claim, while it runs).
func (e *Engine) pendingAfterClaim() state.Store {
	return batchplan.AfterClaim(e.State, e.claiming)
}
