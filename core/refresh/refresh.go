// Package refresh starts a stream over (SPEC §8, seed 004): a full refresh
// truncates the target table in one commit and forgets the stream's
// checkpoint (file state, batch plans, schema history, identity) so that
// the next run ingests the source from scratch; a checkpoint-only reset
// forgets the checkpoint and keeps the table (rows may then be written
// twice).
//
// Delta numbers a streaming writer's batches with txn{appId, version}. A
// new checkpoint restarts at batch 0, which the table's txn would skip as
// already written; so the reset commit also sets txn{appId, -1} (Delta's
// "no batch yet") for the appIds it restarts. A full refresh restarts every
// writer of the table (the table is empty: none of their batches is in it),
// a checkpoint reset only the stream's own. After a full refresh the
// stream's first batch replaces the table's schema and partitioning (the
// table is empty), which is how a narrowed type, a dropped column or new
// partition columns get in.
package refresh

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/state"
)

// Operation names of the reset commits (commitInfo.operation).
const (
	// OpTruncate is a full refresh's commit: every file removed.
	OpTruncate = "TRUNCATE"
	// OpResetCheckpoint is a checkpoint reset's commit: only txn actions.
	OpResetCheckpoint = "RESET STREAM CHECKPOINT"
)

// commitInfoKey is the commitInfo field recording the reset (Delta readers
// ignore unknown commitInfo fields).
const commitInfoKey = "tributaryRefresh"

// ErrAppendOnly is wrapped when a full refresh would remove the files of a
// table with delta.appendOnly=true.
var ErrAppendOnly = errors.New("refresh: the table is append-only (delta.appendOnly=true): a full refresh cannot remove its files")

