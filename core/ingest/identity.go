package ingest

import (
	"context"
	"github.com/tributary-io/tributary/core/ingest/guard"
	"github.com/tributary-io/tributary/core/ingest/identity"
	"slices"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/schema"
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
	g := e.guard()
	rec, err := g.CheckIdentity(ctx, want)
	if err != nil {
		return err
	}
	e.recorded, e.stateAdopted = rec, g.StateStoreAdopted()
	return nil
}

// RefreshHowTo says how to start a stream over; errors wrapping
// ErrFullRefreshNeeded or ErrStreamMismatch end with it.
const RefreshHowTo = identity.RefreshHowTo

// checkContinuity runs guard.Guard.CheckContinuity once per engine, before
// its first batch.
func (e *Engine) checkContinuity(ctx context.Context, snap *delta.Snapshot, last int64) error {
	if e.continuityChecked {
		return nil
	}
	if err := e.guard().CheckContinuity(ctx, snap, last); err != nil {
		return err
	}
	e.continuityChecked = true
	return nil
}

// guard checks the stream's identity and continuity.
func (e *Engine) guard() *guard.Guard {
	return &guard.Guard{
		StreamID: e.Config.StreamID, AppID: e.appID(),
		SourceURI: e.Config.SourceURI, TableURI: e.Config.TableURI, CheckpointURI: e.Config.CheckpointURI,
		GeneratedID: e.Config.GeneratedID, StateForgets: e.Config.StateForgets, Once: e.Config.TxnVersion != nil,
		Checkpoint: e.Checkpoint, State: e.State, Table: e.Table, Logger: e.log(),
	}
}
