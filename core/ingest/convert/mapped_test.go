package convert

import (
	"bytes"
	"io"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// fakeMapper is a fileformat.Mapper over a bytes.Reader (the windows
// are not used).
type fakeMapper struct{ *bytes.Reader }

func (fakeMapper) MapAt(int64, int) ([]byte, error) { return nil, nil }
func (fakeMapper) Unmap()                           {}
func (fakeMapper) Close() error                     { return nil }

// fakeSharedMapper is a fileformat.SharedMapper.
type fakeSharedMapper struct{ fakeMapper }

func (fakeSharedMapper) MapShared(int64, int) ([]byte, func(), error) { return nil, func() {}, nil }

// TestDecompressKeepsMapper: a plain file that can be read in place stays
// a fileformat.Mapper through the source's decompress, and one that maps
// shared windows stays a fileformat.SharedMapper (the parallel JSON
// readers read it in place only then); a compressed one is neither.
func TestDecompressKeepsMapper(t *testing.T) {
	for _, tc := range []struct {
		path          string
		body          io.ReadCloser
		mapper, share bool
	}{
		{"f.json", fakeMapper{bytes.NewReader(nil)}, true, false},
		{"f.json", fakeSharedMapper{fakeMapper{bytes.NewReader(nil)}}, true, true},
		{"f.json", io.NopCloser(bytes.NewReader(nil)), false, false},
		{"f.json.lz4", fakeSharedMapper{fakeMapper{bytes.NewReader(nil)}}, false, false},
	} {
		r, err := Source{}.decompress(tc.path, tc.body)
		if err != nil {
			t.Fatal(err)
		}
		_, m := r.(fileformat.Mapper)
		_, s := r.(fileformat.SharedMapper)
		if m != tc.mapper || s != tc.share {
			t.Errorf("decompress(%s, %T): %T, Mapper %v SharedMapper %v; want %v %v", tc.path, tc.body, r, m, s, tc.mapper, tc.share)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
