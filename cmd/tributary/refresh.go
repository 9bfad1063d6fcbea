package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/refresh"
	"github.com/tributary-io/tributary/infra/streams"
)

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
	res, embedded, err := resetStream(ctx, e, opts, name, truncate)
	if err != nil {
		return err
	}
	if !embedded {
		fmt.Fprintf(stdout, "stream %s: %d file entries dropped from state table %s\n", opts.ID, res.StateEntries, e.StateTable)
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

// resetStream resets the stream on e's adapters with core/refresh
// (truncate: a full refresh; otherwise a checkpoint-only reset) and, for
// the embedded file state (embedded), deletes its file from the
// checkpoint; name is the command, for errors.
func resetStream(ctx context.Context, e streams.Env, opts *options.Stream, name string, truncate bool) (res refresh.Result, embedded bool, err error) {
	cpLoc := opts.CheckpointLocation()
	req, release, err := e.ResetRequest(opts, truncate)
	if err != nil {
		return refresh.Result{}, false, err
	}
	defer release()
	embedded = e.StateTable == "" && !streams.IsS3(cpLoc)
	// The embedded state: hold its lock, so a run of this stream cannot
	// start (or is running, and the reset waits, then fails); its file is
	// removed after the reset. DynamoDB state: the stream's entries are
	// dropped by the reset; nothing locks them, so the stream must be
	// stopped (docs/refresh.md).
	st, closeState, err := e.OpenState(cpLoc)
	if err != nil {
		if embedded {
			return refresh.Result{}, embedded, fmt.Errorf("%s: checkpoint %s: %w (is the stream running?)", name, cpLoc, err)
		}
		return refresh.Result{}, embedded, fmt.Errorf("%s: %w", name, err)
	}
	stateOpen := true
	defer func() {
		if stateOpen {
			closeState()
		}
	}()
	if !embedded {
		req.State = st
	}
	res, err = refresh.Reset(ctx, req)
	if err != nil {
		return res, embedded, fmt.Errorf("%s of stream %q: %w", name, opts.ID, err)
	}
	stateOpen = false
	if err := closeState(); err != nil {
		return res, embedded, fmt.Errorf("%s: closing the state: %w", name, err)
	}
	if embedded {
		if err := req.Checkpoint.Delete(ctx, streams.StateFileName); err != nil {
			return res, embedded, fmt.Errorf("%s: deleting the file state %s: %w", name, streams.StateFileName, err)
		}
	}
	return res, embedded, nil
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
			w = append(w, fmt.Sprintf("%d other writer(s) of this table were restarted (txn %s): each starts over from its source on its next run (its checkpoint and file state are reset then), as a full refresh restarts every flow writing the table", others, strings.Join(res.AppIDs, ", ")))
		}
	} else {
		w = append(w, "the table keeps its rows and the source is ingested again: rows already in the table are written twice")
	}
	if opts.CloudFiles.CleanSource != options.CleanOff {
		w = append(w, fmt.Sprintf("cloudFiles.cleanSource=%s: files it already moved or deleted are not in the source any more", opts.CloudFiles.CleanSource))
	}
	return w
}
