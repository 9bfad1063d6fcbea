package delta

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/schema"
)

// ErrConcurrentCommit is wrapped when another writer already created the
// commit file of the version being written. It wraps objstore.ErrExists.
var ErrConcurrentCommit = fmt.Errorf("delta: concurrent commit: %w", objstore.ErrExists)

// ErrInvalidCommit is wrapped when a commit's actions are refused before
// anything is written (duplicate actions, missing protocol for a new table,
// a change an append-only table forbids, …).
var ErrInvalidCommit = errors.New("delta: invalid commit")

// Commit writes actions as version readVersion+1 with put-if-absent. Use
// readVersion -1 to create the table (the actions must then hold protocol
// and metaData). The actions are validated on their own; CommitSnapshot also
// validates them against the table's protocol and metadata.
func (t *Table) Commit(ctx context.Context, readVersion int64, actions []Action) (int64, error) {
	if readVersion < -1 {
		return 0, fmt.Errorf("%w: readVersion %d", ErrInvalidCommit, readVersion)
	}
	if err := t.validate(nil, readVersion, actions); err != nil {
		return 0, err
	}
	return t.write(ctx, readVersion+1, actions)
}

// CommitSnapshot writes actions as version snap.Version+1 (snap nil: create
// the table at version 0) after validating them against the snapshot: the
// table's writer features must all be implemented, append-only tables refuse
// data-changing removes, columns with invariants are refused.
func (t *Table) CommitSnapshot(ctx context.Context, snap *Snapshot, actions []Action) (int64, error) {
	readVersion := int64(-1)
	if snap != nil {
		readVersion = snap.Version
	}
	if err := t.validate(snap, readVersion, actions); err != nil {
		return 0, err
	}
	return t.write(ctx, readVersion+1, actions)
}

func (t *Table) write(ctx context.Context, version int64, actions []Action) (int64, error) {
	var buf bytes.Buffer
	if err := EncodeActions(&buf, actions); err != nil {
		return 0, err
	}
	key := CommitKey(version)
	if err := t.store.PutIfAbsent(ctx, key, &buf); err != nil {
		if errors.Is(err, objstore.ErrExists) {
			return 0, fmt.Errorf("%w: %s already written: %w", ErrConcurrentCommit, key, err)
		}
		return 0, fmt.Errorf("delta: write commit %s: %w", key, err)
	}
	return version, nil
}

