package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats"
)

// renamed is a format under another name (only json is implemented).
type renamed struct {
	formats.Format
	name string
}

func (r renamed) Name() string { return r.name }

func readRecord(t *testing.T, w *world) Identity {
	t.Helper()
	rc, err := w.cp.Get(context.Background(), identityKey)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, _ := io.ReadAll(rc)
	var id Identity
	if err := json.Unmarshal(data, &id); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestIdentityRefusesChangedFormat(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	w.addFile(t, 2)
	w.discover(t)
	if _, err := w.engine(t, Limits{}).RunAvailableNow(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := readRecord(t, w); got.Version != identityVersion || got.Format != "json" || got.TxnAppID != "stream-1" || got.StreamID != "stream-1" {
		t.Fatalf("identity record = %+v", got)
	}
	w.engineHook = func(e *Engine) { e.Config.Format = renamed{e.Config.Format, "text"} }
	_, err := w.engine(t, Limits{}).RunAvailableNow(ctx, nil)
	if !errors.Is(err, ErrFullRefreshNeeded) || !strings.Contains(err.Error(), "cloudFiles.format json (now text)") {
		t.Fatalf("changed format: %v", err)
	}
}

// A checkpoint written before the identity held more than the source is
// completed on first use; its source is still checked.
func TestIdentityCompletesOldRecords(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name, source string
		ok           bool
	}{{"same source", "s3://landing/raw", true}, {"other source", "s3://landing/other", false}} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld()
			if err := w.cp.Put(ctx, identityKey, strings.NewReader(`{"source":"s3://landing/raw"}`)); err != nil {
				t.Fatal(err)
			}
			w.engineHook = func(e *Engine) { e.Config.SourceURI, e.Config.TableURI = tt.source, "s3://lake/t" }
			err := w.engine(t, Limits{}).CheckIdentity(ctx)
			if !tt.ok {
				if !errors.Is(err, ErrFullRefreshNeeded) || !strings.Contains(err.Error(), "s3://landing/raw") {
					t.Fatalf("want a refusal naming the recorded source, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := readRecord(t, w); got.Version != identityVersion || got.Table != "s3://lake/t" || got.Format != "json" {
				t.Fatalf("completed record = %+v", got)
			}
		})
	}
}

// With cloudFiles.maxFileAge or allowOverwrites the file state may forget
// or reset old entries, so it is not asked to vouch for the last batch.
func TestContinuityStateCheckSkippedWhenStateForgets(t *testing.T) {
	ctx := context.Background()
	for _, forgets := range []bool{false, true} {
		w := newWorld()
		w.addFile(t, 1)
		w.discover(t)
		if _, err := w.engine(t, Limits{}).RunAvailableNow(ctx, nil); err != nil {
			t.Fatal(err)
		}
		// A checkpoint recorded before it named its state store: only the
		// continuity probe can notice that the state is lost.
		rec := readRecord(t, w)
		rec.StateStore = ""
		data, _ := json.Marshal(rec)
		if err := w.cp.Put(ctx, identityKey, strings.NewReader(string(data))); err != nil {
			t.Fatal(err)
		}
		w.st = newWorld().st // the state is lost (or expired)
		w.engineHook = func(e *Engine) { e.Config.StateForgets = forgets }
		_, err := w.engine(t, Limits{}).RunAvailableNow(ctx, nil)
		if forgets != (err == nil) || (!forgets && !errors.Is(err, ErrStreamMismatch)) {
			t.Errorf("StateForgets=%v: %v", forgets, err)
		}
	}
}
