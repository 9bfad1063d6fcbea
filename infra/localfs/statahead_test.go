package localfs_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/infra/localfs"
)

// TestListManyFilesAnyProcs: a directory of more entries than a stat
// block (files, subdirectories, a symbolic link, a fifo) lists the same
// keys, sizes and times at GOMAXPROCS 1 (each entry stated when reached)
// and 4 (a block stated ahead on several goroutines), with and without
// StartAfter and Prefix, and when the listing stops early; and each entry
// listed is what Head gives for its key.
func TestListManyFilesAnyProcs(t *testing.T) {
	src := t.TempDir()
	for i := range 1100 {
		name := fmt.Sprintf("part-%05d.json", i)
		if i%97 == 5 {
			name = fmt.Sprintf("part-%05d/x.json", i) // a subdirectory
			if err := os.MkdirAll(filepath.Join(src, filepath.Dir(name)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(src, name), make([]byte, i%13), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("part-00001.json", filepath.Join(src, "part-00002.link")); err != nil {
		t.Fatal(err)
	}
	s, err := localfs.New(src)
	if err != nil {
		t.Fatal(err)
	}
	list := func(o objstore.ListOptions, limit int) []string {
		var out []string
		for info, err := range s.List(t.Context(), o) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %d %d %q", info.Key, info.Size, info.ModTime.UnixNano(), info.Unreadable))
			if len(out) == limit {
				break
			}
		}
		return out
	}
	for _, c := range []struct {
		name  string
		opts  objstore.ListOptions
		limit int
	}{
		{"all", objstore.ListOptions{}, 0},
		{"unreadable", objstore.ListOptions{Unreadable: true}, 0},
		{"startAfter", objstore.ListOptions{StartAfter: "part-00500.json"}, 0},
		{"prefix", objstore.ListOptions{Prefix: "part-003"}, 0},
		{"stopEarly", objstore.ListOptions{}, 300},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			serial := list(c.opts, c.limit)
			runtime.GOMAXPROCS(4)
			ahead := list(c.opts, c.limit)
			if !slices.Equal(serial, ahead) {
				t.Fatalf("GOMAXPROCS 4 listed %d entries, 1 listed %d (or others)", len(ahead), len(serial))
			}
			if len(serial) < 100 && c.name != "prefix" {
				t.Fatalf("listed %d entries", len(serial))
			}
		})
	}
	// The entries stated relative to their directory (an os.Root on it)
	// are what Head says of each key: size, time and ETag (its inode),
	// within the root and following links.
	follows, err := localfs.New(src, localfs.WithFollowLinks())
	if err != nil {
		t.Fatal(err)
	}
	defer follows.Close()
	for _, st := range []*localfs.Store{s, follows} {
		n := 0
		for info, err := range st.List(t.Context(), objstore.ListOptions{}) {
			if err != nil {
				t.Fatal(err)
			}
			head, err := st.Head(t.Context(), info.Key)
			if err != nil {
				t.Fatal(err)
			}
			if head != info {
				t.Fatalf("listed %+v, Head %+v", info, head)
			}
			n++
		}
		if n < 1000 {
			t.Fatalf("listed %d files", n)
		}
	}
}
