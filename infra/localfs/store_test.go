package localfs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tributary-io/tributary/core/objstore/objstoretest"
	"github.com/tributary-io/tributary/infra/localfs"
)

func newHarness(t *testing.T, opts ...localfs.Option) objstoretest.Harness {
	dir := t.TempDir()
	s, err := localfs.New(dir, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return objstoretest.Harness{
		Store: s,
		MakeFolderMarker: func(t *testing.T, key string) {
			if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(key)), 0o755); err != nil {
				t.Fatal(err)
			}
		},
	}
}

func TestConformance(t *testing.T) {
	objstoretest.RunConformanceTests(t, func(t *testing.T) objstoretest.Harness { return newHarness(t) })
}

// TestConformanceFollowingLinks runs the suite on a store that follows
// symbolic links, whose reads after a listing open files relative to the
// listed root.
func TestConformanceFollowingLinks(t *testing.T) {
	objstoretest.RunConformanceTests(t, func(t *testing.T) objstoretest.Harness {
		return newHarness(t, localfs.WithFollowLinks())
	})
}
