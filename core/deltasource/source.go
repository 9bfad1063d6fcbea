package deltasource

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/ingest/progress"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/schema"
)

// Source runs a Delta-source stream: the source table's rows, batch by
// batch, exactly once into the sink table. Its fields are its ports.
type Source struct {
	// Config is the stream's configuration.
	Config Config
	// Table is the source Delta table (read only).
	Table *delta.Table
	// Sink is the target Delta table.
	Sink *delta.Table
	// Checkpoint is the store rooted at the stream's checkpoint location
	// (batch plans).
	Checkpoint objstore.Store
	// Logger receives progress records; slog.Default() when nil.
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// TempDir holds Parquet files while they are written ("" = os.TempDir()).
	TempDir string
	// Fault, when set (crash-injection tests), is called after each
	// protocol step; a non-nil error aborts the run there as a crash would.
	Fault func(step ingest.Step, batch int64) error

	log  *logReader
	snap *delta.Snapshot // the sink, advanced between batches
	read *delta.Snapshot // the source version batches are read with
	// until is the last source version a RunAvailableNow run takes (the
	// latest when it started; bounded: set, -1 until the run's first
	// plan loads the source), so that a source that keeps committing does
	// not keep the run going.
	until   int64
	bounded bool
}

func (s *Source) log_() *slog.Logger {
	if s.Logger != nil {
		return s.Logger
	}
	return slog.Default()
}

func (s *Source) now() time.Time { return nowOr(s.Now) }

func (s *Source) fault(step ingest.Step, batch int64) error {
	if s.Fault == nil {
		return nil
	}
	return s.Fault(step, batch)
}

// Snapshot returns the sink snapshot last loaded or committed (nil before
// the first batch).
func (s *Source) Snapshot() *delta.Snapshot { return s.snap }

// RunAvailableNow runs batches until the source has nothing more up to
// its version at the start of the run (Trigger.AvailableNow; one batch
// under Trigger.Once). keepGoing, when non-nil, is asked before each batch.
func (s *Source) RunAvailableNow(ctx context.Context, keepGoing func() bool) (ingest.Summary, error) {
	var sum ingest.Summary
	// The run ends at the source's version at its start: the snapshot
	// its first plan loads (until -1 till then), or, with a snapshot
	// loaded by an earlier run, the latest version now.
	s.until, s.bounded = -1, true
	defer func() { s.bounded = false }()
	if s.read != nil {
		latest, err := s.Table.LatestVersion(ctx)
		if err != nil {
			return sum, fmt.Errorf("source %s: %w", s.Config.SourceURI, err)
		}
		s.until = latest
	}
	for {
		if keepGoing != nil && !keepGoing() {
			sum.Stopped = true
			return sum, nil
		}
		p, err := s.RunBatch(ctx)
		if errors.Is(err, ingest.ErrNoWork) {
			return sum, nil
		}
		if err != nil {
			return sum, err
		}
		sum.Batches = append(sum.Batches, p)
		if s.Config.Once {
			return sum, nil
		}
	}
}

// sourceSnapshot returns the snapshot batches are read with, loading the
// latest on first use.
func (s *Source) sourceSnapshot(ctx context.Context) (*delta.Snapshot, error) {
	if s.read != nil {
		return s.read, nil
	}
	snap, err := s.Table.Snapshot(ctx)
	if errors.Is(err, delta.ErrNotATable) {
		return nil, fmt.Errorf("source %s: %w", s.Config.SourceURI, err)
	}
	if err != nil {
		return nil, fmt.Errorf("loading the source table %s: %w", s.Config.SourceURI, err)
	}
	s.read = snap
	return snap, nil
}

// refresh advances the source snapshot to the latest version once the
// stream caught up with it. A schema change stops the stream (a restart
// reads with the new schema), as Delta's source does. ok is false when the
// source has no new version.
func (s *Source) refresh(ctx context.Context) (bool, error) {
	latest, err := s.Table.LatestVersion(ctx)
	if err != nil {
		return false, fmt.Errorf("source %s: %w", s.Config.SourceURI, err)
	}
	if latest <= s.read.Version {
		return false, nil
	}
	old, oldParts := s.read.Schema(), s.read.Metadata.PartitionColumns
	if err := s.read.Update(ctx); err != nil {
		s.read = nil
		return false, fmt.Errorf("loading the source table %s: %w", s.Config.SourceURI, err)
	}
	if now := s.read.Schema(); !schema.Equal(old, now) || fmt.Sprint(oldParts) != fmt.Sprint(s.read.Metadata.PartitionColumns) {
		v := s.read.Version
		s.read = nil
		return false, fmt.Errorf("%w: [DELTA_SCHEMA_CHANGED_WITH_VERSION] Detected schema change in the source table %s by version %d: streaming source schema: %s; new schema: %s. Please restart the stream (tributary run): it reads with the new schema. If this repeats across restarts without progress, the change is incompatible and a full refresh is needed",
			ErrSchemaChanged, s.Config.SourceURI, v, schema.DDLType(old), schema.DDLType(now))
	}
	s.log.forget(0)
	return true, nil
}

