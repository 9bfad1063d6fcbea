// Package guard checks, before a stream writes anything, that it may
// resume: its identity (source, table, format, partitioning, txnAppId)
// is the one its checkpoint recorded; its table, checkpoint and file state
// tell the same story (continuity); and, when its file state store was
// replaced, the files of its sealed batch plans are registered in the new
// store again. It also names the stream as the writer of its commits.
package guard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/schemamerge"
	"github.com/tributary-io/tributary/core/schema"
	"log/slog"
	"strings"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"github.com/tributary-io/tributary/core/ingest/identity"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/state"
)

// Guard holds what the checks need of a stream.
type Guard struct {
	// StreamID is the stream id; AppID its Delta txn appId.
	StreamID, AppID string
	// SourceURI, TableURI and CheckpointURI name the locations as users
	// give them (in refusals; "" when unknown).
	SourceURI, TableURI, CheckpointURI string
	// GeneratedID is true when the stream id was generated for a new
	// checkpoint: such a stream is refused when another stream already
	// wrote its source into the table.
	GeneratedID bool
	// StateForgets is true when file state entries expire or return to
	// pending: the state then cannot vouch for the last batch.
	StateForgets bool
	// Once is true for a txnVersion stream (append once): Delta's txn
	// check alone decides, and its file state is not adopted.
	Once bool
	// Checkpoint is the store rooted at the checkpoint location.
	Checkpoint objstore.Store
	// State is the file-state store.
	State state.Store
	// Table is the target Delta table.
	Table *delta.Table
	// Logger receives warnings (slog.Default() when nil).
	Logger *slog.Logger

	adopted bool
}

func (g *Guard) log() *slog.Logger {
	if g.Logger != nil {
		return g.Logger
	}
	return slog.Default()
}

// StateStoreAdopted reports whether CheckIdentity registered the files of
// the checkpoint's batch plans again in a new file state store.
func (g *Guard) StateStoreAdopted() bool { return g.adopted }

// CheckIdentity records the stream's identity in its checkpoint on first use
// and refuses a run whose source, table, format, partitioning or txnAppId
// differ from the recorded ones: the file state and batch plans are
// relative to them (SPEC §8). It costs one conditional write (and one read
// once the record exists) and runs once per engine; infra/streams.Open calls
// it before any file is registered, RunBatch before anything is written.
//
// The record also names the file state store (state.Store.StoreID, one
// more store read). When the stream now runs with another store (a new,
// emptied, replaced or restored state table or state.db), the files of the
// checkpoint's batch plans are registered in it again before anything else
// (adoptStateStore), or, when a plan is missing, the run is refused. It
// returns the record the stream now runs with.
func (g *Guard) CheckIdentity(ctx context.Context, want identity.Identity) (*identity.Identity, error) {
	recorded, err := identity.Record(ctx, g.Checkpoint, want)
	if err != nil {
		return nil, err
	}
	if recorded {
		return &want, nil
	}
	got, err := identity.Read(ctx, g.Checkpoint)
	if err != nil {
		return nil, err
	}
	if got.Version < identity.Version {
		// A record from before the identity held more than the source:
		// check the source, adopt the rest.
		if got.Source != "" && want.Source != "" && got.Source != want.Source {
			return nil, g.identityMismatch([]string{fmt.Sprintf("source %s (now %s)", got.Source, want.Source)})
		}
		if want.Source == "" {
			want.Source = got.Source
		}
		if err := identity.Save(ctx, g.Checkpoint, want); err != nil {
			return nil, err
		}
		return &want, nil
	}
	if diffs := identity.Diff(got, want); len(diffs) > 0 {
		return nil, g.identityMismatch(diffs)
	}
	if want.StateStore != "" && got.StateStore != want.StateStore {
		if got.StateStore != "" && !g.Once {
			if err := g.adoptStateStore(ctx, got.StateStore, want.StateStore); err != nil {
				return nil, err
			}
		}
		got.StateStore = want.StateStore
		if err := identity.Save(ctx, g.Checkpoint, got); err != nil {
			return nil, err
		}
	}
	return &got, nil
}

// identityMismatch refuses a changed identity.
func (g *Guard) identityMismatch(diffs []string) error {
	where := "its checkpoint"
	if g.CheckpointURI != "" {
		where = "checkpoint " + g.CheckpointURI
	}
	return fmt.Errorf("%w: stream %q: %s was made for %s: its file state, batch plans and schema are relative to these, so the stream cannot change them: run with the recorded values, or %s",
		identity.ErrFullRefreshNeeded, g.StreamID, where, strings.Join(diffs, ", "), identity.RefreshHowTo)
}

