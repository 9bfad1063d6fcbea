package boltstate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/core/state/statetest"
)

func openTemp(t testing.TB, opts ...Option) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s, path
}

func TestConformance(t *testing.T) {
	statetest.RunConformanceTests(t, func(t *testing.T) statetest.Harness {
		s, _ := openTemp(t)
		return statetest.NewHarness(s, func() {
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		})
	})
}

func TestConformanceFrozenClock(t *testing.T) {
	frozen := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	statetest.RunConformanceTests(t, func(t *testing.T) statetest.Harness {
		s, _ := openTemp(t, WithClock(func() time.Time { return frozen }))
		return statetest.NewHarness(s, func() { s.Close() })
	})
}

// checkConsistent verifies the invariants between the buckets of every
// stream: a file is in the pending index exactly while its batch is -1, under
// the key built from its discovery time.
func checkConsistent(t *testing.T, s *Store) {
	t.Helper()
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketStreams).ForEach(func(name, _ []byte) error {
			b, err := openStream(tx, string(name), false)
			if err != nil {
				return err
			}
			wantPending := map[string]bool{}
			err = b.files.ForEach(func(k, _ []byte) error {
				r, err := b.get(string(name), string(k))
				if err != nil {
					return err
				}
				if r.Batch < 0 && !r.skippedAtDiscovery() {
					wantPending[string(pendingKey(r.Discovery, string(k)))] = true
				}
				return nil
			})
			if err != nil {
				return err
			}
			n := 0
			err = b.pending.ForEach(func(k, _ []byte) error {
				n++
				if !wantPending[string(k)] {
					_, p, _ := parsePendingKey(k)
					return fmt.Errorf("stream %q: stray pending key for %q", name, p)
				}
				return nil
			})
			if err != nil {
				return err
			}
			if n != len(wantPending) {
				return fmt.Errorf("stream %q: %d pending keys, %d pending files", name, n, len(wantPending))
			}
			return nil
		})
	})
	if err != nil {
		t.Fatalf("inconsistent state file: %v", err)
	}
}

