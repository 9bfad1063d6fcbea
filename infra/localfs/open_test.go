//go:build unix

package localfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tributary-io/tributary/core/objstore"
)

// sourceStore opens dir as a source store (following links), closed at
// the test's end, and lists it once when listed.
func sourceStore(t testing.TB, dir string, listed bool) *Store {
	t.Helper()
	s, err := New(dir, WithFollowLinks())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if listed {
		listOnce(t, s)
	}
	return s
}

// listOnce runs a whole listing of s (which takes its root's descriptor
// when the store follows links).
func listOnce(t testing.TB, s *Store) {
	t.Helper()
	for _, err := range s.List(context.Background(), objstore.ListOptions{Unreadable: true}) {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenSrcAsOSOpen checks openSrc against os.Open of the key's full
// path, before a listing (by path) and after one (relative to the listed
// root): the same content, a file with Stat and ReadAt named by its full
// path, and the same errors.
func TestOpenSrcAsOSOpen(t *testing.T) {
	for _, listed := range []bool{false, true} {
		t.Run(map[bool]string{false: "by path", true: "relative to the listed root"}[listed], func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "a.json")
			if err := os.WriteFile(p, []byte(`{"a":1}`), 0o600); err != nil {
				t.Fatal(err)
			}
			s := sourceStore(t, dir, listed)
			if got := s.listed.cur.Load() != nil; got != listed {
				t.Fatalf("a descriptor of the root: %v, want %v", got, listed)
			}
			f, err := s.openSrc("a.json")
			if err != nil {
				t.Fatal(err)
			}
			if f.Name() != p {
				t.Errorf("Name() = %q, want %q", f.Name(), p)
			}
			b, err := io.ReadAll(f)
			if err != nil || string(b) != `{"a":1}` {
				t.Fatalf("read %q, %v", b, err)
			}
			if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() != 7 {
				t.Fatalf("Stat = %v, %v", fi, err)
			}
			buf := make([]byte, 3)
			if n, err := f.ReadAt(buf, 2); err != nil || string(buf[:n]) != `a":` {
				t.Fatalf("ReadAt = %q, %v", buf[:n], err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			for _, missing := range []string{"nope", "a.json/under-a-file"} {
				_, got := s.openSrc(missing)
				_, want := os.Open(filepath.Join(dir, missing))
				if got == nil || got.Error() != want.Error() || errors.Is(got, fs.ErrNotExist) != errors.Is(want, fs.ErrNotExist) || isMissing(got) != isMissing(want) {
					t.Errorf("openSrc(%s) = %v, os.Open: %v", missing, got, want)
				}
			}
		})
	}
}

// FuzzOpenSrcRelative checks the open relative to the listed root against
// os.Open of the key's full path, for any key over a tree of files,
// directories and symbolic links (inside, outside, up with "..",
// dangling, a loop): the same content or the same error.
func FuzzOpenSrcRelative(f *testing.F) {
	for _, k := range []string{"a.json", "d/b.json", "d/up.json", "out.json", "linkdir/o.json", "loop", "dangling", "d", "a.json/x", "nope", "d/../a.json", ""} {
		f.Add(k)
	}
	base := f.TempDir()
	src := filepath.Join(base, "src")
	for p, content := range map[string]string{"src/a.json": "a", "src/d/b.json": "b", "outside/o.json": "o"} {
		MkFile(f, filepath.Join(base, filepath.FromSlash(p)), content)
	}
	for link, target := range map[string]string{"d/up.json": "../a.json", "out.json": "../outside/o.json", "linkdir": "../outside", "loop": "loop", "dangling": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(src, filepath.FromSlash(link))); err != nil {
			f.Fatal(err)
		}
	}
	s := sourceStore(f, src, true)
	f.Fuzz(func(t *testing.T, key string) {
		if checkKey(key) != nil {
			return
		}
		if s.listed.cur.Load() == nil {
			t.Fatal("no descriptor of the listed root")
		}
		got, gerr := s.openSrc(key)
		want, werr := os.Open(filepath.Join(src, filepath.FromSlash(key)))
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Fatalf("%q: openSrc %v, os.Open %v", key, gerr, werr)
		}
		if gerr != nil {
			return
		}
		defer got.Close()
		defer want.Close()
		gb, gerr := io.ReadAll(got)
		wb, werr := io.ReadAll(want)
		if string(gb) != string(wb) || (gerr == nil) != (werr == nil) {
			t.Fatalf("%q: read %q, %v; os.Open's %q, %v", key, gb, gerr, wb, werr)
		}
	})
}

// BenchmarkReadWholeListed reads 1,000 files of 1 KiB of a source store
// through ReadWhole, as the decoders read the small shape: by their full
// paths (a store never listed) and relative to the listed root, on one
// goroutine and on GOMAXPROCS (-cpu 1,2). The root lies seven directories
// deep, as the bench shapes do. ns/op is per file.
func BenchmarkReadWholeListed(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "a", "b", "c", "d", "e", "f", "small")
	const files, size = 1000, 1 << 10
	keys := make([]string, files)
	for i := range keys {
		keys[i] = fmt.Sprintf("part-%05d.json", i)
		MkFile(b, filepath.Join(dir, keys[i]), strings.Repeat("x", size))
	}
	for _, listed := range []bool{false, true} {
		b.Run(map[bool]string{false: "by-path", true: "relative"}[listed], func(b *testing.B) {
			s := sourceStore(b, dir, listed)
			var next atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				buf := make([]byte, size+1)
				for pb.Next() {
					key := keys[int(next.Add(1))%files]
					if n, body, err := s.ReadWhole(context.Background(), key, size, buf); n != size || body != nil || err != nil {
						b.Error(n, body, err)
						return
					}
				}
			})
		})
	}
}
