package fileformat

import (
	"compress/bzip2"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// ErrUnsupportedCompression is wrapped by Decompress for a compression
// extension Tributary recognises but cannot read.
var ErrUnsupportedCompression = errors.New("unsupported compression codec")

// Decompress returns a reader of the decompressed content of the file at p,
// choosing the codec by the file name's last extension (case-insensitive),
// as Spark's Hadoop codecs do: .gz (gzip, multi-member), .bz2 (bzip2), .zst
// (zstandard), .deflate (zlib), .snappy and .lz4 (Hadoop's block framing,
// as Spark writes them, or the codec's own stream format, recognised by its
// magic number). Any other name returns r unchanged (wrapped in a no-op
// closer; a Mapper or SharedMapper stays one). .lzo (not in Hadoop itself) is refused with
// ErrUnsupportedCompression rather than misread. The caller
// closes the result (it releases the codec); closing does not close r.
// Corrupt compressed data surfaces as an error from Read naming the codec.
func Decompress(p string, r io.Reader) (io.ReadCloser, error) {
	ext := strings.ToLower(path.Ext(p))
	switch ext {
	case ".gz":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("gzip %s: %w", p, err)
		}
		return &namedReader{r: zr, closer: zr.Close, what: "gzip " + p}, nil
	case ".bz2":
		return &namedReader{r: bzip2.NewReader(r), what: "bzip2 " + p}, nil
	case ".zst":
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, fmt.Errorf("zstd %s: %w", p, err)
		}
		return &namedReader{r: zr, closer: func() error { zr.Close(); return nil }, what: "zstd " + p}, nil
	case ".deflate":
		zr, err := zlib.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("zlib %s: %w", p, err)
		}
		return &namedReader{r: zr, closer: zr.Close, what: "zlib " + p}, nil
	case ".snappy":
		return &namedReader{r: newBlockCodecReader(r, "snappy"), what: "snappy " + p}, nil
	case ".lz4":
		return &namedReader{r: newBlockCodecReader(r, "lz4"), what: "lz4 " + p}, nil
	case ".lzo":
		return nil, fmt.Errorf("%s: %w: %s", p, ErrUnsupportedCompression, ext)
	}
	if m, ok := r.(SharedMapper); ok {
		return sharedMapperNop{m}, nil // still read in place
	}
	if m, ok := r.(Mapper); ok {
		return mapperNop{m}, nil // still read in place
	}
	return io.NopCloser(r), nil
}

// namedReader wraps a codec reader so its errors name the codec and file.
type namedReader struct {
	r      io.Reader
	closer func() error
	what   string
}

func (n *namedReader) Read(p []byte) (int, error) {
	k, err := n.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("%s: %w", n.what, err)
	}
	return k, err
}

func (n *namedReader) Close() error {
	if n.closer == nil {
		return nil
	}
	return n.closer()
}
