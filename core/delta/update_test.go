package delta

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/tributary-io/tributary/core/delta/internal/dirstore"
)

// After CommitTxnFrom the kept snapshot holds the commit it wrote: the
// next Update reads no commit file, and the snapshot equals a fresh load.
func TestCommitTxnFromAdvancesSnapshot(t *testing.T) {
	ctx := context.Background()
	cs := &countingStore{Store: dirstore.New(t.TempDir())}
	tbl := NewTable(cs)
	if _, err := tbl.Commit(ctx, -1, createActions(t)); err != nil {
		t.Fatal(err)
	}
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for batch := range int64(12) {
		res, err := tbl.CommitTxnFrom(ctx, snap, "app", batch, func(*Snapshot) ([]Action, error) {
			return []Action{addAction(fmt.Sprintf("f%d", batch), 1)}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if snap.Version != res.Version {
			t.Fatalf("batch %d: snapshot at %d, committed %d", batch, snap.Version, res.Version)
		}
		if _, err := tbl.MaybeCheckpoint(ctx, snap, res.Version); err != nil {
			t.Fatal(err)
		}
	}
	cs.reset()
	if err := snap.Update(ctx); err != nil {
		t.Fatal(err)
	}
	if got := cs.reset(); slices.ContainsFunc(got, func(k string) bool { return k != LastCheckpointKey }) {
		t.Fatalf("update after own commits read %v", got)
	}
	fresh, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Version != snap.Version || fresh.NumFiles() != snap.NumFiles() || fresh.NumFiles() != 12 {
		t.Fatalf("kept snapshot v%d/%d files, fresh v%d/%d files", snap.Version, snap.NumFiles(), fresh.Version, fresh.NumFiles())
	}
	if v, _ := snap.TxnVersion("app"); v != 11 {
		t.Fatalf("txn %d, want 11", v)
	}
}

// A kept snapshot whose next commit was removed by log cleanup (a later
// checkpoint covers it) is brought up to date, not taken as current.
func TestUpdateAfterLogCleanup(t *testing.T) {
	ctx := context.Background()
	st := dirstore.New(t.TempDir())
	tbl := NewTable(st)
	if _, err := tbl.Commit(ctx, -1, createActions(t)); err != nil {
		t.Fatal(err)
	}
	stale, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	other := NewTable(st)
	for v := int64(0); v < 12; v++ {
		if _, err := other.Commit(ctx, v, []Action{addAction(fmt.Sprintf("g%d", v), 1)}); err != nil {
			t.Fatal(err)
		}
	}
	s10, err := other.SnapshotAt(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Checkpoint(ctx, s10); err != nil {
		t.Fatal(err)
	}
	for v := int64(0); v < 10; v++ {
		if err := st.Delete(ctx, CommitKey(v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := stale.Update(ctx); err != nil {
		t.Fatal(err)
	}
	if stale.Version != 12 || stale.NumFiles() != 12 {
		t.Fatalf("after update: version %d, %d files; want 12, 12", stale.Version, stale.NumFiles())
	}
}
