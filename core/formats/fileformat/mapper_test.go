package fileformat

import (
	"bytes"
	"io"
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
