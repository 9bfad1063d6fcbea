package delta

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/tributary-io/tributary/core/delta/internal/logkey"
)

// LogDir is the key prefix of the transaction log inside a table.
const LogDir = logkey.Dir

// LastCheckpointKey is the key of the _last_checkpoint hint.
const LastCheckpointKey = LogDir + "_last_checkpoint"

// ErrAbsolutePath is wrapped by ObjectKey for a file path that is an
// absolute URI (shallow clones) and therefore not a key of the table's store.
var ErrAbsolutePath = errors.New("delta: absolute file path")

// CommitKey returns the log key of a version's commit file.
func CommitKey(version int64) string {
	return fmt.Sprintf("%s%020d.json", LogDir, version)
}

// CheckpointKey returns the log key of a classic single-file checkpoint.
func CheckpointKey(version int64) string {
	return fmt.Sprintf("%s%020d.checkpoint.parquet", LogDir, version)
}

// ObjectKey decodes a file path from an add, remove or cdc action (a
// URL-encoded URI relative to the table root) into a store key. Absolute
// URIs yield an error wrapping ErrAbsolutePath.
func ObjectKey(path string) (string, error) {
	if isAbsoluteURI(path) {
		return "", fmt.Errorf("%w: %q", ErrAbsolutePath, path)
	}
	key, err := url.PathUnescape(path)
	if err != nil {
		return "", fmt.Errorf("delta: decode file path %q: %w", path, err)
	}
	return key, nil
}

// EncodePath turns a store key relative to the table root into the
// URL-encoded relative URI written in add.path: each segment is
// percent-encoded (space as %20, '%' as %25, ':' as %3A) and '/' separates.
func EncodePath(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = strings.ReplaceAll(url.PathEscape(s), ":", "%3A")
	}
	return strings.Join(segs, "/")
}

func isAbsoluteURI(p string) bool {
	if strings.HasPrefix(p, "/") {
		return true
	}
	i := strings.IndexAny(p, ":/?#")
	if i <= 0 || p[i] != ':' {
		return false
	}
	for j := 0; j < i; j++ {
		c := p[j]
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// canonicalPath normalises a file path for reconciliation so that
// "file:/x", "file:///x" and "/x" name the same file.
func canonicalPath(p string) string {
	switch {
	case strings.HasPrefix(p, "file:///"):
		return "file:/" + p[len("file:///"):]
	case strings.HasPrefix(p, "/"):
		return "file:" + p
	}
	return p
}

// fileKey is the reconciliation key of a logical file: (path, DV unique id).
func fileKey(path string, dv *DeletionVector) string {
	p := canonicalPath(path)
	if dv == nil {
		return p
	}
	return p + "\x00" + dv.UniqueID()
}
