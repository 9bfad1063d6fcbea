package deltasource

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/history"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/schema"
)

// errMissing marks a log entry or snapshot of the source that is gone.
var errMissing = errors.New("missing from the source log")

// commitFiles is what one source commit contributes to the stream.
type commitFiles struct {
	// adds are the commit's data-changing adds in log order; none when the
	// commit is skipped (skipChangeCommits) or only removes data.
	adds []delta.Add
	// metadata is the commit's metaData action, if any.
	metadata *delta.Metadata
	// err is the change-commit error the commit stops the stream with.
	err error
}

// logReader reads the source table's log: initial snapshots and commits,
// classified by the stream's change policy, cached for the run.
type logReader struct {
	cfg     *Config
	table   *delta.Table
	commits map[int64]*commitFiles
	// initial is the sorted files of the snapshot at initialVersion.
	initial        []delta.Add
	initialVersion int64
	// hint is the source snapshot the stream reads with: the initial
	// snapshot at its version is taken from it instead of loaded again.
	hint *delta.Snapshot
	// listed counts the add actions read from the log since the last reset.
	listed int64
}

func newLogReader(cfg *Config, t *delta.Table) *logReader {
	return &logReader{cfg: cfg, table: t, commits: map[int64]*commitFiles{}, initialVersion: -1}
}

// snapshotFiles returns the files of the snapshot at version in the
// initial snapshot's order: modification time, then path (as Spark's
// Delta source orders them).
func (r *logReader) snapshotFiles(ctx context.Context, version int64) ([]delta.Add, error) {
	if r.initialVersion == version && r.initial != nil {
		return r.initial, nil
	}
	snap, err := r.hint, error(nil)
	if snap == nil || snap.Version != version {
		snap, err = r.table.SnapshotAt(ctx, version)
	}
	if errors.Is(err, delta.ErrVersionNotFound) {
		return nil, fmt.Errorf("%w: snapshot at version %d: %w", errMissing, version, err)
	}
	if err != nil {
		return nil, fmt.Errorf("loading the source table at version %d: %w", version, err)
	}
	files := make([]delta.Add, 0, snap.NumFiles())
	for a := range snap.Files() {
		files = append(files, *a)
	}
	slices.SortFunc(files, func(a, b delta.Add) int {
		return cmp.Or(cmp.Compare(a.ModificationTime, b.ModificationTime), strings.Compare(a.Path, b.Path))
	})
	r.listed += int64(len(files))
	r.initial, r.initialVersion = files, version
	return files, nil
}

// commit reads and classifies commit version. A change commit (a remove
// with dataChange=true) is skipped (skipChangeCommits), has its adds
// re-emitted (ignoreChanges), is skipped when it only removes
// (ignoreDeletes), or carries the error that stops the stream.
func (r *logReader) commit(ctx context.Context, version int64) (*commitFiles, error) {
	if c, ok := r.commits[version]; ok {
		return c, nil
	}
	acts, err := r.table.ReadCommit(ctx, version)
	if errors.Is(err, delta.ErrVersionNotFound) {
		return nil, fmt.Errorf("%w: commit %d: %w", errMissing, version, err)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the source table's commit %d: %w", version, err)
	}
	c := &commitFiles{}
	removed := ""
	for _, a := range acts {
		switch {
		case a.Add != nil && a.Add.DataChange:
			c.adds = append(c.adds, *a.Add)
		case a.Remove != nil && a.Remove.DataChange && removed == "":
			removed = a.Remove.Path
		case a.Metadata != nil:
			md := *a.Metadata
			c.metadata = &md
		}
	}
	r.listed += int64(len(c.adds))
	if removed != "" {
		switch r.cfg.Delta.ChangePolicy() {
		case options.ChangesSkip:
			c.adds = nil
		case options.ChangesReemit:
			// Rewritten files are delivered again; deletes are not propagated.
		case options.ChangesIgnorePartitionDeletes:
			if len(c.adds) > 0 {
				c.err = r.cfg.changeError(version, removed, true)
			}
		default:
			c.err = r.cfg.changeError(version, removed, len(c.adds) > 0)
		}
	}
	r.commits[version] = c
	return c, nil
}

// forget drops cached commits before version (they are behind the stream).
func (r *logReader) forget(version int64) {
	for v := range r.commits {
		if v < version {
			delete(r.commits, v)
		}
	}
	if r.initialVersion >= 0 && r.initialVersion < version-1 {
		r.initial, r.initialVersion = nil, -1
	}
}

// earliestCommit returns the oldest commit version at or after from that
// the log still holds (-1 when none).
func (r *logReader) earliestCommit(ctx context.Context, from int64) (int64, error) {
	best := int64(-1)
	for info, err := range r.table.Store().List(ctx, objstore.ListOptions{Prefix: delta.LogDir}) {
		if err != nil {
			return -1, fmt.Errorf("listing the source log: %w", err)
		}
		v, ok := commitVersion(info.Key)
		if ok && v >= from && (best < 0 || v < best) {
			best = v
		}
	}
	return best, nil
}

