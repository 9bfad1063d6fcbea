package ingest

import (
	"context"
	"fmt"
)

// stateStoreID returns the identity of the stream's file state store
// (state.Store.StoreID), "" for a stream without one (a Delta-source
// stream keeps no file state).
func (e *Engine) stateStoreID(ctx context.Context) (string, error) {
	if e.State == nil || e.Runner != nil {
		return "", nil
	}
	id, err := e.State.StoreID(ctx)
	if err != nil {
		return "", fmt.Errorf("reading the identity of the stream's file state store: %w", err)
	}
	return id, nil
}

// StateStoreAdopted reports whether CheckIdentity registered the files of
// the checkpoint's batch plans again in a new file state store. The last
// plan's files are then claimed, not committed: a commit run (RunBatch)
// replays or finishes that batch, so a caller that does not run batches
// itself (a discovery or backfill function) should ask for one.
func (e *Engine) StateStoreAdopted() bool { return e.stateAdopted }
