package filestats

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestIndexTruncation checks column-index bounds against parquet-mr's
// BinaryTruncator (parquet.columnindex.truncate.length).
func TestIndexTruncation(t *testing.T) {
	max4 := "\U0010FFFF"
	tests := []struct {
		name   string
		in     string
		length int
		lo, hi string
		hiOK   bool
	}{
		{"short stays", "abc", 4, "abc", "abc", true},
		{"exact length stays", "abcd", 4, "abcd", "abcd", true},
		{"ascii", "abcdef", 4, "abcd", "abce", true},
		// é is 2 bytes: a cut inside it backs off to the character boundary.
		{"no split character", "abcé", 4, "abc", "abd", true},
		// "ab\x7f\x80" and "ab\x80\x7f" are not UTF-8: parquet-mr increments
		// an earlier byte, keeping the later ones.
		{"carry into earlier byte", "ab\x7f\x7fz", 4, "ab\x7f\x7f", "ac\x7f\x7f", true},
		{"largest characters keep the whole value", max4 + max4, 4, max4, max4 + max4, true},
		{"invalid UTF-8 cuts bytes", "ab\xff\xfez", 4, "ab\xff\xfe", "ab\xff\xff", true},
		{"invalid all 0xFF keeps the value", "\xff\xff\xff\xff\xff", 4, "\xff\xff\xff\xff", "\xff\xff\xff\xff\xff", true},
	}
	for _, tc := range tests {
		var b bound
		b.set([]byte(tc.in), 1<<10)
		if got := indexMin(&b, tc.length); string(got) != tc.lo {
			t.Errorf("%s: indexMin(%q) = %q, want %q", tc.name, tc.in, got, tc.lo)
		}
		got, ok := indexMax(&b, tc.length)
		if string(got) != tc.hi || ok != tc.hiOK {
			t.Errorf("%s: indexMax(%q) = %q, %v; want %q, %v", tc.name, tc.in, got, ok, tc.hi, tc.hiOK)
		}
		if ok && bytes.Compare(got, []byte(tc.in)) < 0 {
			t.Errorf("%s: indexMax(%q) = %q is below the value", tc.name, tc.in, got)
		}
	}
}

// TestIndexMaxWithoutPrefix: a long value of greatest characters has no
// short upper bound and is not kept whole: no bound (the column index is
// left out).
func TestIndexMaxWithoutPrefix(t *testing.T) {
	var b bound
	b.set([]byte(strings.Repeat("\U0010FFFF", 100)), 16)
	if _, ok := indexMax(&b, 8); ok {
		t.Error("indexMax of a long run of U+10FFFF kept only in part: want no bound")
	}
}

// TestMinMaxKeepsPrefixes is a property test: with only keep bytes of long
// values, MinMax still yields column-index and chunk bounds that hold for
// every value, and exact ones whenever the extremes are short.
func TestMinMaxKeepsPrefixes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "é", "\U0010FFFF", "\x7f", "\xff", "\u00ff"}
	gen := func() string {
		var sb strings.Builder
		n := r.IntN(24)
		for range n {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return sb.String()
	}
	for iter := range 2000 {
		keep := 1 + r.IntN(12)
		m := MinMax{keep: keep}
		var vals []string
		for range 1 + r.IntN(8) {
			v := gen()
			vals = append(vals, v)
			m.Add([]byte(v))
		}
		lo, hi := slices.Min(vals), slices.Max(vals)
		for _, length := range []int{1, 3, 5, 64} {
			imin := indexMin(&m.lo, length)
			if string(imin) > lo {
				t.Fatalf("iter %d keep %d: index min %q above the min %q of %q", iter, keep, imin, lo, vals)
			}
			if imax, ok := indexMax(&m.hi, length); ok && string(imax) < hi {
				t.Fatalf("iter %d keep %d: index max %q below the max %q of %q", iter, keep, imax, hi, vals)
			}
		}
		if len(lo) <= keep && string(m.lo.b) != lo {
			t.Fatalf("iter %d: short min %q kept as %q", iter, lo, m.lo.b)
		}
		if len(hi) <= keep && string(m.hi.b) != hi {
			t.Fatalf("iter %d: short max %q kept as %q", iter, hi, m.hi.b)
		}
		if clo, chi, ok := m.ChunkMinMax(); ok && (string(clo) != lo || string(chi) != hi) {
			t.Fatalf("iter %d: chunk min/max %q/%q, want %q/%q", iter, clo, chi, lo, hi)
		}
		// Merging halves gives the same bounds as adding everything.
		a, b := MinMax{keep: keep}, MinMax{keep: keep}
		for i, v := range vals {
			if i%2 == 0 {
				a.Add([]byte(v))
			} else {
				b.Add([]byte(v))
			}
		}
		a.Merge(&b)
		if cmpBounds(&a.lo, &m.lo) != 0 && len(lo) <= keep || cmpBounds(&a.hi, &m.hi) != 0 && len(hi) <= keep {
			t.Fatalf("iter %d: merged bounds differ for %q", iter, vals)
		}
	}
}

