package ingest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/objstore/memstore"
)

// With badRecordsPath, the exception files are named after the sealed
// plan (its creation time and batch id) and uploaded before the commit.
// A plan sealed only while the batch is written would name them after a
// plan that may never be sealed: a seal that fails after the upload (a
// crash) leaves them behind, and the next run's plan, made at another
// time, writes the same bad records again under another name. So the
// plan is sealed before the write when badRecordsPath is set: after the
// failed seal and a rerun, each bad record is in badRecordsPath once.
func TestSealBeforeBadRecordsUpload(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	w.addFile(t, 3)
	if err := w.src.Put(ctx, "in/mixed.json", strings.NewReader(`{"id": 3}`+"\n"+`{"id": "three"}`+"\n")); err != nil {
		t.Fatal(err)
	}
	w.rows++ // id 3
	w.discover(t)
	bad := memstore.New()
	clock := time.Date(2026, 12, 2, 4, 0, 0, 0, time.UTC)
	setup := func(e *Engine) {
		e.Config.Reader.BadRecordsPath = "bad"
		e.Config.Schema.User = mustSchema(t, "id BIGINT")
		e.Config.Schema.NoRescue = true
		e.BadRecords = bad
		e.Now = func() time.Time { return clock }
	}
	// The seal fails once the exception files are uploaded, if the write
	// runs before it.
	sw := &sealWatch{Store: w.cp, fail: errCrash, beforeSeal: func(string) {
		waitFor(2*time.Second, func() bool { return len(sourceKeys(t, bad)) > 0 })
	}}
	w.engineHook = func(e *Engine) {
		setup(e)
		e.Checkpoint = sw
	}
	if _, err := w.engine(t, Limits{MaxFiles: 10}).RunAvailableNow(ctx, nil); !errors.Is(err, errCrash) {
		t.Fatalf("want the failed seal, got %v", err)
	}
	clock = clock.Add(time.Minute) // the next run plans at another time
	w.engineHook = setup
	if _, err := w.engine(t, Limits{MaxFiles: 10}).RunAvailableNow(ctx, nil); err != nil {
		t.Fatal(err)
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
	var records []string
	for _, k := range sourceKeys(t, bad) {
		if strings.Contains(k, "/bad_records/") {
			records = append(records, k)
		}
	}
	if len(records) != 1 {
		t.Fatalf("bad_records files %v: want one (the bad record once)", records)
	}
}
