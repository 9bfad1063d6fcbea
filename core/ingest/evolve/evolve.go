// Package evolve provides a stream's schema versions: the schema a batch
// is written with (the history's latest version, or the schema inferred
// from the first files and recorded as version 0), schema evolution on new
// columns (cloudFiles.schemaEvolutionMode: a new version and a stop, or a
// failure), type widening, changed user schemas and schema hints at
// restart, mergeSchema=false, and the schema the table takes.
package evolve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/tableprops"
	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"github.com/tributary-io/tributary/core/ingest/convert"
	"github.com/tributary-io/tributary/core/ingest/hivepart"
	"github.com/tributary-io/tributary/core/ingest/identity"
	"github.com/tributary-io/tributary/core/ingest/schemalog"
	"github.com/tributary-io/tributary/core/ingest/schemamerge"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/refresh"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/core/schema/widen"
	"github.com/tributary-io/tributary/core/state"
)

// Schemas holds what deciding a stream's schema needs.
type Schemas struct {
	// Stream is the stream id; AppID its Delta txn appId.
	Stream, AppID string
	// Format is the cloudFiles.format reader.
	Format formats.Format
	// User is the user-specified schema (nil: inferred).
	User *schema.StructType
	// Hints is cloudFiles.schemaHints (SQL DDL).
	Hints string
	// Rescued is the rescued data column ("" when none).
	Rescued string
	// Mode is cloudFiles.schemaEvolutionMode.
	Mode options.SchemaEvolutionMode
	// SampleFiles and SampleBytes cap the initial inference.
	SampleFiles int
	SampleBytes int64
	// Partitions are cloudFiles.partitionColumns.
	Partitions hivepart.Columns
	// NoMergeSchema is mergeSchema=false.
	NoMergeSchema bool
	// TableProperties are the Delta table properties given as options.
	TableProperties map[string]string
	// History is the store of the schema history (schemalog).
	History objstore.Store
	// Checkpoint is the store rooted at the checkpoint location (batch
	// plans and the identity record).
	Checkpoint objstore.Store
	// State is the file-state store (pending files widen the sample).
	State state.Store
	// Table is the table as last read (nil: not created yet).
	Table *delta.Snapshot
	// Recorded is the checkpoint's identity record (nil: not checked);
	// applying a changed user schema or hints replaces it.
	Recorded *identity.Identity
	// Want is the identity the stream runs with.
	Want identity.Identity
	// InferOptions are the format's inference options.
	InferOptions func(hints []schema.HintField, maxBytes int64) formats.InferOptions
	// Sample adds a source file to an inference (convert.Converter.Sample).
	// It is called from several goroutines at once (each with an inferrer
	// of its own), as trials for files sampled ahead.
	Sample func(ctx context.Context, inf formats.Inferrer, f convert.SampleFile) error
	// Logger receives schema changes (slog.Default() when nil).
	Logger *slog.Logger
}

func (s *Schemas) log() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

// Evolves reports whether the mode stops a batch on new columns.
func Evolves(mode options.SchemaEvolutionMode) bool {
	switch mode {
	case options.EvolveAddNewColumns, options.EvolveAddNewColumnsWithTypeWidening, options.EvolveFailOnNewColumns:
		return true
	}
	return false
}

// CheckChanges applies (or refuses) a changed user schema or
// cloudFiles.schemaHints when the stream starts, whether or not files are
// outstanding; it reads the schema history only when they changed.
func (s *Schemas) CheckChanges(ctx context.Context) error {
	rec := s.Recorded
	if rec == nil || (rec.UserSchema == s.Want.UserSchema && rec.SchemaHints == s.Want.SchemaHints) {
		return nil
	}
	sch, v, err := latestSchema(ctx, s.History)
	if err != nil || sch == nil {
		return err
	}
	_, _, err = s.applyChanges(ctx, s.History, sch, v)
	return err
}

// ReadVersion reads version v of the schema history; found is false when
// it does not exist.
func ReadVersion(ctx context.Context, st objstore.Store, v int) (*schema.StructType, bool, error) {
	sch, found, err := schemalog.Read(ctx, st, v)
	return sch, found, CorruptHistory(err)
}

