// Package ingest runs Tributary's exactly-once ingest protocol for one stream:
// register → plan → write → commit → finish (DESIGN.md), every step
// idempotent, so a crash at any point followed by a rerun — or two committers
// racing — leaves every input row in the Delta table exactly once.
//
//  1. Register: discovered files enter the file-state store once (discovery
//     package, or the notification path).
//  2. Plan: the last committed batch N is read from the Delta log (the txn
//     action of the stream's appId). If a plan for N+1 is sealed in the
//     checkpoint location it is replayed exactly; otherwise pending files are
//     selected within the trigger limits and sealed as plan N+1
//     (put-if-absent: one plan per batch, whoever races). The plan's files
//     are claimed in the state store once it is sealed (both may run while
//     the batch is written; the commit waits for them).
//  3. Write: the files are read, converted and written as Parquet under
//     names unique to this attempt, so a retry never overwrites a file that a
//     racing winner committed.
//  4. Commit: one Delta commit (put-if-absent of the next log version) with
//     the adds, txn{appId: stream, version: N+1} and commitInfo. A committer
//     that finds txn ≥ N+1 already in the log stops: the batch is done.
//  5. Finish: the batch's commit time is recorded in the state store.
//
// The Engine holds the protocol; its parts are subpackages: batchplan
// (sealed plans, claims), convert (source files to Parquet data files, bad
// files), evolve (schema versions and evolution), guard (identity,
// continuity and state-store checks before a stream resumes), schemamerge
// (schema relations), hivepart (partition directories and values),
// identity, schemalog, badrecords, fanout, progress and cleansrc
// (cloudFiles.cleanSource).
package ingest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime/trace"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"github.com/tributary-io/tributary/core/ingest/fanout"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/core/sink/predicate"
	"github.com/tributary-io/tributary/core/state"
)

// Step names a point in the protocol; crash-injection tests stop there.
type Step string

// Protocol steps at which a fault can be injected (after the step completed).
const (
	StepPlanned   Step = "planned"
	StepWritten   Step = "written"
	StepCommitted Step = "committed"
	StepFinished  Step = "finished"
)

