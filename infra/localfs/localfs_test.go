package localfs_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/infra/localfs"
)

func open(t *testing.T, opts ...localfs.Option) (*localfs.Store, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := localfs.New(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

func keys(t *testing.T, s objstore.Store, opts objstore.ListOptions) []string {
	t.Helper()
	out := []string{}
	for info, err := range s.List(t.Context(), opts) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, info.Key)
	}
	return out
}

func TestAdapterSpecificInvalidKeys(t *testing.T) {
	s, _ := open(t)
	for _, key := range []string{
		"nul\x00byte",
		localfs.TempPrefix + "x",
		"dir/" + localfs.TempPrefix + "abc/file",
	} {
		if err := s.Put(t.Context(), key, strings.NewReader("x")); !errors.Is(err, objstore.ErrInvalidKey) {
			t.Errorf("Put(%q) = %v, want ErrInvalidKey", key, err)
		}
		if _, err := s.Head(t.Context(), key); !errors.Is(err, objstore.ErrInvalidKey) {
			t.Errorf("Head(%q) = %v, want ErrInvalidKey", key, err)
		}
	}
}

func TestHiddenAndForeignEntries(t *testing.T) {
	s, dir := open(t)
	if err := s.Put(t.Context(), "d/real", strings.NewReader("r")); err != nil {
		t.Fatal(err)
	}
	write := func(rel, content string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("d/"+localfs.TempPrefix+"leftover", "partial")
	write(localfs.TempPrefix+"top", "partial")
	write("bad\xffname", "not utf-8")
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "d", "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "d", "inside")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere", filepath.Join(dir, "d", "dangling")); err != nil {
		t.Fatal(err)
	}
	want := []string{"d/inside", "d/real"}
	if got := keys(t, s, objstore.ListOptions{}); !slices.Equal(got, want) {
		t.Fatalf("List = %q, want %q", got, want)
	}
	if _, err := s.Get(t.Context(), "d/escape"); err == nil {
		t.Fatal("Get through a symlink leaving the root succeeded")
	}

	// A directory outside the store, reached through a symbolic link, holds
	// an old temporary file: the walk must not go there.
	outside := t.TempDir()
	outsideTemp := filepath.Join(outside, localfs.TempPrefix+"not-ours")
	if err := os.WriteFile(outsideTemp, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	longAgo := time.Now().Add(-48 * time.Hour)
	if err := os.Chtimes(outsideTemp, longAgo, longAgo); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "d", "outdir")); err != nil {
		t.Fatal(err)
	}

	// Stale temporary files are removed only once old enough.
	if n, err := s.RemoveStaleTemp(t.Context(), time.Hour); err != nil || n != 0 {
		t.Fatalf("RemoveStaleTemp(1h) = %d, %v; want 0 removed", n, err)
	}
	old := time.Now().Add(-2 * time.Hour)
	for _, rel := range []string{"d/" + localfs.TempPrefix + "leftover", localfs.TempPrefix + "top"} {
		if err := os.Chtimes(filepath.Join(dir, rel), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.RemoveStaleTemp(t.Context(), time.Hour); err != nil || n != 2 {
		t.Fatalf("RemoveStaleTemp(1h) = %d, %v; want 2 removed", n, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "d", localfs.TempPrefix+"leftover")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale temp file still there: %v", err)
	}
	if _, err := os.Stat(outsideTemp); err != nil {
		t.Fatalf("a temporary file outside the store, behind a symbolic link, was touched: %v", err)
	}
}

func TestFileDirectoryCollisions(t *testing.T) {
	tests := []struct {
		name     string
		existing string
		key      string
		ifAbsent bool
	}{
		{"put under a file", "a", "a/b", false},
		{"put-if-absent under a file", "a", "a/b", true},
		{"put over a directory", "a/b", "a", false},
		{"put-if-absent over a directory", "a/b", "a", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := open(t)
			ctx := t.Context()
			if err := s.Put(ctx, tc.existing, strings.NewReader("e")); err != nil {
				t.Fatal(err)
			}
			put := s.Put
			if tc.ifAbsent {
				put = s.PutIfAbsent
			}
			err := put(ctx, tc.key, strings.NewReader("n"))
			if err == nil || errors.Is(err, objstore.ErrExists) || !strings.Contains(err.Error(), tc.key) {
				t.Fatalf("Put(%q) with %q present = %v, want a non-ErrExists error naming the key", tc.key, tc.existing, err)
			}
			if got := keys(t, s, objstore.ListOptions{}); !slices.Equal(got, []string{tc.existing}) {
				t.Fatalf("List = %q, want only %q", got, tc.existing)
			}
		})
	}
}

