package convert

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
)

// TestOpenSourceFile: an object store without local files has its object
// spilled to a temporary file under TempDir, read at random offsets and
// removed on Close; a missing object is a missing file.
func TestOpenSourceFile(t *testing.T) {
	ctx := context.Background()
	src := memstore.New()
	data := bytes.Repeat([]byte("0123456789"), 10_000)
	if err := src.Put(ctx, "d/x.parquet", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	e := Source{Store: src, TempDir: tmp}
	tests := []struct {
		name    string
		key     string
		wantErr Fault
	}{
		{"spilled", "d/x.parquet", 0},
		{"missing", "d/gone.parquet", FaultMissing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := e.OpenFile(ctx, tt.key)
			if tt.wantErr != 0 {
				var fe *FileError
				if !errors.As(err, &fe) || fe.Fault != tt.wantErr || !strings.Contains(err.Error(), tt.key) {
					t.Fatalf("err %v, want a file error naming %s", err, tt.key)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Size() != int64(len(data)) {
				t.Errorf("Size %d, want %d", f.Size(), len(data))
			}
			buf := make([]byte, 10)
			if _, err := f.ReadAt(buf, int64(len(data))-10); err != nil && !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			if string(buf) != "0123456789" {
				t.Errorf("tail %q", buf)
			}
			if spills, _ := filepath.Glob(filepath.Join(tmp, "tributary-source-*")); len(spills) != 1 {
				t.Errorf("spill files %v, want one under TempDir", spills)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if spills, _ := filepath.Glob(filepath.Join(tmp, "tributary-source-*")); len(spills) != 0 {
				t.Errorf("spill files %v left after Close", spills)
			}
		})
	}
	// A local file is read in place: nothing is spilled.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "y.parquet"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := (Source{Store: localDir{dir: dir}, TempDir: tmp}).OpenFile(ctx, "y.parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, ok := f.r.(*os.File); !ok || f.Size() != int64(len(data)) {
		t.Errorf("local file: reader %T size %d, want the *os.File itself", f.r, f.Size())
	}
}

// localDir is a store whose Get returns *os.File, as infra/localfs does.
type localDir struct {
	objstore.Store // only Get is used
	dir            string
}

func (l localDir) Get(_ context.Context, key string) (io.ReadCloser, error) {
	return os.Open(filepath.Join(l.dir, filepath.FromSlash(key)))
}
