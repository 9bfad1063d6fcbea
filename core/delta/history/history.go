// Package history lists a Delta table's commits, newest first, with their
// timestamps, commitInfo and txn actions (Spark's DESCRIBE HISTORY).
package history

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/internal/logkey"
	"github.com/tributary-io/tributary/core/objstore"
)

// Entry is one commit of a table's history (DESCRIBE HISTORY).
type Entry struct {
	// Version is the commit's table version.
	Version int64
	// Timestamp is the commit time: the in-commit timestamp when there is
	// one, else commitInfo.timestamp, else the commit file's modification
	// time.
	Timestamp time.Time
	// CommitInfo is the commit's provenance; nil when it has none.
	CommitInfo *delta.CommitInfo
	// Txns are the commit's txn actions (streaming writers' appId and
	// version), in log order.
	Txns []delta.Txn
}

// ClientVersion returns commitInfo.clientVersion (written by delta-rs and
// others), or "".
func (h Entry) ClientVersion() string {
	if h.CommitInfo == nil {
		return ""
	}
	s, _ := h.CommitInfo.Extra["clientVersion"].(string)
	return s
}

// Read returns the table's commits, newest first, at most limit of them
// (limit <= 0: all). Only commits whose files remain in the log are listed
// (log cleanup removes older ones), as in Spark's DESCRIBE HISTORY.
func Read(ctx context.Context, t *delta.Table, limit int) ([]Entry, error) {
	type commit struct {
		key string
		mod time.Time
	}
	commits := map[int64]commit{}
	for info, err := range t.Store().List(ctx, objstore.ListOptions{Prefix: delta.LogDir}) {
		if err != nil {
			return nil, fmt.Errorf("delta: list %s: %w", delta.LogDir, err)
		}
		if logkey.AfterVersions(info.Key) {
			break
		}
		if f, ok := logkey.Parse(info.Key); ok && f.Kind == logkey.Commit {
			commits[f.Version] = commit{key: f.Key, mod: info.ModTime}
		}
	}
	if len(commits) == 0 {
		// A table whose log holds only checkpoints has no history to show;
		// a store without a log is not a table.
		if _, err := t.LatestVersion(ctx); err != nil {
			return nil, err
		}
		return nil, nil
	}
	versions := make([]int64, 0, len(commits))
	for v := range commits {
		versions = append(versions, v)
	}
	slices.Sort(versions)
	slices.Reverse(versions)
	if limit > 0 && len(versions) > limit {
		versions = versions[:limit]
	}
	out := make([]Entry, 0, len(versions))
	for _, v := range versions {
		acts, err := t.ReadCommit(ctx, v)
		if err != nil {
			return nil, err
		}
		h := Entry{Version: v, Timestamp: commits[v].mod.UTC()}
		for _, a := range acts {
			switch {
			case a.CommitInfo != nil && h.CommitInfo == nil:
				h.CommitInfo = a.CommitInfo
			case a.Txn != nil:
				h.Txns = append(h.Txns, *a.Txn)
			}
		}
		if ci := h.CommitInfo; ci != nil {
			switch {
			case ci.InCommitTimestamp != nil:
				h.Timestamp = time.UnixMilli(*ci.InCommitTimestamp).UTC()
			case ci.Timestamp != 0:
				h.Timestamp = time.UnixMilli(ci.Timestamp).UTC()
			}
		}
		out = append(out, h)
	}
	return out, nil
}
