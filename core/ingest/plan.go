package ingest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/state"
)

// Plan is a sealed batch: the exact files batch BatchID ingests. It is
// written once (put-if-absent) to the checkpoint location before any data is
// written, like Spark's offsets log, so a retried or racing committer replays
// exactly the same files.
type Plan struct {
	// BatchID is the batch number, also the Delta txn version.
	BatchID int64 `json:"batchId"`
	// Stream is the stream id that sealed the plan.
	Stream string `json:"stream"`
	// CreatedAt is when the plan was sealed.
	CreatedAt time.Time `json:"createdAt"`
	// Files are the batch's input files, in discovery order.
	Files []PlanFile `json:"files"`

	// dropped are the paths of the sealed plan that the batch does not own
	// (claim: handed over twice, another batch holds them); not sealed, set
	// on the plan claim returns so fan-out requests can name them.
	dropped []string
}

// PlanFile is one input file of a plan.
type PlanFile struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	ETag string `json:"etag,omitempty"`
}

// Bytes is the total input size of the plan.
func (p *Plan) Bytes() int64 {
	var n int64
	for _, f := range p.Files {
		n += f.Size
	}
	return n
}

// Paths returns the plan's file paths.
func (p *Plan) Paths() []string {
	out := make([]string, len(p.Files))
	for i, f := range p.Files {
		out[i] = f.Path
	}
	return out
}

// claim claims the plan's files in the state store and returns the plan
// of the files the batch owns. A store that hands files over at least once
// (state.FileClaimer) reports a file another batch holds: it was handed
// over twice, that batch ingests it, and this one drops it — on every
// replay alike, because a file's batch never changes once set.
func (e *Engine) claim(ctx context.Context, p *Plan) (*Plan, error) {
	fs := make([]state.File, len(p.Files))
	for i, f := range p.Files {
		fs[i] = state.File{Path: f.Path, Size: f.Size, ETag: f.ETag}
	}
	owned, err := state.ClaimFiles(ctx, e.State, e.Config.StreamID, p.BatchID, fs)
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
		q.dropped = append(q.dropped, f.Path)
		e.log().Warn("dropping a file of the batch plan that another batch holds (handed over twice)",
			"stream", e.Config.StreamID, "batchId", p.BatchID, "path", f.Path)
	}
	return &q, nil
}

// planKey is the checkpoint key of batch id's plan.
func planKey(id int64) string { return fmt.Sprintf("offsets/%020d.json", id) }

// readPlan loads a sealed plan; ok is false when none exists.
func readPlan(ctx context.Context, cp objstore.Store, id int64) (*Plan, bool, error) {
	data, found, err := objstore.ReadAll(ctx, cp, planKey(id))
	if err != nil {
		return nil, false, fmt.Errorf("reading batch plan %s: %w", planKey(id), err)
	}
	if !found {
		return nil, false, nil
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, false, fmt.Errorf("%w: the checkpoint's batch plan %s is corrupt (%v): restore the checkpoint, or %s", ErrFullRefreshNeeded, planKey(id), err, RefreshHowTo)
	}
	if p.BatchID != id {
		return nil, false, fmt.Errorf("batch plan %s holds batch %d", planKey(id), p.BatchID)
	}
	return &p, true, nil
}

// sealPlan writes p unless a plan for its batch exists; it returns the plan
// that is sealed (p, or the one another committer sealed first).
func sealPlan(ctx context.Context, cp objstore.Store, p *Plan) (*Plan, error) {
	return objstore.SealJSON(ctx, cp, planKey(p.BatchID), p, func(ctx context.Context) (*Plan, bool, error) {
		return readPlan(ctx, cp, p.BatchID)
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

// selectFiles takes a discovery-order prefix of pending within the limits
// (always at least one file).
func selectFiles(pending []state.Entry, lim Limits) []PlanFile {
	var out []PlanFile
	var bytes int64
	for _, e := range pending {
		if lim.MaxFiles > 0 && len(out) >= lim.MaxFiles {
			break
		}
		if lim.MaxBytes > 0 && bytes >= lim.MaxBytes {
			break
		}
		out = append(out, PlanFile{Path: e.Path, Size: e.Size, ETag: e.ETag})
		bytes += e.Size
	}
	return out
}

// withoutDropped returns p without the files at paths dropped (the paths a
// committer's claim found held by another batch; see claim), in plan
// order. Every dropped path must be one of p's files.
func withoutDropped(p *Plan, dropped []string) (*Plan, error) {
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
		return nil, fmt.Errorf("%w: batch %d's sealed plan has no file %q to leave out", ErrBadShare, p.BatchID, d)
	}
	q.dropped = dropped
	return &q, nil
}
