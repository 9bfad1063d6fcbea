package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"log/slog"
	"os"
	"runtime/trace"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/ingest/identity"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/infra/awsclient"
	"github.com/tributary-io/tributary/infra/boltstate"
	"github.com/tributary-io/tributary/infra/streams"
)

// optionFlags collects repeated --option key=value flags.
type optionFlags map[string]string

func (o optionFlags) String() string { return fmt.Sprint(map[string]string(o)) }

func (o optionFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return fmt.Errorf("--option %q: want key=value", v)
	}
	o[strings.TrimSpace(k)] = val
	return nil
}

// streamFlags are the flags that select one stream.
type streamFlags struct {
	config, streamID                    string
	source, table, checkpoint, schemaAt string
	format                              string
	opts                                optionFlags
}

func (f *streamFlags) register(fs *flag.FlagSet) {
	f.opts = optionFlags{}
	fs.StringVar(&f.config, "config", "", "stream configuration file (JSON)")
	fs.StringVar(&f.streamID, "stream", "", "stream id (default: from --config's only stream, or the checkpoint's metadata)")
	fs.StringVar(&f.source, "source", "", "source location (directory or s3:// URL; a Delta table with --format delta)")
	fs.StringVar(&f.format, "format", "", "source format: cloudFiles (Auto Loader, the default) or delta (read a Delta table as a stream)")
	fs.StringVar(&f.table, "table", "", "target Delta table location")
	fs.StringVar(&f.checkpoint, "checkpoint", "", "checkpointLocation (state, batch plans, schema history)")
	fs.StringVar(&f.schemaAt, "schema-location", "", "cloudFiles.schemaLocation (default: the checkpoint location)")
	fs.Var(f.opts, "option", "stream option key=value (repeatable), Auto Loader names")
}

// env builds the adapter environment; AWS is loaded only when a location needs it.
func env(ctx context.Context, logger *slog.Logger, locs ...string) (streams.Env, error) {
	e := streams.Env{Logger: logger, StateTable: os.Getenv("TRIBUTARY_STATE_TABLE")}
	needAWS := e.StateTable != ""
	for _, l := range locs {
		needAWS = needAWS || streams.IsS3(l)
	}
	if needAWS {
		cfg, err := awsclient.Load(ctx)
		if err != nil {
			return e, err
		}
		e.AWS = &cfg
	}
	return e, nil
}

// resolve parses the stream's options from a config file or from flags.
// With flags and no --stream, the stream id is the checkpoint's (created on
// first use): only run may call it then.
func (f *streamFlags) resolve(ctx context.Context, e streams.Env) (*options.Stream, error) {
	if f.config != "" {
		var given []string
		for _, v := range []struct{ flag, val string }{
			{"--source", f.source}, {"--table", f.table}, {"--checkpoint", f.checkpoint}, {"--schema-location", f.schemaAt}, {"--format", f.format},
		} {
			if v.val != "" {
				given = append(given, v.flag)
			}
		}
		if len(f.opts) > 0 {
			given = append(given, "--option")
		}
		if len(given) > 0 {
			return nil, fmt.Errorf("%w: %s cannot be combined with --config (set them in the configuration file)", errUsage, strings.Join(given, ", "))
		}
		file, err := os.Open(f.config)
		if err != nil {
			return nil, err
		}
		defer file.Close()
		cfg, err := options.LoadConfig(file)
		if err != nil {
			return nil, fmt.Errorf("config %s: %w", f.config, err)
		}
		if f.streamID == "" {
			if len(cfg.Streams) != 1 {
				return nil, fmt.Errorf("%w: config %s has %d streams: choose one with --stream", errUsage, f.config, len(cfg.Streams))
			}
			return cfg.Streams[0], nil
		}
		s, ok := cfg.Stream(f.streamID)
		if !ok {
			return nil, fmt.Errorf("config %s has no stream %q", f.config, f.streamID)
		}
		return s, nil
	}
	if f.source == "" || f.table == "" || f.checkpoint == "" {
		return nil, fmt.Errorf("%w: run needs --config, or --source, --table and --checkpoint", errUsage)
	}
	// A missing source is refused before the checkpoint is created or a
	// stream id recorded in it.
	if err := e.CheckSource(f.source); err != nil {
		return nil, err
	}
	id := f.streamID
	if id == "" {
		var err error
		if id, err = streamIDOf(ctx, e, f.checkpoint); err != nil {
			return nil, err
		}
	}
	raw := map[string]string(f.opts)
	schemaLoc := f.schemaAt
	if schemaLoc == "" && raw["cloudFiles.schemaLocation"] == "" && !strings.EqualFold(f.format, "delta") {
		// Like DLT, the schema history defaults to the checkpoint.
		schemaLoc = f.checkpoint
	}
	return options.Parse(raw, options.Locations{
		StreamID:           id,
		Source:             f.source,
		Table:              f.table,
		CheckpointLocation: f.checkpoint,
		SchemaLocation:     schemaLoc,
		SourceFormat:       f.format,
	})
}