// Schema evolution errors. Both stop the batch before anything is
// committed; its sealed plan is replayed by the next run.
var (
	// ErrSchemaEvolved (addNewColumns): new columns were appended to the
	// schema history; the next run ingests the batch with the new schema,
	// as Auto Loader stops with an UnknownFieldException and restarts.
	ErrSchemaEvolved = errors.New("new columns found: schema evolved, run again to continue with the new schema")
	// ErrNewColumns (failOnNewColumns): the data has columns the schema
	// lacks; the stream fails until the schema is changed by hand.
	ErrNewColumns = errors.New("new columns found and cloudFiles.schemaEvolutionMode is failOnNewColumns")
)

// OnNewColumns handles new columns found in plan p's files under schema
// version v: failOnNewColumns fails; addNewColumns infers the new columns
// from the files that hold them, appends them to the schema history as
// version v+1 and stops the batch. It returns nil when inference finds
// nothing to add (the values stay rescued).
func (s *Schemas) OnNewColumns(ctx context.Context, current *schema.StructType, v int, nc *convert.NewColumns, p *batchplan.Plan) error {
	if s.Mode == options.EvolveFailOnNewColumns {
		return fmt.Errorf("%w: %v; the stream fails until the schema has the column(s) (add them with cloudFiles.schemaHints or the user schema) or the file is removed (then set ignoreMissingFiles=true to skip it); nothing was committed", ErrNewColumns, nc)
	}
	if s.NoMergeSchema && s.Table != nil && len(nc.Paths) > 0 {
		// The table could not take the columns: fail before the schema
		// history evolves, naming the file that has them.
		return fmt.Errorf("%w: batch %d: %v: %s", ErrMergeSchemaOff, p.BatchID, nc, mergeSchemaAdvice)
	}
	// The file that holds the new columns is sampled first and whole: the
	// inference sample budget (sampleSize.numBytes) bounds the initial
	// inference only, and must not hide the very columns that stopped the
	// batch (they would be rescued silently instead of added).
	inf := s.Format.NewInferrer(s.InferOptions(nil, 0))
	files := slices.Clone(p.Files)
	slices.SortStableFunc(files, func(a, b batchplan.PlanFile) int {
		return cmp.Compare(boolRank(a.Path != nc.File), boolRank(b.Path != nc.File))
	})
	if err := s.sampleFiles(ctx, inf, files, 0); err != nil {
		return err
	}
	base := s.Partitions.DataSchema(current)
	var widened []widen.Change
	if s.Mode == options.EvolveAddNewColumnsWithTypeWidening {
		base, widened = widen.Schema(base, s.Partitions.DataSchema(inf.Schema()), s.Rescued, s.WidenOptions())
		if len(widened) > 0 {
			if err := s.checkWidening(nc.File, widened, p.BatchID); err != nil {
				return err
			}
		}
	}
	next, added := schemamerge.AddMissing(base, s.Partitions.DataSchema(inf.Schema()), s.Rescued)
	if len(added) == 0 && len(widened) == 0 {
		return nil
	}
	next = s.Partitions.WithPartitions(next)
	if _, err := saveSchema(ctx, s.History, v+1, next); err != nil {
		return err
	}
	var what []string
	if len(added) > 0 {
		what = append(what, "added "+strings.Join(added, ", "))
	}
	var widenedCols []string
	for _, c := range widened {
		widenedCols = append(widenedCols, c.String())
	}
	if len(widened) > 0 {
		what = append(what, "widened "+strings.Join(widenedCols, ", "))
	}
	s.log().Warn("schema evolved", "stream", s.Stream, "batchId", p.BatchID,
		"schemaVersion", v+1, "newColumns", added, "widened", widenedCols, "file", nc.File)
	return fmt.Errorf("%w: %s (schema version %d, from file %s)", ErrSchemaEvolved, strings.Join(what, "; "), v+1, nc.File)
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ErrMergeSchemaOff is wrapped when a batch would add columns to an existing
// table and mergeSchema is false: the stream fails, nothing is committed,
// as Delta refuses a write whose schema differs from the table's.
var ErrMergeSchemaOff = errors.New("the data has columns the table lacks and mergeSchema is false")

// mergeSchemaAdvice says how to go on after ErrMergeSchemaOff.
const mergeSchemaAdvice = "nothing was committed; remove mergeSchema=false (the table's schema evolves by default) to add the columns, or set cloudFiles.schemaEvolutionMode=rescue to keep unknown fields in the rescued data column"

// CheckMergeSchema refuses, when mergeSchema is false, a batch schema that
// adds columns to the existing table (snap non-nil). files names the batch's
// input files for the error.
func (s *Schemas) CheckMergeSchema(snap *delta.Snapshot, next *schema.StructType, p *batchplan.Plan) error {
	if !s.NoMergeSchema || snap == nil || refresh.Refreshed(snap, s.AppID) {
		return nil
	}
	_, added := schemamerge.AddMissing(snap.Schema(), next, "")
	if len(added) == 0 {
		return nil
	}
	return fmt.Errorf("%w: batch %d would add column(s) %s to the table (files %s): %s",
		ErrMergeSchemaOff, p.BatchID, strings.Join(added, ", "), p.FileList(), mergeSchemaAdvice)
}

// applyChanges is called with the latest schema of the history (version
// v) before a batch is written. When the user-specified schema or
// cloudFiles.schemaHints differ from those recorded in the checkpoint's
// identity, it does what restarting an Auto Loader stream with changed
// options does: columns the new schema or hints add become a new schema
// version (the table gains them with the next commit, as mergeSchema
// allows); a retyped or dropped column cannot be resumed from and is refused
// with the full-refresh hint; anything else (a removed hint, reordered
// hints) changes no existing column and is only logged. The identity record
// then holds the new values.
func (s *Schemas) applyChanges(ctx context.Context, st objstore.Store, current *schema.StructType, v int) (*schema.StructType, int, error) {
	rec := s.Recorded
	if rec == nil {
		return current, v, nil
	}
	want := s.Want
	if rec.UserSchema == want.UserSchema && rec.SchemaHints == want.SchemaHints {
		return current, v, nil
	}
	rescued := s.Rescued
	var what string
	next := current
	switch {
	case rec.UserSchema != want.UserSchema && s.User != nil:
		what = "the user-specified schema"
		next = s.Partitions.WithPartitions(schemamerge.WithRescued(s.Partitions.DataSchema(s.User), rescued))
	case rec.UserSchema != want.UserSchema:
		what = "the user-specified schema (removed)"
	default:
		what = "cloudFiles.schemaHints"
		if want.SchemaHints != "" {
			hints, err := schema.ParseDDL(want.SchemaHints)
			if err != nil {
				return nil, 0, fmt.Errorf("option cloudFiles.schemaHints: %w", err)
			}
			next = schema.ApplyHints(current, hints)
		}
	}
	if err := schemamerge.Compatible(current, next, ""); err != nil {
		return nil, 0, fmt.Errorf("%w: %s changed since schema version %d was recorded: %v; the stream cannot retype or drop a column: restore the previous value, or %s",
			identity.ErrFullRefreshNeeded, what, v, err, identity.RefreshHowTo)
	}
	merged, added := schemamerge.AddMissing(current, next, rescued)
	if len(added) > 0 {
		saved, err := saveSchema(ctx, st, v+1, merged)
		if err != nil {
			return nil, 0, err
		}
		current, v = saved, v+1
		s.log().Warn(what+" changed: new columns added to the stream's schema",
			"stream", s.Stream, "newColumns", added, "schemaVersion", v)
	} else {
		s.log().Warn(what+" changed: no column is added or retyped; existing columns keep their types",
			"stream", s.Stream, "schemaVersion", v)
	}
	next2 := *rec
	next2.UserSchema, next2.SchemaHints = want.UserSchema, want.SchemaHints
	if err := identity.Save(ctx, s.Checkpoint, next2); err != nil {
		return nil, 0, err
	}
	s.Recorded = &next2
	return current, v, nil
}

// ErrTypeWideningOff is wrapped when addNewColumnsWithTypeWidening would
// widen a column of a table that does not enable type widening: nothing is
// committed and the schema history is left as it was.
var ErrTypeWideningOff = errors.New("a column's type must widen but the table does not enable type widening")

// WidenOptions are the widening rules of the stream's format: date →
// timestamp_ntz is a widening for Parquet files only (seed 002).
func (s *Schemas) WidenOptions() widen.Options {
	return widen.Options{DateToTimestampNTZ: s.Format != nil && s.Format.Name() == "parquet"}
}

// TableConfig is the configuration the table has once this stream's table
// properties are applied (snap nil: a table not created yet).
func (s *Schemas) TableConfig(snap *delta.Snapshot) map[string]string {
	var conf map[string]string
	if snap != nil {
		conf = snap.Configuration()
	}
	out, _ := tableprops.Merge(conf, s.TableProperties)
	return out
}

// checkWidening refuses the widenings found in file unless the table
// enables type widening (or this stream's options enable it) and may take
// schema changes (mergeSchema).
func (s *Schemas) checkWidening(file string, changes []widen.Change, batch int64) error {
	var list []string
	for _, c := range changes {
		list = append(list, c.String())
	}
	if s.NoMergeSchema && s.Table != nil {
		return fmt.Errorf("%w: batch %d: file %s widens %s: %s", ErrMergeSchemaOff, batch, file, strings.Join(list, ", "), mergeSchemaAdvice)
	}
	if !tableprops.TypeWidening(s.TableConfig(s.Table)) {
		return fmt.Errorf("%w: file %s widens %s; set the table property with --option %s=true (or ALTER TABLE ... SET TBLPROPERTIES ('%s' = 'true')) and run again; nothing was committed and the schema was not changed",
			ErrTypeWideningOff, file, strings.Join(list, ", "), delta.PropEnableTypeWidening, delta.PropEnableTypeWidening)
	}
	return nil
}

// TableSchema returns the schema the table at snap takes when a batch is
// written with the stream's schema sch: sch with the table's field metadata
// kept and each widened column's delta.typeChanges recorded. A dropped or
// retyped column that is not a widening, or a widening on a table without
// type widening, is an error wrapping identity.ErrFullRefreshNeeded. snap nil gives
// sch.
func (s *Schemas) TableSchema(snap *delta.Snapshot, sch *schema.StructType) (*schema.StructType, error) {
	if snap == nil || refresh.Refreshed(snap, s.AppID) {
		return sch, nil // a new table, or one a full refresh emptied
	}
	next, changes, err := widen.TableSchema(snap.Schema(), sch, s.WidenOptions())
	if err != nil {
		return nil, fmt.Errorf("%w: %v: %s", identity.ErrFullRefreshNeeded, err, identity.RefreshHowTo)
	}
	if len(changes) > 0 && !tableprops.TypeWidening(s.TableConfig(snap)) {
		return nil, fmt.Errorf("%w: column %s, and the table does not enable type widening (%s): %s", identity.ErrFullRefreshNeeded, changes[0], delta.PropEnableTypeWidening, identity.RefreshHowTo)
	}
	return next, nil
}

// latestSchema returns the newest schema in the history, or nil (version
// -1); a corrupt history needs a full refresh.
func latestSchema(ctx context.Context, st objstore.Store) (*schema.StructType, int, error) {
	sch, v, err := schemalog.Latest(ctx, st)
	return sch, v, CorruptHistory(err)
}

// saveSchema writes version v of the history unless it exists, and returns
// the schema that is stored at v (another committer may have won).
func saveSchema(ctx context.Context, st objstore.Store, v int, sch *schema.StructType) (*schema.StructType, error) {
	got, err := schemalog.Save(ctx, st, v, sch)
	return got, CorruptHistory(err)
}

// CorruptHistory turns a schemalog.CorruptError into an error wrapping
// identity.ErrFullRefreshNeeded that says how to recover.
func CorruptHistory(err error) error {
	var ce *schemalog.CorruptError
	if errors.As(err, &ce) {
		return fmt.Errorf("%w: the schema history %s is corrupt (%v): restore it, or %s", identity.ErrFullRefreshNeeded, ce.Key, ce.Err, identity.RefreshHowTo)
	}
	return err
}

// Resolve returns the schema batch p is written with and whether the
// table's metadata must be written with it (a new table or a changed schema).
// Restarts read the latest schema history version; they never re-infer.
func (s *Schemas) Resolve(ctx context.Context, snap *delta.Snapshot, p *batchplan.Plan) (*schema.StructType, int, bool, error) {
	return s.resolve(ctx, snap, p, s.initial)
}

// resolve is Resolve with initial giving the schema of a stream without
// schema history (s.initial, or a one-pass inference's).
func (s *Schemas) resolve(ctx context.Context, snap *delta.Snapshot, p *batchplan.Plan, initial func(context.Context, *batchplan.Plan) (*schema.StructType, error)) (*schema.StructType, int, bool, error) {
	st := s.History
	sch, v, err := latestSchema(ctx, st)
	if err != nil {
		return nil, 0, false, err
	}
	if sch == nil && p.BatchID > 0 {
		// The batch before recorded schema version 0: the history was
		// deleted. (An append-once batch numbered by txnVersion has no
		// batch before it.)
		if _, ok, err := batchplan.Read(ctx, s.Checkpoint, p.BatchID-1); err != nil {
			return nil, 0, false, err
		} else if ok {
			return nil, 0, false, fmt.Errorf("%w: the schema history (%s in the schema location) is gone, but the stream is at batch %d: inferring the schema again could change it under the table; restore it, or %s",
				identity.ErrFullRefreshNeeded, schemalog.Prefix, p.BatchID, identity.RefreshHowTo)
		}
	}
	if sch == nil {
		inferred, err := initial(ctx, p)
		if err != nil {
			return nil, 0, false, err
		}
		if sch, err = saveSchema(ctx, st, 0, inferred); err != nil {
			return nil, 0, false, err
		}
		v = 0
	} else if sch, v, err = s.applyChanges(ctx, st, sch, v); err != nil {
		return nil, 0, false, err
	}
	if snap == nil {
		return sch, v, true, nil
	}
	if err := s.CheckMergeSchema(snap, sch, p); err != nil {
		return nil, 0, false, err
	}
	// A schema the table cannot simply take (a column the stream lacks, an
	// overwrite) is decided when the commit is built (tableChange).
	tbl, err := s.TableSchema(snap, sch)
	return sch, v, err != nil || !schema.Equal(snap.Schema(), tbl), nil
}

// initial is the user schema, or the schema inferred from the plan's
// files within the sample caps, with hints applied and the rescued column last.
func (s *Schemas) initial(ctx context.Context, p *batchplan.Plan) (*schema.StructType, error) {
	if s.User != nil {
		return s.Partitions.WithPartitions(schemamerge.WithRescued(s.Partitions.DataSchema(s.User), s.Rescued)), nil
	}
	if fs, ok := s.Format.(formats.FixedSchema); ok {
		// text, binaryFile: nothing to sample.
		return s.Partitions.WithPartitions(schemamerge.WithRescued(s.Partitions.DataSchema(fs.Schema()), s.Rescued)), nil
	}
	var hints []schema.HintField
	if s.Hints != "" {
		h, err := schema.ParseDDL(s.Hints)
		if err != nil {
			return nil, fmt.Errorf("option cloudFiles.schemaHints: %w", err)
		}
		hints = h
	}
	inf := s.Format.NewInferrer(s.InferOptions(hints, s.SampleBytes))
	maxFiles := s.SampleFiles
	if maxFiles <= 0 {
		maxFiles = formats.DefaultSampleFiles
	}
	// Sample like Auto Loader: the first files discovered, not only this
	// batch's (a small maxFilesPerTrigger must not shrink the sample).
	sample := append([]batchplan.PlanFile(nil), p.Files...)
	if len(sample) < maxFiles {
		more, err := s.State.Pending(ctx, s.Stream, maxFiles-len(sample))
		if err != nil {
			return nil, fmt.Errorf("listing files for schema inference: %w", err)
		}
		for _, m := range more {
			sample = append(sample, batchplan.PlanFile{Path: m.Path, Size: m.Size, ETag: m.ETag})
		}
	}
	if err := s.sampleFiles(ctx, inf, sample, maxFiles); err != nil {
		return nil, err
	}
	return s.inferred(inf), nil
}

// inferred is the stream's schema inferred by inf: partition columns
// and the rescued column added.
func (s *Schemas) inferred(inf formats.Inferrer) *schema.StructType {
	return s.Partitions.WithPartitions(schemamerge.WithRescued(s.Partitions.DataSchema(inf.Schema()), s.Rescued))
}
