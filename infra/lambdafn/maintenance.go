package lambdafn

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/maintenance"
	"github.com/tributary-io/tributary/infra/streams"
)

// MaintenanceEvent selects what a maintenance run does. The schedule sends
// {} (everything, for every stream's table); an operator may invoke the
// function with a narrower event.
type MaintenanceEvent struct {
	// Optimize, Vacuum and CleanupLog switch each operation (default on).
	Optimize   *bool `json:"optimize,omitempty"`
	Vacuum     *bool `json:"vacuum,omitempty"`
	CleanupLog *bool `json:"cleanupLog,omitempty"`
	// DryRun reports what would be done and changes nothing.
	DryRun bool `json:"dryRun,omitempty"`
	// Streams limits the run to these stream ids (default: all).
	Streams []string `json:"streams,omitempty"`
}

func on(b *bool) bool { return b == nil || *b }

// MaintenanceResult reports one run, per table location.
type MaintenanceResult struct {
	Tables map[string]TableMaintenance `json:"tables"`
}

// TableMaintenance is one table's outcome.
type TableMaintenance struct {
	// Streams are the streams writing the table.
	Streams    []string                      `json:"streams"`
	Optimize   *maintenance.OptimizeResult   `json:"optimize,omitempty"`
	Vacuum     *maintenance.VacuumResult     `json:"vacuum,omitempty"`
	CleanupLog *maintenance.LogCleanupResult `json:"cleanupLog,omitempty"`
	Error      string                        `json:"error,omitempty"`
}

// HandleMaintenance keeps every stream's table healthy on a schedule:
// compaction of the small files streaming leaves (OPTIMIZE, dataChange=false,
// safe against the commit function's concurrent commits), log cleanup after
// delta.logRetentionDuration, then VACUUM after
// delta.deletedFileRetentionDuration. A table written by several streams is
// maintained once. A failing table does not stop the others; the run fails
// (and is retried by the schedule's async invocation) when any failed.
func (a *App) HandleMaintenance(ctx context.Context, ev MaintenanceEvent) (MaintenanceResult, error) {
	out := MaintenanceResult{Tables: map[string]TableMaintenance{}}
	var order []string
	for _, opts := range a.Config.Streams {
		if len(ev.Streams) > 0 && !slices.Contains(ev.Streams, opts.ID) {
			continue
		}
		tm, seen := out.Tables[opts.Table]
		if !seen {
			order = append(order, opts.Table)
		}
		tm.Streams = append(tm.Streams, opts.ID)
		out.Tables[opts.Table] = tm
	}
	for _, id := range ev.Streams {
		if _, ok := a.Config.Stream(id); !ok {
			return out, fmt.Errorf("maintenance: unknown stream %q", id)
		}
	}
	var errs []error
	for _, loc := range order {
		tm := out.Tables[loc]
		if err := a.maintainTable(ctx, loc, ev, &tm); err != nil {
			tm.Error = err.Error()
			errs = append(errs, fmt.Errorf("table %s: %w", loc, err))
		}
		out.Tables[loc] = tm
		a.Logger.Info("maintenance done", "table", loc, "streams", tm.Streams, "error", tm.Error)
	}
	return out, errors.Join(errs...)
}

func (a *App) maintainTable(ctx context.Context, loc string, ev MaintenanceEvent, tm *TableMaintenance) error {
	st, err := a.Env.OpenStore(loc)
	if err != nil {
		return err
	}
	defer streams.CloseStore(st)
	tbl := delta.NewTable(st, delta.WithLogger(a.Logger), delta.WithLocation(loc))
	if _, err := tbl.LatestVersion(ctx); errors.Is(err, delta.ErrNotATable) {
		return nil // no batch committed yet
	}
	base := maintenance.Options{Now: a.Now, Logger: a.Logger}
	if on(ev.Optimize) {
		res, err := maintenance.Optimize(ctx, tbl, maintenance.OptimizeOptions{Options: base, DryRun: ev.DryRun, TempDir: a.Env.TempDir})
		if err != nil && !errors.Is(err, maintenance.ErrConflict) {
			return fmt.Errorf("optimize: %w", err)
		}
		// A conflict with a concurrent commit is retried next time.
		tm.Optimize = &res
	}
	if on(ev.CleanupLog) {
		res, err := maintenance.CleanupLog(ctx, tbl, maintenance.LogCleanupOptions{Options: base, DryRun: ev.DryRun})
		if err != nil {
			return fmt.Errorf("log cleanup: %w", err)
		}
		tm.CleanupLog = &res
	}
	if on(ev.Vacuum) {
		res, err := maintenance.Vacuum(ctx, tbl, maintenance.VacuumOptions{Options: base, DryRun: ev.DryRun})
		if err != nil {
			return fmt.Errorf("vacuum: %w", err)
		}
		tm.Vacuum = &res
	}
	return nil
}