func (t *Table) validate(snap *Snapshot, readVersion int64, actions []Action) error {
	if len(actions) == 0 {
		return fmt.Errorf("%w: no actions", ErrInvalidCommit)
	}
	adds := make(map[string]bool)
	removes := make(map[string]bool)
	txns := make(map[string]bool)
	var proto *Protocol
	var meta *Metadata
	hasDataRemove := false
	for i := range actions {
		a := &actions[i]
		if n := a.Count(); n != 1 {
			return fmt.Errorf("%w: action %d has %d kinds set, want 1", ErrInvalidCommit, i, n)
		}
		switch {
		case a.Add != nil:
			if err := checkFilePath(a.Add.Path); err != nil {
				return err
			}
			k := fileKey(a.Add.Path, nil)
			if adds[k] {
				return fmt.Errorf("%w: DELTA_DUPLICATE_ACTIONS_FOUND: add %q appears twice", ErrInvalidCommit, a.Add.Path)
			}
			adds[k] = true
		case a.Remove != nil:
			if err := checkFilePath(a.Remove.Path); err != nil {
				return err
			}
			k := fileKey(a.Remove.Path, nil)
			if removes[k] {
				return fmt.Errorf("%w: DELTA_DUPLICATE_ACTIONS_FOUND: remove %q appears twice", ErrInvalidCommit, a.Remove.Path)
			}
			removes[k] = true
			if a.Remove.DataChange {
				hasDataRemove = true
			}
		case a.Txn != nil:
			if a.Txn.AppID == "" {
				return fmt.Errorf("%w: txn without appId", ErrInvalidCommit)
			}
			if txns[a.Txn.AppID] {
				return fmt.Errorf("%w: more than one txn for appId %q", ErrInvalidCommit, a.Txn.AppID)
			}
			txns[a.Txn.AppID] = true
		case a.Protocol != nil:
			if proto != nil {
				return fmt.Errorf("%w: more than one protocol action", ErrInvalidCommit)
			}
			proto = a.Protocol
		case a.Metadata != nil:
			if meta != nil {
				return fmt.Errorf("%w: more than one metaData action", ErrInvalidCommit)
			}
			meta = a.Metadata
		case a.CheckpointMetadata != nil, a.Sidecar != nil:
			return fmt.Errorf("%w: %s actions are only allowed in checkpoints", ErrInvalidCommit, a.Kind())
		}
	}
	// The state after the commit.
	var effProto *Protocol
	var effMeta *Metadata
	if snap != nil {
		effProto, effMeta = &snap.Protocol, &snap.Metadata
	}
	if proto != nil {
		effProto = proto
	}
	if meta != nil {
		effMeta = meta
	}
	if readVersion == -1 && (proto == nil || meta == nil) {
		return fmt.Errorf("%w: creating a table (version 0) needs protocol and metaData actions", ErrInvalidCommit)
	}
	if effProto != nil {
		if err := checkWrite(effProto, t.writerFeatures); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidCommit, err)
		}
		if err := checkRead(effProto, t.readerFeatures); err != nil {
			return fmt.Errorf("%w: %w", ErrInvalidCommit, err)
		}
	}
	if snap != nil && proto != nil {
		if proto.MinReaderVersion < snap.Protocol.MinReaderVersion || proto.MinWriterVersion < snap.Protocol.MinWriterVersion {
			return fmt.Errorf("%w: protocol downgrade from (%d,%d) to (%d,%d)", ErrInvalidCommit,
				snap.Protocol.MinReaderVersion, snap.Protocol.MinWriterVersion, proto.MinReaderVersion, proto.MinWriterVersion)
		}
	}
	if effMeta != nil && effProto != nil {
		st := (*schema.StructType)(nil)
		if snap != nil && meta == nil {
			st = snap.Schema()
		} else {
			var err error
			if st, err = schema.ParseDeltaJSON(effMeta.SchemaString); err != nil {
				return fmt.Errorf("%w: metaData.schemaString: %w", ErrInvalidCommit, err)
			}
		}
		if err := checkMetadata(effProto, effMeta, st); err != nil {
			return err
		}
		if hasDataRemove && effMeta.Configuration[PropAppendOnly] == "true" {
			return fmt.Errorf("%w: table is append-only (%s=true) but the commit removes data", ErrInvalidCommit, PropAppendOnly)
		}
	}
	return nil
}

func checkFilePath(p string) error {
	if p == "" {
		return fmt.Errorf("%w: file action without a path", ErrInvalidCommit)
	}
	if isAbsoluteURI(p) {
		return nil // shallow-clone style absolute URIs are legal in the log
	}
	key, err := ObjectKey(p)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidCommit, err)
	}
	if err := objstore.ValidateKey(key); err != nil {
		return fmt.Errorf("%w: file path %q: %w", ErrInvalidCommit, p, err)
	}
	return nil
}

// checkMetadata checks that the protocol lists the features the metadata
// uses and that the schema has nothing this writer cannot enforce.
func checkMetadata(p *Protocol, m *Metadata, st *schema.StructType) error {
	if st == nil {
		return nil
	}
	features7 := p.MinWriterVersion == 7
	if HasTimestampNTZ(st) && !(features7 && p.HasWriterFeature(FeatureTimestampNTZ)) {
		return fmt.Errorf("%w: schema uses timestamp_ntz but the protocol does not list the %s feature (needs protocol (3,7))", ErrInvalidCommit, FeatureTimestampNTZ)
	}
	if m.Configuration[PropEnableTypeWidening] == "true" && !(features7 && (p.HasWriterFeature(FeatureTypeWidening) || p.HasWriterFeature(FeatureTypeWideningPreview))) {
		return fmt.Errorf("%w: %s=true needs the %s table feature (protocol (3,7))", ErrInvalidCommit, PropEnableTypeWidening, FeatureTypeWidening)
	}
	if name, ok := findMetadataKey(st, "", "delta.invariants"); ok {
		return fmt.Errorf("%w: column %q has delta.invariants, which this writer does not enforce", ErrInvalidCommit, name)
	}
	for _, c := range m.PartitionColumns {
		if st.FieldIndex(c) < 0 {
			return fmt.Errorf("%w: partition column %q is not in the schema", ErrInvalidCommit, c)
		}
	}
	return nil
}

