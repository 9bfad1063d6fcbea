//go:build unix

package localfs

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tributary-io/tributary/core/objstore"
)

// readKey reads key of s through Get and through ReadWhole (with its
// size as listed) and fails unless both read the same bytes.
func readKey(t *testing.T, s *Store, key string, size int64) (string, error) {
	t.Helper()
	ctx := context.Background()
	rc, err := s.Get(ctx, key)
	if err != nil {
		buf := make([]byte, max(size+1, 1))
		if _, body, werr := s.ReadWhole(ctx, key, size, buf); werr == nil || body != nil || !errors.Is(werr, objstore.ErrNotFound) != !errors.Is(err, objstore.ErrNotFound) {
			t.Fatalf("Get(%q): %v; ReadWhole: %v, body %v", key, err, werr, body)
		}
		return "", err
	}
	got, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, max(size+1, 1))
	n, body, err := s.ReadWhole(ctx, key, size, buf)
	if err != nil {
		t.Fatal(err)
	}
	whole := string(buf[:n])
	if body != nil {
		rest, err := io.ReadAll(body)
		body.Close()
		if err != nil {
			t.Fatal(err)
		}
		whole += string(rest)
	}
	if whole != string(got) {
		t.Fatalf("%s: ReadWhole read %q, Get %q", key, whole, got)
	}
	return string(got), nil
}

// TestListedRootReadsAfterRecreation: a source directory renamed away and
// created again under its name is read anew from the next listing on, and
// reads during a listing go by path.
func TestListedRootReadsAfterRecreation(t *testing.T) {
	base := t.TempDir()
	src := filepath.Join(base, "src")
	MkFile(t, filepath.Join(src, "a.json"), "old")
	MkFile(t, filepath.Join(src, "sub", "b.json"), "old b")
	s, err := New(src, WithExistingRoot(), WithFollowLinks())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	listOnce(t, s)
	if got, err := readKey(t, s, "a.json", 3); err != nil || got != "old" {
		t.Fatalf("before the rename: %q, %v", got, err)
	}
	if err := os.Rename(src, filepath.Join(base, "src.old")); err != nil {
		t.Fatal(err)
	}
	MkFile(t, filepath.Join(src, "a.json"), "new!")
	MkFile(t, filepath.Join(src, "sub", "b.json"), "new b!")
	MkFile(t, filepath.Join(src, "c.json"), "only new")
	// While a listing is in progress, reads go by path.
	for info, err := range s.List(context.Background(), objstore.ListOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"a.json": "new!", "c.json": "only new", "sub/b.json": "new b!"}[info.Key]
		if got, err := readKey(t, s, info.Key, info.Size); err != nil || got != want {
			t.Errorf("during the listing, %s: %q, %v; want %q", info.Key, got, err, want)
		}
	}
	for key, want := range map[string]string{"a.json": "new!", "sub/b.json": "new b!", "c.json": "only new"} {
		if got, err := readKey(t, s, key, int64(len(want))); err != nil || got != want {
			t.Errorf("after the next listing, %s: %q, %v; want %q", key, got, err, want)
		}
	}
	// Removed for good: the next listing fails, and reads go by path.
	if err := os.RemoveAll(src); err != nil {
		t.Fatal(err)
	}
	for _, err := range s.List(context.Background(), objstore.ListOptions{}) {
		if err == nil {
			t.Fatal("listing a removed root: no error")
		}
	}
	if s.listed.cur.Load() != nil {
		t.Error("a descriptor of a removed root is kept")
	}
	if _, err := readKey(t, s, "a.json", 4); !errors.Is(err, objstore.ErrNotFound) {
		t.Errorf("a file of a removed root: %v, want ErrNotFound", err)
	}
}