// checkCommitSchema refuses a commit whose metaData the read schema cannot
// read its data with (a dropped, renamed or retyped column, or changed
// partitioning): restarting cannot help, a full refresh is needed.
func (s *Source) checkCommitSchema(version int64, c *commitFiles) error {
	if c.metadata == nil || s.read == nil {
		return nil
	}
	st, err := schema.ParseDeltaJSON(c.metadata.SchemaString)
	if err != nil {
		return fmt.Errorf("source commit %d: schema: %w", version, err)
	}
	why := readCompatible(st, s.read.Schema(), "")
	if why == "" && fmt.Sprint(nonNil(c.metadata.PartitionColumns)) != fmt.Sprint(nonNil(s.read.Metadata.PartitionColumns)) {
		why = fmt.Sprintf("partitioning changed from %v to %v", c.metadata.PartitionColumns, s.read.Metadata.PartitionColumns)
	}
	if why != "" {
		return fmt.Errorf("%w: source version %d: %s (read with the schema of version %d)", ErrIncompatibleSchema, version, why, s.read.Version)
	}
	return nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// lastCommitted returns the sink snapshot (nil for a new table) and the
// stream's last committed batch (-1 when none).
func (s *Source) lastCommitted(ctx context.Context) (*delta.Snapshot, int64, error) {
	var err error
	if s.snap != nil {
		err = s.snap.Update(ctx)
	} else {
		s.snap, err = s.Sink.Snapshot(ctx)
	}
	if errors.Is(err, delta.ErrNotATable) {
		s.snap = nil
		return nil, -1, nil
	}
	if err != nil {
		s.snap = nil
		return nil, 0, fmt.Errorf("loading the sink Delta table: %w", err)
	}
	if v, ok := s.snap.TxnVersion(s.Config.appID()); ok {
		return s.snap, v, nil
	}
	return s.snap, -1, nil
}

// RunBatch runs one batch: plan (replayed if sealed) → write → commit. It
// returns ingest.ErrNoWork when the source has nothing new.
func (s *Source) RunBatch(ctx context.Context) (ingest.Progress, error) {
	if s.log == nil {
		s.log = newLogReader(&s.Config, s.Table)
	}
	for {
		start := s.now()
		s.log.listed = 0 // numNewListedFiles counts this batch's log reads
		snap, last, err := s.lastCommitted(ctx)
		if err != nil {
			return ingest.Progress{}, err
		}
		if err := s.Sink.CheckAppend(snap); err != nil {
			return ingest.Progress{}, fmt.Errorf("cannot write to the sink Delta table: %w", err)
		}
		id := last + 1
		p, err := s.plan(ctx, id, last)
		if err != nil {
			return ingest.Progress{}, err
		}
		if err := s.fault(ingest.StepPlanned, id); err != nil {
			return ingest.Progress{}, err
		}
		planned := s.now()
		out, err := s.write(ctx, p)
		if err != nil {
			return ingest.Progress{}, fmt.Errorf("batch %d: %w", id, err)
		}
		if err := s.fault(ingest.StepWritten, id); err != nil {
			return ingest.Progress{}, err
		}
		written := s.now()
		res, err := s.commit(ctx, p, out)
		if err != nil {
			out.discard(ctx)
			return ingest.Progress{}, fmt.Errorf("batch %d: %w", id, err)
		}
		if err := s.fault(ingest.StepCommitted, id); err != nil {
			return ingest.Progress{}, err
		}
		if res.AlreadyCommitted {
			// Another run committed this batch meanwhile: drop this
			// attempt's files and go on with the next batch.
			out.discard(ctx)
			s.log_().Info("batch already committed by another run", "stream", s.Config.StreamID, "batchId", id)
			continue
		}
		s.log.forget(p.End.Version)
		committed := s.now()
		if err := s.fault(ingest.StepFinished, id); err != nil {
			return ingest.Progress{}, err
		}
		prog := s.progress(ctx, p, out, res, start, planned, written, committed)
		prog.Log(s.log_())
		return prog, nil
	}
}

// plan returns batch id's sealed plan: replayed when it exists, otherwise
// built from where batch last ended and sealed.
func (s *Source) plan(ctx context.Context, id, last int64) (*Plan, error) {
	if p, ok, err := readPlan(ctx, s.Checkpoint, id); err != nil || ok {
		return p, err
	}
	read, err := s.sourceSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	if s.bounded && s.until < 0 {
		s.until = read.Version
	}
	var start Offset
	if last < 0 {
		if start, err = s.pinnedStart(ctx, read.Version); err != nil {
			return nil, err
		}
	} else {
		prev, ok, err := readPlan(ctx, s.Checkpoint, last)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("%w: the sink holds batch %d of stream %q (txnAppId %s) but the checkpoint has no plan for it", ErrCheckpointLost, last, s.Config.StreamID, s.Config.appID())
		}
		start = prev.End
		if prev.TableID != "" && prev.TableID != read.Metadata.ID {
			return nil, fmt.Errorf("%w: %s had table id %s when batch %d was planned, now %s (dropped and recreated?): run tributary refresh, or start a new stream with a new checkpoint and table",
				ErrSourceReplaced, s.Config.SourceURI, prev.TableID, last, read.Metadata.ID)
		}
		if start.Initial && prev.EventTimeOrder {
			// Offsets index the snapshot's files in the order they are
			// read: another order would skip some and repeat others.
			return nil, fmt.Errorf("%w: the initial snapshot (version %d) is being processed in event-time order (withEventTimeOrder, which Tributary no longer reads with): a full refresh is needed (tributary refresh)",
				ErrEventTimeOrderChanged, start.Version)
		}
	}
	maxFiles, maxBytes := s.Config.limits()
	for {
		s.log.hint = s.read
		b := &batchPlanner{maxFiles: maxFiles, maxBytes: maxBytes}
		bound := s.read.Version
		if s.bounded {
			bound = min(bound, s.until)
		}
		end, err := s.collect(ctx, b, start, bound)
		if err != nil {
			return nil, err
		}
		if len(b.files) == 0 && end == start {
			if s.bounded && s.read.Version >= s.until {
				return nil, ingest.ErrNoWork // availableNow: what was there at the start is done
			}
			more, err := s.refresh(ctx)
			if err != nil {
				return nil, err
			}
			if !more {
				return nil, ingest.ErrNoWork
			}
			continue
		}
		p := &Plan{
			BatchID: id, Stream: s.Config.StreamID, Source: "delta", CreatedAt: s.now().UTC(),
			Start: start, End: end, TableID: s.read.Metadata.ID, ReadVersion: s.read.Version, BacklogEndOffset: s.read.Version, Files: b.files,
		}
		return sealPlan(ctx, s.Checkpoint, p)
	}
}