// checkContinuity runs once per engine, before its first batch: the table's
// log, the checkpoint's batch plans and the file state must tell the same
// story, or resuming would ingest files again or skip them.
//
//   - The table holds the stream's batch N (txn), so the checkpoint must
//     hold plan N, and the file state must know plan N's files: otherwise
//     the checkpoint or the state file was deleted or replaced, and every
//     file would be ingested again.
//   - The checkpoint holds plan N+2, so batch N+1 was committed to a table:
//     if this table's txn says less, the table was replaced or restored.
//   - A stream whose id the CLI generated (no --stream) and that has not
//     committed yet must not be reading a source that another stream
//     already wrote into this table: its checkpoint was most likely lost.
//
// The checks cost two or three small reads per cold start. They do not run
// for txnVersion streams (append once): Delta's txn check alone decides.
func (g *Guard) CheckContinuity(ctx context.Context, snap *delta.Snapshot, last int64) error {
	if g.Once {
		return nil
	}
	table := g.TableURI
	if table == "" {
		table = "the table"
	}
	cp := g.CheckpointURI
	if cp == "" {
		cp = "the checkpoint"
	}
	way := "to ingest the source again on purpose: " + identity.RefreshHowTo + "; or start a new stream (a new stream id or txnAppId, with a new checkpoint location), or write to a new table"
	if last >= 0 {
		p, ok, err := batchplan.Read(ctx, g.Checkpoint, last)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: %s holds batches 0..%d of stream %q (txnAppId %q), but checkpoint %s has no plan of batch %d: the checkpoint was deleted or replaced, and resuming would ingest every file again; restore the checkpoint to resume (%s)",
				identity.ErrStreamMismatch, table, last, g.StreamID, g.AppID, cp, last, way)
		}
		if !g.StateForgets {
			if err := g.checkStateKnows(ctx, p, table, way); err != nil {
				return err
			}
		}
	}
	if _, ok, err := batchplan.Read(ctx, g.Checkpoint, last+2); err != nil {
		return err
	} else if ok && !g.committedSince(ctx, last) {
		if last < 0 && restartedByReset(snap, g.AppID) {
			return fmt.Errorf("%w: %s holds txn{%s, -1} (a full refresh of a stream writing it, or an unfinished reset of this one) and checkpoint %s has sealed batch %d of stream %q from before",
				identity.ErrRestartedByReset, table, g.AppID, cp, last+2, g.StreamID)
		}
		have := "no batch of this stream"
		if last >= 0 {
			have = fmt.Sprintf("this stream's batches only up to %d", last)
		}
		return fmt.Errorf("%w: checkpoint %s has sealed batch %d of stream %q, so batch %d was committed, but %s holds %s: the table was deleted, replaced or restored, and replaying the checkpoint would rebuild only part of it (%s)",
			identity.ErrStreamMismatch, cp, last+2, g.StreamID, last+1, table, have, way)
	}
	if last < 0 && g.GeneratedID && snap != nil && g.SourceURI != "" {
		w, found, err := g.writerOfSource(ctx, snap)
		if err != nil {
			return err
		}
		if found {
			return fmt.Errorf("%w: %s already holds the rows of source %s, written by stream %q (txnAppId %q, table version %d), and this stream %q has a new checkpoint %s with a generated id: the checkpoint of stream %q was most likely deleted, and this run would ingest every file again. Restore that checkpoint to resume; to ingest the source again on purpose, name a new stream with --stream and give it a new checkpoint location (or write to a new table), or %s",
				identity.ErrStreamMismatch, table, g.SourceURI, w.StreamID, w.TxnAppID, w.version, g.StreamID, cp, w.StreamID, identity.RefreshHowTo)
		}
	}
	return nil
}

// restartedByReset reports whether the table holds txn{appID, -1}, which
// only a reset commit (core/refresh) writes.
func restartedByReset(snap *delta.Snapshot, appID string) bool {
	if snap == nil {
		return false
	}
	v, ok := snap.TxnVersion(appID)
	return ok && v == -1
}

// committedSince reports whether the table, read afresh, holds a batch of
// this stream after last: a racing committer may have committed batch
// last+1 and sealed plan last+2 after the caller's snapshot was read.
func (g *Guard) committedSince(ctx context.Context, last int64) bool {
	snap, err := g.Table.Snapshot(ctx)
	if err != nil {
		return false
	}
	v, ok := snap.TxnVersion(g.AppID)
	return ok && v > last
}

// checkStateKnows checks that the file state knows the files of plan p (the
// table's last batch of this stream) as ingested by that batch; a few files
// are read, not all. A state that was deleted (or replaced) has them
// unknown, or pending again once discovery registered them anew.
func (g *Guard) checkStateKnows(ctx context.Context, p *batchplan.Plan, table, way string) error {
	const probes = 3
	for i, f := range p.Files {
		if i == probes {
			break
		}
		en, err := g.State.Get(ctx, g.StreamID, f.Path)
		if errors.Is(err, state.ErrNotFound) {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading the file state of %s: %w", f.Path, err)
		}
		if en.BatchID == p.BatchID {
			return nil
		}
	}
	return fmt.Errorf("%w: %s holds batch %d of stream %q, which ingested %s, but the stream's file state does not record that file as ingested: the state (state.db or the state table) was deleted or replaced, and resuming would ingest every file again; restore it to resume (%s)",
		identity.ErrStreamMismatch, table, p.BatchID, g.StreamID, p.FileList(), way)
}

