//go:build unix

// The listing's tests meet entries only unix file systems have (a FIFO,
// links in loops, names that are not UTF-8).

package localfs_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/infra/localfs"
)

// listed is one listing entry: its key and, for unreadable ones, the start
// of the reason.
type listed struct{ key, why string }

func listAll(t *testing.T, s objstore.Store, opts objstore.ListOptions) []listed {
	t.Helper()
	var out []listed
	for info, err := range s.List(t.Context(), opts) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, listed{info.Key, info.Unreadable})
	}
	return out
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// tree builds, under base, a source directory "src" with every kind of
// entry a listing can meet, and an "outside" directory next to it.
func tree(t *testing.T) (base, src string) {
	t.Helper()
	base = t.TempDir()
	src = filepath.Join(base, "src")
	out := filepath.Join(base, "outside")
	localfs.MkFile(t, filepath.Join(src, "ok.json"), "ok")
	localfs.MkFile(t, filepath.Join(src, "caf\xe9.json"), "latin-1 name")
	localfs.MkFile(t, filepath.Join(src, "bad\xffdir", "x.json"), "in a directory with a latin-1 name")
	localfs.MkFile(t, filepath.Join(out, "o.json"), "outside")
	localfs.MkFile(t, filepath.Join(out, "sub", "deep.json"), "outside, deeper")
	localfs.MkFile(t, filepath.Join(src, "a", "x.json"), "x")
	symlink(t, filepath.Join(out, "o.json"), filepath.Join(src, "out.json"))
	symlink(t, filepath.Join(out, "sub"), filepath.Join(src, "outdir"))
	symlink(t, "x.json", filepath.Join(src, "a", "samedir.json"))
	symlink(t, "gone/missing.json", filepath.Join(src, "dangling.json"))
	symlink(t, "self.json", filepath.Join(src, "self.json"))
	symlink(t, "..", filepath.Join(src, "a", "loop"))
	symlink(t, "../..", filepath.Join(src, "a", "b", "up"))
	if err := syscall.Mkfifo(filepath.Join(src, "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	return base, src
}

func TestListWithinRootReportsWhatItCannotRead(t *testing.T) {
	_, src := tree(t)
	s, err := localfs.New(src)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := listAll(t, s, objstore.ListOptions{Unreadable: true})
	want := []listed{
		{"a/b/up/", "directory loop"},
		{"a/loop/", "directory loop"},
		{"a/samedir.json", ""},
		{"a/x.json", ""},
		{"bad\uFFFDdir/", "the name"},
		{"caf\uFFFD.json", "the name"},
		{"dangling.json", "symbolic link to"},
		{"fifo.json", "not a regular file but a named pipe"},
		{"ok.json", ""},
		{"out.json", "symbolic link to"},
		{"outdir", "symbolic link to"}, // not known to be a directory
		{"self.json", "symbolic link to"},
	}
	check(t, got, want)
	for _, l := range got {
		switch l.key {
		case "out.json", "outdir":
			if !strings.Contains(l.why, "outside the directory") {
				t.Errorf("%s: %q, want it to say the link leaves the root", l.key, l.why)
			}
		case "dangling.json":
			if !strings.Contains(l.why, "does not exist") {
				t.Errorf("%s: %q", l.key, l.why)
			}
		case "self.json":
			if !strings.Contains(l.why, "loop") {
				t.Errorf("%s: %q", l.key, l.why)
			}
		case "a/loop/":
			if !strings.Contains(l.why, "the root directory again") {
				t.Errorf("%s: %q", l.key, l.why)
			}
		}
	}
	// Without Unreadable only the objects, each once.
	if got := keys(t, s, objstore.ListOptions{}); !slices.Equal(got, []string{"a/samedir.json", "a/x.json", "ok.json"}) {
		t.Errorf("List = %q", got)
	}
	// A prefix inside a looping directory starts below it.
	if got := keys(t, s, objstore.ListOptions{Prefix: "a/"}); !slices.Equal(got, []string{"a/samedir.json", "a/x.json"}) {
		t.Errorf("List(a/) = %q", got)
	}
	if got := listAll(t, s, objstore.ListOptions{Prefix: "a/lo", Unreadable: true}); len(got) != 1 || got[0].key != "a/loop/" {
		t.Errorf("List(a/lo) = %q", got)
	}
}

func TestListFollowingLinks(t *testing.T) {
	base, src := tree(t)
	// A link into the stream's own checkpoint is never followed.
	ck := filepath.Join(base, "checkpoint")
	localfs.MkFile(t, filepath.Join(ck, "state.db"), "bolt")
	symlink(t, ck, filepath.Join(src, "ck"))
	symlink(t, filepath.Join(ck, "state.db"), filepath.Join(src, "state.db"))
	// Loops through directories outside the root are found too.
	symlink(t, filepath.Join(src, "a"), filepath.Join(base, "outside", "sub", "back"))
	s, err := localfs.New(src, localfs.WithFollowLinks(), localfs.WithExcluded(ck, "the stream's checkpoint location"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := listAll(t, s, objstore.ListOptions{Unreadable: true})
	want := []listed{
		{"a/b/up/", "directory loop"},
		{"a/loop/", "directory loop"},
		{"a/samedir.json", ""},
		{"a/x.json", ""},
		{"bad\uFFFDdir/", "the name"},
		{"caf\uFFFD.json", "the name"},
		{"ck/", "leads into the stream's checkpoint location"},
		{"dangling.json", "symbolic link to"},
		{"fifo.json", "not a regular file but a named pipe"},
		{"ok.json", ""},
		{"out.json", ""},
		{"outdir/back/b/up/", "directory loop"},
		{"outdir/back/loop/", "directory loop"},
		{"outdir/back/samedir.json", ""},
		{"outdir/back/x.json", ""},
		{"outdir/deep.json", ""},
		{"self.json", "symbolic link to"},
		{"state.db", "leads into the stream's checkpoint location"},
	}
	check(t, got, want)
	// Followed links read as the files they lead to.
	for key, content := range map[string]string{"out.json": "outside", "outdir/deep.json": "outside, deeper", "a/samedir.json": "x"} {
		rc, err := s.Get(t.Context(), key)
		if err != nil {
			t.Fatalf("Get(%s): %v", key, err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != content {
			t.Errorf("Get(%s) = %q, want %q", key, b, content)
		}
		info, err := s.Head(t.Context(), key)
		if err != nil || info.Size != int64(len(content)) {
			t.Errorf("Head(%s) = %+v, %v", key, info, err)
		}
	}
	// Deleting a link removes the link, not what it leads to.
	if err := s.Delete(t.Context(), "out.json"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(src, "out.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("link still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(base, "outside", "o.json")); err != nil {
		t.Errorf("link target removed: %v", err)
	}
}

func check(t *testing.T, got, want []listed) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i].key == want[i].key && strings.HasPrefix(got[i].why, want[i].why) && (want[i].why != "") == (got[i].why != "")
	}
	if !ok {
		var b strings.Builder
		for _, g := range got {
			b.WriteString("\n  " + g.key + "  " + g.why)
		}
		t.Fatalf("List = %s\nwant %q", b.String(), want)
	}
}

func TestExistingRoot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	if _, err := localfs.New(dir, localfs.WithExistingRoot()); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("New(missing) = %v, want a does-not-exist error", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the missing root was created: %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	localfs.MkFile(t, file, "x")
	if _, err := localfs.New(file, localfs.WithExistingRoot()); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("New(file) = %v", err)
	}
}

func TestDeleteKeepsLinkedDirectory(t *testing.T) {
	base := t.TempDir()
	src := filepath.Join(base, "src")
	localfs.MkFile(t, filepath.Join(base, "src", "real", "f.json"), "x")
	symlink(t, "real", filepath.Join(src, "link"))
	s, err := localfs.New(src)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Delete(t.Context(), "link/f.json"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(src, "link")); err != nil {
		t.Fatalf("the link to a directory emptied by Delete was removed: %v", err)
	}
}

// A symbolic link to a directory is known to be one only once followed,
// after the directory's entries were put in order by their names: its
// keys ("a/...") still come after names that sort after its own but
// before "a/" ("a-b.json", "a.json").
func TestListLinkToDirectoryInKeyOrder(t *testing.T) {
	base := t.TempDir()
	src := filepath.Join(base, "src")
	localfs.MkFile(t, filepath.Join(base, "target", "x.json"), "x")
	localfs.MkFile(t, filepath.Join(src, "a-b.json"), "a-b")
	localfs.MkFile(t, filepath.Join(src, "a.json"), "a")
	localfs.MkFile(t, filepath.Join(src, "b.json"), "b")
	symlink(t, filepath.Join(base, "target"), filepath.Join(src, "a"))
	s, err := localfs.New(src, localfs.WithFollowLinks())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := listAll(t, s, objstore.ListOptions{})
	want := []listed{{"a-b.json", ""}, {"a.json", ""}, {"a/x.json", ""}, {"b.json", ""}}
	if !slices.Equal(got, want) {
		t.Fatalf("listed %q, want %q", got, want)
	}
}
