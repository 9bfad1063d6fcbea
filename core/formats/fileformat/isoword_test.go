package fileformat

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// isoMicrosRef is ISOMicros as it was before it read eight bytes at a
// time (field by field with digits): the oracle of the word version.
func isoMicrosRef(s string) (int64, bool) {
	n := len(s)
	if n < 20 || n > 30 || s[n-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return 0, false
	}
	y, ok1 := digits(s[0:4])
	mo, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	h, ok4 := digits(s[11:13])
	mi, ok5 := digits(s[14:16])
	sec, ok6 := digits(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	var micros int64
	if n > 20 {
		frac := s[20 : n-1]
		if s[19] != '.' || len(frac) < 1 || len(frac) > 9 {
			return 0, false
		}
		v, ok := digits(frac)
		if !ok {
			return 0, false
		}
		for k := len(frac); k < 9; k++ {
			v *= 10
		}
		micros = int64(v / 1000)
	} else if s[19] != 'Z' {
		return 0, false
	}
	return (daysSinceEpoch(y, mo, d)*86400+int64(h*3600+mi*60+sec))*1_000_000 + micros, true
}

// checkISOMicrosRef: ISOMicros reads s as isoMicrosRef does.
func checkISOMicrosRef(t *testing.T, s string) {
	t.Helper()
	got, ok := ISOMicros(s)
	want, wok := isoMicrosRef(s)
	if got != want || ok != wok {
		t.Fatalf("ISOMicros(%q) = %d, %v; the field by field version %d, %v", s, got, ok, want, wok)
	}
}

// FuzzISOMicrosRef: the word version is the field by field one.
func FuzzISOMicrosRef(f *testing.F) {
	for _, s := range []string{"2024-03-01T00:00:00.037527Z", "2024-02-29T23:59:59Z", "1900-02-29T00:00:00Z", "0000-01-01T00:00:00.123456789Z",
		"9999-12-31T23:59:59.999999Z", "2024-13-01T00:00:00Z", "2024-03-01T24:00:00Z", "2024-03-01 00:00:00Z", "2024-03-01T00:00:00.Z",
		"2024-0:-01T00:00:00Z", "2/24-03-01T00:00:00Z", "2024-03-01T00:00:\x00Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkISOMicrosRef(t, s) })
}

// TestISOMicrosRefRandom: random timestamps of the common form, and each
// with one byte replaced by a byte next to a digit or a separator (or any
// byte), read alike by the word and the field by field versions.
func TestISOMicrosRefRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	near := []byte("/0189:;-.,TSUZ \x00\x7f\x80\xff\xb0\xb9\x3a\x2f")
	for range 300000 {
		s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", r.IntN(10000), r.IntN(14), r.IntN(33), r.IntN(26), r.IntN(62), r.IntN(62))
		if k := r.IntN(11); k > 0 {
			s += "."
			for ; k > 1; k-- {
				s += string(rune('0' + r.IntN(10)))
			}
		}
		s += "Z"
		checkISOMicrosRef(t, s)
		b := []byte(s)
		c := near[r.IntN(len(near))]
		if r.IntN(4) == 0 {
			c = byte(r.IntN(256))
		}
		b[r.IntN(len(b))] = c
		checkISOMicrosRef(t, string(b))
	}
}

// BenchmarkISOMicros reads timestamps of the benchmarks' form.
func BenchmarkISOMicros(b *testing.B) {
	ts := make([]string, 1024)
	for i := range ts {
		ts[i] = fmt.Sprintf("2024-03-%02dT%02d:%02d:%02d.%06dZ", 1+i%28, i%24, i%60, i*7%60, i*7919%1000000)
	}
	b.Run("word", func(b *testing.B) {
		for i := range b.N {
			if _, ok := ISOMicros(ts[i&1023]); !ok {
				b.Fatal(ts[i&1023])
			}
		}
	})
	b.Run("fields", func(b *testing.B) {
		for i := range b.N {
			if _, ok := isoMicrosRef(ts[i&1023]); !ok {
				b.Fatal(ts[i&1023])
			}
		}
	})
}
