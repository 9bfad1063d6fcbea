package javanum

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// The versions of fastDouble and PlainDecimal from before they read the
// integer digits and the fraction's in two loops: the oracles of the new
// ones.

// fastDoubleRef is fastDouble as it was.
func fastDoubleRef(s string) (float64, bool) {
	i, neg := 0, false
	if s != "" && s[0] == '-' {
		i, neg = 1, true
	}
	var m uint64
	digits, frac, dot := 0, 0, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot && digits > 0:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 || digits > 15 || (dot && frac == 0) {
		return 0, false
	}
	f := float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// plainDecimalRef is PlainDecimal as it was.
func plainDecimalRef(s string) bool {
	i := 0
	if s != "" && s[0] == '-' {
		i = 1
	}
	digits, frac, dot := 0, 0, false
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
			if dot {
				frac++
			}
		case c == '.' && !dot && digits > 0:
			dot = true
		default:
			return false
		}
	}
	return digits > 0 && (!dot || frac > 0)
}

// checkTwoLoops compares fastDouble and PlainDecimal with their old
// versions on s.
func checkTwoLoops(t *testing.T, s string) {
	t.Helper()
	if got, want := PlainDecimal(s), plainDecimalRef(s); got != want {
		t.Fatalf("PlainDecimal(%q) = %v, was %v", s, got, want)
	}
	f, ok := fastDouble(s)
	wf, wok := fastDoubleRef(s)
	if ok != wok || math.Float64bits(f) != math.Float64bits(wf) {
		t.Fatalf("fastDouble(%q) = %v, %v, was %v, %v", s, f, ok, wf, wok)
	}
}

// FuzzTwoLoops: the two-loop versions read what the old ones read.
func FuzzTwoLoops(f *testing.F) {
	for _, s := range []string{"", "-", "+", ".", "0", "-0", "+12", "12.", ".5", "1.2.3", "-7950.85", "48.422234", "123456789012345",
		"1234567890123456", "12345678901234.5", "1234567890123.45", "0.000000000000001", "1e5", "--1", "1-", "12a", "1٣", "-.5", "5.-"} {
		f.Add(s)
	}
	f.Fuzz(checkTwoLoops)
}

// TestTwoLoopsRandom: random strings of digits, signs, dots and other
// bytes, up to 24 long (past the 15-digit limit), read alike by the new
// and the old versions.
func TestTwoLoopsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 5))
	other := "-+e/:a \x00\xff"
	for range 300000 {
		var b strings.Builder
		if k := r.IntN(4); k == 0 {
			b.WriteByte('-')
		} else if k == 1 {
			b.WriteByte('+')
		}
		for n := r.IntN(24); n > 0; n-- {
			switch k := r.IntN(40); {
			case k < 3:
				b.WriteByte('.')
			case k == 3:
				b.WriteByte(other[r.IntN(len(other))])
			default:
				b.WriteByte(byte('0' + r.IntN(10)))
			}
		}
		checkTwoLoops(t, b.String())
	}
}

// BenchmarkTwoLoops reads values of the benchmarks' doubles with the new
// and the old versions.
func BenchmarkTwoLoops(b *testing.B) {
	doubles := []string{"7950.85", "48.422234", "-18.148208", "45.351494", "3585.92", "2.921235", "-16.979565", "61.732069"}
	run := func(name string, f func(s string) bool) {
		b.Run(name, func(b *testing.B) {
			for i := range b.N {
				if !f(doubles[i&7]) {
					b.Fatal(i)
				}
			}
		})
	}
	run("fastDouble", func(s string) bool { _, ok := fastDouble(s); return ok })
	run("fastDoubleRef", func(s string) bool { _, ok := fastDoubleRef(s); return ok })
	run("PlainDecimal", PlainDecimal)
	run("plainDecimalRef", plainDecimalRef)
}

// BenchmarkDoublesRandom reads 4,096 random doubles of the benchmarks'
// columns (amount %.2f below 10,000, latitude %.6f in ±90, score %.6f
// below 100): their dots at unpredictable places, as in a file.
func BenchmarkDoublesRandom(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	vals := make([]string, 4096)
	for i := range vals {
		switch i % 3 {
		case 0:
			vals[i] = strconv.FormatFloat(r.Float64()*10000, 'f', 2, 64)
		case 1:
			vals[i] = strconv.FormatFloat(r.Float64()*180-90, 'f', 6, 64)
		default:
			vals[i] = strconv.FormatFloat(r.Float64()*100, 'f', 6, 64)
		}
	}
	b.Run("fastDouble", func(b *testing.B) {
		for i := range b.N {
			if _, ok := fastDouble(vals[i&4095]); !ok {
				b.Fatal(vals[i&4095])
			}
		}
	})
	b.Run("fastDoubleRef", func(b *testing.B) {
		for i := range b.N {
			if _, ok := fastDoubleRef(vals[i&4095]); !ok {
				b.Fatal(vals[i&4095])
			}
		}
	})
}
