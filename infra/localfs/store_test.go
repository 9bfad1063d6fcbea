package localfs_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tributary-io/tributary/core/objstore/objstoretest"
	"github.com/tributary-io/tributary/infra/localfs"
)

func newHarness(t *testing.T) objstoretest.Harness {
	dir := t.TempDir()
	s, err := localfs.New(dir)
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
	objstoretest.RunConformanceTests(t, newHarness)
}
