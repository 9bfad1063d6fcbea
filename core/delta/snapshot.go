package delta

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/delta/internal/keyset"
	"github.com/tributary-io/tributary/core/schema"
)

// Table property names with typed getters on Snapshot.
const (
	PropCheckpointInterval           = "delta.checkpointInterval"
	PropLogRetentionDuration         = "delta.logRetentionDuration"
	PropDeletedFileRetentionDuration = "delta.deletedFileRetentionDuration"
	PropEnableTypeWidening           = "delta.enableTypeWidening"
	PropAppendOnly                   = "delta.appendOnly"
	PropCheckpointPolicy             = "delta.checkpointPolicy"
)

// Defaults of the table properties.
const (
	DefaultCheckpointInterval           = 10
	DefaultLogRetentionDuration         = 30 * 24 * time.Hour
	DefaultDeletedFileRetentionDuration = 7 * 24 * time.Hour
)

// ErrInvalidLog is wrapped when the log cannot be replayed: versions are
// missing, there is no protocol or metaData, a checkpoint is incomplete.
var ErrInvalidLog = errors.New("delta: invalid transaction log")

// Snapshot is the state of a table at one version. Update advances it in
// place; a Snapshot must not be read while another goroutine updates it.
type Snapshot struct {
	// Version is the table version the snapshot reflects.
	Version int64
	// Protocol is the table's current protocol action.
	Protocol Protocol
	// Metadata is the table's current metaData action.
	Metadata Metadata

	table  *Table
	schema *schema.StructType
	// files maps a canonical path to its add (the active set has unique paths).
	files map[string]*Add
	// tombstones maps (canonical path, DV id) to its remove.
	tombstones map[string]*Remove
	txns       map[string]Txn
	domains    map[string]DomainMetadata
	sorted     []string // sorted keys of files (and of some removed since); nil until Files
	added      []string // keys added to files since sorted was built
	// checkpointVersion is the version of the checkpoint the snapshot was
	// loaded from, -1 if none.
	checkpointVersion int64
	// lastCheckpoint is the newest checkpoint known to exist: the one
	// loaded, one written from this snapshot, or one _last_checkpoint named.
	lastCheckpoint int64
	hasProtocol    bool
	hasMetadata    bool
}

func newSnapshot(t *Table) *Snapshot {
	return &Snapshot{
		Version:           -1,
		table:             t,
		files:             make(map[string]*Add),
		tombstones:        make(map[string]*Remove),
		txns:              make(map[string]Txn),
		domains:           make(map[string]DomainMetadata),
		checkpointVersion: -1,
		lastCheckpoint:    -1,
	}
}

// sizeHint sizes the empty file map for n live files (a checkpoint's
// numOfAddFiles), sparing its growth while a checkpoint is read.
func (s *Snapshot) sizeHint(n int64) {
	if len(s.files) == 0 && n > 0 && n < 1<<26 {
		s.files = make(map[string]*Add, n)
	}
}

// apply folds one action into the state (action reconciliation).
func (s *Snapshot) apply(a Action) {
	switch {
	case a.Add != nil:
		p := canonicalPath(a.Add.Path)
		if _, ok := s.files[p]; !ok && s.sorted != nil {
			s.added = append(s.added, p)
		}
		s.files[p] = a.Add
		delete(s.tombstones, fileKey(a.Add.Path, a.Add.DeletionVector))
	case a.Remove != nil:
		p := canonicalPath(a.Remove.Path)
		if cur, ok := s.files[p]; ok && cur.DeletionVector.UniqueID() == a.Remove.DeletionVector.UniqueID() {
			delete(s.files, p)
		}
		s.tombstones[fileKey(a.Remove.Path, a.Remove.DeletionVector)] = a.Remove
	case a.Txn != nil:
		s.txns[a.Txn.AppID] = *a.Txn
	case a.Protocol != nil:
		s.Protocol = *a.Protocol
		s.hasProtocol = true
	case a.Metadata != nil:
		s.Metadata = *a.Metadata
		s.hasMetadata = true
		s.schema = nil
	case a.DomainMetadata != nil:
		if a.DomainMetadata.Removed {
			delete(s.domains, a.DomainMetadata.Domain)
		} else {
			s.domains[a.DomainMetadata.Domain] = *a.DomainMetadata
		}
	}
}

