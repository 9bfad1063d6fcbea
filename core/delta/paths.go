package delta

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// LogDir is the key prefix of the transaction log inside a table.
const LogDir = "_delta_log/"

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

// logFile is a parsed name in _delta_log/.
type logFile struct {
	key     string
	version int64
	kind    logKind
	part    int // multi-part: 1-based part number
	parts   int // multi-part: number of parts
}

type logKind int

const (
	kindCommit logKind = iota + 1
	kindCheckpoint
	kindMultiPartCheckpoint
	kindV2Checkpoint // <v>.checkpoint.<uuid>.(json|parquet)
)

// parseLogKey classifies a key directly under _delta_log/; ok is false for
// keys that are not commits or checkpoints (_last_checkpoint, .crc, temp
// files, subdirectories).
func parseLogKey(key string) (logFile, bool) {
	name, ok := strings.CutPrefix(key, LogDir)
	if !ok || strings.Contains(name, "/") || len(name) < 21 || name[20] != '.' {
		return logFile{}, false
	}
	v, err := strconv.ParseInt(name[:20], 10, 64)
	if err != nil || v < 0 {
		return logFile{}, false
	}
	rest := name[21:]
	f := logFile{key: key, version: v}
	switch {
	case rest == "json":
		f.kind = kindCommit
	case rest == "checkpoint.parquet":
		f.kind = kindCheckpoint
	case strings.HasPrefix(rest, "checkpoint."):
		mid := strings.TrimPrefix(rest, "checkpoint.")
		segs := strings.Split(mid, ".")
		switch {
		case len(segs) == 3 && segs[2] == "parquet" && len(segs[0]) == 10 && len(segs[1]) == 10:
			p, err1 := strconv.Atoi(segs[0])
			n, err2 := strconv.Atoi(segs[1])
			if err1 != nil || err2 != nil || p < 1 || n < 1 || p > n {
				return logFile{}, false
			}
			f.kind, f.part, f.parts = kindMultiPartCheckpoint, p, n
		case len(segs) == 2 && (segs[1] == "json" || segs[1] == "parquet") && len(segs[0]) == 36:
			f.kind = kindV2Checkpoint
		default:
			return logFile{}, false
		}
	default:
		return logFile{}, false
	}
	return f, true
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
