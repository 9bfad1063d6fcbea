package ingest

import (
	"context"

	"github.com/tributary-io/tributary/core/delta"
)

// BatchRunner runs the batches of a stream whose source is not a file
// listing: a Delta table read as a stream (package deltasource). It keeps
// the sink's exactly-once protocol itself (sealed plans, txn per batch).
type BatchRunner interface {
	// RunBatch runs one batch and returns its progress record, or
	// ErrNoWork when the source has nothing new.
	RunBatch(ctx context.Context) (Progress, error)
	// Snapshot returns the sink snapshot last loaded or committed.
	Snapshot() *delta.Snapshot
}

// runExternal runs one batch of e.Runner (identity checked first) and
// hands its progress to OnBatch.
func (e *Engine) runExternal(ctx context.Context) (Progress, error) {
	if err := e.CheckIdentity(ctx); err != nil {
		return Progress{}, err
	}
	p, err := e.Runner.RunBatch(ctx)
	if err != nil {
		return p, err
	}
	if e.OnBatch != nil {
		e.OnBatch(p)
	}
	return p, nil
}