// applyCommitted folds the actions this process just committed as version
// v (= s.Version+1) into s, as replaying the commit file would (the file
// actions are copied: the caller keeps its own). Actions that replay would
// refuse (a schema that does not parse, an unsupported reader feature)
// leave s as it is, to be brought up to date by the next Update.
func (s *Snapshot) applyCommitted(v int64, actions []Action) {
	if v != s.Version+1 {
		return
	}
	for _, a := range actions {
		if a.Metadata != nil {
			if _, err := schema.ParseDeltaJSON(a.Metadata.SchemaString); err != nil {
				return
			}
		}
		if a.Protocol != nil && checkRead(a.Protocol, s.table.readerFeatures) != nil {
			return
		}
	}
	for _, a := range actions {
		switch {
		case a.Add != nil:
			c := *a.Add
			a.Add = &c
		case a.Remove != nil:
			c := *a.Remove
			a.Remove = &c
		}
		s.apply(a)
	}
	s.Version = v
	if err := s.finish(); err != nil {
		s.table.log.Warn("delta: snapshot after own commit", "version", v, "err", err)
	}
}

// finish validates the replayed state.
func (s *Snapshot) finish() error {
	if !s.hasProtocol {
		return fmt.Errorf("%w: no protocol action up to version %d", ErrInvalidLog, s.Version)
	}
	if !s.hasMetadata {
		return fmt.Errorf("%w: no metaData action up to version %d", ErrInvalidLog, s.Version)
	}
	if err := checkRead(&s.Protocol, s.table.readerFeatures); err != nil {
		return fmt.Errorf("table version %d: %w", s.Version, err)
	}
	if s.schema == nil {
		st, err := schema.ParseDeltaJSON(s.Metadata.SchemaString)
		if err != nil {
			return fmt.Errorf("delta: schema of table version %d: %w", s.Version, err)
		}
		s.schema = st
	}
	return nil
}

// Schema returns the table schema (decoded from metaData.schemaString).
func (s *Snapshot) Schema() *schema.StructType { return s.schema }

// Table returns the table the snapshot was loaded from.
func (s *Snapshot) Table() *Table { return s.table }

// NumFiles returns the number of active files.
func (s *Snapshot) NumFiles() int { return len(s.files) }

// File returns the active add for a path as written in the log.
func (s *Snapshot) File(path string) (*Add, bool) {
	a, ok := s.files[canonicalPath(path)]
	return a, ok
}

// Files yields the active files in ascending path order. The adds are
// shared with the snapshot: do not modify them.
func (s *Snapshot) Files() iter.Seq[*Add] {
	if s.sorted == nil {
		s.sorted = slices.Sorted(maps.Keys(s.files))
	} else if len(s.added) > 0 || len(s.sorted) > 2*len(s.files) {
		s.sorted = keyset.Merge(s.sorted, s.added, func(k string) bool { _, ok := s.files[k]; return ok })
	}
	s.added = nil
	keys := s.sorted
	return func(yield func(*Add) bool) {
		for _, k := range keys {
			if a, ok := s.files[k]; ok && !yield(a) {
				return
			}
		}
	}
}

// NumTombstones returns the number of remove tombstones.
func (s *Snapshot) NumTombstones() int { return len(s.tombstones) }

// Tombstones yields the remove tombstones in ascending key order.
func (s *Snapshot) Tombstones() iter.Seq[*Remove] {
	keys := slices.Sorted(maps.Keys(s.tombstones))
	return func(yield func(*Remove) bool) {
		for _, k := range keys {
			if !yield(s.tombstones[k]) {
				return
			}
		}
	}
}

// TxnVersion returns the latest txn version recorded for appID.
func (s *Snapshot) TxnVersion(appID string) (int64, bool) {
	t, ok := s.txns[appID]
	return t.Version, ok
}

// Txns returns a copy of the latest txn action per appId.
func (s *Snapshot) Txns() map[string]Txn { return maps.Clone(s.txns) }

