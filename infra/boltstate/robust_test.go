package boltstate

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tributary-io/tributary/core/state"
)

// buildDB writes a state file with every page shape bbolt produces here:
// branch pages (many files), overflow pages (a huge ETag), inline buckets
// (small streams), a free-page list, and several streams.
func buildDB(t testing.TB, path string, nFiles int) {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var files []state.File
	for i := range nFiles {
		files = append(files, state.File{Path: fmt.Sprintf("dir/%05d.json", i), Size: int64(i), ETag: "e"})
	}
	files = append(files, state.File{Path: "huge", ETag: strings.Repeat("x", 5000)})
	if _, err := s.Register(ctx, "big", files, state.RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Claim(ctx, "big", 0, []string{"dir/00000.json", "dir/00001.json"}); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkCommitted(ctx, "big", 0, time.Unix(1700000000, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Register(ctx, "small", []state.File{{Path: "a"}, {Path: "b"}}, state.RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
}

// exercise uses a store the way the CLI does; it must never panic.
func exercise(s *Store) error {
	ctx := context.Background()
	ids, err := s.Streams(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, id := range append(ids, "big") {
		for _, err := range s.Entries(ctx, id) {
			if err != nil {
				errs = append(errs, err)
				break
			}
		}
		_, err := s.Pending(ctx, id, 50)
		errs = append(errs, err)
		_, err = s.Get(ctx, id, "dir/00001.json")
		if errors.Is(err, state.ErrNotFound) {
			err = nil
		}
		errs = append(errs, err)
	}
	if !s.readOnly {
		_, err := s.Register(ctx, "big", []state.File{{Path: "new"}}, state.RegisterOptions{})
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// openEither opens the state file at path read-only or for writing.
func openEither(path string, readOnly bool, opts ...Option) (*Store, error) {
	if readOnly {
		return OpenReadOnly(path)
	}
	return Open(path, opts...)
}

// checkDamaged opens the file at path both ways and requires a working
// store or an error that names the file as corrupt — never a crash, never
// "locked".
func checkDamaged(t *testing.T, path string) {
	t.Helper()
	for _, readOnly := range []bool{true, false} {
		s, err := openEither(path, readOnly)
		if err == nil {
			err = exercise(s)
			s.Close()
		}
		if err == nil {
			continue
		}
		if errors.Is(err, ErrLocked) || strings.Contains(err.Error(), "locked") {
			t.Fatalf("readOnly=%v: damaged file reported as locked: %v", readOnly, err)
		}
		// Damage bbolt cannot see (a garbled record in a sound page) is
		// reported by the store's own checks instead.
		if msg := err.Error(); errors.Is(err, ErrCorrupt) && (!strings.Contains(msg, path) || !strings.Contains(msg, "corrupt")) {
			t.Fatalf("readOnly=%v: error does not name the corrupt file: %v", readOnly, err)
		}
	}
}

func TestDamagedStateFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	buildDB(t, good, 600)
	orig, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	const psz = 4096
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	type variant struct {
		name string
		data []byte
		// corrupt: a read-only open must fail with ErrCorrupt.
		corrupt bool
	}
	// The pages in use: the greater of the two meta pages' high-water
	// marks (a little-endian uint64 at byte 40 of a meta, which follows
	// the 16-byte page header).
	hwm := func(page []byte) int { return int(binary.LittleEndian.Uint64(page[16+40:])) }
	used := max(hwm(orig), hwm(orig[psz:])) * psz // the bytes the pages use
	var variants []variant
	for _, n := range []int{1, 100, psz - 1, psz, psz + 100, 2 * psz, 3 * psz, 4 * psz, used / 2, used - psz, used - 1, used, len(orig) - 1} {
		variants = append(variants, variant{fmt.Sprintf("truncated to %d", n), orig[:n], n < used})
	}
	for p := 2; p*psz < used; p++ {
		for _, fill := range []string{"zeros", "random"} {
			d := bytes.Clone(orig)
			page := d[p*psz : (p+1)*psz]
			if fill == "zeros" {
				clear(page)
			} else {
				copy(page, random(psz))
			}
			variants = append(variants, variant{fmt.Sprintf("page %d %s", p, fill), d, false})
		}
	}
	for _, m := range []int{0, 1} {
		d := bytes.Clone(orig)
		d[m*psz+16+20] ^= 0xFF // inside the meta, under the checksum
		variants = append(variants, variant{fmt.Sprintf("meta %d flipped", m), d, false})
	}
	both := bytes.Clone(orig)
	clear(both[:2*psz])
	variants = append(variants,
		variant{"both metas zeroed", both, true},
		variant{"random bytes", random(len(orig)), true},
		variant{"text", []byte(strings.Repeat("not a database\n", 2000)), true},
		variant{"zeros", make([]byte, len(orig)), true},
	)
	for i, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("v%03d.db", i))
			if err := os.WriteFile(path, v.data, 0o600); err != nil {
				t.Fatal(err)
			}
			if v.corrupt {
				_, err := OpenReadOnly(path)
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("read-only open: %v, want ErrCorrupt", err)
				}
			}
			checkDamaged(t, path)
		})
	}
}

// A full disk while bbolt created the file left its first 12 KiB (both meta
// pages and the free-page list, not the root page): bbolt then died with
// SIGBUS on every open. Read-only it is reported; a writer replaces it.
func TestFileCutShortWhileCreated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	// What bbolt's own initialisation writes, cut after three pages.
	raw := filepath.Join(dir, "raw.db")
	db, err := bboltInit(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, db[:3*4096], 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = OpenReadOnly(path)
	var ce *CorruptError
	if !errors.As(err, &ce) || !ce.NeverUsed || !strings.Contains(err.Error(), path) ||
		!strings.Contains(err.Error(), "truncated") || !strings.Contains(err.Error(), "next run replaces it") {
		t.Fatalf("read-only open of the cut file: %v", err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatalf("writer open of the cut file: %v", err)
	}
	defer s.Close()
	if err := exercise(s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + ".new"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("temporary file left behind: %v", err)
	}
}

// bboltInit returns the bytes bbolt writes when it creates a file (its
// initialisation only: no transaction).
func bboltInit(path string) ([]byte, error) {
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// A file cut under an open store (to two pages, to one, to nothing): its
// use fails with ErrCorrupt naming the file, Close returns (bbolt's own
// Close would wait forever for the locks of the transaction the fault
// interrupted), and the locks are released: the file, rebuilt, opens again.
func TestFileTruncatedWhileOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	buildDB(t, path, 600)
	for _, size := range []int64{2 * 4096, 4096, 100, 0} {
		for _, readOnly := range []bool{true, false} {
			s, err := openEither(path, readOnly, WithLockTimeout(time.Second))
			if err != nil {
				t.Fatalf("size %d, readOnly=%v: opening the rebuilt file: %v", size, readOnly, err)
			}
			// Another program cuts the file under the open store.
			if err := os.Truncate(path, size); err != nil {
				t.Fatal(err)
			}
			err = exercise(s)
			closed := make(chan struct{})
			go func() {
				s.Close()
				close(closed)
			}()
			select {
			case <-closed:
			case <-time.After(5 * time.Second):
				t.Fatalf("size %d, readOnly=%v: Close does not return", size, readOnly)
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
				t.Fatalf("size %d, readOnly=%v: %v", size, readOnly, err)
			}
			buildDB(t, path+".again", 600)
			if err := os.Rename(path+".again", path); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestReadOnlyWhileWriterIsOpen(t *testing.T) {
	w, path := openTemp(t)
	defer w.Close()
	ctx := context.Background()
	if _, err := w.Register(ctx, "s", []state.File{{Path: "a"}}, state.RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := OpenReadOnly(path)
	if err != nil {
		t.Fatalf("read-only open while a writer is open: %v", err)
	}
	ids, err := r.Streams(ctx)
	if err != nil || len(ids) != 1 || ids[0] != "s" {
		t.Fatalf("streams %v %v", ids, err)
	}
	if e, err := r.Get(ctx, "s", "a"); err != nil || e.State != state.Pending {
		t.Fatalf("get %+v %v", e, err)
	}
	if _, err := r.Register(ctx, "s", []state.File{{Path: "x"}}, state.RegisterOptions{}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("read-only Register: %v", err)
	}
	// The writer's next transaction waits for the reader to close.
	done := make(chan error, 1)
	go func() {
		_, err := w.Register(ctx, "s", []state.File{{Path: "b"}}, state.RegisterOptions{})
		done <- err
	}()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	r, err = OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Get(ctx, "s", "b"); err != nil {
		t.Fatalf("reader does not see the committed write: %v", err)
	}
}

func TestSecondWriterIsLocked(t *testing.T) {
	s, path := openTemp(t)
	defer s.Close()
	_, err := Open(path, WithLockTimeout(20*time.Millisecond))
	if !errors.Is(err, ErrLocked) || errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) {
		t.Fatalf("second writer: %v", err)
	}
}

func TestReadOnlyCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	_, err := OpenReadOnly(filepath.Join(dir, "state.db"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("read-only open of a missing file: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("read-only open created %v", ents)
	}
}

// FuzzStateFile opens arbitrary bytes as a state file: a working store or
// ErrCorrupt, never a crash or a hang.
func FuzzStateFile(f *testing.F) {
	good := filepath.Join(f.TempDir(), "good.db")
	buildDB(f, good, 40)
	orig, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(orig)
	f.Add(orig[:3*4096])
	f.Add(orig[:len(orig)/2])
	f.Add([]byte{})
	f.Add([]byte("garbage"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "state.db")
		os.Remove(path)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		checkDamaged(t, path)
	})
}