// load resolves the stream's options and the environment its locations
// need (AWS only for s3:// locations or a DynamoDB state table).
func (f *streamFlags) load(ctx context.Context, logger *slog.Logger) (streams.Env, *options.Stream, error) {
	if f.config == "" {
		e, err := env(ctx, logger, f.source, f.table, f.checkpoint, f.schemaAt)
		if err != nil {
			return e, nil, err
		}
		opts, err := f.resolve(ctx, e)
		return e, opts, err
	}
	opts, err := f.resolve(ctx, streams.Env{})
	if err != nil {
		return streams.Env{}, nil, err
	}
	e, err := env(ctx, logger, opts.Source, opts.Table, opts.CheckpointLocation(),
		opts.CloudFiles.SchemaLocation, opts.CloudFiles.MoveDestination)
	return e, opts, err
}

// withTrigger returns opts parsed again with the trigger option set to
// trigger (--trigger overrides a configuration file's trigger).
func withTrigger(opts *options.Stream, trigger string) (*options.Stream, error) {
	raw := map[string]string{}
	for k, v := range opts.Raw {
		if !strings.EqualFold(k, "trigger") {
			raw[k] = v
		}
	}
	raw["trigger"] = trigger
	s, err := options.Parse(raw, options.Locations{
		StreamID:           opts.ID,
		Source:             opts.Source,
		Table:              opts.Table,
		CheckpointLocation: opts.CheckpointLocation(),
		SchemaLocation:     opts.CloudFiles.SchemaLocation,
		SourceFormat:       string(opts.SourceFormat),
		UserSchema:         opts.UserSchema,
	})
	if err != nil {
		return nil, fmt.Errorf("--trigger: %w", err)
	}
	return s, nil
}

// claimCheckpoint records the stream id in the checkpoint's metadata on
// first use, and refuses a checkpoint that another stream id created (a run
// with another id would find no file state and ingest everything again).
func claimCheckpoint(ctx context.Context, e streams.Env, opts *options.Stream) error {
	cp := opts.CheckpointLocation()
	st, err := e.OpenStore(cp)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", cp, err)
	}
	defer streams.CloseStore(st)
	if _, err := streams.CheckpointMetadata(ctx, st, opts.ID, time.Now()); err != nil {
		if errors.Is(err, streams.ErrForeignCheckpoint) {
			return fmt.Errorf("checkpoint %s: %w (run without --stream to use its stream, or give this stream a new checkpoint)", cp, err)
		}
		return fmt.Errorf("checkpoint %s: %w", cp, err)
	}
	return nil
}

// streamIDOf reads (or creates) the stream id kept in the checkpoint's
// metadata file, as Spark keeps a query id in checkpointLocation/metadata.
// A checkpoint that has file state but no metadata (first run with
// --stream by an older version) keeps the one stream its state holds.
func streamIDOf(ctx context.Context, e streams.Env, checkpoint string) (string, error) {
	st, err := e.OpenStore(checkpoint)
	if err != nil {
		return "", fmt.Errorf("checkpoint %s: %w", checkpoint, err)
	}
	defer streams.CloseStore(st)
	m, ok, err := streams.ReadCheckpointMetadata(ctx, st)
	if err != nil {
		return "", fmt.Errorf("checkpoint %s: %w", checkpoint, err)
	}
	if ok {
		return m.ID, nil
	}
	id, err := stateStream(ctx, e, checkpoint)
	if err != nil {
		return "", err
	}
	if m, err = streams.CheckpointMetadata(ctx, st, id, time.Now()); err != nil {
		return "", fmt.Errorf("checkpoint %s: %w", checkpoint, err)
	}
	return m.ID, nil
}