// commitVersion parses _delta_log/<20 digits>.json.
func commitVersion(key string) (int64, bool) {
	name, ok := strings.CutPrefix(key, delta.LogDir)
	if !ok || len(name) != 25 || !strings.HasSuffix(name, ".json") {
		return 0, false
	}
	for _, c := range name[:20] {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(name[:20], 10, 64)
	return v, err == nil
}

// startOffset resolves where a new stream starts (seeds 000/003):
// startingVersion (a version, or latest: only commits after the current
// one), startingTimestamp (the first commit at or after it; past the last
// commit: the next one), or by default the initial snapshot of the latest
// version followed by every later commit.
func (r *logReader) startOffset(ctx context.Context, latest int64) (Offset, error) {
	d := r.cfg.Delta
	switch {
	case d.StartingVersion != nil && d.StartingVersion.Latest:
		return Offset{Version: latest + 1}, nil
	case d.StartingVersion != nil:
		v := d.StartingVersion.Version
		if v > latest {
			return Offset{}, fmt.Errorf("%w: startingVersion=%d: the source table %s is at version %d (DESCRIBE HISTORY: tributary history)", ErrStartingVersion, v, r.cfg.SourceURI, latest)
		}
		if _, err := r.table.ReadCommit(ctx, v); err != nil {
			if errors.Is(err, delta.ErrVersionNotFound) {
				early, _ := r.earliestCommit(ctx, 0)
				return Offset{}, fmt.Errorf("%w: startingVersion=%d: the log of %s no longer holds it (earliest available version: %d)", ErrStartingVersion, v, r.cfg.SourceURI, early)
			}
			return Offset{}, err
		}
		return Offset{Version: v}, nil
	case d.StartingTimestamp != nil:
		return r.versionAt(ctx, *d.StartingTimestamp, latest)
	}
	return Offset{Version: latest, Initial: true}, nil
}

// versionAt returns the offset of the first commit at or after ts (its
// commit timestamp); the earliest available one when ts precedes them all,
// the next version when ts is after the last commit.
func (r *logReader) versionAt(ctx context.Context, ts time.Time, latest int64) (Offset, error) {
	hist, err := history.Read(ctx, r.table, 0)
	if err != nil {
		return Offset{}, fmt.Errorf("startingTimestamp: reading the source history: %w", err)
	}
	// History is newest first: the answer is the oldest entry >= ts.
	found := latest + 1
	for _, h := range hist {
		if h.Version > latest {
			continue
		}
		if h.Timestamp.Before(ts) {
			break
		}
		found = h.Version
	}
	return Offset{Version: found}, nil
}

// sinkSchema is the sink's schema for a source schema: the same columns
// without the source's column-mapping metadata (the sink has its own
// physical layout).
func sinkSchema(s *schema.StructType) *schema.StructType {
	out := s.Clone()
	stripMeta(out)
	return out
}

func stripMeta(s *schema.StructType) {
	for i := range s.Fields {
		f := &s.Fields[i]
		for k := range f.Metadata {
			if strings.HasPrefix(k, "delta.columnMapping.") || strings.HasPrefix(k, "parquet.field.id") {
				delete(f.Metadata, k)
			}
		}
		stripType(f.Type)
	}
}

func stripType(t schema.Type) {
	switch tt := t.(type) {
	case *schema.StructType:
		stripMeta(tt)
	case *schema.ArrayType:
		if tt != nil {
			stripType(tt.Element)
		}
	case *schema.MapType:
		if tt != nil {
			stripType(tt.Key)
			stripType(tt.Value)
		}
	}
}

// readCompatible reports why data written with schema old cannot be read
// with schema read ("" when it can: every column of old is in read, with
// the same type; read may add columns).
func readCompatible(old, read *schema.StructType, prefix string) string {
	for _, f := range old.Fields {
		i := read.FieldIndex(f.Name)
		if i < 0 {
			return fmt.Sprintf("column %s%s was dropped or renamed", prefix, f.Name)
		}
		os, ok1 := f.Type.(*schema.StructType)
		rs, ok2 := read.Fields[i].Type.(*schema.StructType)
		if ok1 && ok2 {
			if why := readCompatible(os, rs, prefix+f.Name+"."); why != "" {
				return why
			}
			continue
		}
		if !schema.EqualType(sinkType(f.Type), sinkType(read.Fields[i].Type)) {
			return fmt.Sprintf("column %s%s changed from %s to %s", prefix, f.Name, schema.DDLType(f.Type), schema.DDLType(read.Fields[i].Type))
		}
	}
	return ""
}

func sinkType(t schema.Type) schema.Type {
	c := schema.CloneType(t)
	stripType(c)
	return c
}
