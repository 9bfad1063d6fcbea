package wholeread

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// TestFromFile: a local file read whole when opened gives its content
// whatever its listed size says (the file may have changed since it was
// listed), and other bodies pass through.
func TestFromFile(t *testing.T) {
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
		{"too large to read whole", strings.Repeat("x", MaxSize+1), MaxSize + 1, false},
		{"largest read whole", strings.Repeat("x", MaxSize), MaxSize, true},
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
			rc := FromFile(f, tt.listed)
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
	if rc := FromFile(body, 1); rc != body {
		t.Errorf("readWhole wrapped a non-file body: %T", rc)
	}
}

// TestFromFileError: a read that fails gives the bytes before it and
// then its error, as streaming the file would.
func TestFromFileError(t *testing.T) {
	d, err := os.Open(t.TempDir()) // reading a directory fails
	if err != nil {
		t.Fatal(err)
	}
	rc := FromFile(d, 10)
	if _, ok := rc.(*wholeFile); ok {
		t.Fatal("a failed read was taken as the whole file")
	}
	if _, err := io.ReadAll(rc); err == nil {
		t.Error("reading a directory read whole gave no error")
	}
	rc.Close()
}

// FuzzFromFile checks readWhole against reading the file as a stream, for
// any content and any listed size.
func FuzzFromFile(f *testing.F) {
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
		rc := FromFile(file, listed)
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

// TestWholeFileMapAt: a file read whole is a plain reader, and for CSV
// (InPlace) a fileformat.Mapper over its buffer (fileformat.BytesMapper,
// whose windows are tested in fileformat) with the plain reader's read
// position: the first MapAt is refused once Read has read, Read goes on
// where Seek puts it, and nothing is left after Close.
func TestWholeFileMapAt(t *testing.T) {
	for _, readFirst := range []int{0, 1} { // bytes read with the plain reader's Read first
		buf := new([]byte)
		*buf = []byte("0123456789")
		w := newWholeFile(buf, *buf, nil)
		if _, ok := io.Reader(w).(fileformat.Mapper); ok {
			t.Fatal("a file read whole is a Mapper before InPlace")
		}
		m, ok := InPlace(w).(fileformat.Mapper)
		if !ok {
			t.Fatal("InPlace of a file read whole is not a Mapper")
		}
		if _, err := io.ReadFull(w, make([]byte, readFirst)); err != nil {
			t.Fatal(err)
		}
		b, err := m.MapAt(2, 3)
		if readFirst > 0 {
			if !errors.Is(err, fileformat.ErrReadAlready) {
				t.Fatalf("MapAt after a read: %q, %v", b, err)
			}
			continue
		}
		if err != nil || string(b) != "234" || &b[0] != &(*buf)[2] {
			t.Fatalf("MapAt(2, 3) = %q, %v; want 234 in the buffer", b, err)
		}
		m.Unmap()
		if _, err := m.Seek(5, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		if rest, err := io.ReadAll(w); err != nil || string(rest) != "56789" {
			t.Fatalf("Read after Seek(5) = %q, %v", rest, err)
		}
		if err := m.(io.Closer).Close(); err != nil {
			t.Fatal(err)
		}
		if b, err := m.MapAt(0, 4); len(b) != 0 || err != nil {
			t.Fatalf("MapAt after Close = %q, %v", b, err)
		}
		if n, err := w.Read(make([]byte, 4)); n != 0 || err != io.EOF {
			t.Fatalf("Read after Close = %d, %v", n, err)
		}
	}
}
