package jsontape

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestPlain8 checks the 8-byte string scan against a byte loop, on random
// words biased towards the bytes that matter.
func TestPlain8(t *testing.T) {
	special := []byte{'"', '\'', '\\', 0, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0xff, 'a', 0x5c ^ 0x80, 0x22 ^ 0x80}
	r := rand.New(rand.NewPCG(1, 2))
	var w [8]byte
	for range 200000 {
		for i := range w {
			if r.IntN(2) == 0 {
				w[i] = special[r.IntN(len(special))]
			} else {
				w[i] = byte(r.IntN(256))
			}
		}
		for _, q := range []byte{'"', '\''} {
			want := true
			for _, c := range w {
				if c == q || c == '\\' || c < 0x20 {
					want = false
				}
			}
			if got := plain8(binary.LittleEndian.Uint64(w[:]), q); got != want {
				t.Fatalf("plain8(%q, %q) = %v, want %v", w, q, got, want)
			}
		}
	}
}