// stateStream returns the only stream id of the checkpoint's embedded
// state, "" when there is no state.
func stateStream(ctx context.Context, e streams.Env, checkpoint string) (string, error) {
	st, closeState, err := e.OpenStateReadOnly(checkpoint)
	var ce *boltstate.CorruptError
	if errors.Is(err, iofs.ErrNotExist) || errors.As(err, &ce) && ce.NeverUsed {
		return "", nil // no state (the run replaces a file that never held any)
	}
	if err != nil {
		return "", err
	}
	defer closeState()
	lister, ok := st.(interface {
		Streams(context.Context) ([]string, error)
	})
	if !ok {
		return "", nil
	}
	ids, err := lister.Streams(ctx)
	switch {
	case err != nil:
		return "", err
	case len(ids) > 1:
		return "", fmt.Errorf("%w: checkpoint %s holds the state of several streams (%s): choose one with --stream", errUsage, checkpoint, strings.Join(ids, ", "))
	case len(ids) == 1:
		return ids[0], nil
	}
	return "", nil
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer, logger *slog.Logger) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var sf streamFlags
	sf.register(fs)
	trigger := fs.String("trigger", "", "availableNow (default), once, or processingTime=INTERVAL (run every INTERVAL until interrupted); overrides the trigger option")
	quiet := fs.Bool("quiet", false, "no per-batch progress lines")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *trigger != "" && sf.config == "" {
		sf.opts["trigger"] = *trigger
	}
	region := trace.StartRegion(ctx, "cli.load")
	e, opts, err := sf.load(ctx, logger)
	region.End()
	if err != nil {
		return err
	}
	if *trigger != "" && sf.config != "" {
		if opts, err = withTrigger(opts, *trigger); err != nil {
			return err
		}
	}
	// Refuse what this process cannot run before anything is written.
	if err := e.Validate(opts); err != nil {
		return err
	}
	for _, w := range opts.Warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if err := e.CheckSource(opts.Source); err != nil {
		return err
	}
	region = trace.StartRegion(ctx, "cli.claimCheckpoint")
	err = claimCheckpoint(ctx, e, opts)
	region.End()
	if err != nil {
		return err
	}
	region = trace.StartRegion(ctx, "cli.open")
	s, err := e.Open(ctx, opts)
	region.End()
	if err != nil {
		return err
	}
	closed := false
	defer func() {
		if !closed {
			s.Close()
		}
	}()
	fmt.Fprintf(stderr, "stream %s: %s -> %s\n", opts.ID, opts.Source, opts.Table)
	if !*quiet {
		s.Engine.OnBatch = func(p ingest.Progress) {
			fmt.Fprintf(stderr, "batch %d: %d files, %d rows -> table version %d (%.0f rows/s, %d files outstanding)\n",
				p.BatchID, p.NumInputFiles, p.NumInputRows, p.TableVersion, p.InputRowsPerSecond, p.NumFilesOutstanding)
		}
	}
	trig := opts.Sink.Trigger
	periodic := opts.IsSet("trigger") && trig.Kind == options.TriggerProcessingTime
	if periodic {
		// processingTime: a pass every interval (back to back, with a
		// short idle wait when nothing is new, for 0) until interrupted.
		fmt.Fprintf(stderr, "trigger %s: running until interrupted\n", trig)
	}
	for {
		started := time.Now()
		err := runPass(ctx, s, stdout, stderr)
		if errors.Is(err, identity.ErrRestartedByReset) {
			// The table restarted this stream (another stream's full
			// refresh; the engine checks once, before its first batch): it
			// starts over from its source, as seed 004 restarts every flow
			// writing a refreshed table.
			closed = true
			if cerr := s.Close(); cerr != nil {
				return cerr
			}
			fmt.Fprintf(stderr, "warning: %v\n", err)
			res, _, rerr := resetStream(ctx, e, opts, "reset-checkpoint", false)
			if rerr != nil {
				return fmt.Errorf("starting stream %q over: %w", opts.ID, rerr)
			}
			fmt.Fprintf(stderr, "stream %s: starting over from its source: checkpoint %s emptied (%d objects), file state forgotten, table version %d records the restart\n",
				opts.ID, opts.CheckpointLocation(), res.CheckpointKeys, res.Version)
			return cmdRun(ctx, args, stdout, stderr, logger)
		}
		if !periodic {
			// availableNow (the CLI's default) or once: one pass, then stop.
			return err
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		wait := max(trig.Interval-time.Since(started), 0)
		if trig.Interval == 0 {
			wait = idleWait
		}
		if !*quiet {
			fmt.Fprintf(stderr, "next pass in %s\n", wait.Round(time.Millisecond))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// idleWait paces a processingTime=0 trigger between passes.
const idleWait = time.Second

// runPass lists the source, registers new files and runs availableNow.
func runPass(ctx context.Context, s *streams.Stream, stdout, stderr io.Writer) error {
	start := time.Now()
	region := trace.StartRegion(ctx, "cli.discover")
	found, err := s.Discover(ctx)
	region.End()
	if err != nil {
		return err
	}
	if s.Options.SourceFormat != options.SourceDelta {
		fmt.Fprintf(stderr, "discovered %d files (%d new, %s)\n", found.Listed, found.New, humanBytes(found.Bytes))
	}
	if found.Skipped > 0 {
		fmt.Fprintf(stderr, "%d source entries cannot be ingested (recorded SKIPPED with the reason: tributary state --state SKIPPED)\n", found.Skipped)
	}
	region = trace.StartRegion(ctx, "cli.runAvailableNow")
	sum, err := s.Engine.RunAvailableNow(ctx, nil)
	region.End()
	if errors.Is(err, ingest.ErrSchemaEvolved) {
		return fmt.Errorf("%w\n(%d batches were committed before; like Auto Loader after an UnknownFieldException, the next run continues with the new schema)", err, len(sum.Batches))
	}
	if err != nil {
		return err
	}
	var files, skipped int
	for _, b := range sum.Batches {
		files += b.NumInputFiles
		skipped += b.NumSkippedFiles
	}
	fmt.Fprintf(stdout, "ingested %d rows from %d files in %d batches (%d files skipped) in %s\n",
		sum.Rows(), files, len(sum.Batches), skipped, time.Since(start).Round(time.Millisecond))
	if len(sum.Batches) == 0 {
		fmt.Fprintln(stdout, "nothing new: the table is up to date")
	}
	return nil
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
