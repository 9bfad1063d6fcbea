package delta

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync/atomic"
	"testing"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
)

// listCounter counts listings (an S3 LIST each); memstore is not a
// DirectoryStore, so the table lists as it would on S3.
type listCounter struct {
	objstore.Store
	lists atomic.Int64
}

func (c *listCounter) List(ctx context.Context, o objstore.ListOptions) iter.Seq2[objstore.ObjectInfo, error] {
	c.lists.Add(1)
	return c.Store.List(ctx, o)
}

// CommitTxnAt writes without listing first; a stale snapshot is caught by
// the put-if-absent and brought up to date, so the txn check still holds.
// MaybeCheckpoint checkpoints a snapshot at the committed version without
// listing.
func TestCommitTxnAtListsOnlyOnConflict(t *testing.T) {
	ctx := context.Background()
	store := &listCounter{Store: memstore.New()}
	tbl := NewTable(store, WithBackoff(0))
	add := func(p string) func(*Snapshot) ([]Action, error) {
		return func(*Snapshot) ([]Action, error) { return []Action{addAction(p, 1)}, nil }
	}
	// Creating the table: no snapshot, no listing.
	res, err := tbl.CommitTxnAt(ctx, nil, "app", 0, func(*Snapshot) ([]Action, error) {
		return append(createActions(t), addAction("f0", 1)), nil
	})
	if err != nil || res.Version != 0 || res.Snapshot == nil || res.Snapshot.NumFiles() != 1 {
		t.Fatalf("create: %+v %v", res, err)
	}
	snap := res.Snapshot
	for i := int64(1); i <= 10; i++ {
		res, err := tbl.CommitTxnAt(ctx, snap, "app", i, add(fmt.Sprint("f", i)))
		if err != nil || res.Version != i || res.Snapshot != snap || snap.Version != i {
			t.Fatalf("commit %d: %+v %v", i, res, err)
		}
		if _, err := tbl.MaybeCheckpoint(ctx, snap, res.Version); err != nil {
			t.Fatal(err)
		}
	}
	if n := store.lists.Load(); n != 0 {
		t.Fatalf("%d listings for 11 commits and a checkpoint from a kept snapshot", n)
	}
	if _, err := store.Head(ctx, CheckpointKey(10)); err != nil {
		t.Fatalf("checkpoint 10: %v", err)
	}

	// Another writer commits; the kept snapshot is stale.
	if _, err := NewTable(store.Store).CommitTxn(ctx, "other", 0, add("g")); err != nil {
		t.Fatal(err)
	}
	res, err = tbl.CommitTxnAt(ctx, snap, "app", 11, add("f11"))
	if err != nil || res.Version != 12 || res.Attempts != 2 || snap.NumFiles() != 13 {
		t.Fatalf("after a concurrent commit: %+v %v, %d files", res, err, snap.NumFiles())
	}
	if n := store.lists.Load(); n != 1 {
		t.Fatalf("%d listings, want 1 (the update after the refused put)", n)
	}
	// The same txn again from a stale snapshot: found after the conflict.
	stale, err := tbl.SnapshotAt(ctx, 11)
	if err != nil {
		t.Fatal(err)
	}
	res, err = tbl.CommitTxnAt(ctx, stale, "app", 11, add("f11-again"))
	if err != nil || !res.AlreadyCommitted || res.Version != 12 {
		t.Fatalf("replayed txn: %+v %v", res, err)
	}
	// Creating a table that exists: the put-if-absent of version 0 fails,
	// the table is loaded and the txn found.
	create := func(s *Snapshot) ([]Action, error) {
		if s == nil {
			return append(createActions(t), addAction("x", 1)), nil
		}
		return []Action{addAction("x", 1)}, nil
	}
	res, err = tbl.CommitTxnAt(ctx, nil, "app", 5, create)
	if err != nil || !res.AlreadyCommitted || res.Attempts != 1 {
		t.Fatalf("create over an existing table: %+v %v", res, err)
	}
	if _, err := tbl.CommitTxnAt(ctx, nil, "", 5, add("x")); !errors.Is(err, ErrInvalidCommit) {
		t.Fatalf("empty appId: %v", err)
	}
}