// Writer is the "tributary" field of a Tributary commit's commitInfo:
// which stream wrote the commit, from which source. Delta readers ignore
// unknown commitInfo fields (the protocol leaves commitInfo free-form).
type Writer struct {
	// StreamID is the writing stream's id.
	StreamID string `json:"streamId"`
	// TxnAppID is its Delta txn appId.
	TxnAppID string `json:"txnAppId"`
	// Source is its source location ("" when unknown).
	Source  string `json:"source,omitempty"`
	version int64
}

// CommitInfoKey names the commitInfo field holding a Writer.
const CommitInfoKey = "tributary"

// CommitWriter is the commitInfo field value naming this stream as the
// writer.
func (g *Guard) CommitWriter() map[string]any {
	w := map[string]any{"streamId": g.StreamID, "txnAppId": g.AppID}
	if g.SourceURI != "" {
		w["source"] = g.SourceURI
	}
	return w
}

// OwnCommit reports whether a commit's actions were written by this stream
// (its txn, or its Writer in commitInfo).
func (g *Guard) OwnCommit(acts []delta.Action) bool {
	for _, a := range acts {
		if a.Txn != nil && a.Txn.AppID == g.AppID {
			return true
		}
		if a.CommitInfo != nil {
			if raw, ok := a.CommitInfo.Extra[CommitInfoKey]; ok {
				js, _ := json.Marshal(raw)
				var w Writer
				if json.Unmarshal(js, &w) == nil && w.TxnAppID == g.AppID {
					return true
				}
			}
		}
	}
	return false
}

// writerOfSource scans the table's commits, newest first, for one written
// by another Tributary stream from this stream's source whose txn is still
// in the table. It reads every retained commit when none matches; it runs
// only for a stream with a generated id that has not committed yet.
func (g *Guard) writerOfSource(ctx context.Context, snap *delta.Snapshot) (Writer, bool, error) {
	txns := snap.Txns()
	for v := snap.Version; v >= 0; v-- {
		acts, err := g.Table.ReadCommit(ctx, v)
		if errors.Is(err, delta.ErrVersionNotFound) {
			break // removed by log cleanup: older commits are gone too
		}
		if err != nil {
			return Writer{}, false, fmt.Errorf("reading the table's commit %d: %w", v, err)
		}
		for _, a := range acts {
			if a.CommitInfo == nil {
				continue
			}
			raw, ok := a.CommitInfo.Extra[CommitInfoKey]
			if !ok {
				continue
			}
			js, err := json.Marshal(raw)
			if err != nil {
				continue
			}
			var w Writer
			if json.Unmarshal(js, &w) != nil || w.Source != g.SourceURI || w.TxnAppID == g.AppID {
				continue
			}
			if tx, ok := txns[w.TxnAppID]; !ok || tx.Version < 0 {
				continue // gone, or restarted by a refresh
			}
			w.version = v
			return w, true, nil
		}
	}
	return Writer{}, false, nil
}

