package pagew

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/rle"
)

// checkIndexes compares encodeIndexes with parquet-go's
// DictionaryEncoding.EncodeInt32 on idx, starting from dst.
func checkIndexes(t *testing.T, dst []byte, idx []int32) {
	t.Helper()
	var or int32
	for _, x := range idx {
		or |= x
	}
	want, werr := (&rle.DictionaryEncoding{}).EncodeInt32(nil, idx)
	got, gerr := encodeIndexes(dst, idx, or)
	if (werr != nil) != (gerr != nil) || !bytes.Equal(got, want) {
		t.Fatalf("encodeIndexes(%d indexes, or %#x) = %x (%v), want %x (%v)", len(idx), or, got, gerr, want, werr)
	}
}

// TestEncodeIndexes checks encodeIndexes against parquet-go on random
// pages of indexes (runs and bit-packed groups, widths 0 to 20), into
// empty, small and large reused buffers.
func TestEncodeIndexes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for round := range 300 {
		width := r.IntN(21)
		idx := make([]int32, r.IntN(3000))
		for i := range idx {
			if i > 0 && r.IntN(3) == 0 {
				idx[i] = idx[i-1] // runs
			} else if width > 0 {
				idx[i] = r.Int32N(1 << width)
			}
		}
		dst := [][]byte{nil, make([]byte, 3), make([]byte, 1<<16)}[round%3]
		checkIndexes(t, dst, idx)
	}
}

// FuzzEncodeIndexes reads indexes (below 2^24) from the input and checks
// encodeIndexes against parquet-go.
func FuzzEncodeIndexes(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 2})
	f.Fuzz(func(t *testing.T, in []byte) {
		idx := make([]int32, len(in)/4)
		for i := range idx {
			idx[i] = int32(binary.LittleEndian.Uint32(in[4*i:]) & (1<<24 - 1))
		}
		checkIndexes(t, nil, idx)
	})
}

// BenchmarkEncodeIndexes encodes a page of 64k random indexes into a
// dictionary of 200 entries: with encodeIndexes and with parquet-go's
// DictionaryEncoding.EncodeInt32 (which first finds the bit width).
func BenchmarkEncodeIndexes(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	idx := make([]int32, 1<<16)
	var or int32
	for i := range idx {
		idx[i] = r.Int32N(200)
		or |= idx[i]
	}
	var dst []byte
	b.Run("pagew", func(b *testing.B) {
		for range b.N {
			dst, _ = encodeIndexes(dst, idx, or)
		}
	})
	b.Run("parquet-go", func(b *testing.B) {
		for range b.N {
			dst, _ = (&rle.DictionaryEncoding{}).EncodeInt32(dst, idx)
		}
	})
}
