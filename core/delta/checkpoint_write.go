package delta

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/tributary-io/tributary/core/delta/checkpoint"
)

// Checkpoint writes a classic single-file checkpoint of snap
// (_delta_log/<version>.checkpoint.parquet) and then _last_checkpoint. The
// Parquet file is streamed to the store in row groups. Tombstones older than
// delta.deletedFileRetentionDuration are dropped. Tables using the
// v2Checkpoint feature are refused (they do not allow classic checkpoints).
func (t *Table) Checkpoint(ctx context.Context, snap *Snapshot) error {
	if snap == nil || snap.Version < 0 {
		return errors.New("delta: checkpoint needs a loaded snapshot")
	}
	if snap.Protocol.HasWriterFeature(FeatureV2Checkpoint) {
		return fmt.Errorf("%w: table uses %s; only classic checkpoints are written", ErrUnsupportedProtocol, FeatureV2Checkpoint)
	}
	retention, err := snap.DeletedFileRetentionDuration()
	if err != nil {
		return err
	}
	minDeletion := t.now().Add(-retention).UnixMilli()

	pr, pw := io.Pipe()
	var actions, adds int64
	go func() {
		n, a, err := writeCheckpoint(pw, snap, minDeletion)
		actions, adds = n, a
		pw.CloseWithError(err)
	}()
	key := CheckpointKey(snap.Version)
	if err := t.store.Put(ctx, key, pr); err != nil {
		pr.CloseWithError(err)
		return fmt.Errorf("delta: write checkpoint %s: %w", key, err)
	}
	info, err := t.store.Head(ctx, key)
	if err != nil {
		return fmt.Errorf("delta: checkpoint %s: %w", key, err)
	}
	lc, err := json.Marshal(LastCheckpoint{Version: snap.Version, Size: actions, SizeInBytes: info.Size, NumOfAddFiles: adds})
	if err != nil {
		return err
	}
	if err := t.store.Put(ctx, LastCheckpointKey, bytes.NewReader(lc)); err != nil {
		return fmt.Errorf("delta: write %s: %w", LastCheckpointKey, err)
	}
	snap.lastCheckpoint = max(snap.lastCheckpoint, snap.Version)
	return nil
}

// checkpointBoundary returns the newest multiple of the table's
// delta.checkpointInterval at or below version (0 when none).
func (s *Snapshot) checkpointBoundary(version int64) (int64, error) {
	interval, err := s.CheckpointInterval()
	if err != nil {
		return 0, err
	}
	if version <= 0 {
		return 0, nil
	}
	return version - version%interval, nil
}

// CheckpointDue reports, without I/O, whether a checkpoint may be due once
// the table reaches version: a multiple of delta.checkpointInterval was
// passed since the newest checkpoint this snapshot knows of. The multiple
// itself need not be a version this writer committed (another writer may
// have taken it, or committed without checkpointing).
func (s *Snapshot) CheckpointDue(version int64) bool {
	b, err := s.checkpointBoundary(version)
	return err == nil && b > 0 && b > s.lastCheckpoint
}

// MaybeCheckpoint writes a checkpoint of the table when one is due after
// version was committed (see CheckpointDue): it checks _last_checkpoint
// for a checkpoint another writer already wrote past the interval
// boundary, and writes a classic checkpoint of snap otherwise (snap is
// first brought up to date when it is older than version or than that
// checkpoint; a snapshot at version is checkpointed without listing the
// log). Tables
// with the v2Checkpoint feature are left alone (only V2 checkpoints are
// allowed there). It reports whether it wrote one.
func (t *Table) MaybeCheckpoint(ctx context.Context, snap *Snapshot, version int64) (bool, error) {
	if snap == nil || !snap.CheckpointDue(version) {
		return false, nil
	}
	lc, ok := t.readLastCheckpoint(ctx)
	// A snapshot at version (the caller's own commit) is checkpointed as
	// it is: no listing. It is brought up to date when it is behind
	// version, or when another writer already checkpointed past it.
	if snap.Version < version || ok && lc.Version > snap.Version {
		if err := snap.Update(ctx); err != nil {
			return false, err
		}
	}
	if snap.Protocol.HasWriterFeature(FeatureV2Checkpoint) {
		return false, nil
	}
	boundary, err := snap.checkpointBoundary(max(version, snap.Version))
	if err != nil {
		return false, err
	}
	if ok && lc.Version <= snap.Version {
		snap.lastCheckpoint = max(snap.lastCheckpoint, lc.Version)
	}
	if boundary <= snap.lastCheckpoint {
		return false, nil
	}
	if err := t.Checkpoint(ctx, snap); err != nil {
		return false, err
	}
	return true, nil
}

// writeCheckpoint writes snap's checkpoint (tombstones deleted before
// minDeletion dropped) with the column writer of package checkpoint.
func writeCheckpoint(w io.Writer, snap *Snapshot, minDeletion int64) (actions, adds int64, err error) {
	st := checkpoint.State{Protocol: snap.Protocol, Metadata: snap.Metadata, Adds: snap.Files(),
		Removes: func(yield func(*Remove) bool) {
			for r := range snap.Tombstones() {
				if (r.DeletionTimestamp == 0 || r.DeletionTimestamp >= minDeletion) && !yield(r) {
					return
				}
			}
		}}
	for _, app := range slices.Sorted(maps.Keys(snap.txns)) {
		st.Txns = append(st.Txns, snap.txns[app])
	}
	for _, d := range slices.Sorted(maps.Keys(snap.domains)) {
		st.Domains = append(st.Domains, snap.domains[d])
	}
	return checkpoint.Write(w, st)
}
