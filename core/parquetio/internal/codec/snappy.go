// Package codec holds the page codecs the Parquet writer uses besides
// parquet-go's.
package codec

import (
	"github.com/klauspost/compress/s2"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// FastSnappy is the SNAPPY page codec with the fast (default) block
// encoder. parquet-go's Snappy encodes with s2.EncodeSnappyBetter, which
// costs about twice the CPU for a few percent smaller pages; the blocks are
// standard snappy either way and decode with any reader.
type FastSnappy struct{}

// String names the codec as parquet-go does.
func (FastSnappy) String() string { return "SNAPPY" }

// CompressionCodec is the codec's id in the footer.
func (FastSnappy) CompressionCodec() format.CompressionCodec { return format.Snappy }

// Encode compresses src as one raw snappy block, reusing dst's capacity.
func (FastSnappy) Encode(dst, src []byte) ([]byte, error) {
	if n := s2.MaxEncodedLen(len(src)); cap(dst) < n {
		dst = make([]byte, n)
	} else {
		dst = dst[:n]
	}
	return s2.EncodeSnappy(dst, src), nil
}

// Decode decompresses a raw snappy block.
func (FastSnappy) Decode(dst, src []byte) ([]byte, error) {
	return parquet.Snappy.Decode(dst, src)
}
