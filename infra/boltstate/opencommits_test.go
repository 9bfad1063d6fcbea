package boltstate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/tributary-io/tributary/core/state"
)

// Opening a state file commits nothing when it has its buckets (each
// commit is two fdatasyncs on the run's path): the file's bytes are the
// same after an Open and Close; a file without them (made by bbolt alone,
// as an older release's might lack one) is given them; a new file has its
// store id from the start, so the first run's StoreID commits nothing
// either, and keeps it.
func TestOpenCommitsNothing(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"created", func(t *testing.T, path string) {
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Register(ctx, "s", []state.File{{Path: "a.json", Size: 1}}, state.RegisterOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}},
		{"bare bbolt file", func(t *testing.T, path string) {
			db, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			tc.make(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Register(ctx, "s", []state.File{{Path: "b.json", Size: 2}}, state.RegisterOptions{}); err != nil {
				t.Fatal(err)
			}
			id, err := s.StoreID(ctx)
			if err != nil || id == "" {
				t.Fatalf("StoreID = %q, %v", id, err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			// Reopened, the file must not change.
			mid, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if s, err = Open(path); err != nil {
				t.Fatal(err)
			}
			if got, err := s.StoreID(ctx); err != nil || got != id {
				t.Fatalf("StoreID after reopening = %q, %v; want %q", got, err, id)
			}
			p, err := s.Pending(ctx, "s", 10)
			if err != nil || len(p) == 0 {
				t.Fatalf("pending %v, %v", p, err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(mid, after) {
				t.Error("opening a state file with its buckets and store id committed a transaction")
			}
			if tc.name == "created" && bytes.Equal(before, mid) {
				t.Error("the Register between did not change the file: the check above proves nothing")
			}
		})
	}
}

// A state file created by Open has its store id before any StoreID call:
// a read-only store finds it.
func TestNewStateFileHasStoreID(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	id, err := ro.StoreID(ctx)
	ro.Close()
	if err != nil || id == "" {
		t.Fatalf("read-only StoreID of a new file = %q, %v", id, err)
	}
	if got, err := s.StoreID(ctx); err != nil || got != id {
		t.Fatalf("StoreID = %q, %v; want %q", got, err, id)
	}
	s.Close()
}

// A crash while a state file was created (it is built unsynced under
// path+".new" and synced once before the rename) leaves at most that
// temporary file, never a file at path: the next Open builds the file
// again, complete, and leaves no temporary file behind.
func TestCreateAfterACrashDuringCreate(t *testing.T) {
	ctx := context.Background()
	for _, leftover := range [][]byte{nil, []byte("half a bbolt file"), bytes.Repeat([]byte{0xff}, 3*4096)} {
		path := filepath.Join(t.TempDir(), "state.db")
		if leftover != nil {
			if err := os.WriteFile(path+".new", leftover, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		s, err := Open(path)
		if err != nil {
			t.Fatalf("open after a crash during create (%d leftover bytes): %v", len(leftover), err)
		}
		if err := exercise(s); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if _, err := os.Stat(path + ".new"); !os.IsNotExist(err) {
			t.Fatalf("temporary file left behind: %v", err)
		}
		ro, err := OpenReadOnly(path)
		if err != nil {
			t.Fatal(err)
		}
		if id, err := ro.StoreID(ctx); err != nil || id == "" {
			t.Fatalf("StoreID = %q, %v", id, err)
		}
		ro.Close()
	}
}
