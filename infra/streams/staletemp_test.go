package streams

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tributary-io/tributary/infra/localfs"
)

// TestOpenRemovesStaleTempFiles: temporary files that a killed writer
// left in the table and checkpoint are removed once old enough; a fresh
// one (a live writer's) is kept.
func TestOpenRemovesStaleTempFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "in", "a.json"), `{"x":1}`+"\n", time.Time{})
	old := time.Now().Add(-2 * StaleTempAge)
	stale := []string{
		filepath.Join(dir, "table", "_delta_log", localfs.TempPrefix+"1"),
		filepath.Join(dir, "table", localfs.TempPrefix+"2"),
		filepath.Join(dir, "cp", "offsets", localfs.TempPrefix+"3"),
	}
	for _, p := range stale {
		write(t, p, "partial", old)
	}
	fresh := filepath.Join(dir, "table", localfs.TempPrefix+"live")
	write(t, fresh, "being written", time.Time{})
	s, err := Env{}.Open(ctx, parse(t, dir, "s1", map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, p := range stale {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("stale temporary file %s kept (%v)", p, err)
		}
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a live writer's temporary file was removed: %v", err)
	}
}
