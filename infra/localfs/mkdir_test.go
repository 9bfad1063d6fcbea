package localfs

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNewDirectoriesSynced checks that a put into directories that do not
// exist yet syncs the directory holding each new one, top down, before the
// put's own directory is synced for its rename or link; that existing
// directories are not synced again; and that nothing is synced without
// WithSync.
func TestNewDirectoriesSynced(t *testing.T) {
	ctx := context.Background()
	type put struct {
		key      string
		ifAbsent bool
		want     []string
	}
	tests := []struct {
		name string
		sync bool
		puts []put
	}{
		{"nested new directories", true, []put{
			{key: "a/b/c/x.json", want: []string{".", "a", "a/b", "a/b/c"}},
			{key: "a/b/c/y.json", want: []string{"a/b/c"}},
			{key: "a/d/z.json", ifAbsent: true, want: []string{"a", "a/d"}},
			{key: "top.json", want: []string{"."}},
		}},
		{"a log directory", true, []put{
			{key: "t/_delta_log/00000000000000000000.json", ifAbsent: true, want: []string{".", "t", "t/_delta_log"}},
			{key: "t/_delta_log/00000000000000000001.json", ifAbsent: true, want: []string{"t/_delta_log"}},
		}},
		{"without sync", false, []put{
			{key: "a/b/x.json", want: nil},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(t.TempDir(), WithSync(tc.sync))
			if err != nil {
				t.Fatal(err)
			}
			var synced []string
			s.dirSynced = func(dir string) { synced = append(synced, dir) }
			for _, p := range tc.puts {
				synced = nil
				put := s.Put
				if p.ifAbsent {
					put = s.PutIfAbsent
				}
				if err := put(ctx, p.key, strings.NewReader("{}\n")); err != nil {
					t.Fatalf("put %s: %v", p.key, err)
				}
				if !slices.Equal(synced, p.want) {
					t.Errorf("put %s synced %q, want %q", p.key, synced, p.want)
				}
			}
		})
	}
}

// TestNewCreatesNestedRoot checks that New creates a root whose parents
// do not exist yet, with and without sync, and that puts then work in it.
func TestNewCreatesNestedRoot(t *testing.T) {
	for _, sync := range []bool{true, false} {
		dir := filepath.Join(t.TempDir(), "x", "y", "root")
		s, err := New(dir, WithSync(sync))
		if err != nil {
			t.Fatalf("sync %v: %v", sync, err)
		}
		if err := s.Put(context.Background(), "k.json", strings.NewReader("{}\n")); err != nil {
			t.Fatalf("sync %v: %v", sync, err)
		}
		if fi, err := os.Stat(filepath.Join(dir, "k.json")); err != nil || fi.Size() != 3 {
			t.Fatalf("sync %v: stat %v, %v", sync, fi, err)
		}
	}
}
