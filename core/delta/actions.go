// Package delta implements the Delta Lake transaction log on the objstore
// port: snapshots rebuilt from JSON commits and Parquet checkpoints,
// conditional commits (put-if-absent of _delta_log/<version>.json) and the
// exactly-once txn loop a streaming sink needs. The actions themselves are
// package action's, re-exported here.
//
// A Table is rooted at the table directory: log keys are
// "_delta_log/<20-digit version>.json" and data file keys are add.path after
// URL-decoding.
package delta

import (
	"io"

	"github.com/tributary-io/tributary/core/delta/action"
)

// The log's actions (see package action).
type (
	// Protocol is the protocol action.
	Protocol = action.Protocol
	// Format is the metaData action's data file format.
	Format = action.Format
	// Metadata is the metaData action.
	Metadata = action.Metadata
	// DeletionVector is a deletion vector descriptor.
	DeletionVector = action.DeletionVector
	// Add is the add action.
	Add = action.Add
	// Remove is the remove action.
	Remove = action.Remove
	// Txn is the txn (transaction identifier) action.
	Txn = action.Txn
	// CDC is the cdc action.
	CDC = action.CDC
	// DomainMetadata is the domainMetadata action.
	DomainMetadata = action.DomainMetadata
	// CheckpointMetadata is the checkpointMetadata action.
	CheckpointMetadata = action.CheckpointMetadata
	// Sidecar is the sidecar action.
	Sidecar = action.Sidecar
	// CommitInfo is the commitInfo action.
	CommitInfo = action.CommitInfo
	// Action is one line of a commit: exactly one kind set.
	Action = action.Action
	// Stats are an add's statistics.
	Stats = action.Stats
)

// ReadActions calls fn for each action of a commit file (action.ReadActions).
func ReadActions(r io.Reader, fn func(Action) error) error { return action.ReadActions(r, fn) }

// EncodeActions writes actions as a commit file (action.EncodeActions).
func EncodeActions(w io.Writer, actions []Action) error { return action.EncodeActions(w, actions) }
