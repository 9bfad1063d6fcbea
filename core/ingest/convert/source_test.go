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

// TestReadWhole: a local file read whole when opened gives its content
// whatever its listed size says (the file may have changed since it was
// listed), and other bodies pass through.
func TestReadWhole(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		data   string
		listed int64
		whole  bool // read whole (one read saw the listed size)
	}{
		{"as listed", "{\"a\":1}\n{\"a\":2}\n", 16, true},
		{"empty", "", 0, true},
		{"grown", "{\"a\":1}\n{\"a\":2}\n", 8, false},
		{"shrunk", "{\"a\":1}\n", 16, false},
		{"unknown size", "{\"a\":1}\n", -1, false},
		{"too large to read whole", strings.Repeat("x", wholeRead+1), wholeRead + 1, false},
		{"largest read whole", strings.Repeat("x", wholeRead), wholeRead, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
			if err := os.WriteFile(p, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			rc := readWhole(f, tt.listed)
			if _, ok := rc.(*wholeFile); ok != tt.whole {
				t.Errorf("read whole %v, want %v (%T)", ok, tt.whole, rc)
			}
			got, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.data {
				t.Errorf("read %d bytes, want %d", len(got), len(tt.data))
			}
			if err := rc.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if tt.whole {
				if _, err := f.Stat(); err == nil {
					t.Errorf("the file is still open after being read whole")
				}
			}
		})
	}
	// A body that is not a local file is returned as it is.
	body := io.NopCloser(strings.NewReader("x"))
	if rc := readWhole(body, 1); rc != body {
		t.Errorf("readWhole wrapped a non-file body: %T", rc)
	}
}

// TestReadWholeError: a read that fails gives the bytes before it and
// then its error, as streaming the file would.
func TestReadWholeError(t *testing.T) {
	d, err := os.Open(t.TempDir()) // reading a directory fails
	if err != nil {
		t.Fatal(err)
	}
	rc := readWhole(d, 10)
	if _, ok := rc.(*wholeFile); ok {
		t.Fatal("a failed read was taken as the whole file")
	}
	if _, err := io.ReadAll(rc); err == nil {
		t.Error("reading a directory read whole gave no error")
	}
	rc.Close()
}

// FuzzReadWhole checks readWhole against reading the file as a stream, for
// any content and any listed size.
func FuzzReadWhole(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n"), int64(8))
	f.Add([]byte(""), int64(0))
	f.Add([]byte("abc"), int64(2))
	f.Add([]byte("abc"), int64(4))
	f.Add([]byte("abc"), int64(-1))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, listed int64) {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		file, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		rc := readWhole(file, listed)
		defer rc.Close()
		// Read in small pieces, as a line reader might at a boundary.
		var got []byte
		buf := make([]byte, 1+len(data)%7)
		for {
			n, err := rc.Read(buf)
			got = append(got, buf[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("listed %d: read %q, want %q", listed, got, data)
		}
		if _, whole := rc.(*wholeFile); whole && listed != int64(len(data)) {
			t.Fatalf("listed %d of a %d-byte file read whole", listed, len(data))
		}
	})
}
