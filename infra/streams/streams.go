// Package streams opens the adapters a stream configuration names — object
// stores for its source, table and checkpoint locations (local directories
// or s3:// URLs) and its file-state store (embedded bbolt or DynamoDB) — and
// assembles the ingest engine and discovery for it. The CLI and the Lambda
// functions both start here, so they run the same wiring.
package streams

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/discovery"
	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/awsclient"
	"github.com/tributary-io/tributary/infra/boltstate"
	"github.com/tributary-io/tributary/infra/dynamostate"
	"github.com/tributary-io/tributary/infra/inboxstate"
	"github.com/tributary-io/tributary/infra/localfs"
	"github.com/tributary-io/tributary/infra/s3store"
)

// StateFileName is the embedded state store's file inside a local
// checkpoint directory.
const StateFileName = "state.db"

// Env holds what is shared by every stream a process opens.
type Env struct {
	// AWS is the SDK config; required for s3:// locations and DynamoDB.
	AWS *aws.Config
	// StateTable is the DynamoDB table of the file state; empty selects the
	// embedded store in the (local) checkpoint directory.
	StateTable string
	// Logger receives the engine's records.
	Logger *slog.Logger
	// TempDir holds Parquet files while they are written.
	TempDir string
	// Notifications is true when the process discovers files from S3
	// event notifications (the Lambda functions) and false when it lists
	// the source (the CLI). A stream whose cloudFiles.useNotifications
	// disagrees is refused at load time (Validate): the option is never
	// accepted and then ignored.
	Notifications bool
	// ScheduledListing is true when the process also runs directory
	// listing streams (cloudFiles.useNotifications=false) beside the
	// notification-fed ones: the functions' scheduled (backfill) function
	// lists them, and the discovery function ignores their events.
	ScheduledListing bool
}

// ErrWrongRuntime is wrapped by Validate when the stream's discovery mode
// (cloudFiles.useNotifications) is not the one this process runs.
var ErrWrongRuntime = errors.New("discovery mode not available here")

// Validate checks, without touching any location, that this process can
// run the stream as configured: the engine accepts its options
// (ingest.ConfigFromOptions), its path glob compiles, its locations have a
// scheme Open can open, and its discovery mode is this process's.
// The CLI and the functions call it at load / cold start.
func (env Env) Validate(opts *options.Stream) error {
	if _, err := ingest.ConfigFromOptions(opts); err != nil {
		return err
	}
	if g := opts.Reader.PathGlobFilter; g != "" {
		if _, err := discovery.CompileGlob(g); err != nil {
			return fmt.Errorf("stream %q option pathGlobFilter: %w", opts.ID, err)
		}
	}
	for _, l := range []struct{ what, loc string }{
		{"source", opts.Source}, {"table", opts.Table}, {"checkpointLocation", opts.CheckpointLocation()},
		{"option cloudFiles.schemaLocation", opts.CloudFiles.SchemaLocation},
		{"option cloudFiles.cleanSource.moveDestination", opts.CloudFiles.MoveDestination},
	} {
		switch {
		case l.loc == "":
		case IsS3(l.loc):
			if _, _, err := s3store.ParseURL(l.loc); err != nil {
				return fmt.Errorf("stream %q %s %s: %w", opts.ID, l.what, l.loc, err)
			}
		case strings.Contains(l.loc, "://"):
			return fmt.Errorf("stream %q %s %s: unsupported scheme (want a local path or s3://)", opts.ID, l.what, l.loc)
		}
	}
	switch {
	case opts.SourceFormat == options.SourceDelta:
		// A Delta source reads its table's log, in the CLI and in the
		// functions alike (kicked by events on _delta_log/ and the schedule).
	case opts.CloudFiles.UseNotifications && !env.Notifications:
		return fmt.Errorf("stream %q: option cloudFiles.useNotifications=true: %w: the CLI discovers files by listing the source; file notification mode runs in the deployed functions (template.yaml)", opts.ID, ErrWrongRuntime)
	case !opts.CloudFiles.UseNotifications && env.Notifications && !env.ScheduledListing:
		return fmt.Errorf("stream %q: option cloudFiles.useNotifications=false: %w: the deployed functions discover files from S3 event notifications (backfill lists on a schedule); run a directory-listing stream with the CLI", opts.ID, ErrWrongRuntime)
	}
	return nil
}