// TestListedRootOpens reads, relative to the listed root, a key in a
// subdirectory, links inside the root to files outside it (relative with
// "..", absolute, through a linked directory), and missing keys.
func TestListedRootOpens(t *testing.T) {
	base := t.TempDir()
	src := filepath.Join(base, "src")
	MkFile(t, filepath.Join(src, "d", "e", "deep.json"), "deep")
	MkFile(t, filepath.Join(base, "outside", "o.json"), "outside")
	for link, target := range map[string]string{
		"rel.json":      "../outside/o.json",
		"d/rel.json":    "../../outside/o.json",
		"abs.json":      filepath.Join(base, "outside", "o.json"),
		"linkdir":       "../outside",
		"d/up.json":     "../d/e/deep.json",
		"dangling.json": "nowhere.json",
	} {
		if err := os.Symlink(target, filepath.Join(src, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(src, WithExistingRoot(), WithFollowLinks())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	listOnce(t, s)
	if s.listed.cur.Load() == nil {
		t.Fatal("no descriptor of the root after a listing")
	}
	tests := []struct {
		key, want string
		missing   bool
	}{
		{key: "d/e/deep.json", want: "deep"},
		{key: "rel.json", want: "outside"},
		{key: "d/rel.json", want: "outside"},
		{key: "abs.json", want: "outside"},
		{key: "linkdir/o.json", want: "outside"},
		{key: "d/up.json", want: "deep"},
		{key: "dangling.json", missing: true},
		{key: "nope.json", missing: true},
		{key: "d/nope/x.json", missing: true},
		{key: "d/e/deep.json/x", missing: true},
		{key: "d", missing: true},
	}
	for _, tt := range tests {
		got, err := readKey(t, s, tt.key, int64(len(tt.want)))
		switch {
		case tt.missing && !errors.Is(err, objstore.ErrNotFound):
			t.Errorf("%s: %q, %v; want ErrNotFound", tt.key, got, err)
		case !tt.missing && (err != nil || got != tt.want):
			t.Errorf("%s: %q, %v; want %q", tt.key, got, err, tt.want)
		}
	}
	// An error other than a missing file names the file's full path.
	_, err = s.openSrcFD("d/e/deep.json/x")
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Path != filepath.Join(src, "d", "e", "deep.json", "x") || pe.Op != "open" {
		t.Errorf("opening under a file: %v, want a PathError naming its full path", err)
	}
}

// TestListedRootClosed: Close closes the root's descriptor, and a listing
// after Close takes none.
func TestListedRootClosed(t *testing.T) {
	dir := t.TempDir()
	MkFile(t, filepath.Join(dir, "a"), "a")
	s, err := New(dir, WithFollowLinks())
	if err != nil {
		t.Fatal(err)
	}
	listOnce(t, s)
	h := s.listed.cur.Load()
	if h == nil {
		t.Fatal("no descriptor of the root after a listing")
	}
	listOnce(t, s)
	if h2 := s.listed.cur.Load(); h2 == nil || h2 == h || h.refs.Load() != 0 {
		t.Fatalf("a second listing: descriptor %v (the first's %v, its holds %d)", h2, h, h.refs.Load())
	}
	h = s.listed.cur.Load()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.listed.cur.Load() != nil || h.refs.Load() != 0 {
		t.Fatalf("after Close: descriptor %v, the last one's holds %d", s.listed.cur.Load(), h.refs.Load())
	}
	for range s.List(context.Background(), objstore.ListOptions{}) {
	}
	if s.listed.cur.Load() != nil {
		t.Fatal("a listing after Close took a descriptor")
	}
	// A store that does not follow links never takes one.
	w, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	listOnce(t, w)
	if w.listed.cur.Load() != nil {
		t.Fatal("a store within its root took a descriptor")
	}
}

// TestListedRootConcurrent reads files while listings replace the root's
// descriptor (go test -race): every read sees its file's content.
func TestListedRootConcurrent(t *testing.T) {
	dir := t.TempDir()
	keys := []string{"a", "b/c", "d/e/f"}
	for _, k := range keys {
		MkFile(t, filepath.Join(dir, filepath.FromSlash(k)), k)
	}
	s := sourceStore(t, dir, false)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if w%2 == 0 && i%10 == 0 {
					for _, err := range s.List(context.Background(), objstore.ListOptions{}) {
						if err != nil {
							t.Error(err)
							return
						}
					}
				}
				k := keys[i%len(keys)]
				got, err := readKey(t, s, k, int64(len(k)))
				if err != nil || got != k {
					t.Errorf("%s: %q, %v", k, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if s.listed.active != 0 {
		t.Errorf("%d listings in progress after all ended", s.listed.active)
	}
}
