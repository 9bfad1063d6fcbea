package ingest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/convert"
	"github.com/tributary-io/tributary/core/ingest/schemamerge"
	"slices"
	"strings"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/refresh"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/core/schema/widen"
)

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

// evolves reports whether the mode stops a batch on new columns.
func (c SchemaConfig) evolves() bool {
	switch c.EvolutionMode {
	case options.EvolveAddNewColumns, options.EvolveAddNewColumnsWithTypeWidening, options.EvolveFailOnNewColumns:
		return true
	}
	return false
}

// onNewColumns handles new columns found in plan p's files under schema
// version v: failOnNewColumns fails; addNewColumns infers the new columns
// from the files that hold them, appends them to the schema history as
// version v+1 and stops the batch. It returns nil when inference finds
// nothing to add (the values stay rescued).
func (e *Engine) onNewColumns(ctx context.Context, current *schema.StructType, v int, nc *convert.NewColumns, p *Plan) error {
	if e.Config.Schema.EvolutionMode == options.EvolveFailOnNewColumns {
		return fmt.Errorf("%w: %v; the stream fails until the schema has the column(s) (add them with cloudFiles.schemaHints or the user schema) or the file is removed (then set ignoreMissingFiles=true to skip it); nothing was committed", ErrNewColumns, nc)
	}
	if e.Config.NoMergeSchema && e.snap != nil && len(nc.Paths) > 0 {
		// The table could not take the columns: fail before the schema
		// history evolves, naming the file that has them.
		return fmt.Errorf("%w: batch %d: %v: %s", ErrMergeSchemaOff, p.BatchID, nc, mergeSchemaAdvice)
	}
	cfg := e.Config.Schema
	// The file that holds the new columns is sampled first and whole: the
	// inference sample budget (sampleSize.numBytes) bounds the initial
	// inference only, and must not hide the very columns that stopped the
	// batch (they would be rescued silently instead of added).
	inf := e.Config.Format.NewInferrer(e.inferOptions(nil, 0))
	files := slices.Clone(p.Files)
	slices.SortStableFunc(files, func(a, b PlanFile) int {
		return cmp.Compare(boolRank(a.Path != nc.File), boolRank(b.Path != nc.File))
	})
	for _, f := range files {
		if inf.Full() {
			break
		}
		if err := e.converter().Sample(ctx, inf, f.Path); err != nil {
			return err
		}
	}
	base := e.sourceParts().DataSchema(current)
	var widened []widen.Change
	if cfg.EvolutionMode == options.EvolveAddNewColumnsWithTypeWidening {
		base, widened = widen.Schema(base, e.sourceParts().DataSchema(inf.Schema()), cfg.rescuedColumn(), e.widenOptions())
		if len(widened) > 0 {
			if err := e.checkWidening(nc.File, widened, p.BatchID); err != nil {
				return err
			}
		}
	}
	next, added := schemamerge.AddMissing(base, e.sourceParts().DataSchema(inf.Schema()), cfg.rescuedColumn())
	if len(added) == 0 && len(widened) == 0 {
		return nil
	}
	next = e.sourceParts().WithPartitions(next)
	if _, err := saveSchema(ctx, e.schemaStore(), v+1, next); err != nil {
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
	e.log().Warn("schema evolved", "stream", e.Config.StreamID, "batchId", p.BatchID,
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

// checkMergeSchema refuses, when mergeSchema is false, a batch schema that
// adds columns to the existing table (snap non-nil). files names the batch's
// input files for the error.
func (e *Engine) checkMergeSchema(snap *delta.Snapshot, next *schema.StructType, p *Plan) error {
	if !e.Config.NoMergeSchema || snap == nil || refresh.Refreshed(snap, e.appID()) {
		return nil
	}
	_, added := schemamerge.AddMissing(snap.Schema(), next, "")
	if len(added) == 0 {
		return nil
	}
	return fmt.Errorf("%w: batch %d would add column(s) %s to the table (files %s): %s",
		ErrMergeSchemaOff, p.BatchID, strings.Join(added, ", "), p.FileList(), mergeSchemaAdvice)
}

// checkSchemaChanges applies (or refuses) a changed user schema or
// cloudFiles.schemaHints when the stream starts, whether or not files are
// outstanding; it reads the schema history only when they changed.
func (e *Engine) checkSchemaChanges(ctx context.Context) error {
	rec := e.recorded
	if rec == nil || e.schemaChecked {
		return nil
	}
	want, err := e.identity()
	if err != nil {
		return err
	}
	if rec.UserSchema != want.UserSchema || rec.SchemaHints != want.SchemaHints {
		st := e.schemaStore()
		sch, v, err := latestSchema(ctx, st)
		if err != nil {
			return err
		}
		if sch != nil {
			if _, _, err := e.applySchemaChanges(ctx, st, sch, v); err != nil {
				return err
			}
		}
	}
	e.schemaChecked = true
	return nil
}

// applySchemaChanges is called with the latest schema of the history (version
// v) before a batch is written. When the user-specified schema or
// cloudFiles.schemaHints differ from those recorded in the checkpoint's
// identity, it does what restarting an Auto Loader stream with changed
// options does: columns the new schema or hints add become a new schema
// version (the table gains them with the next commit, as mergeSchema
// allows); a retyped or dropped column cannot be resumed from and is refused
// with the full-refresh hint; anything else (a removed hint, reordered
// hints) changes no existing column and is only logged. The identity record
// then holds the new values.
func (e *Engine) applySchemaChanges(ctx context.Context, st objstore.Store, current *schema.StructType, v int) (*schema.StructType, int, error) {
	rec := e.recorded
	if rec == nil {
		return current, v, nil
	}
	want, err := e.identity()
	if err != nil {
		return nil, 0, err
	}
	if rec.UserSchema == want.UserSchema && rec.SchemaHints == want.SchemaHints {
		return current, v, nil
	}
	rescued := e.Config.Schema.rescuedColumn()
	var what string
	next := current
	switch {
	case rec.UserSchema != want.UserSchema && e.Config.Schema.User != nil:
		what = "the user-specified schema"
		next = e.sourceParts().WithPartitions(schemamerge.WithRescued(e.sourceParts().DataSchema(e.Config.Schema.User), rescued))
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
			ErrFullRefreshNeeded, what, v, err, RefreshHowTo)
	}
	merged, added := schemamerge.AddMissing(current, next, rescued)
	if len(added) > 0 {
		saved, err := saveSchema(ctx, st, v+1, merged)
		if err != nil {
			return nil, 0, err
		}
		current, v = saved, v+1
		e.log().Warn(what+" changed: new columns added to the stream's schema",
			"stream", e.Config.StreamID, "newColumns", added, "schemaVersion", v)
	} else {
		e.log().Warn(what+" changed: no column is added or retyped; existing columns keep their types",
			"stream", e.Config.StreamID, "schemaVersion", v)
	}
	next2 := *rec
	next2.UserSchema, next2.SchemaHints = want.UserSchema, want.SchemaHints
	if err := e.saveIdentity(ctx, next2); err != nil {
		return nil, 0, err
	}
	e.recorded = &next2
	return current, v, nil
}