// HasTimestampNTZ reports whether a type contains timestamp_ntz anywhere.
func HasTimestampNTZ(t schema.Type) bool {
	switch v := t.(type) {
	case schema.PrimitiveType:
		return v == schema.TimestampNTZ
	case *schema.StructType:
		for _, f := range v.Fields {
			if HasTimestampNTZ(f.Type) {
				return true
			}
		}
	case *schema.ArrayType:
		return HasTimestampNTZ(v.Element)
	case *schema.MapType:
		return HasTimestampNTZ(v.Key) || HasTimestampNTZ(v.Value)
	}
	return false
}

func findMetadataKey(st *schema.StructType, prefix, key string) (string, bool) {
	for _, f := range st.Fields {
		name := prefix + f.Name
		if _, ok := f.Metadata[key]; ok {
			return name, true
		}
		if inner, ok := f.Type.(*schema.StructType); ok {
			if n, ok := findMetadataKey(inner, name+".", key); ok {
				return n, true
			}
		}
	}
	return "", false
}

// CommitResult reports the outcome of CommitTxn.
type CommitResult struct {
	// Version is the table version written, or, when AlreadyCommitted, the
	// version of the snapshot that already held the txn.
	Version int64
	// AlreadyCommitted is true when the log already held txn(appID) >=
	// txnVersion: nothing was written.
	AlreadyCommitted bool
	// Attempts counts put-if-absent attempts (0 when AlreadyCommitted
	// before any attempt).
	Attempts int
	// Snapshot is the table as of Version, known without reading the log
	// again: the caller's snapshot advanced in place, or, when the commit
	// created the table, a new one. It is nil when the commit's own
	// actions could not be folded in (the next Update reads them).
	Snapshot *Snapshot
}

// CommitTxn commits the actions build returns exactly once for (appID,
// txnVersion): it loads the latest snapshot (nil for a table that does not
// exist yet; build must then return protocol and metaData), returns
// AlreadyCommitted when the log holds txn(appID) >= txnVersion, otherwise
// writes build's actions plus commitInfo and txn{appID, txnVersion} at the
// next version. When another writer takes that version, the snapshot is
// advanced incrementally and the loop repeats (bounded attempts, jittered
// backoff). build may therefore run several times; it must not return a txn
// for appID. If build returns a commitInfo it is kept, with timestamp and
// readVersion filled in.
func (t *Table) CommitTxn(ctx context.Context, appID string, txnVersion int64, build func(snap *Snapshot) ([]Action, error)) (CommitResult, error) {
	return t.CommitTxnFrom(ctx, nil, appID, txnVersion, build)
}

// CommitTxnFrom is CommitTxn starting from snap, a snapshot of this table
// the caller keeps across commits: it is brought up to date incrementally
// (only new commits are read) instead of being reloaded, and is updated in
// place while retrying. A nil snap loads the latest snapshot.
func (t *Table) CommitTxnFrom(ctx context.Context, snap *Snapshot, appID string, txnVersion int64, build func(snap *Snapshot) ([]Action, error)) (CommitResult, error) {
	if appID == "" {
		return CommitResult{}, fmt.Errorf("%w: empty appId", ErrInvalidCommit)
	}
	var err error
	if snap != nil {
		err = snap.Update(ctx)
	} else {
		snap, err = t.Snapshot(ctx)
	}
	if err != nil && !errors.Is(err, ErrNotATable) {
		return CommitResult{}, err
	}
	return t.CommitTxnAt(ctx, snap, appID, txnVersion, build)
}

