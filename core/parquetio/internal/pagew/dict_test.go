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

// TestIntDict checks intDict against a Go map on random keys: few distinct
// ones, keys differing only in their high bits, and keys of all bits,
// across resets; entry numbers must follow insertion order.
func TestIntDict(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	keys := []struct {
		name string
		key  func() uint64
	}{
		{"few", func() uint64 { return uint64(r.IntN(7)) }},
		{"high bits", func() uint64 { return uint64(r.IntN(3000)) << 40 }},
		{"negative int32", func() uint64 { return uint64(int64(-r.Int32N(5000))) }},
		{"any", func() uint64 { return r.Uint64() }},
	}
	var d intDict
	for round := range 20 {
		for _, k := range keys {
			d.reset()
			ref := map[uint64]int32{}
			n := 1 + r.IntN(20000)
			for range n {
				key := k.key()
				want, seen := ref[key]
				x, added := d.index(key)
				if added == seen || (seen && x != want) {
					t.Fatalf("round %d, %s: index(%#x) = %d, %v; map says %d, seen %v", round, k.name, key, x, added, want, seen)
				}
				if !seen {
					if int(x) != len(ref) {
						t.Fatalf("round %d, %s: new key %#x got entry %d, want %d", round, k.name, key, x, len(ref))
					}
					ref[key] = x
				}
			}
			if d.n != len(ref) {
				t.Fatalf("round %d, %s: %d entries, want %d", round, k.name, d.n, len(ref))
			}
		}
	}
}

// BenchmarkBytesDict looks up values of a column of 20,000 distinct
// strings (8 to 40 bytes) in random order, as a dictionary-encoded string
// column chunk does.
func BenchmarkBytesDict(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	distinct := make([][]byte, 20000)
	for i := range distinct {
		v := make([]byte, 8+r.IntN(33))
		for j := range v {
			v[j] = 'a' + byte(r.IntN(26))
		}
		distinct[i] = v
	}
	vals := make([][]byte, 1<<16)
	for i := range vals {
		vals[i] = distinct[r.IntN(len(distinct))]
	}
	var d bytesDict
	b.ResetTimer()
	for range b.N {
		d.reset()
		for _, v := range vals {
			d.index(v)
		}
	}
}
