package pagew

import (
	"math/rand/v2"
	"testing"
)

// TestBytesDict checks bytesDict against a Go map on random values of few
// distinct lengths and bytes (many collisions of prefixes), across resets.
func TestBytesDict(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var d bytesDict
	for round := range 20 {
		d.reset()
		ref := map[string]int32{}
		var order []string
		n := 1 + r.IntN(5000)
		for range n {
			b := make([]byte, r.IntN(1+round))
			for i := range b {
				b[i] = byte(r.IntN(3))
			}
			want, seen := ref[string(b)]
			x, added := d.index(b)
			if added == seen || (seen && x != want) {
				t.Fatalf("round %d: index(%q) = %d, %v; map says %d, seen %v", round, b, x, added, want, seen)
			}
			if !seen {
				ref[string(b)] = x
				order = append(order, string(b))
			}
		}
		if d.len() != len(order) {
			t.Fatalf("round %d: %d entries, want %d", round, d.len(), len(order))
		}
		for i, s := range order {
			if string(d.entry(i)) != s {
				t.Fatalf("round %d: entry %d = %q, want %q", round, i, d.entry(i), s)
			}
		}
	}
}

// FuzzBytesDict splits the input into values and checks that equal values
// get equal entry numbers and different ones different numbers.
func FuzzBytesDict(f *testing.F) {
	f.Add([]byte("a,b,a,,c,b"), byte(','))
	f.Fuzz(func(t *testing.T, in []byte, sep byte) {
		var d bytesDict
		d.reset()
		ref := map[string]int32{}
		start := 0
		for i := 0; i <= len(in); i++ {
			if i < len(in) && in[i] != sep {
				continue
			}
			v := in[start:i]
			start = i + 1
			x, added := d.index(v)
			want, seen := ref[string(v)]
			if added == seen || (seen && x != want) || string(d.entry(int(x))) != string(v) {
				t.Fatalf("index(%q) = %d, %v; want %d, seen %v", v, x, added, want, seen)
			}
			ref[string(v)] = x
		}
	})
}