// Stream is an opened stream: its adapters and engine.
type Stream struct {
	// Options is the parsed configuration.
	Options *options.Stream
	// Source is the store rooted at the source location.
	Source objstore.Store
	// Table is the target Delta table.
	Table *delta.Table
	// State is the file-state store.
	State state.Store
	// Filter selects input keys (pathGlobFilter, modifiedAfter,
	// modifiedBefore, hidden files, folder markers).
	Filter discovery.Filter
	// Registrar records discovered files.
	Registrar *discovery.Registrar
	// Engine runs batches.
	Engine *ingest.Engine
	// Checkpoint is the store at the checkpoint location.
	Checkpoint objstore.Store
	// incremental is set when Discover lists incrementally
	// (cloudFiles.useIncrementalListing=true in directory listing mode).
	incremental bool

	closers []func() error
}

// Close releases the stream's resources: the embedded state store's lock
// and the directories its local stores hold open.
func (s *Stream) Close() error {
	var errs []error
	for _, c := range s.closers {
		errs = append(errs, c())
	}
	return errors.Join(errs...)
}

// own makes Close release st (nil: nothing opened).
func (s *Stream) own(st objstore.Store) {
	if st != nil {
		s.closers = append(s.closers, func() error { return CloseStore(st) })
	}
}