// Config is what the engine needs of a stream's options.
type Config struct {
	// StreamID is the stream id: the state key, and the Delta txn appId
	// unless AppID is set.
	StreamID string
	// AppID is the Delta txn appId (txnAppId); StreamID when empty.
	AppID string
	// Format is the cloudFiles.format reader.
	Format formats.Format
	// FormatOptions are the format's own reader options by documented name
	// (csv: header, sep, quote, ...), passed to the format as they are.
	FormatOptions map[string]string
	// Limits bound one batch (maxFilesPerTrigger, maxBytesPerTrigger).
	Limits Limits
	// Once ignores Limits (the deprecated Trigger.Once: one batch of everything).
	Once bool
	// ParquetCodec is the data files' compression codec (parquetio's
	// names: snappy, zstd, gzip, lz4, uncompressed; "" is snappy).
	ParquetCodec string
	// TableProperties are Delta table properties given as options: set on
	// a new table, and changed with a metaData action when an existing
	// table's differ.
	TableProperties map[string]string
	// Schema options.
	Schema SchemaConfig
	// Reader holds the plain reader options (mode, ignoreCorruptFiles, ...).
	Reader ReaderConfig
	// TableName is written into a new table's metaData.name (optional).
	TableName string
	// TargetFileRows rolls to a new Parquet file after this many rows (default 1,000,000).
	TargetFileRows int
	// PartitionColumns is cloudFiles.partitionColumns: Hive-style key=value
	// directories of the source become (string) partition columns.
	PartitionColumns []string
	// PartitionTypes types partition columns by name (cloudFiles.schemaHints
	// or the user schema); a column not in it is STRING.
	PartitionTypes map[string]schema.Type
	// CleanSource is cloudFiles.cleanSource, applied after a batch commits.
	CleanSource options.CleanSource
	// SourceURI is the source location as users name it (s3://bucket/prefix
	// or an absolute directory): the rescued data's _file_path is SourceURI
	// joined with the file's key, as Auto Loader records full paths.
	SourceURI string
	// TableURI and CheckpointURI name the table and checkpoint locations
	// as users give them (absolute directories or s3:// URLs): the table
	// is part of the stream's identity; both appear in refusals.
	TableURI, CheckpointURI string
	// GeneratedID is true when the stream id was generated for a new
	// checkpoint (the CLI without --stream): such a stream is refused when
	// another stream already wrote its source into the table.
	GeneratedID bool
	// StateForgets is true when file state entries expire
	// (cloudFiles.maxFileAge) or return to pending when their file is
	// overwritten (cloudFiles.allowOverwrites): the state then cannot vouch
	// for the last batch (checkContinuity).
	StateForgets bool
	// TxnVersion is txnVersion: when set, the stream writes once, as
	// Delta's idempotent writes do: one batch of every outstanding file,
	// committed with txn{AppID, TxnVersion}, skipped when the table's txn
	// for AppID is already at or past it.
	TxnVersion *int64
	// NoMergeSchema is mergeSchema=false: a batch that would add columns
	// to an existing table fails, nothing is committed (by default the
	// table's schema evolves).
	NoMergeSchema bool
	// OutputMode is outputMode: append (also ""), complete (each batch
	// replaces the table's rows) or update (an upsert by MergeKeys).
	OutputMode options.OutputMode
	// PartitionBy is partitionBy: the table is also partitioned by these
	// data columns (after PartitionColumns), each row's values choosing
	// its partition (partitionby.go).
	PartitionBy []string
	// MergeKeys are mergeKeys: with OutputMode update, each batch is MERGEd
	// into the table by these columns (core/sink).
	MergeKeys []string
	// OverwriteSchema is overwriteSchema: a complete-mode overwrite also
	// replaces the table's schema and partition columns.
	OverwriteSchema bool
	// ReplaceWhere is replaceWhere (nil: none): each batch's commit
	// replaces the table's rows matching it (core/sink.Replace).
	ReplaceWhere *predicate.Expr
}

// Engine runs the protocol for one stream. Its fields are its ports.
type Engine struct {
	// Config is the stream's configuration.
	Config Config
	// Source is the object store rooted at the stream's source location.
	Source objstore.Store
	// Table is the target Delta table.
	Table *delta.Table
	// Checkpoint is the object store rooted at the checkpoint location
	// (batch plans); the schema history lives there too unless SchemaStore is set.
	Checkpoint objstore.Store
	// SchemaStore is the object store rooted at cloudFiles.schemaLocation (optional).
	SchemaStore objstore.Store
	// State is the file-state store.
	State state.Store
	// MoveDestination is the store rooted at
	// cloudFiles.cleanSource.moveDestination (cleanSource=MOVE only).
	MoveDestination objstore.Store
	// BadRecords is the store rooted at badRecordsPath (when set).
	BadRecords objstore.Store
	// Logger receives progress records; slog.Default() when nil.
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// TempDir holds Parquet files while they are written ("" = os.TempDir()).
	TempDir string
	// OnBatch, when set, receives each committed batch's progress record.
	OnBatch func(Progress)
	// Runner, when set, runs the batches instead of the file pipeline (a
	// Delta-source stream); the engine keeps the identity check, the run
	// loop and OnBatch.
	Runner BatchRunner
	// Fanout, when set with more than one converter, splits a wide batch
	// into shares that its Runner converts in parallel (ConvertShare); the
	// engine commits every share's adds in one version (shares.go).
	Fanout *fanout.Config

	// snap caches the table snapshot between batches; it is advanced
	// incrementally rather than reloaded from the log.
	snap *delta.Snapshot
	// snapCurrent is set when snap was read from the log during the
	// current run (RunAvailableNow or RunBatch) or advanced by this
	// engine's own commits since: the next batch of the run uses it
	// without listing _delta_log again. A writer that committed meanwhile
	// makes the commit's put-if-absent fail, which brings snap up to date.
	snapCurrent bool
	// recorded is the checkpoint's identity record once CheckIdentity passed.
	recorded *Identity
	// stateAdopted is set when CheckIdentity registered the plans' files
	// again in a new file state store (StateStoreAdopted).
	stateAdopted bool
	// continuityChecked is set once checkContinuity passed.
	continuityChecked bool
	// schemaChecked is set once checkSchemaChanges passed.
	schemaChecked bool
	// finished is the last batch this engine recorded as committed (+1, so
	// the zero value means none).
	finished int64

	// adopted are the table columns (dotted paths) another writer added
	// that this engine checked and adopted (sinkmode.go).
	adopted map[string]bool

	// claiming is the claim of the batch being written, while it runs
	// (claimsAhead): reads of the pending files wait for it.
	claiming *batchplan.Claiming

	// fault, when set (tests only), is called after each step; a non-nil
	// error aborts the run there as a crash would.
	fault func(Step, int64) error
	// twoPass (tests) infers a first batch's schema before converting it,
	// never in one pass (resolveOnePass).
	twoPass bool
}

