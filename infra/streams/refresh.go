package streams

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/refresh"
)

// ResetRequest returns the core/refresh request that resets the stream
// (truncate: a full refresh; otherwise a checkpoint-only reset) on this
// environment's adapters: its table, its checkpoint (keeping the metadata
// naming the stream and the embedded state file, which only its owner may
// remove) and its schema location when that is not the checkpoint. The
// caller sets Request.State (the store holding the stream's file state)
// unless it removes the state itself.
func (env Env) ResetRequest(opts *options.Stream, truncate bool) (refresh.Request, error) {
	cpLoc := opts.CheckpointLocation()
	tableStore, err := env.OpenStore(opts.Table)
	if err != nil {
		return refresh.Request{}, fmt.Errorf("table %s: %w", opts.Table, err)
	}
	cp, err := env.OpenStore(cpLoc)
	if err != nil {
		return refresh.Request{}, fmt.Errorf("checkpoint %s: %w", cpLoc, err)
	}
	req := refresh.Request{
		Table:      delta.NewTable(tableStore, delta.WithLogger(env.logger()), delta.WithLocation(LocationURI(opts.Table))),
		Checkpoint: cp,
		StreamID:   opts.ID,
		AppID:      opts.Sink.TxnAppID,
		Truncate:   truncate,
		// The checkpoint keeps naming the stream (and its first start,
		// which includeExistingFiles=false counts from).
		Keep: []string{MetadataKey, StateFileName},
	}
	if loc := opts.CloudFiles.SchemaLocation; loc != "" && loc != cpLoc {
		if req.SchemaStore, err = env.OpenStore(loc); err != nil {
			return refresh.Request{}, fmt.Errorf("cloudFiles.schemaLocation %s: %w", loc, err)
		}
	}
	return req, nil
}

// LocationURI is loc as a URI (a local path becomes file:///abs/path), as
// Delta records a table's location.
func LocationURI(loc string) string {
	if strings.Contains(loc, "://") {
		return loc
	}
	if abs, err := filepath.Abs(loc); err == nil {
		return "file://" + filepath.ToSlash(abs)
	}
	return loc
}
