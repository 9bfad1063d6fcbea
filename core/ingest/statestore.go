package ingest

import (
	"context"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/batchplan"

	"github.com/tributary-io/tributary/core/state"
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

// adoptStateStore handles a checkpoint recorded with file state store was
// that now runs with store now (a new, emptied, replaced or restored state
// table or state.db): the files of every sealed batch plan are registered
// again in the new store, as committed in their batch (the last plan's
// files as claimed by it: the commit function replays or finishes it),
// so that discovery does not find them new and ingest them a second time.
// A store restored from a backup already knows part of them and catches
// up. When a plan is missing, the committed files cannot all be known and
// the run is refused (ErrStreamMismatch) with the way out.
//
// Files the old store knew but no plan holds (pending, or skipped at
// discovery) are not recovered: a listing pass (backfill) finds the
// pending ones again. Files a batch skipped are registered as committed
// (plans do not say which were skipped). Re-registered files carry no
// expiry (cloudFiles.maxFileAge). Every step is idempotent: an
// interrupted adoption is repeated by the next start, and the checkpoint
// records the new store only once it is done.
func (e *Engine) adoptStateStore(ctx context.Context, was, now string) error {
	ids, err := batchplan.IDs(ctx, e.Checkpoint)
	if err != nil {
		return err
	}
	for i, id := range ids {
		if id != int64(i) {
			return e.missingPlan(was, now, int64(i), ids[len(ids)-1])
		}
	}
	e.log().Warn("the stream's file state store changed since its checkpoint was last used: registering the files of its batch plans again before discovery",
		"stream", e.Config.StreamID, "recordedStore", was, "store", now, "plans", len(ids))
	stream := e.Config.StreamID
	files := 0
	for _, id := range ids {
		p, ok, err := batchplan.Read(ctx, e.Checkpoint, id)
		if err != nil {
			return err
		}
		if !ok {
			return e.missingPlan(was, now, id, ids[len(ids)-1])
		}
		fs := make([]state.File, len(p.Files))
		for i, f := range p.Files {
			fs[i] = state.File{Path: f.Path, Size: f.Size, ETag: f.ETag}
		}
		// AllowOverwrites: a path overwritten and ingested again by a later
		// plan (cloudFiles.allowOverwrites) moves to that plan.
		// A store whose claim creates the entry (state.FileClaimer) needs
		// no registration first; its claim keeps a file listed by two
		// plans (handed over twice) in the first.
		if _, ok := e.State.(state.FileClaimer); !ok {
			if _, err := e.State.Register(ctx, stream, fs, state.RegisterOptions{AllowOverwrites: true, MostlyKnown: true}); err != nil {
				return fmt.Errorf("registering the files of batch plan %d again: %w", id, err)
			}
		}
		if _, err := state.ClaimFiles(ctx, e.State, stream, id, fs); err != nil {
			return fmt.Errorf("registering the files of batch plan %d again: %w", id, err)
		}
		// A later plan is sealed only after this batch committed.
		if id < ids[len(ids)-1] {
			if err := e.State.MarkCommitted(ctx, stream, id, p.CreatedAt); err != nil {
				return fmt.Errorf("registering batch %d as committed again: %w", id, err)
			}
		}
		files += len(p.Files)
	}
	e.stateAdopted = len(ids) > 0
	e.log().Info("registered the files of the stream's batch plans in its new file state store",
		"stream", stream, "store", now, "plans", len(ids), "files", files)
	return nil
}

// StateStoreAdopted reports whether CheckIdentity registered the files of
// the checkpoint's batch plans again in a new file state store. The last
// plan's files are then claimed, not committed: a commit run (RunBatch)
// replays or finishes that batch, so a caller that does not run batches
// itself (a discovery or backfill function) should ask for one.
func (e *Engine) StateStoreAdopted() bool { return e.stateAdopted }

// errMissingPlan is wrapped by missingPlan's refusal (with ErrStreamMismatch).
var errMissingPlan = errors.New("a batch plan is missing")

func (e *Engine) missingPlan(was, now string, id, last int64) error {
	cp := "the checkpoint"
	if e.Config.CheckpointURI != "" {
		cp = "checkpoint " + e.Config.CheckpointURI
	}
	return fmt.Errorf("%w (%w): stream %q: %s was used with file state store %s, but this run uses %s (a new, emptied, replaced or restored state table or state.db), and the checkpoint lacks batch plan %d of its plans 0..%d, so the files its batches committed cannot be registered again and discovery would ingest them a second time: point the stream at its original state store (the state table or state.db it used), or restore the checkpoint's plans, or %s",
		ErrStreamMismatch, errMissingPlan, e.Config.StreamID, cp, was, now, id, last, RefreshHowTo)
}