// ErrNoWork reports that no file is outstanding.
var ErrNoWork = errors.New("no outstanding files")

func (e *Engine) appID() string {
	if e.Config.AppID != "" {
		return e.Config.AppID
	}
	return e.Config.StreamID
}

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Engine) log() *slog.Logger {
	if e.Logger != nil {
		return e.Logger
	}
	return slog.Default()
}

func (e *Engine) schemaStore() objstore.Store {
	if e.SchemaStore != nil {
		return e.SchemaStore
	}
	return e.Checkpoint
}

func (e *Engine) injected(step Step, batch int64) error {
	if e.fault == nil {
		return nil
	}
	return e.fault(step, batch)
}

// Summary describes a run of one or more batches.
type Summary struct {
	// Batches lists the progress of every batch this run committed.
	Batches []Progress
	// Skipped counts batches not committed because the table already held
	// their txn: another committer's, or the txnVersion of an append-once
	// stream written before.
	Skipped int
	// Stopped is true when keepGoing ended the run with work possibly left.
	Stopped bool
}

// Rows is the number of rows committed by the run.
func (s Summary) Rows() int64 {
	var n int64
	for _, b := range s.Batches {
		n += b.NumInputRows
	}
	return n
}

// Snapshot returns the table snapshot the engine last loaded or committed
// (nil before its first batch, or after a failure made it reload).
func (e *Engine) Snapshot() *delta.Snapshot {
	if e.Runner != nil {
		return e.Runner.Snapshot()
	}
	return e.snap
}

// RunAvailableNow processes every outstanding file in as many batches as the
// limits need, then returns (Trigger.AvailableNow). With Config.Once it runs a
// single batch holding every outstanding file. keepGoing, when non-nil, is
// asked before each batch (a Lambda stops early when its time is nearly spent).
func (e *Engine) RunAvailableNow(ctx context.Context, keepGoing func() bool) (Summary, error) {
	var sum Summary
	e.snapCurrent = false // one listing of _delta_log per run
	for {
		if keepGoing != nil && !keepGoing() {
			sum.Stopped = true
			return sum, nil
		}
		p, err := e.runBatch(ctx)
		if errors.Is(err, ErrNoWork) {
			return sum, nil
		}
		if errors.Is(err, errAlreadyCommitted) {
			sum.Skipped++
			continue
		}
		if errors.Is(err, errAppendedOnce) {
			sum.Skipped++
			return sum, nil
		}
		if err != nil {
			return sum, err
		}
		sum.Batches = append(sum.Batches, p)
		if e.once() {
			return sum, nil
		}
	}
}

// errAlreadyCommitted: the batch was committed by someone else meanwhile.
var errAlreadyCommitted = errors.New("batch already committed")

// errAppendedOnce: the table already holds the txnVersion of an append-once stream.
var errAppendedOnce = errors.New("txnVersion already committed")

// once reports whether a run is a single batch of every outstanding file:
// Trigger.Once, or an append-once write (txnVersion).
func (e *Engine) once() bool { return e.Config.Once || e.Config.TxnVersion != nil }