// Request describes one reset.
type Request struct {
	// Table is the stream's target table (it may not exist yet).
	Table *delta.Table
	// Checkpoint is the stream's checkpoint location.
	Checkpoint objstore.Store
	// SchemaStore is cloudFiles.schemaLocation when it is not the
	// checkpoint (nil otherwise): its schema history is forgotten too.
	SchemaStore objstore.Store
	// State, when set, is the file-state store holding the stream's
	// entries: Reset forgets them (state.Store.DropStream) after the
	// checkpoint. Nil when the caller removes the state itself (the CLI's
	// embedded state file lives in the checkpoint directory).
	State state.Store
	// StreamID and AppID are the stream's id and txnAppId.
	StreamID, AppID string
	// Truncate selects a full refresh (remove every file of the table);
	// false is a checkpoint-only reset.
	Truncate bool
	// Keep lists checkpoint keys left in place (e.g. the checkpoint's
	// metadata naming the stream and its first start).
	Keep []string
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Result is what a reset did.
type Result struct {
	// Version is the table version of the reset commit (-1 when the table
	// does not exist: nothing to commit).
	Version int64
	// FilesRemoved and BytesRemoved describe the truncation.
	FilesRemoved int
	BytesRemoved int64
	// AppIDs are the txn appIds restarted (set to version -1).
	AppIDs []string
	// CheckpointKeys counts the checkpoint (and schema location) objects
	// deleted.
	CheckpointKeys int
	// StateEntries counts the file entries dropped from Request.State.
	StateEntries int
}

// Reset commits the reset to the table, then deletes the checkpoint's
// objects (all but Keep) and the schema history, then the stream's file
// entries in State. It is idempotent: a reset interrupted after its commit
// is completed by running it again. The stream must not run meanwhile (the
// CLI holds the embedded state's lock; the functions run it in the
// stream's kick group, see docs/refresh.md).
//
// The order keeps exactly-once when it is interrupted: the commit empties
// the table and sets the txns to -1 before anything is forgotten; the
// checkpoint goes before the file state, so an interrupted reset leaves
// files known (committed, not ingested again) rather than batch plans whose
// files are forgotten. Either way no row is written twice, and running the
// reset again completes it.
func Reset(ctx context.Context, req Request) (Result, error) {
	res := Result{Version: -1}
	now := time.Now
	if req.Now != nil {
		now = req.Now
	}
	snap, err := req.Table.Snapshot(ctx)
	switch {
	case errors.Is(err, delta.ErrNotATable):
		snap = nil
	case err != nil:
		return res, fmt.Errorf("refresh: reading the table: %w", err)
	}
	if snap != nil {
		if res, err = commitReset(ctx, req, snap, now()); err != nil {
			return res, err
		}
	}
	n, err := wipe(ctx, req.Checkpoint, "", req.Keep)
	res.CheckpointKeys += n
	if err != nil {
		return res, fmt.Errorf("refresh: deleting the checkpoint: %w", err)
	}
	if req.SchemaStore != nil {
		n, err := wipe(ctx, req.SchemaStore, "_schemas/", nil)
		res.CheckpointKeys += n
		if err != nil {
			return res, fmt.Errorf("refresh: deleting the schema history: %w", err)
		}
	}
	if req.State != nil {
		n, err := req.State.DropStream(ctx, req.StreamID)
		res.StateEntries = n
		if err != nil {
			return res, fmt.Errorf("refresh: forgetting the file state: %w", err)
		}
	}
	return res, nil
}

// commitReset writes the reset commit, retrying when another writer takes
// the version.
func commitReset(ctx context.Context, req Request, snap *delta.Snapshot, now time.Time) (Result, error) {
	res := Result{Version: -1}
	if req.Truncate && snap.NumFiles() > 0 {
		if ao, err := snap.AppendOnly(); err != nil {
			return res, err
		} else if ao {
			return res, ErrAppendOnly
		}
	}
	for attempt := 1; ; attempt++ {
		var acts []delta.Action
		res.FilesRemoved, res.BytesRemoved = 0, 0
		if req.Truncate {
			for a := range snap.Files() {
				acts = append(acts, delta.Action{Remove: &delta.Remove{
					Path: a.Path, DeletionTimestamp: now.UnixMilli(), DataChange: true, ExtendedFileMetadata: true,
					PartitionValues: a.PartitionValues, Size: a.Size, DeletionVector: a.DeletionVector,
					BaseRowID: a.BaseRowID, DefaultRowCommitVersion: a.DefaultRowCommitVersion,
				}})
				res.FilesRemoved++
				res.BytesRemoved += a.Size
			}
		}
		apps := map[string]bool{req.AppID: true}
		if req.Truncate {
			for app := range snap.Txns() {
				apps[app] = true
			}
		}
		res.AppIDs = slices.Sorted(maps.Keys(apps))
		ts := now.UnixMilli()
		for _, app := range res.AppIDs {
			acts = append(acts, delta.Action{Txn: &delta.Txn{AppID: app, Version: -1, LastUpdated: &ts}})
		}
		op, params := OpResetCheckpoint, map[string]any{"streamId": req.StreamID}
		if req.Truncate {
			op = OpTruncate
		}
		rv := snap.Version
		blind := false
		info := delta.Action{CommitInfo: &delta.CommitInfo{
			Timestamp: ts, Operation: op, OperationParameters: params, ReadVersion: &rv,
			IsolationLevel: "Serializable", IsBlindAppend: &blind, EngineInfo: "tributary",
			OperationMetrics: map[string]any{"numRemovedFiles": fmt.Sprint(res.FilesRemoved), "numRemovedBytes": fmt.Sprint(res.BytesRemoved)},
			Extra: map[string]any{commitInfoKey: map[string]any{
				"streamId": req.StreamID, "txnAppId": req.AppID, "truncate": req.Truncate, "restartedAppIds": res.AppIDs,
			}},
		}}
		v, err := req.Table.CommitSnapshot(ctx, snap, append([]delta.Action{info}, acts...))
		if err == nil {
			res.Version = v
			return res, nil
		}
		if !errors.Is(err, delta.ErrConcurrentCommit) || attempt >= 20 {
			return res, fmt.Errorf("refresh: committing the reset: %w", err)
		}
		if err := snap.Update(ctx); err != nil {
			return res, err
		}
	}
}

// wipe deletes the store's objects under prefix, except keep.
func wipe(ctx context.Context, st objstore.Store, prefix string, keep []string) (int, error) {
	var keys []string
	for info, err := range st.List(ctx, objstore.ListOptions{Prefix: prefix}) {
		if err != nil {
			return 0, err
		}
		if !slices.Contains(keep, info.Key) {
			keys = append(keys, info.Key)
		}
	}
	// Newest batch plans first: an interrupted wipe never leaves a plan
	// without the plans after it.
	slices.SortFunc(keys, func(a, b string) int { return strings.Compare(b, a) })
	for i, k := range keys {
		if err := st.Delete(ctx, k); err != nil && !errors.Is(err, objstore.ErrNotFound) {
			return i, fmt.Errorf("deleting %s: %w", k, err)
		}
	}
	return len(keys), nil
}

// Refreshed reports whether snap is a table a full refresh emptied for
// appID: no files, and appID's txn reset to -1. The stream's next batch may
// then replace the table's schema and partitioning.
func Refreshed(snap *delta.Snapshot, appID string) bool {
	if snap == nil || snap.NumFiles() > 0 {
		return false
	}
	v, ok := snap.TxnVersion(appID)
	return ok && v < 0
}
