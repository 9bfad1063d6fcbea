package fileformat

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"testing"
)

// fakeMapper is a Mapper over a bytes.Reader (the windows are not used).
type fakeMapper struct{ *bytes.Reader }

func (fakeMapper) MapAt(int64, int) ([]byte, error) { return nil, nil }
func (fakeMapper) Unmap()                           {}

// fakeSharedMapper is a SharedMapper.
type fakeSharedMapper struct{ fakeMapper }

func (fakeSharedMapper) MapShared(int64, int) ([]byte, func(), error) { return nil, func() {}, nil }

// TestDecompressKeepsMapper: a plain file's reader stays a Mapper, and a
// SharedMapper stays one, through Decompress; a compressed one is neither.
func TestDecompressKeepsMapper(t *testing.T) {
	for _, tc := range []struct {
		name          string
		r             io.Reader
		mapper, share bool
	}{
		{"f.json", fakeMapper{bytes.NewReader(nil)}, true, false},
		{"f.json", fakeSharedMapper{fakeMapper{bytes.NewReader(nil)}}, true, true},
		{"f.json", bytes.NewReader(nil), false, false},
		{"f.json.lz4", fakeSharedMapper{fakeMapper{bytes.NewReader(nil)}}, false, false},
	} {
		rc, err := Decompress(tc.name, tc.r)
		if err != nil {
			t.Fatal(err)
		}
		_, m := rc.(Mapper)
		_, s := rc.(SharedMapper)
		if m != tc.mapper || s != tc.share {
			t.Errorf("Decompress(%s, %T): %T, Mapper %v SharedMapper %v; want %v %v", tc.name, tc.r, rc, m, s, tc.mapper, tc.share)
		}
		if err := rc.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSharedWindow: a window is unmapped once, by the release of its last
// hold, whatever the order of the releases.
func TestSharedWindow(t *testing.T) {
	for _, blocks := range []int{0, 1, 5} {
		unmapped := 0
		w := NewSharedWindow(func() { unmapped++ })
		for range blocks {
			w.Hold()
		}
		w.Release() // the reader moves past the window
		for i := range blocks {
			if unmapped != 0 {
				t.Fatalf("%d blocks: unmapped with %d of them still held", blocks, blocks-i)
			}
			w.Release()
		}
		if unmapped != 1 {
			t.Fatalf("%d blocks: unmapped %d times, want once", blocks, unmapped)
		}
	}
}

// TestBytesMapper: windows from any offset (fewer at the end, none past
// it), the first MapAt refused once Read has read but not one after a
// window was mapped, Read going on where Seek puts it, and Reset starting
// over.
func TestBytesMapper(t *testing.T) {
	data := []byte("0123456789")
	tests := []struct {
		name    string
		readN   int  // bytes read with Read first
		mapped  bool // a window mapped before the read
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
		{name: "negative offset and size", off: -3, n: -1, want: ""},
		{name: "largest offset", off: 1<<63 - 1, n: 1 << 30, want: ""},
		{name: "after a read", readN: 1, off: 0, n: 4, refused: true},
		{name: "read after a window", mapped: true, readN: 3, off: 1, n: 4, want: "1234"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewBytesMapper(slices.Clone(data))
			if tt.mapped {
				if _, err := m.MapAt(0, 1); err != nil {
					t.Fatal(err)
				}
			}
			if tt.readN > 0 {
				if _, err := io.ReadFull(m, make([]byte, tt.readN)); err != nil {
					t.Fatal(err)
				}
			}
			b, err := m.MapAt(tt.off, tt.n)
			if tt.refused {
				if !errors.Is(err, ErrReadAlready) {
					t.Fatalf("MapAt after a read: %q, %v", b, err)
				}
				if _, err := m.MapAt(tt.off, tt.n); !errors.Is(err, ErrReadAlready) {
					t.Fatalf("MapAt refused, then: %v", err)
				}
				return
			}
			if err != nil || string(b) != tt.want || cap(b) != len(b) {
				t.Fatalf("MapAt(%d, %d) = %q (cap %d), %v; want %q", tt.off, tt.n, b, cap(b), err, tt.want)
			}
			m.Unmap()
			if _, err := m.Seek(5, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			rest, err := io.ReadAll(m)
			if err != nil || string(rest) != "56789" {
				t.Fatalf("Read after Seek(5) = %q, %v", rest, err)
			}
			m.Reset([]byte("ab"))
			if b, err := m.MapAt(0, 4); string(b) != "ab" || err != nil {
				t.Fatalf("MapAt after Reset = %q, %v", b, err)
			}
			m.Reset(nil)
			if b, err := m.MapAt(0, 4); len(b) != 0 || err != nil {
				t.Fatalf("MapAt after Reset(nil) = %q, %v", b, err)
			}
		})
	}
}

// FuzzBytesMapper checks a BytesMapper through any sequence of Read,
// Seek, MapAt and Reset against a bytes.Reader of the same bytes and
// slices of them, with the contract's refusal of a first MapAt after a
// read.
func FuzzBytesMapper(f *testing.F) {
	f.Add([]byte("a,b\n1,2\n"), []byte{2, 3, 0, 1, 2, 9})
	f.Add([]byte(""), []byte{2, 0})
	f.Add([]byte("0123456789"), []byte{0, 2, 2, 4, 1, 0, 2, 1, 3, 0, 2, 7})
	f.Fuzz(func(t *testing.T, data, ops []byte) {
		m := NewBytesMapper(data)
		ref := bytes.NewReader(data)
		text, mapped := data, false
		for i := 0; i+1 < len(ops); i += 2 {
			k := int(ops[i+1])
			switch ops[i] % 4 {
			case 0: // Read
				got, want := make([]byte, k), make([]byte, k)
				n, err := m.Read(got)
				rn, rerr := ref.Read(want)
				if n != rn || !bytes.Equal(got[:n], want[:rn]) || !errors.Is(err, rerr) {
					t.Fatalf("op %d: Read(%d) = %q, %v; want %q, %v", i, k, got[:n], err, want[:rn], rerr)
				}
			case 1: // Seek
				off := int64(k % (len(text) + 2))
				if _, err := m.Seek(off, io.SeekStart); err != nil {
					t.Fatal(err)
				}
				if _, err := ref.Seek(off, io.SeekStart); err != nil {
					t.Fatal(err)
				}
			case 2: // MapAt
				off, n := int64(k%(len(text)+3)), int(ops[i]/4)
				b, err := m.MapAt(off, n)
				if !mapped && ref.Len() != len(text) {
					if !errors.Is(err, ErrReadAlready) {
						t.Fatalf("op %d: first MapAt after a read = %q, %v", i, b, err)
					}
					continue
				}
				mapped = true
				lo := min(int(off), len(text))
				want := text[lo:min(lo+n, len(text))]
				if err != nil || !bytes.Equal(b, want) || cap(b) != len(b) {
					t.Fatalf("op %d: MapAt(%d, %d) = %q, %v; want %q", i, off, n, b, err, want)
				}
				m.Unmap()
			case 3: // Reset to a tail of the bytes
				text, mapped = data[min(k, len(data)):], false
				m.Reset(text)
				ref.Reset(text)
			}
		}
		rest, err := io.ReadAll(m)
		want, _ := io.ReadAll(ref)
		if err != nil || !bytes.Equal(rest, want) {
			t.Fatalf("rest %q, %v; want %q", rest, err, want)
		}
	})
}

// Window asks for the rest of a source of known length, and a byte more,
// when it fits in the window and a quarter; otherwise the window.
func TestWindow(t *testing.T) {
	for _, tc := range []struct {
		size, off int64
		n, want   int
	}{
		{-1, 0, 100, 100},      // length unknown
		{1000, 0, 100, 100},    // far from the end
		{125, 0, 100, 126},     // the rest fits with a quarter more
		{126, 0, 100, 100},     // just too long
		{90, 0, 100, 91},       // shorter than a window
		{1125, 1000, 100, 126}, // the last window
		{1000, 1000, 100, 1},   // at the end
		{1000, 1200, 100, 100}, // past it
	} {
		if got := Window(tc.size, tc.off, tc.n); got != tc.want {
			t.Errorf("Window(%d, %d, %d) = %d, want %d", tc.size, tc.off, tc.n, got, tc.want)
		}
	}
}

// The wrappers a source read in place goes through keep its length
// (Sized), and a source that has none gives -1.
func TestSizeOfWrapped(t *testing.T) {
	data := []byte("{\"a\":1}\n")
	sized := NewBytesMapper(data)
	plain, err := Decompress("x.json", sized)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]any{
		"BytesMapper": sized,
		"CountBytes":  CountBytes(sized),
		"Decompress":  plain,
		"both":        CountBytes(plain),
	} {
		if n := SizeOf(r); n != int64(len(data)) {
			t.Errorf("%s: SizeOf %d, want %d", name, n, len(data))
		}
	}
	if n := SizeOf(CountBytes(struct{ Mapper }{sized})); n != -1 {
		t.Errorf("a Mapper without Size: SizeOf %d, want -1", n)
	}
}
