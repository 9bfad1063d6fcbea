package ingest

import (
	"context"
	"sync"
	"testing"

	"github.com/tributary-io/tributary/core/state"
)

// heldClaimer is a state store that hands one file over twice, as the
// inbox store (state.FileClaimer) can: its first Pending lists the held
// file again although another batch holds it, and its ClaimFiles reports
// that file as not owned.
type heldClaimer struct {
	state.Store
	held string

	mu     sync.Mutex
	listed bool
}

func (h *heldClaimer) Pending(ctx context.Context, stream string, limit int) ([]state.Entry, error) {
	es, err := h.Store.Pending(ctx, stream, limit)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.listed && len(es) < limit {
		h.listed = true
		e, err := h.Store.Get(ctx, stream, h.held)
		if err != nil {
			return nil, err
		}
		e.State, e.BatchID = state.Pending, -1
		es = append(es, e)
	}
	return es, nil
}

func (h *heldClaimer) ClaimFiles(ctx context.Context, stream string, batch int64, files []state.File) ([]bool, error) {
	owned := make([]bool, len(files))
	var mine []string
	for i, f := range files {
		if f.Path != h.held {
			owned[i] = true
			mine = append(mine, f.Path)
		}
	}
	return owned, h.Store.Claim(ctx, stream, batch, mine)
}

// A file the batch's claim finds held by another batch (handed over twice)
// is dropped from the batch, also when the batch is converted in shares:
// the converters leave out what the committer's claim dropped, so the
// shares and the plan digest agree, and every other row lands once.
func TestDroppedFileWithFanout(t *testing.T) {
	for _, maxConv := range []int{1, 2, 3} {
		w := newWorld()
		for i := 0; i < 6; i++ {
			w.addFile(t, 20)
		}
		w.discover(t)
		// The last file (ids 100..119) was ingested by batch 99.
		const held = "in/part 005.json"
		if err := w.st.Claim(context.Background(), "stream-1", 99, []string{held}); err != nil {
			t.Fatal(err)
		}
		w.st = &heldClaimer{Store: w.st, held: held}
		c := &converters{t: t, w: w}
		sum, err := w.fanEngine(t, Limits{}, c, maxConv, 1).RunAvailableNow(context.Background(), nil)
		if err != nil {
			t.Fatalf("%d converters: %v", maxConv, err)
		}
		if len(sum.Batches) != 1 || sum.Batches[0].NumInputFiles != 5 {
			t.Fatalf("%d converters: summary %+v, want one batch of the 5 owned files", maxConv, sum)
		}
		if maxConv > 1 && c.calls.Load() != int64(maxConv) {
			t.Fatalf("%d converters: %d converter calls", maxConv, c.calls.Load())
		}
		checkExactlyOnce(t, tableIDs(t, w.table), 100)
		checkLog(t, w.table)
	}
}
