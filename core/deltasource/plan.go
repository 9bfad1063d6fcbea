package deltasource

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore"
)

// Plan is a sealed batch of a Delta source: the exact source files batch
// BatchID reads and the offset the next batch starts from. It is written
// once (put-if-absent) to the checkpoint before any data is written, so a
// retried or racing run replays exactly the same files.
type Plan struct {
	// BatchID is the batch number, also the sink's txn version.
	BatchID int64 `json:"batchId"`
	// Stream is the stream id that sealed the plan.
	Stream string `json:"stream"`
	// Source is "delta": the plan's offsets are Delta source offsets.
	Source string `json:"source"`
	// CreatedAt is when the plan was sealed.
	CreatedAt time.Time `json:"createdAt"`
	// Start and End are the batch's offsets: it reads [Start, End).
	Start Offset `json:"start"`
	End   Offset `json:"end"`
	// TableID is the source table's metaData id: a table dropped and
	// recreated under the same location has another one.
	TableID string `json:"tableId,omitempty"`
	// ReadVersion is the source version whose schema the batch is read with.
	ReadVersion int64 `json:"readVersion"`
	// BacklogEndOffset is the source version the backlog was counted to.
	BacklogEndOffset int64 `json:"backlogEndOffset"`
	// EventTimeOrder is set in the plans of checkpoints written when
	// withEventTimeOrder was read (files of the initial snapshot in
	// event-time order): such a checkpoint cannot finish its initial
	// snapshot in another order.
	EventTimeOrder bool `json:"eventTimeOrder,omitempty"`
	// Files are the batch's source files (their add actions as the log
	// had them), in offset order.
	Files []PlanFile `json:"files"`
}

// PlanFile is one source file of a plan.
type PlanFile struct {
	// Version is the commit (or initial snapshot) version it comes from.
	Version int64 `json:"version"`
	// Index is its position there.
	Index int64 `json:"index"`
	// Add is the source's add action (path, partition values, deletion vector).
	Add delta.Add `json:"add"`
}

// Bytes is the plan's total input size.
func (p *Plan) Bytes() int64 {
	var n int64
	for _, f := range p.Files {
		n += f.Add.Size
	}
	return n
}

// planKey is the checkpoint key of batch id's plan (Spark's offsets log).
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
		return nil, false, fmt.Errorf("decoding batch plan %s: %w", planKey(id), err)
	}
	if p.BatchID != id {
		return nil, false, fmt.Errorf("batch plan %s holds batch %d", planKey(id), p.BatchID)
	}
	if p.Source != "delta" {
		return nil, false, fmt.Errorf("batch plan %s was not written by a Delta source stream: this checkpoint belongs to another kind of stream (a full refresh is needed)", planKey(id))
	}
	return &p, true, nil
}

// sealPlan writes p unless a plan for its batch exists; it returns the
// plan that is sealed (p, or the one another run sealed first).
func sealPlan(ctx context.Context, cp objstore.Store, p *Plan) (*Plan, error) {
	return objstore.SealJSON(ctx, cp, planKey(p.BatchID), p, func(ctx context.Context) (*Plan, bool, error) {
		return readPlan(ctx, cp, p.BatchID)
	})
}

// startKey is the checkpoint object pinning a new stream's starting
// offset: startingVersion=latest and startingTimestamp resolve once, when
// the stream first runs, even if that run finds nothing to read.
const startKey = "offsets/start.json"

// pinnedStart returns the stream's starting offset: the pinned one, or the
// one the options resolve to now, pinned (put-if-absent).
func (s *Source) pinnedStart(ctx context.Context, latest int64) (Offset, error) {
	var off Offset
	rc, err := s.Checkpoint.Get(ctx, startKey)
	if err == nil {
		defer rc.Close()
		if err := json.NewDecoder(rc).Decode(&off); err != nil {
			return Offset{}, fmt.Errorf("decoding %s: %w", startKey, err)
		}
		return off, nil
	}
	if !errors.Is(err, objstore.ErrNotFound) {
		return Offset{}, fmt.Errorf("reading %s: %w", startKey, err)
	}
	if off, err = s.log.startOffset(ctx, latest); err != nil {
		return Offset{}, err
	}
	data, err := json.Marshal(off)
	if err != nil {
		return Offset{}, err
	}
	if err := s.Checkpoint.PutIfAbsent(ctx, startKey, bytes.NewReader(data)); errors.Is(err, objstore.ErrExists) {
		return s.pinnedStart(ctx, latest)
	} else if err != nil {
		return Offset{}, fmt.Errorf("pinning the starting offset (%s): %w", startKey, err)
	}
	return off, nil
}