// lastCommitted returns the table snapshot (nil for a new table) and the
// stream's last committed batch id (-1 when none).
func (e *Engine) lastCommitted(ctx context.Context) (*delta.Snapshot, int64, error) {
	var err error
	switch {
	case e.snap != nil && e.snapCurrent:
		// Read or committed by this run: no listing.
	case e.snap != nil:
		err = e.snap.Update(ctx)
	default:
		e.snap, err = e.Table.Snapshot(ctx)
	}
	if errors.Is(err, delta.ErrNotATable) {
		e.snap = nil
		e.snapCurrent = true // the commit creates the table with put-if-absent
		return nil, -1, nil
	}
	if err != nil {
		e.snap, e.snapCurrent = nil, false
		return nil, 0, fmt.Errorf("loading Delta table: %w", err)
	}
	e.snapCurrent = true
	snap := e.snap
	if v, ok := snap.TxnVersion(e.appID()); ok {
		return snap, v, nil
	}
	return snap, -1, nil
}

// plan returns the plan of batch id: the sealed one replayed if it exists
// (sealed true), otherwise one built from pending files and not sealed yet:
// the caller seals it (batchplan.Seal), or has it sealed and claimed while
// the batch is written (batchplan.StartSealClaim). It returns ErrNoWork
// when nothing is pending.
//
// A new plan reads the pending files once, with a look-ahead of
// backlogWindow beyond the batch, and also returns the backlog those leave
// behind; a replayed plan returns a nil backlog (the caller counts it).
func (e *Engine) plan(ctx context.Context, id int64) (p *Plan, bl *backlog, sealed bool, err error) {
	if p, ok, err := batchplan.Read(ctx, e.Checkpoint, id); err != nil || ok {
		return p, nil, ok, err
	}
	lim := e.Config.Limits
	if e.once() {
		lim = Limits{}
	}
	// The batch may take lim.MaxFiles files, however many that is (a
	// maxFilesPerTrigger of 50,000 takes 50,000); with no file limit
	// (Trigger.Once, an append-once write) it takes every pending file.
	fetch := lim.MaxFiles
	if fetch <= 0 {
		fetch = math.MaxInt - backlogWindow
	}
	// The backlog counts the pending files after the batch, up to
	// backlogWindow past what the batch may take: a store that counts
	// without reading (state.PendingCounter) is asked for that count, any
	// other reads those entries along with the batch's.
	counter, counts := e.State.(state.PendingCounter)
	read, window := fetch, fetch+backlogWindow
	if !counts {
		read = window
	}
	pending, err := e.State.Pending(ctx, e.Config.StreamID, read)
	if err != nil {
		return nil, nil, false, fmt.Errorf("reading pending files: %w", err)
	}
	files := batchplan.Select(pending, lim)
	if len(files) == 0 {
		return nil, nil, false, ErrNoWork
	}
	p = &Plan{BatchID: id, Stream: e.Config.StreamID, CreatedAt: e.now().UTC(), Files: files}
	b := countBacklog(pending[len(files):])
	if counts {
		if b.files, b.bytes, err = counter.CountPending(ctx, e.Config.StreamID, len(files), window-len(files)); err != nil {
			return nil, nil, false, fmt.Errorf("counting outstanding files: %w", err)
		}
	}
	b.capped = int64(len(files))+b.files == int64(window)
	if e.Config.TxnVersion != nil && b.files > 0 {
		// Files registered between the read and the count (a discovery
		// running alongside) are not in the write.
		e.log().Warn("append once: files discovered after the write was planned stay pending and need a higher txnVersion",
			"stream", e.Config.StreamID, "txnVersion", *e.Config.TxnVersion, "files", len(files))
	}
	return p, &b, false, nil
}

// claimsAhead reports whether a batch's files are claimed while it is
// written rather than before: not with a store that may hand a file over
// twice (state.FileClaimer, whose claim may drop files from the batch,
// which changes what it writes, its inference sample included), nor when
// the batch fans out (its shares are told the files the claim dropped).
func (e *Engine) claimsAhead() bool {
	_, mayDrop := e.State.(state.FileClaimer)
	return !mayDrop && !e.fansOut()
}

