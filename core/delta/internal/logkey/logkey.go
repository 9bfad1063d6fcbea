// Package logkey parses the names of a Delta table's log files (commits;
// classic, multi-part and V2 checkpoints) and groups a listing of
// _delta_log into its commits and complete checkpoints.
package logkey

import (
	"strconv"
	"strings"
)

// Dir is the key prefix of the transaction log inside a table.
const Dir = "_delta_log/"

// Kind is the kind of a log file.
type Kind int

// Log file kinds.
const (
	Commit Kind = iota + 1
	Checkpoint
	MultiPartCheckpoint
	V2Checkpoint // <v>.checkpoint.<uuid>.(json|parquet)
)

// File is a parsed name in _delta_log/.
type File struct {
	Key     string
	Version int64
	Kind    Kind
	Part    int // multi-part: 1-based part number
	Parts   int // multi-part: number of parts
}

// AfterVersions reports whether a key of the log sorts after every
// versioned file (_last_checkpoint, _sidecars/, …): a listing can stop.
func AfterVersions(key string) bool {
	name := strings.TrimPrefix(key, Dir)
	return name != "" && name[0] > '9'
}

// Parse classifies a key directly under _delta_log/; ok is false for keys
// that are not commits or checkpoints (_last_checkpoint, .crc, temp
// files, subdirectories).
func Parse(key string) (File, bool) {
	name, ok := strings.CutPrefix(key, Dir)
	if !ok || strings.Contains(name, "/") || len(name) < 21 || name[20] != '.' {
		return File{}, false
	}
	for i := range 20 {
		if name[i] < '0' || name[i] > '9' { // ParseInt would take a sign
			return File{}, false
		}
	}
	v, err := strconv.ParseInt(name[:20], 10, 64)
	if err != nil {
		return File{}, false
	}
	rest := name[21:]
	f := File{Key: key, Version: v}
	switch {
	case rest == "json":
		f.Kind = Commit
	case rest == "checkpoint.parquet":
		f.Kind = Checkpoint
	case strings.HasPrefix(rest, "checkpoint."):
		mid := strings.TrimPrefix(rest, "checkpoint.")
		segs := strings.Split(mid, ".")
		switch {
		case len(segs) == 3 && segs[2] == "parquet" && len(segs[0]) == 10 && len(segs[1]) == 10:
			p, err1 := strconv.Atoi(segs[0])
			n, err2 := strconv.Atoi(segs[1])
			if err1 != nil || err2 != nil || p < 1 || n < 1 || p > n {
				return File{}, false
			}
			f.Kind, f.Part, f.Parts = MultiPartCheckpoint, p, n
		case len(segs) == 2 && (segs[1] == "json" || segs[1] == "parquet") && len(segs[0]) == 36:
			f.Kind = V2Checkpoint
		default:
			return File{}, false
		}
	default:
		return File{}, false
	}
	return f, true
}

// Listing is the commits and complete checkpoints found by a listing.
type Listing struct {
	// Commits maps a version to its commit file's key.
	Commits map[int64]string
	// Checkpoints maps a version to its complete checkpoint: all parts, or
	// one V2 or classic file.
	Checkpoints map[int64][]File
	// MaxVersion is the newest version of a commit or complete
	// checkpoint, -1 when there is none.
	MaxVersion int64
	multi      map[int64]map[int][]File // version -> parts -> files
}

// NewListing returns an empty listing.
func NewListing() *Listing {
	return &Listing{Commits: make(map[int64]string), Checkpoints: make(map[int64][]File), MaxVersion: -1}
}

// Add records a file of the listing.
func (l *Listing) Add(f File) {
	switch f.Kind {
	case Commit:
		l.Commits[f.Version] = f.Key
		l.MaxVersion = max(l.MaxVersion, f.Version)
	case Checkpoint, V2Checkpoint:
		if _, dup := l.Checkpoints[f.Version]; !dup {
			l.Checkpoints[f.Version] = []File{f}
		}
		l.MaxVersion = max(l.MaxVersion, f.Version)
	case MultiPartCheckpoint:
		if l.multi == nil {
			l.multi = make(map[int64]map[int][]File)
		}
		if l.multi[f.Version] == nil {
			l.multi[f.Version] = make(map[int][]File)
		}
		l.multi[f.Version][f.Parts] = append(l.multi[f.Version][f.Parts], f)
	}
}

// Finish keeps the multi-part checkpoints whose parts were all listed
// (for a version without a single-file checkpoint).
func (l *Listing) Finish() {
	for v, byParts := range l.multi {
		if _, have := l.Checkpoints[v]; have {
			continue
		}
		for n, files := range byParts {
			seen := make(map[int]File)
			for _, f := range files {
				seen[f.Part] = f
			}
			if len(seen) == n {
				parts := make([]File, 0, n)
				for i := 1; i <= n; i++ {
					parts = append(parts, seen[i])
				}
				l.Checkpoints[v] = parts
				l.MaxVersion = max(l.MaxVersion, v)
				break
			}
		}
	}
	l.multi = nil
}
