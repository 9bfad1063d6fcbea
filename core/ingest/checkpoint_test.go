package ingest

import (
	"context"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
)

// TestCheckpointAfterAnotherWriterTookTheMultiple: another writer commits
// version 10 (the checkpoint interval's multiple); the stream's next commit
// (11) writes the checkpoint instead of waiting for version 20.
func TestCheckpointAfterAnotherWriterTookTheMultiple(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	for i := 0; i < 12; i++ {
		w.addFile(t, 2)
	}
	w.discover(t)
	e := w.engine(t, Limits{MaxFiles: 1})
	for i := 0; i < 10; i++ { // versions 0..9
		if _, err := e.RunBatch(ctx); err != nil {
			t.Fatal(err)
		}
	}
	other := delta.NewTable(w.table)
	if _, err := other.Commit(ctx, 9, []delta.Action{{CommitInfo: &delta.CommitInfo{Operation: "SET TBLPROPERTIES"}}}); err != nil {
		t.Fatal(err)
	}
	prog, err := e.RunBatch(ctx)
	if err != nil || prog.TableVersion != 11 {
		t.Fatalf("batch after the other writer: version %d, %v", prog.TableVersion, err)
	}
	if _, err := w.table.Head(ctx, delta.CheckpointKey(11)); err != nil {
		t.Fatalf("no checkpoint at version 11: %v", err)
	}
	snap, err := delta.NewTable(w.table).Snapshot(ctx)
	if err != nil || snap.CheckpointVersion() != 11 {
		t.Fatalf("snapshot from checkpoint %d, %v", snap.CheckpointVersion(), err)
	}
	if _, err := e.RunBatch(ctx); err != nil { // version 12: no new checkpoint
		t.Fatal(err)
	}
	if _, err := w.table.Head(ctx, delta.CheckpointKey(12)); err == nil {
		t.Fatalf("checkpoint at 12 although 11 covers the interval")
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
}
