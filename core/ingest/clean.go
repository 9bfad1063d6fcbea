package ingest

import (
	"context"
	"errors"
	"fmt"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/options"
)

// cleanSource applies cloudFiles.cleanSource to the files of a committed
// batch: DELETE removes them, MOVE copies each to the move destination
// (keeping its path relative to the source) and then removes it. Skipped
// (unreadable) files stay where they are, for the user to inspect. It is
// idempotent: a file already gone counts as cleaned, so a replay after a
// crash finishes the job. Failures are logged, not returned: the batch is
// committed, and a file left behind is never ingested twice (its state entry
// stays).
func (e *Engine) cleanSource(ctx context.Context, p *Plan, skipped map[string]bool) {
	mode := e.Config.CleanSource
	if mode == "" || mode == options.CleanOff {
		return
	}
	for _, f := range p.Files {
		if skipped[f.Path] {
			continue
		}
		if err := e.cleanFile(ctx, mode, f.Path); err != nil {
			e.log().Error("cleanSource failed; the file stays in the source", "stream", e.Config.StreamID,
				"batchId", p.BatchID, "file", f.Path, "mode", string(mode), "error", err.Error())
		}
	}
}

func (e *Engine) cleanFile(ctx context.Context, mode options.CleanSource, path string) error {
	if mode == options.CleanMove {
		if e.MoveDestination == nil {
			return errors.New("no move destination configured")
		}
		rc, err := e.Source.Get(ctx, path)
		if errors.Is(err, objstore.ErrNotFound) {
			return nil // moved (or removed) before
		}
		if err != nil {
			return err
		}
		err = e.MoveDestination.Put(ctx, path, rc)
		rc.Close()
		if err != nil {
			return fmt.Errorf("copying to the move destination: %w", err)
		}
	}
	return e.Source.Delete(ctx, path)
}
