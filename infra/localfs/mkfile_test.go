package localfs

import (
	"os"
	"path/filepath"
	"testing"
)

// MkFile writes content to path, creating its directory (exported for
// the package's external tests too).
func MkFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
