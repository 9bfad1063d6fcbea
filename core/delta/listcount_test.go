package delta

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tributary-io/tributary/core/delta/internal/dirstore"
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

// dirListCounter is a listCounter on a directory store.
type dirListCounter struct{ listCounter }

func (*dirListCounter) ListsWholeDirectories() bool { return true }

// listHidden hides that a store lists whole directories: the table then
// lists the log as on S3.
type listHidden struct{ objstore.Store }

// On a directory store a snapshot and its updates read the checkpoint and
// the commits after it without listing the log, and equal the snapshots
// loaded by listing, also with a stale _last_checkpoint and after log
// cleanup.
func TestDirectoryStoreOpensWithoutListing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store := &dirListCounter{listCounter{Store: dirstore.New(dir)}}
	tbl := NewTable(store)
	if _, err := tbl.Commit(ctx, -1, createActions(t)); err != nil {
		t.Fatal(err)
	}
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	commit := func(i int) {
		t.Helper()
		res, err := tbl.CommitTxnFrom(ctx, snap, "app", int64(i), func(*Snapshot) ([]Action, error) {
			return []Action{addAction(fmt.Sprint("f", i), 1)}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tbl.MaybeCheckpoint(ctx, snap, res.Version); err != nil {
			t.Fatal(err)
		}
	}
	check := func(name string, wantCkpt int64) {
		t.Helper()
		store.lists.Store(0)
		got, err := tbl.Snapshot(ctx)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n := store.lists.Load(); n != 0 {
			t.Errorf("%s: %d listings", name, n)
		}
		listed, err := NewTable(listHidden{store.Store}).Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got.Version != listed.Version || got.CheckpointVersion() != wantCkpt || listed.CheckpointVersion() != wantCkpt ||
			!slices.Equal(paths(got), paths(listed)) || !reflect.DeepEqual(got.Txns(), listed.Txns()) {
			t.Errorf("%s: probed v%d from %d (%d files), listed v%d from %d (%d files)", name,
				got.Version, got.CheckpointVersion(), got.NumFiles(), listed.Version, listed.CheckpointVersion(), listed.NumFiles())
		}
		store.lists.Store(0)
		if err := kept.Update(ctx); err != nil {
			t.Fatal(err)
		}
		if kept.Version != listed.Version || !slices.Equal(paths(kept), paths(listed)) {
			t.Errorf("%s: kept snapshot updated to v%d, want v%d", name, kept.Version, listed.Version)
		}
		if n := store.lists.Load(); n != 0 {
			t.Errorf("%s: update: %d listings", name, n)
		}
	}
	for i := 1; i <= 13; i++ {
		commit(i)
	}
	check("checkpoint 10 and 3 commits", 10)
	// A writer died between its checkpoint and _last_checkpoint.
	for i := 14; i <= 22; i++ {
		commit(i)
	}
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(LastCheckpointKey)))
	if err != nil {
		t.Fatal(err)
	}
	stale := strings.Replace(string(b), `"version":20`, `"version":10`, 1)
	if stale == string(b) {
		t.Fatalf("_last_checkpoint %s", b)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(LastCheckpointKey)), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	check("stale hint", 20)
	// Log cleanup removed the commits the checkpoint at 20 covers.
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(LastCheckpointKey)), b, 0o644); err != nil {
		t.Fatal(err)
	}
	for v := int64(0); v < 20; v++ {
		if err := os.Remove(filepath.Join(dir, filepath.FromSlash(CommitKey(v)))); err != nil {
			t.Fatal(err)
		}
	}
	check("after cleanup", 20)
}
