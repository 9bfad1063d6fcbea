package parquetio

import (
	"github.com/klauspost/compress/s2"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/format"
)

// fastSnappy is the SNAPPY page codec with the fast (default) block
// encoder. parquet-go's Snappy encodes with s2.EncodeSnappyBetter, which
// costs about twice the CPU for a few percent smaller pages; the blocks are
// standard snappy either way and decode with any reader.
type fastSnappy struct{}

// String names the codec as parquet-go does.
func (fastSnappy) String() string { return "SNAPPY" }

// CompressionCodec is the codec's id in the footer.
func (fastSnappy) CompressionCodec() format.CompressionCodec { return format.Snappy }

// Encode compresses src as one raw snappy block, reusing dst's capacity.
func (fastSnappy) Encode(dst, src []byte) ([]byte, error) {
	if n := s2.MaxEncodedLen(len(src)); cap(dst) < n {
		dst = make([]byte, n)
	} else {
		dst = dst[:n]
	}
	return s2.EncodeSnappy(dst, src), nil
}

// Decode decompresses a raw snappy block.
func (fastSnappy) Decode(dst, src []byte) ([]byte, error) {
	return parquet.Snappy.Decode(dst, src)
}

// FastSnappy returns the SNAPPY codec with the fast block encoder, for
// other Parquet writers (Delta checkpoints) to share.
func FastSnappy() compress.Codec { return fastSnappy{} }
