package delta

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/delta/action"
	"github.com/tributary-io/tributary/core/delta/internal/logkey"
	"github.com/tributary-io/tributary/core/objstore"
)

// ErrNotATable is returned (wrapped) when the store has no Delta log.
var ErrNotATable = errors.New("delta: not a Delta table (no _delta_log commits)")

// ErrVersionNotFound is wrapped by SnapshotAt and ReadCommit for a version
// the log does not hold.
var ErrVersionNotFound = errors.New("delta: version not found")

// Table is a Delta table rooted at the store's root.
type Table struct {
	store          objstore.Store
	rootURI        string
	readerFeatures map[string]bool
	writerFeatures map[string]bool
	maxAttempts    int
	backoff        time.Duration
	engineInfo     string
	now            func() time.Time
	log            *slog.Logger
}

// Option configures a Table.
type Option func(*Table)

// WithLocation sets the table's location URI (e.g. "s3://bucket/table" or
// "file:///data/table"), so that absolute paths in the log (deletion
// vectors stored with storage type "p") that lie under it are read from the
// table's store.
func WithLocation(uri string) Option { return func(t *Table) { t.rootURI = uri } }

// WithEngineInfo sets commitInfo.engineInfo (default "tributary").
func WithEngineInfo(s string) Option { return func(t *Table) { t.engineInfo = s } }

// WithMaxAttempts bounds CommitTxn's attempts (default 20).
func WithMaxAttempts(n int) Option {
	return func(t *Table) {
		if n > 0 {
			t.maxAttempts = n
		}
	}
}

// WithBackoff sets the base of CommitTxn's jittered backoff between
// attempts (default 5ms; 0 disables sleeping).
func WithBackoff(d time.Duration) Option { return func(t *Table) { t.backoff = d } }

// WithClock sets the clock used for commit timestamps.
func WithClock(now func() time.Time) Option { return func(t *Table) { t.now = now } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(t *Table) { t.log = l } }

// WithReaderFeatures replaces the set of reader features accepted when
// loading snapshots (default DefaultReaderFeatures()).
func WithReaderFeatures(f map[string]bool) Option { return func(t *Table) { t.readerFeatures = f } }

// WithWriterFeatures replaces the set of writer features accepted by
// commits (default DefaultWriterFeatures()).
func WithWriterFeatures(f map[string]bool) Option { return func(t *Table) { t.writerFeatures = f } }

// NewTable returns the table rooted at the store's root.
func NewTable(store objstore.Store, opts ...Option) *Table {
	t := &Table{
		store:          store,
		readerFeatures: DefaultReaderFeatures(),
		writerFeatures: DefaultWriterFeatures(),
		maxAttempts:    20,
		backoff:        5 * time.Millisecond,
		engineInfo:     "tributary",
		now:            time.Now,
		log:            slog.Default(),
	}
	for _, o := range opts {
		o(t)
	}
	return t
}

// Store returns the table's object store.
func (t *Table) Store() objstore.Store { return t.store }

// LastCheckpoint is the content of _delta_log/_last_checkpoint.
type LastCheckpoint struct {
	Version       int64           `json:"version"`
	Size          int64           `json:"size"`
	Parts         *int            `json:"parts,omitempty"`
	SizeInBytes   int64           `json:"sizeInBytes,omitempty"`
	NumOfAddFiles int64           `json:"numOfAddFiles,omitempty"`
	V2Checkpoint  json.RawMessage `json:"v2Checkpoint,omitempty"`
	Checksum      string          `json:"checksum,omitempty"`
}

func (t *Table) readAll(ctx context.Context, key string) ([]byte, error) {
	rc, err := t.store.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	return b, nil
}

// readLastCheckpoint returns the hint, or ok=false when it is missing or
// unreadable (a stale or corrupt hint is never fatal).
func (t *Table) readLastCheckpoint(ctx context.Context) (LastCheckpoint, bool) {
	b, err := t.readAll(ctx, LastCheckpointKey)
	if err != nil {
		if !errors.Is(err, objstore.ErrNotFound) {
			t.log.WarnContext(ctx, "delta: cannot read _last_checkpoint; listing the log", "key", LastCheckpointKey, "err", err)
		}
		return LastCheckpoint{}, false
	}
	var lc LastCheckpoint
	if err := json.Unmarshal(b, &lc); err != nil || lc.Version < 0 {
		t.log.WarnContext(ctx, "delta: corrupt _last_checkpoint; listing the log", "key", LastCheckpointKey, "err", err)
		return LastCheckpoint{}, false
	}
	return lc, true
}