// batchPlanner collects the files of one batch from an offset.
type batchPlanner struct {
	maxFiles int
	maxBytes int64
	files    []PlanFile
	bytes    int64
}

// full reports whether the batch reached a limit (maxFilesPerTrigger, or
// the soft maxBytesPerTrigger: the file crossing it is still taken).
func (b *batchPlanner) full() bool {
	return b.maxFiles > 0 && len(b.files) >= b.maxFiles || b.maxBytes > 0 && b.bytes >= b.maxBytes
}

func (b *batchPlanner) take(v, i int64, a delta.Add) {
	b.files = append(b.files, PlanFile{Version: v, Index: i, Add: a})
	b.bytes += a.Size
}

// collect walks the source from off up to version bound (inclusive),
// taking files until a limit is reached, and returns the end offset. An
// error met after files were taken ends the batch before it (the next
// batch meets it again); met first, it is returned.
func (s *Source) collect(ctx context.Context, b *batchPlanner, off Offset, bound int64) (Offset, error) {
	if off.Initial {
		files, err := s.log.snapshotFiles(ctx, off.Version)
		if errors.Is(err, errMissing) {
			if s.Config.Delta.FailOnDataLoss {
				return off, s.Config.dataLossError(fmt.Sprintf("the initial snapshot (version %d)", off.Version), err)
			}
			s.log_().Warn("failOnDataLoss=false: the initial snapshot is gone; continuing with the commits after it",
				"stream", s.Config.StreamID, "version", off.Version)
			files = nil
		} else if err != nil {
			return off, err
		}
		for off.Index < int64(len(files)) && !b.full() {
			b.take(off.Version, off.Index, files[off.Index])
			off.Index++
		}
		if off.Index < int64(len(files)) {
			return off, nil
		}
		off = Offset{Version: off.Version + 1}
	}
	for !b.full() && off.Version <= bound {
		c, err := s.log.commit(ctx, off.Version)
		if errors.Is(err, errMissing) {
			if len(b.files) > 0 {
				return off, nil
			}
			if s.Config.Delta.FailOnDataLoss {
				return off, s.Config.dataLossError(fmt.Sprintf("log entry %s (version %d)", delta.CommitKey(off.Version), off.Version), err)
			}
			next, lerr := s.log.earliestCommit(ctx, off.Version)
			if lerr != nil {
				return off, lerr
			}
			if next < 0 || next > bound {
				next = bound + 1
			}
			s.log_().Warn("failOnDataLoss=false: source versions are gone from the log; their data is skipped",
				"stream", s.Config.StreamID, "from", off.Version, "to", next-1)
			off = Offset{Version: next}
			continue
		}
		if err == nil {
			err = s.checkCommitSchema(off.Version, c)
		}
		if err == nil {
			err = c.err
		}
		if err != nil {
			if len(b.files) > 0 {
				return off, nil
			}
			return off, err
		}
		for off.Index < int64(len(c.adds)) && !b.full() {
			b.take(off.Version, off.Index, c.adds[off.Index])
			off.Index++
		}
		if off.Index < int64(len(c.adds)) {
			return off, nil
		}
		off = Offset{Version: off.Version + 1}
	}
	return off, nil
}

// backlog counts the files and bytes from off up to bound (the
// numFilesOutstanding and numBytesOutstanding metrics). Counting stops at
// a commit the stream will fail on.
func (s *Source) backlog(ctx context.Context, off Offset, bound int64) (files, bytes int64) {
	if off.Initial {
		fs, err := s.log.snapshotFiles(ctx, off.Version)
		if err != nil {
			return files, bytes
		}
		for _, a := range fs[min(off.Index, int64(len(fs))):] {
			files++
			bytes += a.Size
		}
		off = Offset{Version: off.Version + 1}
	}
	for v := off.Version; v <= bound; v++ {
		c, err := s.log.commit(ctx, v)
		if err != nil || c.err != nil {
			break
		}
		from := int64(0)
		if v == off.Version {
			from = off.Index
		}
		for _, a := range c.adds[min(from, int64(len(c.adds))):] {
			files++
			bytes += a.Size
		}
	}
	return files, bytes
}