func TestReopenKeepsState(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	if _, err := s.Register(ctx, "s", []state.File{{Path: "a"}, {Path: "b"}, {Path: "c"}}, state.RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Claim(ctx, "s", 0, []string{"a", "c"}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkSkipped(ctx, "s", 0, "c", "corrupt"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.RegisterSkipped(ctx, "s", state.File{Path: "d"}, "too old"); err != nil || !ok {
		t.Fatalf("RegisterSkipped: %v %v", ok, err)
	}
	at := time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
	if err := s.MarkCommitted(ctx, "s", 0, at); err != nil {
		t.Fatal(err)
	}
	before, err := s.Get(ctx, "s", "b")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopen with a clock far in the past: new discovery times still sort last.
	s, err = Open(path, WithClock(func() time.Time { return time.Unix(0, 0) }))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	checkConsistent(t, s)
	e, err := s.Get(ctx, "s", "a")
	if err != nil || e.State != state.Committed || !e.CommitTime.Equal(at) {
		t.Fatalf("after reopen a = %+v, %v", e, err)
	}
	e, err = s.Get(ctx, "s", "c")
	if err != nil || e.State != state.Skipped || e.Error != "corrupt" || e.CommitTime == nil || !e.CommitTime.Equal(at) {
		t.Fatalf("after reopen c = %+v, %v", e, err)
	}
	if _, err := s.Register(ctx, "s", []state.File{{Path: "0-early-name"}}, state.RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	ps, err := s.Pending(ctx, "s", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Path != "b" || !ps[0].DiscoveryTime.Equal(before.DiscoveryTime) || ps[1].Path != "0-early-name" {
		t.Fatalf("pending after reopen = %+v", ps)
	}
}

func TestSecondOpenIsRefused(t *testing.T) {
	s, path := openTemp(t)
	defer s.Close()
	_, err := Open(path, WithLockTimeout(20*time.Millisecond))
	if err == nil {
		t.Fatal("second Open of a locked state file succeeded")
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name the file", err)
	}
}

func TestEmptyStreamRejected(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	ctx := context.Background()
	if _, err := s.Register(ctx, "", []state.File{{Path: "a"}}, state.RegisterOptions{}); err == nil {
		t.Error("Register with empty stream succeeded")
	}
	if _, err := s.Register(ctx, "s", []state.File{{Path: "a"}, {Path: ""}}, state.RegisterOptions{}); err == nil {
		t.Error("Register with empty path succeeded")
	}
	if _, err := s.Get(ctx, "s", "a"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("failed Register left a behind: %v", err)
	}
}

// crashChildEnv names the state file the child process writes to.
const crashChildEnv = "BOLTSTATE_CRASH_CHILD_DB"

// TestMain runs the crash child when TestCrashSafety starts this binary as one.
func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
	}
	os.Exit(m.Run())
}

// crashChild is the child process of TestCrashSafety; it registers and
// claims files forever, printing each acknowledged call, until it is killed.
func crashChild(path string) {
	s, err := Open(path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	ctx := context.Background()
	for i := 0; ; i++ {
		var fs []state.File
		for j := range 20 {
			fs = append(fs, state.File{Path: fmt.Sprintf("f-%06d-%02d", i, j), Size: int64(j), ETag: "e"})
		}
		if _, err := s.Register(ctx, "crash", fs, state.RegisterOptions{}); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		if i > 0 {
			var ps []string
			for j := range 10 {
				ps = append(ps, fmt.Sprintf("f-%06d-%02d", i-1, j))
			}
			if err := s.Claim(ctx, "crash", int64(i-1), ps); err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
		}
		fmt.Printf("ok %d\n", i)
	}
}

func TestCrashSafety(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := -1
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "ok "); ok {
			if acked, err = strconv.Atoi(rest); err != nil {
				t.Fatal(err)
			}
			if acked >= 40 {
				break
			}
			continue
		}
		if strings.HasPrefix(line, "error") {
			t.Fatalf("child: %s", line)
		}
	}
	// Kill mid-way: the child is inside some later transaction or between two.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if acked < 40 {
		t.Fatalf("child acknowledged only %d calls", acked)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	checkConsistent(t, s)
	ctx := context.Background()
	for i := 0; i <= acked; i++ {
		for j := range 20 {
			p := fmt.Sprintf("f-%06d-%02d", i, j)
			e, err := s.Get(ctx, "crash", p)
			if err != nil {
				t.Fatalf("acknowledged file %q lost: %v", p, err)
			}
			claimed := i < acked && j < 10
			if claimed && (e.State != state.Claimed || e.BatchID != int64(i)) {
				t.Fatalf("%q: state %s batch %d, want claimed in %d", p, e.State, e.BatchID, i)
			}
		}
	}
	// The store still works after recovery.
	if _, err := s.Register(ctx, "crash", []state.File{{Path: "after"}}, state.RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	checkConsistent(t, s)
}

func FuzzPendingKey(f *testing.F) {
	for _, seed := range []struct {
		nanos int64
		path  string
	}{
		{0, ""},
		{1700000000123456789, "a/b.json"},
		{-1, "日本語"},
		{1<<63 - 1, "x\x00y"},
		{-1 << 63, "#"},
	} {
		f.Add(seed.nanos, seed.path)
	}
	f.Fuzz(func(t *testing.T, nanos int64, path string) {
		k := pendingKey(time.Unix(0, nanos), path)
		gotNanos, gotPath, err := parsePendingKey(k)
		if err != nil || gotNanos != nanos || gotPath != path {
			t.Fatalf("parsePendingKey(pendingKey(%d, %q)) = %d, %q, %v", nanos, path, gotNanos, gotPath, err)
		}
		// Byte order is (nanos, path) order.
		other := pendingKey(time.Unix(0, nanos/2), path+"a")
		cmpKeys := strings.Compare(string(k), string(other))
		want := 0
		switch {
		case nanos < nanos/2:
			want = -1
		case nanos > nanos/2:
			want = 1
		default:
			want = -1 // same nanos: path < path+"a"
		}
		if cmpKeys != want {
			t.Fatalf("order of (%d,%q) vs (%d,%q) = %d, want %d", nanos, path, nanos/2, path+"a", cmpKeys, want)
		}
		if _, _, err := parsePendingKey(k[:7]); err == nil {
			t.Fatalf("7-byte key %x accepted", k[:7])
		}
	})
}

// The store id lives in the file: a reopened file keeps it, a read-only
// view reads it, a new file has another.
func TestStoreIDPersists(t *testing.T) {
	ctx := context.Background()
	s, path := openTemp(t)
	id, err := s.StoreID(ctx)
	if err != nil || !strings.HasPrefix(id, "bolt:") {
		t.Fatalf("StoreID = %q, %v", id, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ro.StoreID(ctx); err != nil || got != id {
		t.Errorf("read-only StoreID = %q, %v; want %q", got, err, id)
	}
	ro.Close()
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got, err := s.StoreID(ctx); err != nil || got != id {
		t.Errorf("StoreID after reopen = %q, %v; want %q", got, err, id)
	}
	fresh, _ := openTemp(t)
	if got, err := fresh.StoreID(ctx); err != nil || got == id {
		t.Errorf("StoreID of a new file = %q, %v; want another than %q", got, err, id)
	}
}
