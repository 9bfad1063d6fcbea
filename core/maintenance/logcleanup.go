package maintenance

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore"
)

// LogCleanupOptions configures CleanupLog.
type LogCleanupOptions struct {
	Options
	// Retention overrides delta.logRetentionDuration when non-nil.
	Retention *time.Duration
	// DryRun lists the log files that would be deleted without deleting
	// them.
	DryRun bool
}

// LogCleanupResult is what CleanupLog found and did.
type LogCleanupResult struct {
	// Retention is the retention applied.
	Retention time.Duration
	// Checkpoint is the version of the checkpoint the kept log starts
	// from (-1 when nothing could be cleaned).
	Checkpoint int64
	// Files are the log keys deleted (or, in a dry run, to delete), in
	// version order.
	Files []string
	// Bytes is their total size.
	Bytes int64
	// DryRun is LogCleanupOptions.DryRun.
	DryRun bool
}

// logVersion is one version's files in _delta_log.
type logVersion struct {
	version    int64
	files      []objstore.ObjectInfo
	modTime    time.Time
	checkpoint bool // a complete single-file classic or V2 checkpoint
	parts      map[int]int
	partsOf    int
}

func (v *logVersion) hasCheckpoint() bool {
	return v.checkpoint || v.partsOf > 0 && len(v.parts) == v.partsOf
}

// CleanupLog deletes the log files (commits, checkpoints, checksums) of
// the versions older than delta.logRetentionDuration that lie before a
// checkpoint: it finds the newest checkpoint C such that every version
// before C expired (its files are older than the retention, ordered as
// Delta orders them: a version is never younger than the one before), and
// deletes the files of the versions before C. Every version from C on stays
// readable; versions before C can no longer be time-travelled to (streams
// reading them fail with DELTA_FILE_NOT_FOUND_DETAILED). _last_checkpoint,
// _sidecars and other "_" files are left alone.
func CleanupLog(ctx context.Context, tbl *delta.Table, opts LogCleanupOptions) (LogCleanupResult, error) {
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		return LogCleanupResult{}, err
	}
	retention, err := snap.LogRetentionDuration()
	if err != nil {
		return LogCleanupResult{}, err
	}
	if opts.Retention != nil {
		if *opts.Retention < 0 {
			return LogCleanupResult{}, fmt.Errorf("maintenance: log retention %v is negative", *opts.Retention)
		}
		retention = *opts.Retention
	}
	res := LogCleanupResult{Retention: retention, Checkpoint: -1, DryRun: opts.DryRun}
	// Only versions up to the snapshot's checkpoint can be cleaned: it is
	// complete and readable (the snapshot was loaded from it).
	limit := snap.CheckpointVersion()
	if limit <= 0 {
		return res, nil
	}
	cutoff := opts.now().Add(-retention)
	var versions []*logVersion
	byVersion := make(map[int64]*logVersion)
	for info, err := range tbl.Store().List(ctx, objstore.ListOptions{Prefix: delta.LogDir}) {
		if err != nil {
			return res, fmt.Errorf("maintenance: log cleanup: listing %s: %w", delta.LogDir, err)
		}
		name := strings.TrimPrefix(info.Key, delta.LogDir)
		if strings.Contains(name, "/") {
			continue
		}
		v, kind, ok := parseLogName(name)
		if !ok || v > limit {
			continue
		}
		lv := byVersion[v]
		if lv == nil {
			lv = &logVersion{version: v}
			byVersion[v] = lv
			versions = append(versions, lv)
		}
		lv.files = append(lv.files, info)
		if info.ModTime.After(lv.modTime) {
			lv.modTime = info.ModTime
		}
		switch {
		case kind == "checkpoint":
			lv.checkpoint = true
		case strings.HasPrefix(kind, "part:"):
			var part, of int
			if _, err := fmt.Sscanf(kind, "part:%d:%d", &part, &of); err == nil && of > 0 {
				if lv.parts == nil {
					lv.parts = make(map[int]int)
				}
				lv.parts[part] = of
				lv.partsOf = of
			}
		}
	}
	slices.SortFunc(versions, func(a, b *logVersion) int { return int(a.version - b.version) })
	// Expired prefix: a version's time is at least the time of the ones
	// before it (clock skew between writers), as Delta adjusts them.
	var last time.Time
	expired := 0
	for _, lv := range versions {
		t := lv.modTime
		if t.Before(last) {
			t = last
		}
		last = t
		if t.After(cutoff) {
			break
		}
		expired++
	}
	// The newest checkpoint at or below the first version kept.
	upTo := -1
	for i := 0; i < len(versions) && i <= expired; i++ {
		if versions[i].hasCheckpoint() && versions[i].version <= limit {
			upTo = i
		}
	}
	if upTo <= 0 {
		return res, nil
	}
	res.Checkpoint = versions[upTo].version
	for _, lv := range versions[:upTo] {
		for _, f := range lv.files {
			res.Files = append(res.Files, f.Key)
			res.Bytes += f.Size
		}
	}
	if opts.DryRun {
		return res, nil
	}
	// Oldest first: an interrupted cleanup leaves a contiguous log.
	for i, k := range res.Files {
		if err := tbl.Store().Delete(ctx, k); err != nil {
			res.Files = res.Files[:i]
			return res, fmt.Errorf("maintenance: log cleanup: deleting %s: %w", k, err)
		}
	}
	opts.log().InfoContext(ctx, "log cleanup", "checkpoint", res.Checkpoint, "deleted", len(res.Files), "bytes", res.Bytes)
	return res, nil
}

// parseLogName parses a log file name: <20 digits>.json ("commit"),
// .checkpoint.parquet or .checkpoint.<uuid>.json|parquet ("checkpoint"),
// .checkpoint.<part>.<parts>.parquet ("part:P:N"), .crc ("crc"),
// <20 digits>.<20 digits>.compacted.json ("compacted"; its version is the
// end of its range).
func parseLogName(name string) (int64, string, bool) {
	if len(name) < 21 || name[20] != '.' {
		return 0, "", false
	}
	v, err := strconv.ParseInt(name[:20], 10, 64)
	if err != nil || v < 0 {
		return 0, "", false
	}
	rest := name[21:]
	switch {
	case rest == "json":
		return v, "commit", true
	case rest == "crc":
		return v, "crc", true
	case rest == "checkpoint.parquet":
		return v, "checkpoint", true
	case strings.HasPrefix(rest, "checkpoint."):
		mid := strings.TrimPrefix(rest, "checkpoint.")
		f := strings.Split(mid, ".")
		if len(f) == 3 && f[2] == "parquet" {
			p, err1 := strconv.Atoi(f[0])
			n, err2 := strconv.Atoi(f[1])
			if err1 == nil && err2 == nil && p >= 1 && p <= n {
				return v, fmt.Sprintf("part:%d:%d", p, n), true
			}
		}
		if len(f) == 2 && (f[1] == "json" || f[1] == "parquet") {
			return v, "checkpoint", true // V2 checkpoint with its UUID
		}
	case strings.HasSuffix(rest, ".compacted.json") && len(rest) == 20+len(".compacted.json"):
		end, err := strconv.ParseInt(rest[:20], 10, 64)
		if err == nil && end >= v {
			return end, "compacted", true
		}
	}
	return 0, "", false
}