// listLog lists log files with versions >= from.
func (t *Table) listLog(ctx context.Context, from int64) (*logkey.Listing, error) {
	ll := logkey.NewListing()
	opts := objstore.ListOptions{Prefix: LogDir}
	if from > 0 {
		opts.StartAfter = fmt.Sprintf("%s%020d", LogDir, from)
	}
	for info, err := range t.store.List(ctx, opts) {
		if err != nil {
			return nil, fmt.Errorf("delta: list %s: %w", LogDir, err)
		}
		if logkey.AfterVersions(info.Key) {
			break
		}
		if f, ok := logkey.Parse(info.Key); ok && f.Version >= from {
			ll.Add(f)
		}
	}
	ll.Finish()
	return ll, nil
}

// Snapshot loads the latest version of the table.
func (t *Table) Snapshot(ctx context.Context) (*Snapshot, error) {
	return t.snapshot(ctx, -1)
}

// SnapshotAt loads the table as of version.
func (t *Table) SnapshotAt(ctx context.Context, version int64) (*Snapshot, error) {
	if version < 0 {
		return nil, fmt.Errorf("%w: %d", ErrVersionNotFound, version)
	}
	return t.snapshot(ctx, version)
}

func (t *Table) snapshot(ctx context.Context, target int64) (*Snapshot, error) {
	var ll *logkey.Listing
	var err error
	lc, ok := t.readLastCheckpoint(ctx)
	if ok && target < 0 {
		if s, err := t.snapshotByProbe(ctx, lc); s != nil || err != nil {
			return s, err
		}
	}
	if ok && (target < 0 || lc.Version <= target) {
		ll, err = t.listLog(ctx, lc.Version)
		if err != nil {
			return nil, err
		}
		if _, ok := ll.Checkpoints[lc.Version]; !ok {
			// Stale or dangling hint: fall back to a full listing.
			t.log.WarnContext(ctx, "delta: _last_checkpoint names a missing checkpoint; listing the log", "version", lc.Version)
			ll = nil
		}
	}
	if ll == nil {
		if ll, err = t.listLog(ctx, 0); err != nil {
			return nil, err
		}
	}
	if ll.MaxVersion < 0 {
		return nil, ErrNotATable
	}
	if target < 0 {
		target = ll.MaxVersion
	} else if target > ll.MaxVersion {
		return nil, fmt.Errorf("%w: version %d (latest is %d)", ErrVersionNotFound, target, ll.MaxVersion)
	}
	// Newest complete checkpoint at or below target.
	ckpt := int64(-1)
	for v := range ll.Checkpoints {
		if v <= target && v > ckpt {
			ckpt = v
		}
	}
	if _, has0 := ll.Commits[0]; ckpt < 0 && !has0 {
		// Log cleanup removed the versions before a later checkpoint:
		// target can no longer be reconstructed (Delta's
		// VersionNotFoundException), which is not a broken log.
		earliest := int64(-1)
		for v := range ll.Checkpoints {
			if v > target && (earliest < 0 || v < earliest) {
				earliest = v
			}
		}
		if earliest >= 0 {
			return nil, fmt.Errorf("%w: version %d is gone from the log (log cleanup; the earliest version that can be loaded is %d)", ErrVersionNotFound, target, earliest)
		}
	}
	s := newSnapshot(t)
	if ckpt >= 0 {
		if ok && lc.Version == ckpt {
			s.sizeHint(lc.NumOfAddFiles)
		}
		if err := t.loadCheckpoint(ctx, s, ll.Checkpoints[ckpt]); err != nil {
			return nil, fmt.Errorf("delta: checkpoint %d: %w", ckpt, err)
		}
		s.Version, s.checkpointVersion, s.lastCheckpoint = ckpt, ckpt, ckpt
	}
	if err := t.replay(ctx, s, ll.Commits, target); err != nil {
		return nil, err
	}
	if err := s.finish(); err != nil {
		return nil, err
	}
	return s, nil
}