// TestChunkMinMaxLimit: min and max together under 4096 bytes are kept,
// from 4096 bytes on they are left out (parquet-mr's MAX_STATS_SIZE).
func TestChunkMinMaxLimit(t *testing.T) {
	for _, tc := range []struct {
		lo, hi int
		ok     bool
	}{{1, 4094, true}, {1, 4095, false}, {2048, 2047, true}, {2048, 2048, false}, {10, 1 << 20, false}} {
		m := MinMax{keep: MaxStatsSize}
		m.Add([]byte(strings.Repeat("a", tc.lo)))
		m.Add([]byte(strings.Repeat("b", tc.hi)))
		if _, _, ok := m.ChunkMinMax(); ok != tc.ok {
			t.Errorf("min %d + max %d bytes: kept = %v, want %v", tc.lo, tc.hi, ok, tc.ok)
		}
	}
}

// TestDeltaStatsOfLongStrings: the Delta stats of strings longer than what
// the collector keeps are those of the whole strings.
func TestDeltaStatsOfLongStrings(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "é", "\U0010FFFF", "\x7f", "\u0800", "z"}
	for iter := range 500 {
		prefix := 1 + r.IntN(40)
		keep := statsKeep(prefix)
		var sb strings.Builder
		for sb.Len() < keep+1+r.IntN(64) {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := sb.String()
		if r.IntN(4) == 0 {
			s = s[:keep+r.IntN(len(s)-keep)] + "\xff" + s[keep:] // invalid UTF-8 past the kept prefix
		}
		var b bound
		b.set([]byte(s), keep)
		if !b.long() {
			t.Fatalf("iter %d: %d-byte string with keep %d is not long", iter, len(s), keep)
		}
		wantLo, wantLoOK := truncateMin(s, prefix)
		wantHi, wantHiOK := truncateMax(s, prefix)
		gotLo, gotLoOK := truncateMinBound(&b, prefix)
		gotHi, gotHiOK := truncateMaxBound(&b, prefix)
		if gotLo != wantLo || gotLoOK != wantLoOK || gotHi != wantHi || gotHiOK != wantHiOK {
			t.Fatalf("iter %d prefix %d valid %v: bounds %q,%v / %q,%v; want %q,%v / %q,%v",
				iter, prefix, utf8.ValidString(s), gotLo, gotLoOK, gotHi, gotHiOK, wantLo, wantLoOK, wantHi, wantHiOK)
		}
	}
}

// TestAddSpanMatchesAdd folds random runs of values (short and long ones
// sharing prefixes, valid and invalid UTF-8) into a MinMax one by one and
// by their smallest and largest value: the bounds must be the same, and
// AddSpan must refuse exactly when a run's min or max is longer than keep.
func TestAddSpanMatchesAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	alphabet := []string{"a", "b", "\xff", "é", "z"}
	value := func() []byte {
		var b []byte
		for range r.IntN(9) {
			b = append(b, alphabet[r.IntN(len(alphabet))]...)
		}
		return b
	}
	for seed := range 2000 {
		keep := 1 + r.IntN(6)
		each, span := NewMinMax(keep), NewMinMax(keep)
		for range 1 + r.IntN(4) {
			run := make([][]byte, 1+r.IntN(6))
			for i := range run {
				run[i] = value()
			}
			lo, hi := run[0], run[0]
			for _, x := range run {
				each.Add(x)
				if bytes.Compare(x, lo) < 0 {
					lo = x
				} else if bytes.Compare(x, hi) > 0 {
					hi = x
				}
			}
			ok := span.AddSpan(lo, hi)
			if want := len(lo) <= keep && len(hi) <= keep; ok != want {
				t.Fatalf("seed %d: AddSpan(%q, %q) with keep %d = %v", seed, lo, hi, keep, ok)
			}
			if !ok {
				for _, x := range run {
					span.Add(x)
				}
			}
			if each.has != span.has || !sameBound(&each.lo, &span.lo) || !sameBound(&each.hi, &span.hi) {
				t.Fatalf("seed %d, keep %d, run %q: one by one lo %+v hi %+v, by span lo %+v hi %+v", seed, keep, run, each.lo, each.hi, span.lo, span.hi)
			}
		}
	}
}

func sameBound(a, b *bound) bool {
	return bytes.Equal(a.b, b.b) && a.size == b.size && a.valid == b.valid
}