// CommitTxnAt is CommitTxnFrom for a caller whose snap is as current as
// its last read of the log (or its own last commit) made it: the first
// attempt writes snap.Version+1 — version 0, creating the table, when snap
// is nil — without listing the log first. A writer that committed in
// between makes that put-if-absent fail, and the conflict is handled as
// in CommitTxnFrom: snap is brought up to date (loaded when nil), the txn
// check and build run again. It saves a listing of _delta_log per commit
// (an S3 LIST) when the caller has just listed it.
func (t *Table) CommitTxnAt(ctx context.Context, snap *Snapshot, appID string, txnVersion int64, build func(snap *Snapshot) ([]Action, error)) (CommitResult, error) {
	if appID == "" {
		return CommitResult{}, fmt.Errorf("%w: empty appId", ErrInvalidCommit)
	}
	res := CommitResult{}
	for {
		if snap != nil {
			if v, ok := snap.TxnVersion(appID); ok && v >= txnVersion {
				res.Version, res.AlreadyCommitted, res.Snapshot = snap.Version, true, snap
				return res, nil
			}
		}
		built, err := build(snap)
		if err != nil {
			return res, fmt.Errorf("delta: build commit for txn %s/%d: %w", appID, txnVersion, err)
		}
		actions := t.txnActions(snap, appID, txnVersion, built)
		res.Attempts++
		v, err := t.CommitSnapshot(ctx, snap, actions)
		if err == nil {
			res.Version = v
			if snap == nil {
				snap = newSnapshot(t)
			}
			// The put-if-absent succeeded on snap.Version+1: the table
			// at v is snap plus these actions. Advancing snap here
			// spares the caller's next Update reading its own commit.
			snap.applyCommitted(v, actions)
			if snap.Version == v {
				res.Snapshot = snap
			}
			return res, nil
		}
		if !errors.Is(err, ErrConcurrentCommit) {
			return res, err
		}
		if res.Attempts >= t.maxAttempts {
			return res, fmt.Errorf("delta: txn %s/%d: gave up after %d attempts: %w", appID, txnVersion, res.Attempts, err)
		}
		t.log.DebugContext(ctx, "delta: commit lost a race; reloading", "appId", appID, "txnVersion", txnVersion, "attempt", res.Attempts)
		if err := t.sleep(ctx, res.Attempts); err != nil {
			return res, err
		}
		if snap == nil {
			if snap, err = t.Snapshot(ctx); err != nil {
				return res, err
			}
		} else if err := snap.Update(ctx); err != nil {
			return res, err
		}
	}
}

func (t *Table) txnActions(snap *Snapshot, appID string, txnVersion int64, built []Action) []Action {
	now := t.now().UnixMilli()
	readVersion := int64(-1)
	if snap != nil {
		readVersion = snap.Version
	}
	var ci *CommitInfo
	blind := true
	rest := make([]Action, 0, len(built)+2)
	for _, a := range built {
		if a.CommitInfo != nil && ci == nil {
			c := *a.CommitInfo
			ci = &c
			continue
		}
		if a.Remove != nil {
			blind = false
		}
		rest = append(rest, a)
	}
	if ci == nil {
		ci = &CommitInfo{
			Operation: "STREAMING UPDATE",
			OperationParameters: map[string]any{
				"outputMode": "Append",
				"queryId":    appID,
				"epochId":    strconv.FormatInt(txnVersion, 10),
			},
		}
	}
	ci.Timestamp = now
	if readVersion >= 0 {
		rv := readVersion
		ci.ReadVersion = &rv
	} else {
		ci.ReadVersion = nil
	}
	if ci.IsolationLevel == "" {
		ci.IsolationLevel = "Serializable"
	}
	if ci.IsBlindAppend == nil {
		ci.IsBlindAppend = &blind
	}
	if ci.EngineInfo == "" {
		ci.EngineInfo = t.engineInfo
	}
	out := make([]Action, 0, len(rest)+2)
	out = append(out, Action{CommitInfo: ci})
	out = append(out, rest...)
	out = append(out, Action{Txn: &Txn{AppID: appID, Version: txnVersion, LastUpdated: &now}})
	return out
}

func (t *Table) sleep(ctx context.Context, attempt int) error {
	if t.backoff <= 0 {
		return ctx.Err()
	}
	d := t.backoff << min(attempt-1, 6)
	d = d/2 + rand.N(d/2+1)
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
