// Package batchplan provides sealed batch plans: the exact input files of
// a batch, written once (put-if-absent) in the checkpoint location before
// its files are claimed and any data is committed, so that a retried or
// racing committer replays the same files; and the choice of a batch's
// files within the trigger limits.
package batchplan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/ingest/identity"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/state"
	"log/slog"
)

// Plan is a sealed batch: the exact files batch BatchID ingests. It is
// written once (put-if-absent) to the checkpoint location before its files
// are claimed and before any data is committed, like Spark's offsets log,
// so a retried or racing committer replays exactly the same files. (Data
// may be written while it is sealed: StartSealClaim.)
type Plan struct {
	// BatchID is the batch number, also the Delta txn version.
	BatchID int64 `json:"batchId"`
	// Stream is the stream id that sealed the plan.
	Stream string `json:"stream"`
	// CreatedAt is when the plan was sealed.
	CreatedAt time.Time `json:"createdAt"`
	// Files are the batch's input files, in discovery order.
	Files []PlanFile `json:"files"`

	// Dropped are the paths of the sealed plan that the batch does not own
	// (Claim: handed over twice, another batch holds them); not sealed, set
	// on the plan Claim returns so fan-out requests can name them.
	Dropped []string `json:"-"`
}

// PlanFile is one input file of a plan.
type PlanFile struct {
	// Path is the source key.
	Path string `json:"path"`
	// Size is the file's size in bytes.
	Size int64 `json:"size"`
	// ETag is the file's ETag, when the source store gives one.
	ETag string `json:"etag,omitempty"`
	// ModTime is the file's modification time as discovered (zero when
	// unknown, and in plans sealed by older releases): a claim replayed
	// by another process records it (and the cloudFiles.maxFileAge
	// expiry) as a claim from the file's pending record does.
	ModTime time.Time `json:"modTime,omitzero"`
}

// StateFile is f as the state store knows it.
func (f PlanFile) StateFile() state.File {
	return state.File{Path: f.Path, Size: f.Size, ETag: f.ETag, ModTime: f.ModTime}
}

// Bytes is the total input size of the plan.
func (p *Plan) Bytes() int64 {
	var n int64
	for _, f := range p.Files {
		n += f.Size
	}
	return n
}

// FileList names up to three of the plan's files.
func (p *Plan) FileList() string {
	paths := p.Paths()
	if len(paths) > 3 {
		return fmt.Sprintf("%s and %d more", strings.Join(paths[:3], ", "), len(paths)-3)
	}
	return strings.Join(paths, ", ")
}

// Paths returns the plan's file paths.
func (p *Plan) Paths() []string {
	out := make([]string, len(p.Files))
	for i, f := range p.Files {
		out[i] = f.Path
	}
	return out
}

// Key is the checkpoint key of batch id's plan.
func Key(id int64) string { return fmt.Sprintf("offsets/%020d.json", id) }

// Read loads a sealed plan; ok is false when none exists. A plan that
// cannot be parsed needs a full refresh (identity.ErrFullRefreshNeeded).
func Read(ctx context.Context, cp objstore.Store, id int64) (*Plan, bool, error) {
	data, found, err := objstore.ReadAll(ctx, cp, Key(id))
	if err != nil {
		return nil, false, fmt.Errorf("reading batch plan %s: %w", Key(id), err)
	}
	if !found {
		return nil, false, nil
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, false, fmt.Errorf("%w: the checkpoint's batch plan %s is corrupt (%v): restore the checkpoint, or %s", identity.ErrFullRefreshNeeded, Key(id), err, identity.RefreshHowTo)
	}
	if p.BatchID != id {
		return nil, false, fmt.Errorf("batch plan %s holds batch %d", Key(id), p.BatchID)
	}
	return &p, true, nil
}

// Seal writes p unless a plan for its batch exists; it returns the plan
// that is sealed (p, or the one another committer sealed first).
func Seal(ctx context.Context, cp objstore.Store, p *Plan) (*Plan, error) {
	data, err := encodePlan(p)
	if err != nil {
		return nil, err
	}
	return objstore.SealEncoded(ctx, cp, Key(p.BatchID), p, data, func(ctx context.Context) (*Plan, bool, error) {
		return Read(ctx, cp, p.BatchID)
	})
}

// Limits bound one batch (cloudFiles.maxFilesPerTrigger / maxBytesPerTrigger).
// With both set, the batch ends at whichever is reached first.
type Limits struct {
	// MaxFiles is the most files in a batch; <= 0 means no limit.
	MaxFiles int
	// MaxBytes is a soft byte limit ("soft max", seeds 000/003): files are
	// admitted while the batch holds fewer bytes than the limit, so the file
	// that crosses it is still taken (as Delta's admission control does) and
	// a file larger than the limit forms a batch alone; <= 0 means no limit.
	MaxBytes int64
}

// Select takes a discovery-order prefix of pending within the limits
// (always at least one file).
func Select(pending []state.Entry, lim Limits) []PlanFile {
	var out []PlanFile
	var bytes int64
	for _, e := range pending {
		if lim.MaxFiles > 0 && len(out) >= lim.MaxFiles {
			break
		}
		if lim.MaxBytes > 0 && bytes >= lim.MaxBytes {
			break
		}
		out = append(out, PlanFile{Path: e.Path, Size: e.Size, ETag: e.ETag, ModTime: e.ModTime})
		bytes += e.Size
	}
	return out
}

