package ingest

import (
	"context"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/core/state/memstate"
)

// A stream whose file state store is replaced (new, emptied or restored)
// registers the files of its plans again before discovery: nothing is
// ingested twice, whether the last batch was committed, sealed only, or
// committed but not finished, and whether the new store is empty or
// restored from an older copy.
func TestNewStateStoreIsAdopted(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		// crash, when set, stops the last batch of the first run at that step.
		crash Step
		// restored registers the first file, committed in batch 0, in the new
		// store (a copy taken after the first batch).
		restored bool
	}{
		{name: "empty store"},
		{name: "restored store", restored: true},
		{name: "last batch sealed only", crash: StepPlanned},
		{name: "last batch committed, not finished", crash: StepCommitted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld()
			for range 3 {
				w.addFile(t, 2)
			}
			w.discover(t)
			e := w.engine(t, Limits{MaxFiles: 1})
			if tc.crash != "" {
				e.fault = func(s Step, batch int64) error {
					if s == tc.crash && batch == 2 {
						return errCrash
					}
					return nil
				}
			}
			if _, err := e.RunAvailableNow(ctx, nil); (err != nil) != (tc.crash != "") {
				t.Fatalf("first run: %v", err)
			}
			old, _ := w.st.StoreID(ctx)
			if got := readRecord(t, w).StateStore; got != old {
				t.Fatalf("recorded state store %q, want %q", got, old)
			}
			fresh := memstate.New()
			if tc.restored {
				f := state.File{Path: "in/part 000.json"}
				if _, err := fresh.Register(ctx, "stream-1", []state.File{f}, state.RegisterOptions{}); err != nil {
					t.Fatal(err)
				}
				if err := fresh.Claim(ctx, "stream-1", 0, []string{f.Path}); err != nil {
					t.Fatal(err)
				}
			}
			w.st = fresh
			// As infra/streams.Open: the identity check, then discovery.
			e = w.engine(t, Limits{MaxFiles: 1})
			if err := e.CheckIdentity(ctx); err != nil {
				t.Fatal(err)
			}
			if res := w.discover(t); res.New != 0 {
				t.Errorf("discovery registered %d files again, want 0", res.New)
			}
			if _, err := e.RunAvailableNow(ctx, nil); err != nil {
				t.Fatal(err)
			}
			checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
			n := 0
			for en, err := range w.st.Entries(ctx, "stream-1") {
				if err != nil {
					t.Fatal(err)
				}
				if want := fmt.Sprintf("in/part %03d.json", en.BatchID); en.State != state.Committed || en.Path != want {
					t.Errorf("entry %+v, want committed in batch of %s", en, want)
				}
				n++
			}
			if n != 3 {
				t.Errorf("%d entries, want 3", n)
			}
			now, _ := fresh.StoreID(ctx)
			if got := readRecord(t, w).StateStore; got != now {
				t.Errorf("recorded state store %q after adoption, want %q", got, now)
			}
		})
	}
}

// A plan missing from the checkpoint: the new store cannot learn every
// committed file, so the run is refused, naming both stores and the way out.
func TestNewStateStoreWithMissingPlanIsRefused(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	w.addFile(t, 1)
	w.addFile(t, 1)
	w.discover(t)
	if _, err := w.engine(t, Limits{MaxFiles: 1}).RunAvailableNow(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.cp.Delete(ctx, batchplan.Key(0)); err != nil {
		t.Fatal(err)
	}
	old, _ := w.st.StoreID(ctx)
	w.st = memstate.New()
	err := w.engine(t, Limits{}).CheckIdentity(ctx)
	if !errors.Is(err, ErrStreamMismatch) {
		t.Fatalf("want ErrStreamMismatch, got %v", err)
	}
	for _, s := range []string{old, "plan 0", "original state store", "tributary refresh"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("refusal lacks %q: %v", s, err)
		}
	}
	if got := readRecord(t, w).StateStore; got != old {
		t.Errorf("recorded state store %q after the refusal, want %q kept", got, old)
	}
}