// DomainMetadata returns the live domainMetadata of a domain.
func (s *Snapshot) DomainMetadata(domain string) (DomainMetadata, bool) {
	d, ok := s.domains[domain]
	return d, ok
}

// CheckpointVersion returns the version of the checkpoint the snapshot was
// loaded from, or -1.
func (s *Snapshot) CheckpointVersion() int64 { return s.checkpointVersion }

// Configuration returns the table properties (metaData.configuration); do
// not modify the map.
func (s *Snapshot) Configuration() map[string]string { return s.Metadata.Configuration }

// CheckpointInterval returns delta.checkpointInterval (default 10).
func (s *Snapshot) CheckpointInterval() (int64, error) {
	v, ok := s.Metadata.Configuration[PropCheckpointInterval]
	if !ok {
		return DefaultCheckpointInterval, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("delta: table property %s=%q: want a positive integer", PropCheckpointInterval, v)
	}
	return n, nil
}

// LogRetentionDuration returns delta.logRetentionDuration (default 30 days).
func (s *Snapshot) LogRetentionDuration() (time.Duration, error) {
	return s.durationProp(PropLogRetentionDuration, DefaultLogRetentionDuration)
}

// DeletedFileRetentionDuration returns delta.deletedFileRetentionDuration
// (default 7 days).
func (s *Snapshot) DeletedFileRetentionDuration() (time.Duration, error) {
	return s.durationProp(PropDeletedFileRetentionDuration, DefaultDeletedFileRetentionDuration)
}

// TypeWideningEnabled reports delta.enableTypeWidening=true.
func (s *Snapshot) TypeWideningEnabled() (bool, error) { return s.boolProp(PropEnableTypeWidening) }

// AppendOnly reports delta.appendOnly=true.
func (s *Snapshot) AppendOnly() (bool, error) { return s.boolProp(PropAppendOnly) }

func (s *Snapshot) boolProp(name string) (bool, error) {
	v, ok := s.Metadata.Configuration[name]
	if !ok {
		return false, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, fmt.Errorf("delta: table property %s=%q: want true or false", name, v)
	}
	return b, nil
}

func (s *Snapshot) durationProp(name string, def time.Duration) (time.Duration, error) {
	v, ok := s.Metadata.Configuration[name]
	if !ok {
		return def, nil
	}
	d, err := ParseInterval(v)
	if err != nil {
		return 0, fmt.Errorf("delta: table property %s: %w", name, err)
	}
	return d, nil
}

// ParseInterval parses a Delta/Spark calendar interval such as
// "interval 30 days", "interval 1 weeks" or "168 hours" (months and years
// are refused: they have no fixed length).
func ParseInterval(s string) (time.Duration, error) {
	f := strings.Fields(strings.ToLower(strings.TrimSpace(s)))
	if len(f) > 0 && f[0] == "interval" {
		f = f[1:]
	}
	if len(f) == 0 || len(f)%2 != 0 {
		return 0, fmt.Errorf("delta: interval %q: want \"interval <n> <unit>\"", s)
	}
	var total time.Duration
	for i := 0; i < len(f); i += 2 {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("delta: interval %q: %q is not a non-negative integer", s, f[i])
		}
		var unit time.Duration
		switch strings.TrimSuffix(f[i+1], "s") {
		case "nanosecond":
			unit = time.Nanosecond
		case "microsecond":
			unit = time.Microsecond
		case "millisecond":
			unit = time.Millisecond
		case "second":
			unit = time.Second
		case "minute":
			unit = time.Minute
		case "hour":
			unit = time.Hour
		case "day":
			unit = 24 * time.Hour
		case "week":
			unit = 7 * 24 * time.Hour
		default:
			return 0, fmt.Errorf("delta: interval %q: unsupported unit %q", s, f[i+1])
		}
		if n > int64((1<<63-1)/unit) {
			return 0, fmt.Errorf("delta: interval %q overflows", s)
		}
		total += time.Duration(n) * unit
	}
	return total, nil
}

// Update advances the snapshot to the latest version by replaying only the
// commits newer than s.Version. When those commits are no longer in the log
// (cleaned up), it reloads the snapshot from the newest checkpoint.
func (s *Snapshot) Update(ctx context.Context) error {
	return s.table.update(ctx, s)
}
