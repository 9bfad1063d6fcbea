package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"github.com/tributary-io/tributary/core/ingest/identity"
	"slices"
	"strings"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/core/state"
)

// ErrStreamMismatch reports a checkpoint, file state and Delta table that
// do not belong together (identity.ErrStreamMismatch).
var ErrStreamMismatch = identity.ErrStreamMismatch

// Identity is what a stream cannot change without a full refresh
// (identity.Identity).
type Identity = identity.Identity

// identityKey and identityVersion are identity.Key and identity.Version.
const (
	identityKey     = identity.Key
	identityVersion = identity.Version
)

// readIdentity reads the checkpoint's identity record.
func (e *Engine) readIdentity(ctx context.Context) (Identity, error) {
	return identity.Read(ctx, e.Checkpoint)
}

// saveIdentity replaces the identity record (completing an old one, or
// after a schema change was applied).
func (e *Engine) saveIdentity(ctx context.Context, id Identity) error {
	return identity.Save(ctx, e.Checkpoint, id)
}

// identity is the engine configuration's identity.
func (e *Engine) identity() (Identity, error) {
	id := Identity{
		Version:          identityVersion,
		Source:           e.Config.SourceURI,
		StreamID:         e.Config.StreamID,
		Table:            e.Config.TableURI,
		PartitionColumns: slices.Clone(e.Config.PartitionColumns),
		TxnAppID:         e.appID(),
		SchemaHints:      e.Config.Schema.Hints,
	}
	if e.Config.Format != nil {
		id.Format = e.Config.Format.Name()
	} else if e.Runner != nil {
		id.Format = "delta"
	}
	if u := e.Config.Schema.User; u != nil {
		js, err := schema.MarshalDeltaJSON(u)
		if err != nil {
			return Identity{}, err
		}
		id.UserSchema = js
	}
	return id, nil
}

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
// (adoptStateStore), or, when a plan is missing, the run is refused.
func (e *Engine) CheckIdentity(ctx context.Context) error {
	if e.recorded != nil {
		return nil
	}
	want, err := e.identity()
	if err != nil {
		return err
	}
	if want.StateStore, err = e.stateStoreID(ctx); err != nil {
		return err
	}
	recorded, err := identity.Record(ctx, e.Checkpoint, want)
	if err != nil {
		return err
	}
	if recorded {
		e.recorded = &want
		return nil
	}
	got, err := e.readIdentity(ctx)
	if err != nil {
		return err
	}
	if got.Version < identityVersion {
		// A record from before the identity held more than the source:
		// check the source, adopt the rest.
		if got.Source != "" && want.Source != "" && got.Source != want.Source {
			return e.identityMismatch([]string{fmt.Sprintf("source %s (now %s)", got.Source, want.Source)})
		}
		if want.Source == "" {
			want.Source = got.Source
		}
		if err := e.saveIdentity(ctx, want); err != nil {
			return err
		}
		e.recorded = &want
		return nil
	}
	if diffs := identity.Diff(got, want); len(diffs) > 0 {
		return e.identityMismatch(diffs)
	}
	if want.StateStore != "" && got.StateStore != want.StateStore {
		if got.StateStore != "" && e.Config.TxnVersion == nil {
			if err := e.adoptStateStore(ctx, got.StateStore, want.StateStore); err != nil {
				return err
			}
		}
		got.StateStore = want.StateStore
		if err := e.saveIdentity(ctx, got); err != nil {
			return err
		}
	}
	e.recorded = &got
	return nil
}

// RefreshHowTo says how to start a stream over; errors wrapping
// ErrFullRefreshNeeded or ErrStreamMismatch end with it.
const RefreshHowTo = identity.RefreshHowTo