// snapshotByProbe loads the latest snapshot of a table on a
// DirectoryStore without listing the log (a listing reads every name of
// the directory, 20,000 for a log of 10,000 commits): the classic
// checkpoint _last_checkpoint names (or a newer one met on the way), then
// the commits after it, read in turn until one is missing. Log cleanup only deletes commits a later
// checkpoint covers, and such a checkpoint shows in _last_checkpoint:
// that is read again at the end and any doubt (a newer hint, a missing
// or multi-part checkpoint, another store) returns nil, nil so that the
// caller lists.
func (t *Table) snapshotByProbe(ctx context.Context, lc LastCheckpoint) (*Snapshot, error) {
	if !t.listsWholeDirectories() || lc.Parts != nil || len(lc.V2Checkpoint) > 0 {
		return nil, nil
	}
	var s *Snapshot
	load := func(v, hint int64) error {
		s = newSnapshot(t)
		s.sizeHint(hint)
		if err := t.loadCheckpoint(ctx, s, []logkey.File{{Key: CheckpointKey(v), Version: v, Kind: logkey.Checkpoint}}); err != nil {
			return err
		}
		s.Version, s.checkpointVersion, s.lastCheckpoint = v, v, v
		return nil
	}
	if err := load(lc.Version, lc.NumOfAddFiles); err != nil {
		if errors.Is(err, objstore.ErrNotFound) {
			return nil, nil // a dangling hint: the listing finds the checkpoints
		}
		return nil, fmt.Errorf("delta: checkpoint %d: %w", lc.Version, err)
	}
	for {
		// A stale hint (a writer that died before updating it): start
		// from the newer checkpoint, as the listing would.
		if _, err := t.store.Head(ctx, CheckpointKey(s.Version+1)); err == nil {
			v := s.Version + 1
			if err := load(v, int64(len(s.files))); err != nil {
				return nil, fmt.Errorf("delta: checkpoint %d: %w", v, err)
			}
			continue
		}
		err := t.applyCommit(ctx, s, CommitKey(s.Version+1))
		if errors.Is(err, objstore.ErrNotFound) {
			break
		}
		if err != nil {
			return nil, err
		}
		s.Version++
	}
	if again, ok := t.readLastCheckpoint(ctx); !ok || again.Version > s.Version {
		return nil, nil
	}
	if err := s.finish(); err != nil {
		return nil, err
	}
	return s, nil
}

// probeCommits applies the commits after s.Version in turn until one is
// missing.
func (t *Table) probeCommits(ctx context.Context, s *Snapshot) error {
	for {
		err := t.applyCommit(ctx, s, CommitKey(s.Version+1))
		if errors.Is(err, objstore.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		s.Version++
	}
}

// replay applies commits s.Version+1 .. target from the listing.
func (t *Table) replay(ctx context.Context, s *Snapshot, commits map[int64]string, target int64) error {
	for v := s.Version + 1; v <= target; v++ {
		key, ok := commits[v]
		if !ok {
			if s.Version < 0 && v == 0 {
				return fmt.Errorf("%w: no commit 0 and no checkpoint to start from", ErrInvalidLog)
			}
			return fmt.Errorf("%w: versions not contiguous: %s missing (have up to %d)", ErrInvalidLog, CommitKey(v), target)
		}
		if err := t.applyCommit(ctx, s, key); err != nil {
			return err
		}
		s.Version = v
	}
	return nil
}

func (t *Table) applyCommit(ctx context.Context, s *Snapshot, key string) error {
	b, err := t.readAll(ctx, key)
	if err != nil {
		return fmt.Errorf("delta: read commit %s: %w", key, err)
	}
	err = ReadActions(bytes.NewReader(b), func(a Action) error {
		s.apply(a)
		return nil
	})
	if err != nil {
		return fmt.Errorf("delta: commit %s: %w", key, err)
	}
	return nil
}

// loadCheckpoint applies a checkpoint's actions (all parts, and sidecars of a
// V2 checkpoint).
func (t *Table) loadCheckpoint(ctx context.Context, s *Snapshot, parts []logkey.File) error {
	var sidecars []Sidecar
	collect := func(a Action) error {
		if a.Sidecar != nil {
			sidecars = append(sidecars, *a.Sidecar)
			return nil
		}
		s.apply(a)
		return nil
	}
	for _, p := range parts {
		b, err := t.readAll(ctx, p.Key)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p.Key, ".json") {
			err = ReadActions(bytes.NewReader(b), collect)
		} else {
			err = action.ReadParquet(b, collect)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", p.Key, err)
		}
	}
	for _, sc := range sidecars {
		name, err := ObjectKey(sc.Path)
		if err != nil {
			return fmt.Errorf("sidecar %q: %w", sc.Path, err)
		}
		key := LogDir + "_sidecars/" + name[strings.LastIndex(name, "/")+1:]
		b, err := t.readAll(ctx, key)
		if err != nil {
			return fmt.Errorf("sidecar: %w", err)
		}
		if err := action.ReadParquet(b, func(a Action) error { s.apply(a); return nil }); err != nil {
			return fmt.Errorf("sidecar %s: %w", key, err)
		}
	}
	return nil
}

