package spill

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
)

// TestSpillBuffer writes random chunks to buffers that stay in memory,
// spill part-way and spill at once, and reads them back.
func TestSpillBuffer(t *testing.T) {
	for _, limit := range []int64{1 << 30, 100, 0} {
		pool := NewPool(t.TempDir(), limit)
		b := pool.GetBuffer()
		var want []byte
		r := rand.New(rand.NewPCG(uint64(limit), 1))
		for range 50 {
			p := make([]byte, r.IntN(3*chunkBytes/2))
			for i := range p {
				p[i] = byte(r.Int())
			}
			if n, err := b.Write(p); n != len(p) || err != nil {
				t.Fatalf("limit %d: Write = %d, %v", limit, n, err)
			}
			want = append(want, p...)
		}
		if end, _ := b.Seek(0, io.SeekEnd); end != int64(len(want)) {
			t.Fatalf("limit %d: size %d, want %d", limit, end, len(want))
		}
		if _, err := b.Seek(10, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(b)
		if err != nil || !bytes.Equal(got, want[10:]) {
			t.Fatalf("limit %d: read back %d bytes (err %v), want %d", limit, len(got), err, len(want)-10)
		}
		// WriteTo (io.Copy's path) from a position inside a chunk.
		from := int64(r.IntN(len(want)))
		if _, err := b.Seek(from, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if n, err := io.Copy(&out, b); err != nil || n != int64(len(want))-from || !bytes.Equal(out.Bytes(), want[from:]) {
			t.Fatalf("limit %d: WriteTo from %d: %d bytes, %v", limit, from, n, err)
		}
		pool.PutBuffer(b)
		if len(pool.open) != 0 {
			t.Errorf("limit %d: buffer still open after PutBuffer", limit)
		}
	}
}