func (e *Engine) identityMismatch(diffs []string) error {
	where := "its checkpoint"
	if e.Config.CheckpointURI != "" {
		where = "checkpoint " + e.Config.CheckpointURI
	}
	return fmt.Errorf("%w: stream %q: %s was made for %s: its file state, batch plans and schema are relative to these, so the stream cannot change them: run with the recorded values, or %s",
		ErrFullRefreshNeeded, e.Config.StreamID, where, strings.Join(diffs, ", "), RefreshHowTo)
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
func (e *Engine) checkContinuity(ctx context.Context, snap *delta.Snapshot, last int64) error {
	if e.continuityChecked || e.Config.TxnVersion != nil {
		return nil
	}
	table := e.Config.TableURI
	if table == "" {
		table = "the table"
	}
	cp := e.Config.CheckpointURI
	if cp == "" {
		cp = "the checkpoint"
	}
	way := "to ingest the source again on purpose: " + RefreshHowTo + "; or start a new stream (a new stream id or txnAppId, with a new checkpoint location), or write to a new table"
	if last >= 0 {
		p, ok, err := batchplan.Read(ctx, e.Checkpoint, last)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: %s holds batches 0..%d of stream %q (txnAppId %q), but checkpoint %s has no plan of batch %d: the checkpoint was deleted or replaced, and resuming would ingest every file again; restore the checkpoint to resume (%s)",
				ErrStreamMismatch, table, last, e.Config.StreamID, e.appID(), cp, last, way)
		}
		if !e.Config.StateForgets {
			if err := e.checkStateKnows(ctx, p, table, way); err != nil {
				return err
			}
		}
	}
	if _, ok, err := batchplan.Read(ctx, e.Checkpoint, last+2); err != nil {
		return err
	} else if ok && !e.committedSince(ctx, last) {
		have := "no batch of this stream"
		if last >= 0 {
			have = fmt.Sprintf("this stream's batches only up to %d", last)
		}
		return fmt.Errorf("%w: checkpoint %s has sealed batch %d of stream %q, so batch %d was committed, but %s holds %s: the table was deleted, replaced or restored, and replaying the checkpoint would rebuild only part of it (%s)",
			ErrStreamMismatch, cp, last+2, e.Config.StreamID, last+1, table, have, way)
	}
	if last < 0 && e.Config.GeneratedID && snap != nil && e.Config.SourceURI != "" {
		w, found, err := e.writerOfSource(ctx, snap)
		if err != nil {
			return err
		}
		if found {
			return fmt.Errorf("%w: %s already holds the rows of source %s, written by stream %q (txnAppId %q, table version %d), and this stream %q has a new checkpoint %s with a generated id: the checkpoint of stream %q was most likely deleted, and this run would ingest every file again. Restore that checkpoint to resume; to ingest the source again on purpose, name a new stream with --stream and give it a new checkpoint location (or write to a new table), or %s",
				ErrStreamMismatch, table, e.Config.SourceURI, w.StreamID, w.TxnAppID, w.version, e.Config.StreamID, cp, w.StreamID, RefreshHowTo)
		}
	}
	e.continuityChecked = true
	return nil
}

// committedSince reports whether the table, read afresh, holds a batch of
// this stream after last: a racing committer may have committed batch
// last+1 and sealed plan last+2 after the caller's snapshot was read.
func (e *Engine) committedSince(ctx context.Context, last int64) bool {
	snap, err := e.Table.Snapshot(ctx)
	if err != nil {
		return false
	}
	v, ok := snap.TxnVersion(e.appID())
	return ok && v > last
}

// checkStateKnows checks that the file state knows the files of plan p (the
// table's last batch of this stream) as ingested by that batch; a few files
// are read, not all. A state that was deleted (or replaced) has them
// unknown, or pending again once discovery registered them anew.
func (e *Engine) checkStateKnows(ctx context.Context, p *Plan, table, way string) error {
	const probes = 3
	for i, f := range p.Files {
		if i == probes {
			break
		}
		en, err := e.State.Get(ctx, e.Config.StreamID, f.Path)
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
		ErrStreamMismatch, table, p.BatchID, e.Config.StreamID, planFileList(p), way)
}

// commitWriter is the "tributary" field of a Tributary commit's commitInfo:
// which stream wrote the commit, from which source. Delta readers ignore
// unknown commitInfo fields (the protocol leaves commitInfo free-form).
type commitWriter struct {
	StreamID string `json:"streamId"`
	TxnAppID string `json:"txnAppId"`
	Source   string `json:"source,omitempty"`
	version  int64
}

// commitInfoKey names the commitInfo field holding a commitWriter.
const commitInfoKey = "tributary"

func (e *Engine) commitWriter() map[string]any {
	w := map[string]any{"streamId": e.Config.StreamID, "txnAppId": e.appID()}
	if e.Config.SourceURI != "" {
		w["source"] = e.Config.SourceURI
	}
	return w
}

// writerOfSource scans the table's commits, newest first, for one written
// by another Tributary stream from this stream's source whose txn is still
// in the table. It reads every retained commit when none matches; it runs
// only for a stream with a generated id that has not committed yet.
func (e *Engine) writerOfSource(ctx context.Context, snap *delta.Snapshot) (commitWriter, bool, error) {
	txns := snap.Txns()
	for v := snap.Version; v >= 0; v-- {
		acts, err := e.Table.ReadCommit(ctx, v)
		if errors.Is(err, delta.ErrVersionNotFound) {
			break // removed by log cleanup: older commits are gone too
		}
		if err != nil {
			return commitWriter{}, false, fmt.Errorf("reading the table's commit %d: %w", v, err)
		}
		for _, a := range acts {
			if a.CommitInfo == nil {
				continue
			}
			raw, ok := a.CommitInfo.Extra[commitInfoKey]
			if !ok {
				continue
			}
			js, err := json.Marshal(raw)
			if err != nil {
				continue
			}
			var w commitWriter
			if json.Unmarshal(js, &w) != nil || w.Source != e.Config.SourceURI || w.TxnAppID == e.appID() {
				continue
			}
			if tx, ok := txns[w.TxnAppID]; !ok || tx.Version < 0 {
				continue // gone, or restarted by a refresh
			}
			w.version = v
			return w, true, nil
		}
	}
	return commitWriter{}, false, nil
}