func (t *Table) update(ctx context.Context, s *Snapshot) error {
	if t.listsWholeDirectories() && s.Version >= 0 {
		// Read the next commits without listing (see listsWholeDirectories).
		before := s.Version
		if err := t.probeCommits(ctx, s); err != nil {
			return err
		}
		if lc, ok := t.readLastCheckpoint(ctx); ok && lc.Version <= s.Version {
			if s.Version == before {
				return nil
			}
			return s.finish()
		}
		// No hint, or a checkpoint past s (cleanup may have removed
		// commits): list.
	}
	ll := logkey.NewListing()
	opts := objstore.ListOptions{Prefix: LogDir, StartAfter: CommitKey(s.Version)}
	maxV := s.Version
	for info, err := range t.store.List(ctx, opts) {
		if err != nil {
			return fmt.Errorf("delta: list %s: %w", LogDir, err)
		}
		if logkey.AfterVersions(info.Key) {
			break
		}
		if f, ok := logkey.Parse(info.Key); ok && f.Kind == logkey.Commit && f.Version > s.Version {
			ll.Commits[f.Version] = f.Key
			maxV = max(maxV, f.Version)
		}
	}
	if maxV == s.Version {
		return nil
	}
	if _, ok := ll.Commits[s.Version+1]; !ok {
		// The next commit was cleaned up: reload from a checkpoint.
		fresh, err := t.Snapshot(ctx)
		if err != nil {
			return err
		}
		last := s.lastCheckpoint
		*s = *fresh
		s.lastCheckpoint = max(s.lastCheckpoint, last)
		return nil
	}
	if err := t.replay(ctx, s, ll.Commits, maxV); err != nil {
		return err
	}
	return s.finish()
}

// DirectoryStore is implemented by object stores on a file system, whose
// listings read every name of a directory (StartAfter or not): the table
// then finds new versions by reading them in turn instead of listing
// (see listsWholeDirectories).
type DirectoryStore interface {
	ListsWholeDirectories() bool
}

// listsWholeDirectories reports a store whose listings read every name of
// a directory (a local file system): the table then reads the commits
// after a known version in turn, until one is missing, instead of listing
// the log, and checks _last_checkpoint for a checkpoint past them (log
// cleanup only deletes versions a later checkpoint covers, so a deleted
// next commit shows there). This costs a read per new commit, a stat-like
// failed read and one small read, whatever the log's length. On S3 a
// listing from a key is one request, and a read of a missing key is
// refused (403) to roles whose ListBucket grant has a prefix condition:
// the log is listed there.
func (t *Table) listsWholeDirectories() bool {
	ds, ok := t.store.(DirectoryStore)
	return ok && ds.ListsWholeDirectories()
}

// Update advances snap to the latest version (see Snapshot.Update); a nil
// snap loads a fresh snapshot.
func (t *Table) Update(ctx context.Context, snap *Snapshot) (*Snapshot, error) {
	if snap == nil {
		return t.Snapshot(ctx)
	}
	if err := snap.Update(ctx); err != nil {
		return nil, err
	}
	return snap, nil
}

// ReadCommit returns the actions of one commit file (for incremental,
// streaming reads of the log).
func (t *Table) ReadCommit(ctx context.Context, version int64) ([]Action, error) {
	key := CommitKey(version)
	b, err := t.readAll(ctx, key)
	if err != nil {
		if errors.Is(err, objstore.ErrNotFound) {
			return nil, fmt.Errorf("%w: %s: %w", ErrVersionNotFound, key, err)
		}
		return nil, fmt.Errorf("delta: read commit %s: %w", key, err)
	}
	var out []Action
	if err := ReadActions(bytes.NewReader(b), func(a Action) error {
		out = append(out, a)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("delta: commit %s: %w", key, err)
	}
	return out, nil
}

// LatestVersion lists the log and returns the newest commit version.
func (t *Table) LatestVersion(ctx context.Context) (int64, error) {
	from := int64(0)
	if lc, ok := t.readLastCheckpoint(ctx); ok {
		from = lc.Version
	}
	ll, err := t.listLog(ctx, from)
	if err != nil {
		return 0, err
	}
	if ll.MaxVersion < 0 && from > 0 {
		if ll, err = t.listLog(ctx, 0); err != nil {
			return 0, err
		}
	}
	if ll.MaxVersion < 0 {
		return 0, ErrNotATable
	}
	return ll.MaxVersion, nil
}
