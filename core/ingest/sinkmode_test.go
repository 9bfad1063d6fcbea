package ingest

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/schema"
)

// TestTimestampNTZUpgradesProtocol: a (1,2) table whose stream gains a
// TIMESTAMP_NTZ column is upgraded to (3,7) with the timestampNtz feature
// in the commit that adds the column (it used to be refused, leaving the
// stream stuck and an orphan data file per attempt).
func TestTimestampNTZUpgradesProtocol(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	user := func(ddl string) func(*Engine) {
		return func(e *Engine) {
			hints, err := schema.ParseDDL(ddl)
			if err != nil {
				t.Fatal(err)
			}
			e.Config.Schema.User = schema.ApplyHints(&schema.StructType{}, hints)
		}
	}
	w.engineHook = user("id BIGINT")
	w.src.Put(ctx, "in/1.json", strings.NewReader(`{"id":1}`+"\n"))
	w.discover(t)
	if _, err := w.engine(t, Limits{MaxFiles: 10}).RunAvailableNow(ctx, nil); err != nil {
		t.Fatal(err)
	}
	tbl := delta.NewTable(w.table)
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p := snap.Protocol; p.MinReaderVersion != 1 || p.MinWriterVersion != 2 {
		t.Fatalf("new table protocol %+v, want (1,2)", p)
	}
	w.engineHook = user("id BIGINT, t TIMESTAMP_NTZ")
	w.src.Put(ctx, "in/2.json", strings.NewReader(`{"id":2,"t":"2026-01-02T03:04:05"}`+"\n"))
	w.discover(t)
	if _, err := w.engine(t, Limits{MaxFiles: 10}).RunAvailableNow(ctx, nil); err != nil && !errors.Is(err, ErrSchemaEvolved) {
		t.Fatal(err)
	}
	if _, err := w.engine(t, Limits{MaxFiles: 10}).RunAvailableNow(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if snap, err = tbl.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	p := snap.Protocol
	if p.MinReaderVersion != 3 || p.MinWriterVersion != 7 || !slices.Contains(p.ReaderFeatures, delta.FeatureTimestampNTZ) ||
		!slices.Equal(p.WriterFeatures, []string{delta.FeatureAppendOnly, delta.FeatureInvariants, delta.FeatureTimestampNTZ}) {
		t.Errorf("protocol %+v, want (3,7) with timestampNtz and the features (1,2) implied", p)
	}
	if snap.Schema().FieldIndex("t") < 0 || snap.NumFiles() != 2 {
		t.Errorf("schema %v, %d files; want t added and both batches", snap.Schema(), snap.NumFiles())
	}
}
