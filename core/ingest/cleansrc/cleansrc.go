// Package cleansrc applies cloudFiles.cleanSource to the files of
// committed batches: DELETE removes them, MOVE copies each to the move
// destination (keeping its path relative to the source) and then removes
// it.
package cleansrc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/state"
)

// Cleaner applies one stream's cloudFiles.cleanSource.
type Cleaner struct {
	// Mode is cloudFiles.cleanSource ("" or OFF: nothing is cleaned).
	Mode options.CleanSource
	// Source is the store rooted at the source location; Move the one
	// rooted at cloudFiles.cleanSource.moveDestination (MOVE only).
	Source, Move objstore.Store
	// Checkpoint is the store of the sealed plans.
	Checkpoint objstore.Store
	// State is the file-state store (skipped files are not cleaned).
	State state.Store
	// Stream is the stream id.
	Stream string
	// Log receives the failures.
	Log *slog.Logger
}

func (c Cleaner) on() bool { return c.Mode != "" && c.Mode != options.CleanOff }

// Batch cleans the files of committed batch p. Skipped (unreadable) files
// stay where they are, for the user to inspect. It is idempotent: a file
// already gone counts as cleaned, so a replay after a crash finishes the
// job. Failures are logged, not returned: the batch is committed, and a
// file left behind is never ingested twice (its state entry stays).
func (c Cleaner) Batch(ctx context.Context, p *batchplan.Plan, skipped map[string]bool) {
	if !c.on() {
		return
	}
	for _, f := range p.Files {
		if skipped[f.Path] {
			continue
		}
		if err := c.file(ctx, f.Path); err != nil {
			c.Log.Error("cleanSource failed; the file stays in the source", "stream", c.Stream,
				"batchId", p.BatchID, "file", f.Path, "mode", string(c.Mode), "error", err.Error())
		}
	}
}

// Last repeats Batch for the last committed batch, which a crash after
// its commit may have left undone.
func (c Cleaner) Last(ctx context.Context, last int64) error {
	if !c.on() {
		return nil
	}
	p, ok, err := batchplan.Read(ctx, c.Checkpoint, last)
	if err != nil || !ok {
		return err
	}
	// One state read per file of that batch, once per engine: a full
	// Entries scan would cost as much as the whole stream's state.
	skipped := map[string]bool{}
	for _, f := range p.Files {
		en, err := c.State.Get(ctx, c.Stream, f.Path)
		if err != nil && !errors.Is(err, state.ErrNotFound) {
			return err
		}
		skipped[f.Path] = err == nil && en.State == state.Skipped
	}
	c.Batch(ctx, p, skipped)
	return nil
}

func (c Cleaner) file(ctx context.Context, path string) error {
	if c.Mode == options.CleanMove {
		if c.Move == nil {
			return errors.New("no move destination configured")
		}
		rc, err := c.Source.Get(ctx, path)
		if errors.Is(err, objstore.ErrNotFound) {
			return nil // moved (or removed) before
		}
		if err != nil {
			return err
		}
		err = c.Move.Put(ctx, path, rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("copying to the move destination: %w", err)
		}
	}
	return c.Source.Delete(ctx, path)
}