// backlogWindow bounds how many pending entries a backlog count reads.
const backlogWindow = 1000

// backlog counts the files still pending (after this batch's claim).
func (e *Engine) backlog(ctx context.Context) (backlog, error) {
	if counter, ok := e.State.(state.PendingCounter); ok {
		files, bytes, err := counter.CountPending(ctx, e.Config.StreamID, 0, backlogWindow)
		if err != nil {
			return backlog{}, fmt.Errorf("counting outstanding files: %w", err)
		}
		return backlog{files: files, bytes: bytes, capped: files == backlogWindow}, nil
	}
	pending, err := e.State.Pending(ctx, e.Config.StreamID, backlogWindow)
	if err != nil {
		return backlog{}, fmt.Errorf("counting outstanding files: %w", err)
	}
	b := countBacklog(pending)
	b.capped = len(pending) == backlogWindow
	return b, nil
}

// countBacklog sums pending entries.
func countBacklog(pending []state.Entry) backlog {
	b := backlog{files: int64(len(pending))}
	for _, p := range pending {
		b.bytes += p.Size
	}
	return b
}

// finish records the commit of batch id in the state store (idempotent).
func (e *Engine) finish(ctx context.Context, id int64, at time.Time) error {
	if err := e.State.MarkCommitted(ctx, e.Config.StreamID, id, at); err != nil {
		return fmt.Errorf("marking batch %d committed: %w", id, err)
	}
	e.finished = id + 1
	return nil
}

// RunBatch runs one batch through plan → write → commit → finish and returns
// its progress record. It returns ErrNoWork when nothing is outstanding.
func (e *Engine) RunBatch(ctx context.Context) (Progress, error) {
	e.snapCurrent = false
	return e.runBatch(ctx)
}