// WithoutDropped returns p without the files at paths dropped (the paths a
// committer's claim found held by another batch; see Claim), in plan
// order. Every dropped path must be one of p's files.
func WithoutDropped(p *Plan, dropped []string) (*Plan, error) {
	if len(dropped) == 0 {
		return p, nil
	}
	drop := make(map[string]bool, len(dropped))
	for _, d := range dropped {
		drop[d] = true
	}
	q := *p
	q.Files = nil
	for _, f := range p.Files {
		if drop[f.Path] {
			delete(drop, f.Path)
			continue
		}
		q.Files = append(q.Files, f)
	}
	for d := range drop {
		return nil, fmt.Errorf("batch %d's sealed plan has no file %q to leave out", p.BatchID, d)
	}
	q.Dropped = dropped
	return &q, nil
}

// Claim claims the plan's files in the state store and returns the plan
// of the files the batch owns. A store that hands files over at least once
// (state.FileClaimer) reports a file another batch holds: it was handed
// over twice, that batch ingests it, and this one drops it — on every
// replay alike, because a file's batch never changes once set.
func Claim(ctx context.Context, st state.Store, stream string, p *Plan, log *slog.Logger) (*Plan, error) {
	fs := make([]state.File, len(p.Files))
	for i, f := range p.Files {
		fs[i] = f.StateFile()
	}
	owned, err := state.ClaimFiles(ctx, st, stream, p.BatchID, fs)
	if err != nil {
		return nil, fmt.Errorf("claiming files of batch %d: %w", p.BatchID, err)
	}
	if !slices.Contains(owned, false) {
		return p, nil
	}
	q := *p
	q.Files = nil
	for i, f := range p.Files {
		if owned[i] {
			q.Files = append(q.Files, f)
			continue
		}
		q.Dropped = append(q.Dropped, f.Path)
		log.Warn("dropping a file of the batch plan that another batch holds (handed over twice)",
			"stream", stream, "batchId", p.BatchID, "path", f.Path)
	}
	return &q, nil
}

// Claiming is a Claim running on its own goroutine (StartClaim).
type Claiming struct {
	done  chan struct{}
	owned *Plan
	err   error
}

// StartClaim starts Claim(ctx, st, stream, p, log) on its own goroutine
// and returns at once, so that the batch's files are read and written
// while the state store claims them. The exactly-once order stays: the
// plan is sealed before, and the caller Waits for the claim, durable in
// the store, before anything that depends on it — the Delta commit that
// names the files above all, and every read of the pending files. A
// claim that fails calls stop (to cancel the write it overlaps) before
// Wait returns its error.
func StartClaim(ctx context.Context, st state.Store, stream string, p *Plan, log *slog.Logger, stop func()) *Claiming {
	return StartSealClaim(ctx, nil, st, stream, p, log, stop)
}

// StartSealClaim is StartClaim for a plan not sealed yet: on its own
// goroutine it seals p in cp (Seal) and then claims the plan that is
// sealed — p, or the one another committer sealed first, which Wait then
// returns (claimed) instead of p, so that the caller writes the batch
// again with its files. The claim never starts before the seal is
// durable (a claimed file is no longer pending: only its sealed plan
// names it), and the caller Waits for both before its commit, so data
// written meanwhile is at worst orphaned, as after a crash during the
// write. A nil cp claims p as it is (StartClaim).
func StartSealClaim(ctx context.Context, cp objstore.Store, st state.Store, stream string, p *Plan, log *slog.Logger, stop func()) *Claiming {
	c := &Claiming{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		sealed := p
		if cp != nil {
			sealed, c.err = Seal(ctx, cp, p)
		}
		if c.err == nil {
			c.owned, c.err = Claim(ctx, st, stream, sealed, log)
		}
		if c.err != nil {
			stop()
		}
	}()
	return c
}

// Wait returns the plan of the files the batch owns (Claim's result) once
// the claim is done; a nil Claiming has nothing to wait for.
func (c *Claiming) Wait() (*Plan, error) {
	if c == nil {
		return nil, nil
	}
	<-c.done
	return c.owned, c.err
}

// IDs lists the batch ids of the checkpoint's sealed plans, ascending.
func IDs(ctx context.Context, cp objstore.Store) ([]int64, error) {
	var ids []int64
	for o, err := range cp.List(ctx, objstore.ListOptions{Prefix: "offsets/"}) {
		if err != nil {
			return nil, fmt.Errorf("listing the checkpoint's batch plans: %w", err)
		}
		name, ok := strings.CutSuffix(strings.TrimPrefix(o.Key, "offsets/"), ".json")
		if !ok || strings.Contains(name, "/") {
			continue
		}
		var id int64
		if _, err := fmt.Sscanf(name, "%d", &id); err != nil || Key(id) != o.Key {
			continue
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}

// Digest identifies a sealed plan's content: the first 16 hex digits
// of the SHA-256 of its JSON.
func Digest(p *Plan) (string, error) {
	data, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8]), nil
}

// AfterClaim is the state store as schema inference sees it while claim
// runs (claim nil: st itself): Pending waits for the claim, so that the
// files it adds to an inference sample are those after the batch, as
// when the claim ran before the write.
func AfterClaim(st state.Store, claim *Claiming) state.Store {
	if claim == nil {
		return st
	}
	return claimedFirst{st, claim}
}

// claimedFirst is a state store whose Pending waits for a claim.
type claimedFirst struct {
	state.Store
	claim *Claiming
}

// Pending implements state.Store once the claim is done.
func (s claimedFirst) Pending(ctx context.Context, stream string, limit int) ([]state.Entry, error) {
	if _, err := s.claim.Wait(); err != nil {
		return nil, err
	}
	return s.Store.Pending(ctx, stream, limit)
}
