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

// TestWholeFileMapAt: a file read whole is, for CSV (inPlaceWhole), a
// fileformat.Mapper over its bytes: windows from any offset (fewer at the end, none past it), the
// first MapAt refused once Read has read, Read going on where Seek puts
// it, and nothing left after Close.
func TestWholeFileMapAt(t *testing.T) {
	data := []byte("0123456789")
	tests := []struct {
		name    string
		readN   int // bytes read with Read first
		off     int64
		n       int
		want    string
		refused bool
	}{
		{name: "whole", off: 0, n: 1 << 20, want: "0123456789"},
		{name: "a window", off: 2, n: 3, want: "234"},
		{name: "the end", off: 8, n: 5, want: "89"},
		{name: "past the end", off: 12, n: 5, want: ""},
		{name: "empty window", off: 3, n: 0, want: ""},
		{name: "after a read", readN: 1, off: 0, n: 4, refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := new([]byte)
			*buf = append([]byte(nil), data...)
			w := newWholeFile(buf, *buf, nil)
			var m fileformat.Mapper = inPlaceWhole{w}
			if tt.readN > 0 {
				if _, err := io.ReadFull(w, make([]byte, tt.readN)); err != nil {
					t.Fatal(err)
				}
			}
			b, err := m.MapAt(tt.off, tt.n)
			if tt.refused {
				if !errors.Is(err, errReadAlready) {
					t.Fatalf("MapAt after a read: %q, %v", b, err)
				}
				return
			}
			if err != nil || string(b) != tt.want {
				t.Fatalf("MapAt(%d, %d) = %q, %v; want %q", tt.off, tt.n, b, err, tt.want)
			}
			m.Unmap()
			if _, err := m.Seek(5, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			rest, err := io.ReadAll(m)
			if err != nil || string(rest) != "56789" {
				t.Fatalf("Read after Seek(5) = %q, %v", rest, err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if b, err := m.MapAt(0, 4); len(b) != 0 || err != nil {
				t.Fatalf("MapAt after Close = %q, %v", b, err)
			}
		})
	}
}

// FuzzWholeFileWindows: reading a file read whole by successive MapAt
// windows of any size gives its bytes.
func FuzzWholeFileWindows(f *testing.F) {
	f.Add([]byte("a,b\n1,2\n"), 3)
	f.Add([]byte(""), 1)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		n = 1 + (n&0x7fffffff)%(len(data)+2)
		buf := new([]byte)
		*buf = append([]byte(nil), data...)
		w := inPlaceWhole{newWholeFile(buf, *buf, nil)}
		var got []byte
		for off := int64(0); ; off += int64(n) {
			b, err := w.MapAt(off, n)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, b...)
			if len(b) < n {
				break
			}
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("windows of %d gave %q, want %q", n, got, data)
		}
	})
}