// CloseStore releases what st holds open, if anything: a local store holds
// its root directory open until it is closed; an S3 store holds nothing.
// Every store OpenStore or OpenExistingStore returns is closed this way
// when its user is done with it.
func CloseStore(st objstore.Store) error {
	if c, ok := st.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// IsS3 reports whether loc is an s3:// URL.
func IsS3(loc string) bool { return strings.HasPrefix(loc, "s3://") }

// OpenStore opens the object store rooted at loc.
func (env Env) OpenStore(loc string) (objstore.Store, error) {
	if IsS3(loc) {
		if env.AWS == nil {
			return nil, fmt.Errorf("location %s needs AWS configuration", loc)
		}
		bucket, prefix, err := s3store.ParseURL(loc)
		if err != nil {
			return nil, fmt.Errorf("location %s: %w", loc, err)
		}
		return s3store.New(awsclient.NewS3(*env.AWS), bucket, prefix)
	}
	if strings.Contains(loc, "://") {
		return nil, fmt.Errorf("location %s: unsupported scheme (want a local path or s3://)", loc)
	}
	return localfs.New(loc)
}

// openSource opens the stream's source. A local source directory must
// exist; it is read as Hadoop's local file system reads it (symbolic links
// followed wherever they lead), except that the stream's own local
// locations (table, checkpoint, schema location, move destination) are
// never listed, whichever link leads there.
func (env Env) openSource(opts *options.Stream) (objstore.Store, error) {
	if IsS3(opts.Source) || strings.Contains(opts.Source, "://") {
		return env.OpenStore(opts.Source)
	}
	lopts := []localfs.Option{localfs.WithExistingRoot(), localfs.WithFollowLinks()}
	for _, own := range []struct{ loc, what string }{
		{opts.Table, "the stream's table"},
		{opts.CheckpointLocation(), "the stream's checkpoint location"},
		{opts.CloudFiles.SchemaLocation, "the stream's schema location"},
		{opts.CloudFiles.MoveDestination, "the stream's cleanSource.moveDestination"},
	} {
		if own.loc != "" && !IsS3(own.loc) && !strings.Contains(own.loc, "://") {
			lopts = append(lopts, localfs.WithExcluded(own.loc, own.what))
		}
	}
	st, err := localfs.New(opts.Source, lopts...)
	if err != nil {
		return nil, fmt.Errorf("location %s: %w", opts.Source, err)
	}
	return st, nil
}

// CheckSource reports a local source directory that does not exist (or
// is not a directory), naming it, without creating anything; s3:// sources
// are not checked (a missing prefix is an empty listing there, as in S3).
func (env Env) CheckSource(loc string) error {
	if loc == "" || strings.Contains(loc, "://") {
		return nil
	}
	fi, err := os.Stat(loc)
	switch {
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("source %s does not exist", loc)
	case err != nil:
		return fmt.Errorf("source %s: %w", loc, err)
	case !fi.IsDir():
		return fmt.Errorf("source %s is not a directory", loc)
	}
	return nil
}

// OpenExistingStore opens the object store rooted at loc without creating
// anything: a local directory must exist (OpenStore creates it). The
// read-only commands open their locations this way.
func (env Env) OpenExistingStore(loc string) (objstore.Store, error) {
	if IsS3(loc) || strings.Contains(loc, "://") {
		return env.OpenStore(loc)
	}
	return localfs.New(loc, localfs.WithExistingRoot())
}

// Open opens every adapter of the stream and builds its engine.
func (env Env) Open(ctx context.Context, opts *options.Stream) (*Stream, error) {
	if err := env.Validate(opts); err != nil {
		return nil, err
	}
	cfg, err := ingest.ConfigFromOptions(opts)
	if err != nil {
		return nil, err
	}
	cfg.SourceURI = absLocation(opts.Source)
	cfg.TableURI = absLocation(opts.Table)
	cfg.CheckpointURI = absLocation(opts.CheckpointLocation())
	cfg.StateForgets = opts.CloudFiles.MaxFileAge > 0 || opts.CloudFiles.AllowOverwrites
	if opts.SourceFormat == options.SourceDelta {
		return env.openDelta(ctx, opts, cfg)
	}
	s := &Stream{Options: opts}
	ok := false
	defer func() {
		if !ok {
			s.Close()
		}
	}()
	if s.Source, err = env.openSource(opts); err != nil {
		return nil, fmt.Errorf("stream %q source: %w", opts.ID, err)
	}
	s.own(s.Source)
	tableStore, err := env.OpenStore(opts.Table)
	if err != nil {
		return nil, fmt.Errorf("stream %q table: %w", opts.ID, err)
	}
	s.own(tableStore)
	s.Table = delta.NewTable(tableStore, delta.WithLogger(env.logger()), delta.WithEngineInfo("tributary"))
	cpLoc := opts.CheckpointLocation()
	cp, err := env.OpenStore(cpLoc)
	if err != nil {
		return nil, fmt.Errorf("stream %q checkpointLocation: %w", opts.ID, err)
	}
	s.own(cp)
	s.Checkpoint = cp
	// Backfill (notification mode) always lists everything: it is there
	// to find files whose events were lost, whatever their keys.
	s.incremental = opts.CloudFiles.UseIncrementalListing == discovery.IncrementalOn && !opts.CloudFiles.UseNotifications
	var schemaStore objstore.Store
	if loc := opts.CloudFiles.SchemaLocation; loc != "" && loc != cpLoc {
		if schemaStore, err = env.OpenStore(loc); err != nil {
			return nil, fmt.Errorf("stream %q cloudFiles.schemaLocation: %w", opts.ID, err)
		}
		s.own(schemaStore)
	}
	var closeState func() error
	if s.State, closeState, err = env.openState(ctx, cpLoc, opts.CloudFiles.AllowOverwrites, opts.CloudFiles.MaxFileAge); err != nil {
		return nil, fmt.Errorf("stream %q state: %w", opts.ID, err)
	}
	s.closers = append(s.closers, closeState)
	s.Filter.ModifiedAfter, s.Filter.ModifiedBefore = opts.Reader.ModifiedAfter, opts.Reader.ModifiedBefore
	if g := opts.Reader.PathGlobFilter; g != "" {
		glob, err := discovery.CompileGlob(g)
		if err != nil {
			return nil, fmt.Errorf("stream %q option pathGlobFilter: %w", opts.ID, err)
		}
		s.Filter.Glob = glob
	}
	s.Registrar = &discovery.Registrar{
		State:      s.State,
		Stream:     opts.ID,
		Options:    state.RegisterOptions{AllowOverwrites: opts.CloudFiles.AllowOverwrites},
		MaxFileAge: opts.CloudFiles.MaxFileAge,
		Logger:     env.logger(),
	}
	if !opts.CloudFiles.IncludeExistingFiles {
		// Only then is the stream's first start needed (the functions'
		// least-privilege roles allow just this one checkpoint object).
		meta, err := CheckpointMetadata(ctx, cp, opts.ID, time.Now())
		if err != nil {
			return nil, fmt.Errorf("stream %q checkpointLocation %s: %w", opts.ID, cpLoc, err)
		}
		s.Registrar.NotBefore = meta.StartedAt
		cfg.GeneratedID = meta.Generated && meta.ID == opts.ID
	} else if !env.Notifications {
		// The CLI generates a stream id for a new checkpoint when none is
		// given; the engine must know (a lost checkpoint shows there).
		meta, ok, err := ReadCheckpointMetadata(ctx, cp)
		if err != nil {
			return nil, fmt.Errorf("stream %q checkpointLocation %s: %w", opts.ID, cpLoc, err)
		}
		cfg.GeneratedID = ok && meta.Generated && meta.ID == opts.ID
	}
	var moveDest objstore.Store
	if opts.CloudFiles.CleanSource == options.CleanMove {
		if moveDest, err = env.OpenStore(opts.CloudFiles.MoveDestination); err != nil {
			return nil, fmt.Errorf("stream %q option cloudFiles.cleanSource.moveDestination: %w", opts.ID, err)
		}
		s.own(moveDest)
	}
	var badRecords objstore.Store
	if loc := opts.Reader.BadRecordsPath; loc != "" {
		if badRecords, err = env.OpenStore(loc); err != nil {
			return nil, fmt.Errorf("stream %q option badRecordsPath: %w", opts.ID, err)
		}
		s.own(badRecords)
	}
	s.Engine = &ingest.Engine{
		MoveDestination: moveDest,
		BadRecords:      badRecords,
		Config:          cfg,
		Source:          s.Source,
		Table:           s.Table,
		Checkpoint:      cp,
		SchemaStore:     schemaStore,
		State:           s.State,
		Logger:          env.logger(),
		TempDir:         env.TempDir,
	}
	// The stream's identity (source, table, format, partitioning,
	// txnAppId) is checked against its checkpoint before any file is
	// registered: one conditional write or read per cold start.
	if err := s.Engine.CheckIdentity(ctx); err != nil {
		return nil, err
	}
	env.removeStaleTemp(ctx, opts.ID, tableStore, cp, schemaStore, moveDest)
	ok = true
	return s, nil
}

// StaleTempAge is how old a local writer's temporary file must be before
// Open deletes it as left by a killed process: far longer than any write
// takes, so a live writer's file is never touched.
const StaleTempAge = time.Hour

// removeStaleTemp deletes, best effort, the temporary files that killed
// writers left in the stream's local directories (table, checkpoint,
// schema location, move destination); readers ignore them, but they would
// pile up. S3 writes leave no such files.
func (env Env) removeStaleTemp(ctx context.Context, stream string, stores ...objstore.Store) {
	for _, st := range stores {
		ls, ok := st.(*localfs.Store)
		if !ok {
			continue
		}
		n, err := ls.RemoveStaleTemp(ctx, StaleTempAge)
		if err != nil {
			env.logger().Warn("could not remove stale temporary files", "stream", stream, "error", err.Error())
		} else if n > 0 {
			env.logger().Info("removed stale temporary files left by a killed writer", "stream", stream, "files", n)
		}
	}
}

// absLocation is loc as an absolute directory, or unchanged for a URL.
func absLocation(loc string) string {
	if loc == "" || strings.Contains(loc, "://") {
		return loc
	}
	if abs, err := filepath.Abs(loc); err == nil {
		return abs
	}
	return loc
}

func (env Env) logger() *slog.Logger {
	if env.Logger != nil {
		return env.Logger
	}
	return slog.Default()
}

// OpenStateReadOnly opens the file-state store of a checkpoint location
// for reading and returns a function that releases it. It creates nothing
// and works while a run writes the state: the embedded store must exist
// (an error wrapping fs.ErrNotExist otherwise).
func (env Env) OpenStateReadOnly(checkpoint string) (state.Store, func() error, error) {
	if env.StateTable != "" || IsS3(checkpoint) {
		return env.OpenState(checkpoint)
	}
	st, err := boltstate.OpenReadOnly(filepath.Join(checkpoint, StateFileName), boltstate.WithLockTimeout(10*time.Second))
	if err != nil {
		return nil, nil, err
	}
	return st, st.Close, nil
}

// OpenState opens the file-state store of a checkpoint location and returns
// a function that releases it.
func (env Env) OpenState(checkpoint string) (state.Store, func() error, error) {
	return env.openState(context.Background(), checkpoint, false, 0)
}

// openState opens the file-state store of a checkpoint location and returns
// a function that releases it: with a state table, the inbox store (pending
// files in the checkpoint's inbox, one DynamoDB item per claimed file);
// otherwise the embedded store. allowOverwrites and maxFileAge are the
// stream's cloudFiles.allowOverwrites and cloudFiles.maxFileAge.
func (env Env) openState(_ context.Context, checkpoint string, allowOverwrites bool, maxFileAge time.Duration) (state.Store, func() error, error) {
	if env.StateTable != "" {
		if env.AWS == nil {
			return nil, nil, fmt.Errorf("state table %s needs AWS configuration", env.StateTable)
		}
		cp, err := env.OpenStore(checkpoint)
		if err != nil {
			return nil, nil, fmt.Errorf("the inbox of checkpoint %s: %w", checkpoint, err)
		}
		items := dynamostate.New(dynamodb.NewFromConfig(*env.AWS), env.StateTable)
		return inboxstate.New(items, cp, inboxstate.WithAllowOverwrites(allowOverwrites), inboxstate.WithMaxFileAge(maxFileAge),
			inboxstate.WithLogger(env.logger())), func() error { return CloseStore(cp) }, nil
	}
	if IsS3(checkpoint) {
		return nil, nil, fmt.Errorf("checkpoint %s is on S3: set a DynamoDB state table (TRIBUTARY_STATE_TABLE)", checkpoint)
	}
	st, err := boltstate.Open(filepath.Join(checkpoint, StateFileName), boltstate.WithLockTimeout(10*time.Second))
	if err != nil {
		return nil, nil, err
	}
	return st, st.Close, nil
}

// ListWorkers is how many key ranges a listing reads in parallel (on stores
// that can list by level, i.e. S3).
const ListWorkers = 8

// Discover lists the source and registers unseen files (directory listing
// mode: the initial load, useNotifications=false and backfill), to the end
// of the listing. With cloudFiles.useIncrementalListing=true (listing mode
// only) a listing starts after the last key the previous one saw
// (discovery.Cursor in the checkpoint); the first one lists everything.
func (s *Stream) Discover(ctx context.Context) (discovery.Result, error) {
	return s.DiscoverUntil(ctx, time.Time{}, nil)
}

// DiscoverUntil is Discover with a time budget: when stopAt (non-zero)
// comes, the listing registers what it has listed and stops, keeping its
// position in the checkpoint (discovery.Cursor), and the next call with a
// budget resumes it (Result.Stopped). stopAt is on the clock now (time.Now
// when nil). The scheduled function lists this way.
func (s *Stream) DiscoverUntil(ctx context.Context, stopAt time.Time, now func() time.Time) (discovery.Result, error) {
	return s.discoverUntil(ctx, stopAt, now, false)
}

// ResumeUntil is DiscoverUntil for a continuation: it only resumes a
// stopped listing pass (discovery.PassOptions.ResumeOnly); without one it
// lists nothing and returns a zero Result.
func (s *Stream) ResumeUntil(ctx context.Context, stopAt time.Time, now func() time.Time) (discovery.Result, error) {
	return s.discoverUntil(ctx, stopAt, now, true)
}

func (s *Stream) discoverUntil(ctx context.Context, stopAt time.Time, now func() time.Time, resumeOnly bool) (discovery.Result, error) {
	if s.Registrar == nil {
		// A Delta source reads its table's log: there are no files to discover.
		return discovery.Result{}, nil
	}
	res, err := s.Registrar.Pass(ctx, discovery.PassOptions{
		Source:      s.Source,
		Filter:      s.Filter,
		Checkpoint:  s.Checkpoint,
		Workers:     ListWorkers,
		Incremental: s.incremental,
		StopAt:      stopAt,
		ResumeOnly:  resumeOnly && !stopAt.IsZero(),
		Now:         now,
	})
	if err != nil {
		return res, fmt.Errorf("stream %q: %w", s.Options.ID, err)
	}
	return res, nil
}
