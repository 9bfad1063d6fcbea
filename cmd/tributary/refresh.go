package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/refresh"
	"github.com/tributary-io/tributary/infra/streams"
)

// errStateElsewhere refuses a reset whose file state is not in the
// checkpoint directory (DynamoDB): its entries cannot be dropped yet.
var errStateElsewhere = errors.New("not supported yet: the stream's file state is in the DynamoDB table TRIBUTARY_STATE_TABLE, whose entries the CLI cannot drop yet; start a new stream id instead")

// cmdRefresh runs a full refresh (truncate=true: `tributary refresh`) or a
// checkpoint-only reset (`tributary reset-checkpoint`) of one stream, then
// (unless --no-run) ingests the source from scratch as `tributary run`
// does with the same flags.
func cmdRefresh(ctx context.Context, name string, truncate bool, args []string, stdout, stderr io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf streamFlags
	sf.register(fs)
	fs.String("trigger", "", "passed to the run that follows")
	fs.Bool("quiet", false, "passed to the run that follows")
	noRun := fs.Bool("no-run", false, "reset only; do not ingest")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: %s takes flags only, got %q", errUsage, name, fs.Args())
	}
	e, opts, err := sf.load(ctx, logger)
	if err != nil {
		return err
	}
	if err := e.Validate(opts); err != nil {
		return err
	}
	cpLoc := opts.CheckpointLocation()
	if e.StateTable != "" || streams.IsS3(cpLoc) {
		return fmt.Errorf("%s of stream %q: %w", name, opts.ID, errStateElsewhere)
	}
	// Hold the embedded state's lock: a run of this stream cannot start
	// (or is running, and the reset waits, then fails).
	_, closeState, err := e.OpenState(cpLoc)
	if err != nil {
		return fmt.Errorf("%s: checkpoint %s: %w (is the stream running?)", name, cpLoc, err)
	}
	stateOpen := true
	defer func() {
		if stateOpen {
			closeState()
		}
	}()
	tableStore, err := e.OpenStore(opts.Table)
	if err != nil {
		return fmt.Errorf("table %s: %w", opts.Table, err)
	}
	cp, err := e.OpenStore(cpLoc)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", cpLoc, err)
	}
	req := refresh.Request{
		Table:      delta.NewTable(tableStore, delta.WithLogger(logger), delta.WithLocation(locationURI(opts.Table))),
		Checkpoint: cp,
		StreamID:   opts.ID,
		AppID:      opts.Sink.TxnAppID,
		Truncate:   truncate,
		// The checkpoint keeps naming the stream (and its first start,
		// which includeExistingFiles=false counts from); the state file is
		// removed once its lock is released.
		Keep: []string{streams.MetadataKey, streams.StateFileName},
	}
	if loc := opts.CloudFiles.SchemaLocation; loc != "" && loc != cpLoc {
		if req.SchemaStore, err = e.OpenStore(loc); err != nil {
			return fmt.Errorf("cloudFiles.schemaLocation %s: %w", loc, err)
		}
	}
	res, err := refresh.Reset(ctx, req)
	if err != nil {
		return fmt.Errorf("%s of stream %q: %w", name, opts.ID, err)
	}
	stateOpen = false
	if err := closeState(); err != nil {
		return fmt.Errorf("%s: closing the state: %w", name, err)
	}
	if err := cp.Delete(ctx, streams.StateFileName); err != nil {
		return fmt.Errorf("%s: deleting the file state %s: %w", name, streams.StateFileName, err)
	}
	switch {
	case res.Version < 0:
		fmt.Fprintf(stdout, "stream %s: table %s does not exist yet; checkpoint %s emptied (%d objects)\n", opts.ID, opts.Table, cpLoc, res.CheckpointKeys)
	case truncate:
		fmt.Fprintf(stdout, "stream %s: table %s version %d removes all %d files (%s); txn restarted for %s; checkpoint %s emptied (%d objects)\n",
			opts.ID, opts.Table, res.Version, res.FilesRemoved, humanBytes(res.BytesRemoved), strings.Join(res.AppIDs, ", "), cpLoc, res.CheckpointKeys)
	default:
		fmt.Fprintf(stdout, "stream %s: table %s version %d restarts txn %s (the table's rows stay); checkpoint %s emptied (%d objects)\n",
			opts.ID, opts.Table, res.Version, strings.Join(res.AppIDs, ", "), cpLoc, res.CheckpointKeys)
	}
	for _, w := range refreshWarnings(opts, truncate, res) {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if *noRun {
		return nil
	}
	var runArgs []string
	for _, a := range args {
		if a != "--no-run" && a != "-no-run" && !strings.HasPrefix(a, "--no-run=") && !strings.HasPrefix(a, "-no-run=") {
			runArgs = append(runArgs, a)
		}
	}
	if sf.config == "" && sf.streamID == "" {
		// The checkpoint's metadata still names the stream.
		runArgs = append(runArgs, "--stream", opts.ID)
	}
	return cmdRun(ctx, runArgs, stdout, stderr, logger)
}

// refreshWarnings are seed 004's warnings about what a reset cannot undo.
func refreshWarnings(opts *options.Stream, truncate bool, res refresh.Result) []string {
	var w []string
	if truncate {
		w = append(w,
			"only files still in the source are ingested again: files that retention, lifecycle rules or cloudFiles.cleanSource removed are lost; re-populate them with an append-once backfill (txnAppId + txnVersion) from a historical location",
			"streams reading this table (a Delta source downstream) fail on the truncation commit unless they set skipChangeCommits: refresh them too",
			"the removed files stay in the table's folder for time travel until `tributary vacuum` after delta.deletedFileRetentionDuration (7 days)")
		if others := len(res.AppIDs) - 1; others > 0 {
			w = append(w, fmt.Sprintf("%d other writer(s) of this table were restarted (txn %s): reset their checkpoints too (`tributary reset-checkpoint`), or they refuse to run", others, strings.Join(res.AppIDs, ", ")))
		}
	} else {
		w = append(w, "the table keeps its rows and the source is ingested again: rows already in the table are written twice")
	}
	if opts.CloudFiles.CleanSource != options.CleanOff {
		w = append(w, fmt.Sprintf("cloudFiles.cleanSource=%s: files it already moved or deleted are not in the source any more", opts.CloudFiles.CleanSource))
	}
	return w
}
