package localfs_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/infra/localfs"
)

// TestCreateLeavesNoTemp commits, aborts and cancels objects written in
// place, with and without sync: the directory holds the committed objects
// only, no temporary file, and no directory an aborted object made.
func TestCreateLeavesNoTemp(t *testing.T) {
	for _, sync := range []bool{true, false} {
		dir := t.TempDir()
		s, err := localfs.New(dir, localfs.WithSync(sync))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		ctx := context.Background()
		write := func(key string, n int) interface {
			Commit(context.Context) error
			Abort()
		} {
			p, err := s.Create(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Write(make([]byte, n)); err != nil {
				t.Fatal(err)
			}
			return p
		}
		if err := write("kept/a", 5<<20).Commit(ctx); err != nil {
			t.Fatal(err)
		}
		write("gone/deep/b", 100).Abort()
		write("kept/c", 10).Abort()
		cancelled, cancel := context.WithCancel(ctx)
		cancel()
		if err := write("gone/d", 10).Commit(cancelled); err == nil {
			t.Fatal("Commit with a cancelled context succeeded")
		}
		var got []string
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			if strings.Contains(rel, localfs.TempPrefix) {
				t.Errorf("sync=%v: temporary file %s left", sync, rel)
			}
			got = append(got, filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// "gone" stays: the cancelled Commit does not prune (as a failed
		// Put does not); the aborted "gone/deep" is pruned.
		want := []string{".", "gone", "kept", "kept/a"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("sync=%v: tree %q, want %q", sync, got, want)
		}
		if fi, err := os.Stat(filepath.Join(dir, "kept", "a")); err != nil || fi.Size() != 5<<20 {
			t.Errorf("sync=%v: kept/a: %v", sync, err)
		}
	}
}
