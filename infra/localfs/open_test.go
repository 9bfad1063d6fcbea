package localfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenFileAsOSOpen checks openFile against os.Open: the same content,
// a file with Stat and ReadAt, and the same errors.
func TestOpenFileAsOSOpen(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.json")
	if err := os.WriteFile(p, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := openFile(p)
	if err != nil {
		t.Fatal(err)
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
	for _, missing := range []string{filepath.Join(dir, "nope"), filepath.Join(p, "under-a-file")} {
		_, got := openFile(missing)
		_, want := os.Open(missing)
		if got == nil || got.Error() != want.Error() || errors.Is(got, fs.ErrNotExist) != errors.Is(want, fs.ErrNotExist) || isMissing(got) != isMissing(want) {
			t.Errorf("openFile(%s) = %v, os.Open: %v", missing, got, want)
		}
	}
}