// adoptStateStore handles a checkpoint recorded with file state store was
// that now runs with store now (a new, emptied, replaced or restored state
// table or state.db): the files of every sealed batch plan are registered
// again in the new store, as committed in their batch (the last plan's
// files as claimed by it: the commit function replays or finishes it),
// so that discovery does not find them new and ingest them a second time.
// A store restored from a backup already knows part of them and catches
// up. When a plan is missing, the committed files cannot all be known and
// the run is refused (identity.ErrStreamMismatch) with the way out.
//
// Files the old store knew but no plan holds (pending, or skipped at
// discovery) are not recovered: a listing pass (backfill) finds the
// pending ones again. Files a batch skipped are registered as committed
// (plans do not say which were skipped). Registered again in the
// embedded store, files carry no expiry (cloudFiles.maxFileAge): their
// state is kept longer than it says, and nothing is ingested twice; the
// DynamoDB store's claim gives them the stream's. Every step is idempotent: an
// interrupted adoption is repeated by the next start, and the checkpoint
// records the new store only once it is done.
func (g *Guard) adoptStateStore(ctx context.Context, was, now string) error {
	ids, err := batchplan.IDs(ctx, g.Checkpoint)
	if err != nil {
		return err
	}
	for i, id := range ids {
		if id != int64(i) {
			return g.missingPlan(was, now, int64(i), ids[len(ids)-1])
		}
	}
	g.log().Warn("the stream's file state store changed since its checkpoint was last used: registering the files of its batch plans again before discovery",
		"stream", g.StreamID, "recordedStore", was, "store", now, "plans", len(ids))
	stream := g.StreamID
	files := 0
	for _, id := range ids {
		p, ok, err := batchplan.Read(ctx, g.Checkpoint, id)
		if err != nil {
			return err
		}
		if !ok {
			return g.missingPlan(was, now, id, ids[len(ids)-1])
		}
		fs := make([]state.File, len(p.Files))
		for i, f := range p.Files {
			fs[i] = f.StateFile()
		}
		// AllowOverwrites: a path overwritten and ingested again by a later
		// plan (cloudFiles.allowOverwrites) moves to that plan.
		// A store whose claim creates the entry (state.FileClaimer) needs
		// no registration first; its claim keeps a file listed by two
		// plans (handed over twice) in the first.
		if _, ok := g.State.(state.FileClaimer); !ok {
			if _, err := g.State.Register(ctx, stream, fs, state.RegisterOptions{AllowOverwrites: true, MostlyKnown: true}); err != nil {
				return fmt.Errorf("registering the files of batch plan %d again: %w", id, err)
			}
		}
		if _, err := state.ClaimFiles(ctx, g.State, stream, id, fs); err != nil {
			return fmt.Errorf("registering the files of batch plan %d again: %w", id, err)
		}
		// A later plan is sealed only after this batch committed.
		if id < ids[len(ids)-1] {
			if err := g.State.MarkCommitted(ctx, stream, id, p.CreatedAt); err != nil {
				return fmt.Errorf("registering batch %d as committed again: %w", id, err)
			}
		}
		files += len(p.Files)
	}
	g.adopted = len(ids) > 0
	g.log().Info("registered the files of the stream's batch plans in its new file state store",
		"stream", stream, "store", now, "plans", len(ids), "files", files)
	return nil
}

// ErrMissingPlan is wrapped by the refusal's refusal (with identity.ErrStreamMismatch).
var ErrMissingPlan = errors.New("a batch plan is missing")

func (g *Guard) missingPlan(was, now string, id, last int64) error {
	cp := "the checkpoint"
	if g.CheckpointURI != "" {
		cp = "checkpoint " + g.CheckpointURI
	}
	return fmt.Errorf("%w (%w): stream %q: %s was used with file state store %s, but this run uses %s (a new, emptied, replaced or restored state table or state.db), and the checkpoint lacks batch plan %d of its plans 0..%d, so the files its batches committed cannot be registered again and discovery would ingest them a second time: point the stream at its original state store (the state table or state.db it used), or restore the checkpoint's plans, or %s",
		identity.ErrStreamMismatch, ErrMissingPlan, g.StreamID, cp, was, now, id, last, identity.RefreshHowTo)
}

// CheckAdopted refuses to adopt a table column that this stream itself
// introduced (its schema history was lost or rewound: the stream would
// silently stop filling the column): such a column needs a full refresh.
// A column another writer added is adopted. The commit that introduced a
// column is found by reading the log's metaData actions, newest first,
// once per column: known records the columns already checked and adopted
// (and receives those adopted now).
func (g *Guard) CheckAdopted(ctx context.Context, snap *delta.Snapshot, paths []string, known map[string]bool) error {
	for _, path := range paths {
		if known[path] {
			continue
		}
		intro := int64(-1)
		for v := snap.Version; v >= 0; v-- {
			acts, err := g.Table.ReadCommit(ctx, v)
			if errors.Is(err, delta.ErrVersionNotFound) {
				break // removed by log cleanup: older commits are gone too
			}
			if err != nil {
				return fmt.Errorf("reading the table's commit %d: %w", v, err)
			}
			done := false
			for _, a := range acts {
				if a.Metadata == nil {
					continue
				}
				st, err := schema.ParseDeltaJSON(a.Metadata.SchemaString)
				if err != nil || !schemamerge.HasPath(st, path) {
					done = true
				} else {
					intro = v
				}
			}
			if done {
				break
			}
		}
		if intro >= 0 {
			acts, err := g.Table.ReadCommit(ctx, intro)
			if err != nil {
				return fmt.Errorf("reading the table's commit %d: %w", intro, err)
			}
			if g.OwnCommit(acts) {
				return fmt.Errorf("%w: column %s would be dropped: this stream added it to the table (version %d) and its schema no longer has it (lost or rewound schema history at %s)",
					identity.ErrFullRefreshNeeded, path, intro, g.CheckpointURI)
			}
		}
		g.log().Warn("adopting a column another writer added to the table: this stream's rows hold NULL there",
			"stream", g.StreamID, "column", path, "addedAtVersion", intro)
		known[path] = true
	}
	return nil
}
