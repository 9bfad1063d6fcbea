package csvfmt

import (
	"math/rand/v2"
	"testing"
)

// keepsOptions are option sets keeps is checked under: the defaults, a
// time zone (timestamps no longer read by ISOMicros alone), a timestamp
// format, and NaN/infinity spellings that look like numbers.
var keepsOptions = []map[string]string{
	nil,
	{"timeZone": "America/New_York"},
	{"timestampFormat": "yyyy-MM-dd HH:mm"},
	{"nanValue": "1", "positiveInf": "2.5", "negativeInf": "-3"},
	{"preferDate": "false"},
}

// keepsCases are strings of the lattice's every kind, and odd ones:
// Java's number forms, Unicode digits, white space, out-of-range dates.
var keepsCases = []string{
	"0", "7", "-7", "+7", "١", "1\xff", "2024-03-01T00:00:00.\xffZ", "2147483647", "2147483648", "-2147483648", "-2147483649", "999999999999999999",
	"9223372036854775807", "9223372036854775808", "١٢٣", "1,000", "1.5", "-1.5", "1.", ".5", "1d", "1f", "NaN",
	"Infinity", "-Infinity", "0x1p3", "1e5", " 1", "1 ", "2024-03-01", "2024-02-30", "2024-03-01T00:00:00.037527Z",
	"2024-03-01 00:00:00", "2024-13-01T00:00:00Z", "2024-03-01T24:00:00Z", " 2024-03-01T00:00:00Z", "2024-03-01 12:30",
	"true", "FALSE", "tRuE", "yes", "", "-", "abc", "1.5e400", "00000000000000000000001",
}

// checkKeeps fails when keeps says a value keeps a kind's type but
// inferField widens it, or takes a value that is not ASCII.
func checkKeeps(t *testing.T, o *Options, s string) {
	t.Helper()
	for k := kNull; k <= kString; k++ {
		if !o.keeps(k, s) {
			continue
		}
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				// The fold repairs only what keeps does not take.
				t.Fatalf("keeps(%v, %q) takes a value that is not ASCII", k, s)
			}
		}
		for _, pd := range []bool{false, true} {
			if got := o.inferField(ctype{K: k}, s, pd); got != (ctype{K: k}) {
				t.Fatalf("keeps(%v, %q) but inferField gives %+v (prefersDecimal %v)", k, s, got, pd)
			}
		}
	}
}

// TestKeeps: keeps is a shortcut of inferField on its cases and on random
// strings over the alphabet of numbers and datetimes; on the common
// values it does take the shortcut.
func TestKeeps(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	const alphabet = "0123456789-+.:TZ eEdDfxNaIy,"
	for _, m := range keepsOptions {
		o, err := ParseOptions(m)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range keepsCases {
			checkKeeps(t, &o, s)
		}
		for i := 0; i < 20000; i++ {
			b := make([]byte, r.IntN(28))
			for k := range b {
				b[k] = alphabet[r.IntN(len(alphabet))]
			}
			checkKeeps(t, &o, string(b))
		}
	}
	o, _ := ParseOptions(nil)
	for _, tt := range []struct {
		k kind
		s string
	}{{kInt, "-123"}, {kLong, "9999999999"}, {kDouble, "9488.56"}, {kDouble, "12"}, {kTimestamp, "2024-03-01T00:00:00.037527Z"}} {
		if !o.keeps(tt.k, tt.s) {
			t.Errorf("keeps(%v, %q) = false, want the shortcut", tt.k, tt.s)
		}
	}
}

// FuzzKeeps: keeps never claims a type inferField would widen.
func FuzzKeeps(f *testing.F) {
	for _, s := range keepsCases {
		f.Add(s, uint8(0))
	}
	f.Fuzz(func(t *testing.T, s string, opt uint8) {
		o, err := ParseOptions(keepsOptions[int(opt)%len(keepsOptions)])
		if err != nil {
			t.Fatal(err)
		}
		checkKeeps(t, &o, s)
	})
}
