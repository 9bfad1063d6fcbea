package streams

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/refresh"
)

// ResetRequest returns the core/refresh request that resets the stream
// (truncate: a full refresh; otherwise a checkpoint-only reset) on this
// environment's adapters: its table, its checkpoint (keeping the metadata
// naming the stream and the embedded state file, which only its owner may
// remove) and its schema location when that is not the checkpoint. The
// caller sets Request.State (the store holding the stream's file state)
// unless it removes the state itself, and calls release when the reset is
// done (it closes the stores opened here).
func (env Env) ResetRequest(opts *options.Stream, truncate bool) (req refresh.Request, release func() error, err error) {
	var opened []objstore.Store
	release = func() error {
		var errs []error
		for _, st := range opened {
			errs = append(errs, CloseStore(st))
		}
		return errors.Join(errs...)
	}
	defer func() {
		if err != nil {
			release()
		}
	}()
	open := func(loc, what string) (objstore.Store, error) {
		st, err := env.OpenStore(loc)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", what, loc, err)
		}
		opened = append(opened, st)
		return st, nil
	}
	cpLoc := opts.CheckpointLocation()
	tableStore, err := open(opts.Table, "table")
	if err != nil {
		return refresh.Request{}, nil, err
	}
	cp, err := open(cpLoc, "checkpoint")
	if err != nil {
		return refresh.Request{}, nil, err
	}
	req = refresh.Request{
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
		if req.SchemaStore, err = open(loc, "cloudFiles.schemaLocation"); err != nil {
			return refresh.Request{}, nil, err
		}
	}
	return req, release, nil
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