func (e *Engine) runBatch(ctx context.Context) (Progress, error) {
	if e.Runner != nil {
		return e.runExternal(ctx)
	}
	start := e.now()
	region := trace.StartRegion(ctx, "ingest.check")
	if err := e.CheckIdentity(ctx); err != nil {
		return Progress{}, err
	}
	snap, last, err := e.lastCommitted(ctx)
	if err != nil {
		return Progress{}, err
	}
	// Refuse a table this writer cannot append to before claiming files or
	// writing data (a refused commit would leave orphan Parquet files).
	if err := e.Table.CheckAppend(snap); err != nil {
		return Progress{}, fmt.Errorf("cannot write to the Delta table: %w", err)
	}
	if err := e.checkContinuity(ctx, snap, last); err != nil {
		return Progress{}, err
	}
	if err := e.checkSchemaChanges(ctx); err != nil {
		return Progress{}, err
	}
	if tv := e.Config.TxnVersion; tv != nil && last >= *tv {
		e.log().Info("txnVersion already in the table: nothing to write (append once)",
			"stream", e.Config.StreamID, "txnAppId", e.appID(), "txnVersion", *tv, "tableTxnVersion", last)
		return Progress{}, errAppendedOnce
	}
	if last >= 0 && e.finished != last+1 {
		// The finish step of the last batch may be missing after a crash;
		// MarkCommitted keeps the first time, so repeating it is harmless.
		if err := e.finish(ctx, last, e.now()); err != nil {
			return Progress{}, err
		}
		if err := e.cleaner().Last(ctx, last); err != nil {
			return Progress{}, err
		}
	}
	region.End()
	id := last + 1
	if tv := e.Config.TxnVersion; tv != nil {
		id = *tv // the batch is the one idempotent write (txnVersion)
	}
	region = trace.StartRegion(ctx, "ingest.plan")
	p, planBacklog, sealed, err := e.plan(ctx, id)
	region.End()
	if err != nil {
		return Progress{}, err
	}
	// A new plan is sealed, and its files claimed, while the batch is
	// written, when the claim cannot drop any (claimsAhead): seal, then
	// claim, on their own goroutine, waited for below before the commit
	// and every later step. A seal or claim that fails stops the write;
	// a seal that finds another committer's plan makes the batch be
	// written again with that plan's files (owned != p below).
	wctx, stopWrite := context.WithCancel(ctx)
	defer stopWrite()
	ahead := e.claimsAhead()
	if !sealed && (!ahead || e.Config.Reader.BadRecordsPath != "") {
		// With badRecordsPath too: the exception files are named after the
		// sealed plan and uploaded during the write, so a plan sealed only
		// meanwhile could lose (a failed seal, another committer's plan)
		// and leave them behind, written again under the next plan's name.
		if p, err = batchplan.Seal(ctx, e.Checkpoint, p); err != nil {
			return Progress{}, err
		}
		sealed = true
	}
	var claiming *batchplan.Claiming
	if ahead {
		var seal objstore.Store // nil: the plan is sealed already
		if !sealed {
			seal = e.Checkpoint
		}
		claiming = batchplan.StartSealClaim(ctx, seal, e.State, e.Config.StreamID, p, e.log(), stopWrite)
	} else if p, err = batchplan.Claim(ctx, e.State, e.Config.StreamID, p, e.log()); err != nil {
		return Progress{}, err
	}
	if err := e.injected(StepPlanned, id); err != nil {
		claiming.Wait() // the claim is done or failed, as a crash would leave it
		return Progress{}, err
	}
	planned := e.now()

	e.claiming = claiming
	region = trace.StartRegion(ctx, "ingest.write")
	out, err := e.writeBatch(wctx, snap, p)
	region.End()
	e.claiming = nil
	if claiming != nil {
		region = trace.StartRegion(ctx, "ingest.claimWait")
		owned, cerr := claiming.Wait()
		region.End()
		if cerr != nil {
			if out != nil {
				e.removeAdds(ctx, out.Adds) // never committed: names of this attempt only
			}
			return Progress{}, cerr
		}
		if err == nil && owned != p {
			// Not for a store claimsAhead admits; were it so, the batch
			// is written again with the files it owns.
			p = owned
			out, err = e.writeBatch(ctx, snap, p)
		}
	}
	if err != nil {
		return Progress{}, fmt.Errorf("batch %d: %w", id, err)
	}
	if planBacklog != nil {
		out.outstanding = *planBacklog
	} else if out.outstanding, err = e.backlog(ctx); err != nil {
		return Progress{}, err
	}
	// Record skipped files before the commit, so `tributary state` shows
	// why they are not in the table (idempotent on a replay).
	for _, s := range out.Skipped {
		if err := e.State.MarkSkipped(ctx, e.Config.StreamID, id, s.Path, s.Err.Error()); err != nil {
			return Progress{}, fmt.Errorf("batch %d: recording skipped file %s: %w", id, s.Path, err)
		}
	}
	if err := e.injected(StepWritten, id); err != nil {
		return Progress{}, err
	}
	written := e.now()

	region = trace.StartRegion(ctx, "ingest.commit")
	res, err := e.commit(ctx, p, out)
	region.End()
	if err != nil {
		return Progress{}, fmt.Errorf("batch %d: %w", id, err)
	}
	if err := e.injected(StepCommitted, id); err != nil {
		return Progress{}, err
	}
	committed := e.now()
	if !res.Committed {
		e.log().Info("batch already committed by another committer",
			"stream", e.Config.StreamID, "batchId", id, "tableVersion", res.Version)
		if err := e.finish(ctx, id, committed); err != nil {
			return Progress{}, err
		}
		return Progress{}, errAlreadyCommitted
	}
	region = trace.StartRegion(ctx, "ingest.finish")
	err = e.finish(ctx, id, committed)
	region.End()
	if err != nil {
		return Progress{}, err
	}
	e.cleaner().Batch(ctx, p, out.SkippedPaths())
	if err := e.injected(StepFinished, id); err != nil {
		return Progress{}, err
	}
	prog := e.progress(p, out, res, start, planned, written, committed)
	prog.Log(e.log())
	if e.OnBatch != nil {
		e.OnBatch(prog)
	}
	return prog, nil
}
