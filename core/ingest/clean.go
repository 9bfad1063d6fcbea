package ingest

import "github.com/tributary-io/tributary/core/ingest/cleansrc"

// cleaner applies cloudFiles.cleanSource to committed batches (package
// cleansrc).
func (e *Engine) cleaner() cleansrc.Cleaner {
	return cleansrc.Cleaner{Mode: e.Config.CleanSource, Source: e.Source, Move: e.MoveDestination,
		Checkpoint: e.Checkpoint, State: e.State, Stream: e.Config.StreamID, Log: e.log()}
}
