// Package identity provides a stream's identity record: what its file
// state, batch plans and schema history are relative to (source, table,
// stream id, format, partitioning, txnAppId, ...), kept in its checkpoint
// (source.json), with its first-writer-wins recording, reading, replacing
// and the differences that a stream cannot make without a full refresh.
package identity

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tributary-io/tributary/core/objstore"
)

// ErrFullRefreshNeeded reports a change the stream cannot resume from
// (SPEC §8): the table must be rebuilt.
var ErrFullRefreshNeeded = errors.New("a full refresh is needed")

// ErrStreamMismatch reports a checkpoint, file state and Delta table that
// do not belong together: a deleted or replaced checkpoint or state file
// next to a table that holds the stream's batches, or a table replaced
// under a checkpoint. Resuming would ingest files again or lose them, so
// the run is refused before anything is written.
var ErrStreamMismatch = errors.New("the checkpoint, its file state and the table do not belong together")

// ErrRestartedByReset reports a stream that the table restarted after its
// checkpoint had committed batches: the table holds txn{txnAppId, -1}
// (Delta's "no batch yet"), which only a reset commit writes. Another
// stream's full refresh truncated the table and restarted every writer of
// it (seed 004 restarts every flow that writes to the table), or a reset of
// this stream stopped before it forgot the checkpoint. The stream's rows
// are not in the table, so it starts over from its source: the CLI and the
// commit function reset its checkpoint and file state (reset-checkpoint)
// and ingest the source again, without duplicates.
var ErrRestartedByReset = errors.New("the table restarted this stream (txn -1): it starts over from its source")

// RefreshHowTo says how to start a stream over; errors wrapping
// ErrFullRefreshNeeded or ErrStreamMismatch end with it.
const RefreshHowTo = "do a full refresh: `tributary refresh` with the stream's options empties the table in one commit, forgets the checkpoint and ingests the source again (files no longer in the source are lost; downstream streams reading the table must be refreshed or use skipChangeCommits); `tributary reset-checkpoint` forgets only the checkpoint and keeps the table (rows may be written twice)"

// Key is the checkpoint object recording the stream's identity: what
// its file state, batch plans and schema history are relative to. (Older
// checkpoints hold only the source under the same name; they are completed
// on first use.)
const Key = "source.json"

// Version is the format of a complete identity record.
const Version = 2

// Identity is what a stream cannot change without a full refresh, recorded
// in its checkpoint when it first starts. UserSchema and SchemaHints are
// recorded to notice changes (ingest applies schema changes), not to
// refuse them.
type Identity struct {
	// Version is Version for a complete record, 0 for a record
	// written before the identity held more than the source.
	Version int `json:"version,omitempty"`
	// Source is the source location (SourceURI).
	Source string `json:"source"`
	// StreamID is the stream id (the file state's key).
	StreamID string `json:"streamId,omitempty"`
	// Table is the target table's location.
	Table string `json:"table,omitempty"`
	// Format is cloudFiles.format.
	Format string `json:"format,omitempty"`
	// PartitionColumns is cloudFiles.partitionColumns.
	PartitionColumns []string `json:"partitionColumns,omitempty"`
	// TxnAppID is the Delta txn appId that numbers the stream's batches.
	TxnAppID string `json:"txnAppId,omitempty"`
	// UserSchema is the user-specified schema (Delta JSON), "" when inferred.
	UserSchema string `json:"userSchema,omitempty"`
	// SchemaHints is cloudFiles.schemaHints as last applied.
	SchemaHints string `json:"schemaHints,omitempty"`
	// StateStore is the identity of the file state store the stream's
	// files were registered in (state.Store.StoreID), "" for a stream
	// without file state or a record written before it was kept.
	StateStore string `json:"stateStore,omitempty"`
}

// Record writes id as the checkpoint's identity unless one is recorded:
// true when id was recorded, false when the checkpoint already holds one
// (Read it).
func Record(ctx context.Context, st objstore.Store, id Identity) (bool, error) {
	data, err := json.Marshal(id)
	if err != nil {
		return false, err
	}
	err = st.PutIfAbsent(ctx, Key, bytes.NewReader(data))
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, objstore.ErrExists) {
		return false, fmt.Errorf("recording the stream's identity in its checkpoint (%s): %w", Key, err)
	}
	return false, nil
}

// Read reads the checkpoint's identity record.
func Read(ctx context.Context, st objstore.Store) (Identity, error) {
	rc, err := st.Get(ctx, Key)
	if err != nil {
		return Identity{}, fmt.Errorf("reading the stream's identity from its checkpoint (%s): %w", Key, err)
	}
	defer rc.Close()
	var got Identity
	if err := json.NewDecoder(rc).Decode(&got); err != nil {
		return Identity{}, fmt.Errorf("decoding the stream's identity in its checkpoint (%s): %w", Key, err)
	}
	return got, nil
}

// Save replaces the identity record (completing an old one, or after a
// schema change was applied).
func Save(ctx context.Context, st objstore.Store, id Identity) error {
	data, err := json.Marshal(id)
	if err != nil {
		return err
	}
	if err := st.Put(ctx, Key, bytes.NewReader(data)); err != nil {
		return fmt.Errorf("recording the stream's identity in its checkpoint (%s): %w", Key, err)
	}
	return nil
}

// Diff lists what a stream that now has identity want changed from the
// recorded complete identity got ("source a (now b)"): the source and
// table (when both are known), stream id, format, partition columns and
// txnAppId. Empty when nothing a stream cannot change differs.
func Diff(got, want Identity) []string {
	var diffs []string
	differ := func(name, was, now string) {
		if was != now {
			diffs = append(diffs, fmt.Sprintf("%s %s (now %s)", name, orNone(was), orNone(now)))
		}
	}
	if got.Source != "" && want.Source != "" {
		differ("source", got.Source, want.Source)
	}
	if got.Table != "" && want.Table != "" {
		differ("table", got.Table, want.Table)
	}
	differ("stream id", got.StreamID, want.StreamID)
	differ("cloudFiles.format", got.Format, want.Format)
	differ("cloudFiles.partitionColumns", strings.Join(got.PartitionColumns, ","), strings.Join(want.PartitionColumns, ","))
	differ("txnAppId", got.TxnAppID, want.TxnAppID)
	return diffs
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