func TestDeletePrunesEmptyDirectories(t *testing.T) {
	s, dir := open(t)
	ctx := t.Context()
	for _, k := range []string{"x/y/z/1", "x/keep"} {
		if err := s.Put(ctx, k, strings.NewReader("v")); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(ctx, "x/y/z/1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x", "y")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("x/y still exists after its last object was deleted: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x", "keep")); err != nil {
		t.Fatalf("x/keep: %v", err)
	}
}

func TestWithoutSync(t *testing.T) {
	s, dir := open(t, localfs.WithSync(false))
	if err := s.Put(t.Context(), "k", strings.NewReader("v")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "k")); err != nil || string(b) != "v" {
		t.Fatalf("file = %q, %v", b, err)
	}
}

func BenchmarkPut(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20, 16 << 20} {
		for _, sync := range []bool{true, false} {
			name := "size=" + byteSize(size) + "/sync=" + map[bool]string{true: "on", false: "off"}[sync]
			b.Run(name, func(b *testing.B) {
				s, err := localfs.New(b.TempDir(), localfs.WithSync(sync))
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				data := bytes.Repeat([]byte{'x'}, size)
				b.SetBytes(int64(size))
				for b.Loop() {
					if err := s.Put(b.Context(), "bench/object", bytes.NewReader(data)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkGet(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20, 16 << 20} {
		b.Run("size="+byteSize(size), func(b *testing.B) {
			s, err := localfs.New(b.TempDir(), localfs.WithSync(false))
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if err := s.Put(b.Context(), "bench/object", bytes.NewReader(bytes.Repeat([]byte{'x'}, size))); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				rc, err := s.Get(b.Context(), "bench/object")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, rc); err != nil {
					b.Fatal(err)
				}
				rc.Close()
			}
		})
	}
}

func BenchmarkList(b *testing.B) {
	s, err := localfs.New(b.TempDir(), localfs.WithSync(false))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := range 1000 {
		key := fmt.Sprintf("t/part=%d/f%04d", i%10, i)
		if err := s.Put(b.Context(), key, strings.NewReader("v")); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		n := 0
		for _, err := range s.List(b.Context(), objstore.ListOptions{Prefix: "t/"}) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 1000 {
			b.Fatalf("listed %d objects, want 1000", n)
		}
	}
}

// BenchmarkListFlat lists one directory of 9,000 small files, the
// benchmark's small shape, as the CLI's source store does (following
// links): the directory read and the entries' order before the first one
// is yielded, their stats (on GOMAXPROCS goroutines) while they are.
func BenchmarkListFlat(b *testing.B) {
	dir := b.TempDir()
	for i := range 9000 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%05d.json", i)), []byte("{}\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	s, err := localfs.New(dir, localfs.WithExistingRoot(), localfs.WithFollowLinks())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for b.Loop() {
		n := 0
		for _, err := range s.List(b.Context(), objstore.ListOptions{}) {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 9000 {
			b.Fatalf("listed %d objects, want 9000", n)
		}
	}
}

func byteSize(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dKiB", n>>10)
}

// BenchmarkRemoveStaleTemp is the look for stale temporary files every
// stream's Open makes in its table and checkpoint: a table of 10,000 data
// files in 10 partitions, none of them temporary.
func BenchmarkRemoveStaleTemp(b *testing.B) {
	dir := b.TempDir()
	for i := range 10000 {
		p := filepath.Join(dir, fmt.Sprintf("part=%d", i%10), fmt.Sprintf("part-%05d.parquet", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("v"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	s, err := localfs.New(dir, localfs.WithExistingRoot())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for b.Loop() {
		if n, err := s.RemoveStaleTemp(b.Context(), time.Hour); err != nil || n != 0 {
			b.Fatalf("RemoveStaleTemp = %d, %v", n, err)
		}
	}
}
