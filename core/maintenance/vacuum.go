package maintenance

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore"
)

// VacuumOptions configures Vacuum.
type VacuumOptions struct {
	Options
	// Retention overrides delta.deletedFileRetentionDuration when non-nil
	// (RETAIN n HOURS). A retention shorter than the table's is refused
	// with ErrRetentionTooShort unless UnsafeRetention is set (Delta's
	// spark.databricks.delta.retentionDurationCheck.enabled=false).
	Retention *time.Duration
	// UnsafeRetention allows a retention shorter than the table's: readers
	// of old versions and writers still uploading files may lose them.
	UnsafeRetention bool
	// DryRun lists the files that would be deleted without deleting them.
	DryRun bool
}

// VacuumResult is what Vacuum found and did.
type VacuumResult struct {
	// Version is the table version whose files were kept.
	Version int64
	// Retention is the retention applied.
	Retention time.Duration
	// Files are the keys deleted (or, in a dry run, to delete), sorted.
	Files []string
	// Bytes is their total size.
	Bytes int64
	// Kept counts the files kept: referenced, recently removed or recently
	// written.
	Kept int
	// DryRun is VacuumOptions.DryRun.
	DryRun bool
}

// Vacuum deletes the files under the table root that the table does not
// need: not referenced by its current version, not removed within the
// retention (time travel to a version inside it still works), and not
// written within the retention (a writer may be about to commit them).
// Files and folders whose name starts with "_" or "." are never touched.
func Vacuum(ctx context.Context, tbl *delta.Table, opts VacuumOptions) (VacuumResult, error) {
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		return VacuumResult{}, err
	}
	tableRetention, err := snap.DeletedFileRetentionDuration()
	if err != nil {
		return VacuumResult{}, err
	}
	retention := tableRetention
	if opts.Retention != nil {
		if *opts.Retention < 0 {
			return VacuumResult{}, fmt.Errorf("maintenance: vacuum retention %v is negative", *opts.Retention)
		}
		if *opts.Retention < tableRetention && !opts.UnsafeRetention {
			return VacuumResult{}, fmt.Errorf("%w: asked for %v, the table keeps removed files for %v (%s): readers of older versions and writers still uploading would lose files; lower the table property, or allow it explicitly (--unsafe-retention)",
				ErrRetentionTooShort, *opts.Retention, tableRetention, delta.PropDeletedFileRetentionDuration)
		}
		retention = *opts.Retention
	}
	now := opts.now()
	cutoff := now.Add(-retention)
	keep, err := referenced(tbl, snap, cutoff.UnixMilli())
	if err != nil {
		return VacuumResult{}, err
	}
	res := VacuumResult{Version: snap.Version, Retention: retention, DryRun: opts.DryRun}
	for info, err := range tbl.Store().List(ctx, objstore.ListOptions{}) {
		if err != nil {
			return res, fmt.Errorf("maintenance: vacuum: listing the table: %w", err)
		}
		if hidden(info.Key) {
			continue
		}
		if keep[info.Key] || info.ModTime.After(cutoff) || keep[keepAllVectors] && isVector(info.Key) {
			res.Kept++
			continue
		}
		res.Files = append(res.Files, info.Key)
		res.Bytes += info.Size
	}
	if opts.DryRun {
		return res, nil
	}
	for i, k := range res.Files {
		if err := tbl.Store().Delete(ctx, k); err != nil {
			res.Files = res.Files[:i]
			return res, fmt.Errorf("maintenance: vacuum: deleting %s: %w", k, err)
		}
	}
	opts.log().InfoContext(ctx, "vacuum", "version", snap.Version, "deleted", len(res.Files), "bytes", res.Bytes, "kept", res.Kept)
	return res, nil
}

// referenced returns the keys the table needs at snap: its files and their
// deletion vectors, and the files (and vectors) removed at or after
// minDeletion (milliseconds).
func referenced(tbl *delta.Table, snap *delta.Snapshot, minDeletion int64) (map[string]bool, error) {
	keep := make(map[string]bool, snap.NumFiles())
	mark := func(path string, dv *delta.DeletionVector) error {
		k, err := tbl.FileKey(path)
		if err != nil {
			return fmt.Errorf("maintenance: vacuum: file %q: %w", path, err)
		}
		keep[k] = true
		if dv == nil {
			return nil
		}
		// A vector outside the table root is not ours to delete anyway.
		switch dv.StorageType {
		case delta.DVStorageRelative:
			if k, err := delta.DVFileKey(dv, ""); err == nil {
				keep[k] = true
			}
		case delta.DVStorageAbsolute:
			if k, err := tbl.FileKey(dv.PathOrInlineDv); err == nil {
				keep[k] = true
			} else {
				// The table's location is unknown: keep every vector.
				keep[keepAllVectors] = true
			}
		}
		return nil
	}
	for a := range snap.Files() {
		if err := mark(a.Path, a.DeletionVector); err != nil {
			return nil, err
		}
	}
	for r := range snap.Tombstones() {
		if r.DeletionTimestamp >= minDeletion {
			if err := mark(r.Path, r.DeletionVector); err != nil {
				return nil, err
			}
		}
	}
	return keep, nil
}

// keepAllVectors marks, in the set of referenced keys, a table with an
// absolute deletion vector path that cannot be mapped to a key: every
// deletion vector file is then kept. (It is not a valid key.)
const keepAllVectors = "/deletion vectors/"

// isVector reports whether key names a deletion vector file.
func isVector(key string) bool {
	name := key[strings.LastIndexByte(key, '/')+1:]
	return strings.HasPrefix(name, "deletion_vector_") && strings.HasSuffix(name, ".bin")
}

// hidden reports whether a key lies in (or is) a file or folder whose name
// starts with "_" or ".": the log, checkpoints, schema locations,
// temporary files. Vacuum never deletes those.
func hidden(key string) bool {
	for seg := range strings.SplitSeq(key, "/") {
		if strings.HasPrefix(seg, "_") || strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}