// readSnapshot returns the source snapshot a plan is read with.
func (s *Source) readSnapshot(ctx context.Context, p *Plan) (*delta.Snapshot, error) {
	read, err := s.sourceSnapshot(ctx)
	if err != nil {
		return nil, err
	}
	if p.ReadVersion == read.Version {
		return read, nil
	}
	snap, err := s.Table.SnapshotAt(ctx, p.ReadVersion)
	if err != nil {
		// The log of that version is gone: read with the current schema
		// (batch plans are replayed only after a crash).
		s.log_().Warn("cannot load the source at the batch's read version; reading it with the current schema",
			"stream", s.Config.StreamID, "batchId", p.BatchID, "readVersion", p.ReadVersion, "error", err.Error())
		return read, nil
	}
	return snap, nil
}

// progress assembles the batch's progress record, with the backlog left
// after it (numFilesOutstanding, numBytesOutstanding up to backlogEndOffset).
func (s *Source) progress(ctx context.Context, p *Plan, out *output, res delta.CommitResult, start, planned, written, committed time.Time) ingest.Progress {
	bound := p.BacklogEndOffset
	if s.read != nil && s.read.Version > bound {
		bound = s.read.Version
	}
	files, bytes := s.backlog(ctx, p.End, bound)
	total := committed.Sub(start)
	listed := s.log.listed
	end := bound
	return ingest.Progress{
		StreamID:               s.Config.StreamID,
		BatchID:                p.BatchID,
		Timestamp:              start.UTC(),
		NumInputFiles:          len(p.Files),
		NumInputBytes:          p.Bytes(),
		NumInputRows:           out.rows,
		NumSkippedFiles:        len(out.skipped),
		InputRowsPerSecond:     progress.PerSecond(out.rows, total),
		ProcessedRowsPerSecond: progress.PerSecond(out.rows, committed.Sub(planned)),
		DurationMs: map[string]int64{
			"planBatch":        planned.Sub(start).Milliseconds(),
			"writeFiles":       written.Sub(planned).Milliseconds(),
			"commitLog":        committed.Sub(written).Milliseconds(),
			"triggerExecution": total.Milliseconds(),
		},
		NumFilesOutstanding:  files,
		NumBytesOutstanding:  bytes,
		NumNewListedFiles:    &listed,
		BacklogEndOffset:     &end,
		ApproximateQueueSize: -1,
		TableVersion:         res.Version,
		NumOutputFiles:       len(out.adds),
		NumOutputBytes:       out.outBytes,
		CommitAttempts:       res.Attempts,
	}
}
