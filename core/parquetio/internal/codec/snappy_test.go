package codec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
)

// pageLike is about 1 MiB of column-page-like bytes: short repeated
// strings, numbers and some noise.
func pageLike(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	for b.Len() < 1<<20 {
		fmt.Fprintf(&b, "user-%d\x00%d\x00city-%d\x00", r.IntN(5000), r.Int64(), r.IntN(20))
	}
	return b.Bytes()
}

// TestFastSnappyRoundTrip checks that FastSnappy blocks decode with
// parquet-go's snappy codec and back, on random pages of random sizes.
func TestFastSnappyRoundTrip(t *testing.T) {
	for seed := range uint64(20) {
		page := pageLike(seed)
		page = page[:rand.New(rand.NewPCG(seed, 2)).IntN(len(page))]
		enc, err := FastSnappy{}.Encode(nil, page)
		if err != nil {
			t.Fatal(err)
		}
		dec, err := parquet.Snappy.Decode(nil, enc)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !bytes.Equal(dec, page) {
			t.Fatalf("seed %d: round trip differs", seed)
		}
	}
	if got := (FastSnappy{}).CompressionCodec(); got != parquet.Snappy.CompressionCodec() {
		t.Fatalf("codec id %v, want %v", got, parquet.Snappy.CompressionCodec())
	}
}

// BenchmarkSnappy compares the page encoders: parquet-go's ("better") and
// FastSnappy; the ratio is reported as compressed/raw.
func BenchmarkSnappy(b *testing.B) {
	page := pageLike(1)
	for _, c := range []struct {
		name  string
		codec compress.Codec
	}{{"better", &parquet.Snappy}, {"fast", FastSnappy{}}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			var dst []byte
			var err error
			for i := 0; i < b.N; i++ {
				if dst, err = c.codec.Encode(dst[:0], page); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(dst))/float64(len(page)), "ratio")
		})
	}
}
