package javanum

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

func TestParseDouble(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1.5", 1.5, true},
		{" -2e3 ", -2000, true},
		{"+.5", 0.5, true},
		{"1.0f", 1, true},
		{"2D", 2, true},
		{"0x1p4", 16, true},
		{"Infinity", math.Inf(1), true},
		{"-Infinity", math.Inf(-1), true},
		{"1e400", math.Inf(1), true},
		{"", 0, false},
		{".", 0, false},
		{"1,5", 0, false},
		{"--1", 0, false},
		{"inf", 0, false},
		{"0x10", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseDouble(tt.in)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("ParseDouble(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	if f, ok := ParseDouble("NaN"); !ok || !math.IsNaN(f) {
		t.Errorf("ParseDouble(NaN) = %v, %v", f, ok)
	}
}

func TestDecimalShape(t *testing.T) {
	tests := []struct {
		in          string
		prec, scale int
		ok          bool
	}{
		{"123", 3, 0, true},
		{"-0.050", 2, 3, true},
		{"1.5e2", 2, -1, true},
		{"007", 1, 0, true},
		{"1.2.3", 0, 0, false},
		{"e5", 0, 0, false},
		{"0E++0", 0, 0, false},
		{"1e-2", 1, 2, true},
		{"", 0, 0, false},
	}
	for _, tt := range tests {
		p, s, ok := DecimalShape(tt.in)
		if ok != tt.ok || (ok && (p != tt.prec || s != tt.scale)) {
			t.Errorf("DecimalShape(%q) = %d, %d, %v; want %d, %d, %v", tt.in, p, s, ok, tt.prec, tt.scale, tt.ok)
		}
	}
}

// FuzzParseDouble: a plain decimal number strconv reads is read to the
// same value, and nothing panics.
func FuzzParseDouble(f *testing.F) {
	for _, s := range []string{"1.5", "-0x1p-3", "NaN", "1e", "+Infinity", "2f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseDouble(s)
		_, _, _ = DecimalShape(s)
		if _, _, dok := DecimalShape(s); dok && !ok {
			t.Fatalf("%q has a decimal shape but is no double", s)
		}
		if want, err := strconv.ParseFloat(s, 64); err == nil && ok && got != want && !math.IsNaN(want) {
			t.Fatalf("ParseDouble(%q) = %v, strconv %v", s, got, want)
		}
	})
}

// FuzzFastDouble: the fast path reads what it takes to the value the
// general path gives, bit for bit (the sign of zero too).
func FuzzFastDouble(f *testing.F) {
	for _, s := range []string{"1.5", "-0.0", "123456789012345", "0.000000000000001", "9007199254740993", "-12.", ".5", "1.2.3", "-", "99999.99999", "0.1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := fastDouble(s)
		if !ok {
			return
		}
		want, wok := parseDouble(s)
		if !wok || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("fastDouble(%q) = %v; parseDouble %v, %v", s, got, want, wok)
		}
	})
}

// TestFastDoubleRandom: random decimal numbers of up to 15 digits, each
// with any number of them after the point, read the same both ways.
func TestFastDoubleRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 11))
	taken := 0
	for i := 0; i < 200000; i++ {
		n := 1 + r.IntN(16)
		b := make([]byte, 0, n+2)
		if r.IntN(2) == 0 {
			b = append(b, '-')
		}
		point := r.IntN(n + 1)
		for k := 0; k < n; k++ {
			if k == point && k > 0 {
				b = append(b, '.')
			}
			b = append(b, byte('0'+r.IntN(10)))
		}
		s := string(b)
		got, ok := fastDouble(s)
		want, wok := parseDouble(s)
		if ok {
			taken++
			if !wok || math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("fastDouble(%q) = %v; parseDouble %v, %v", s, got, want, wok)
			}
		}
	}
	if taken < 100000 {
		t.Fatalf("the fast path took %d of 200000 numbers", taken)
	}
}

// FuzzSmallInt: what SmallInt reads, strconv.ParseInt reads to the same
// value; an integer of up to 18 digits it always reads.
func FuzzSmallInt(f *testing.F) {
	for _, s := range []string{"0", "-0", "+7", "123456789012345678", "1234567890123456789", "-", "+", "1a", "00012", "-999999999999999999", " 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := SmallInt(s)
		want, err := strconv.ParseInt(s, 10, 64)
		if ok && (err != nil || got != want) {
			t.Fatalf("SmallInt(%q) = %d; strconv %d, %v", s, got, want, err)
		}
		if !ok && err == nil && len(strings.TrimLeft(s, "+-")) <= 18 {
			t.Fatalf("SmallInt(%q) refused what strconv reads (%d)", s, want)
		}
	})
}

// TestASCIIDigits: Unicode decimal digits (Nd) become ASCII digits as
// Java's Character.digit reads them; other characters (superscripts are
// No, not Nd), invalid UTF-8 and ASCII are kept; ParseLong reads them as
// Long.parseLong does.
func TestASCIIDigits(t *testing.T) {
	tests := []struct {
		in, want string
		changed  bool
	}{
		{"123", "123", false},
		{"", "", false},
		{"١٢٣", "123", true},
		{"-٤٥", "-45", true},
		{"０９", "09", true},
		{"४२", "42", true},
		{"\U0001D7D8\U0001D7D7\U0001D7CE", "090", true}, // mathematical digits: several runs of ten in one range
		{"²", "²", false},
		{"x١\xff", "x1\xff", true},
		{"é", "é", false},
	}
	for _, tc := range tests {
		got, changed := ASCIIDigits(tc.in)
		if got != tc.want || changed != tc.changed {
			t.Errorf("ASCIIDigits(%q) = %q, %v; want %q, %v", tc.in, got, changed, tc.want, tc.changed)
		}
	}
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"١٢٣", 123, true}, {"+٧", 7, true}, {"-٩٢٢٣٣٧٢٠٣٦٨٥٤٧٧٥٨٠٨", math.MinInt64, true},
		{"٩٢٢٣٣٧٢٠٣٦٨٥٤٧٧٥٨٠٨", 0, false}, {"١.٥", 0, false}, {"", 0, false}, {"-", 0, false}, {"²", 0, false},
	} {
		if got, ok := ParseLong(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("ParseLong(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzASCIIDigits: ASCIIDigits keeps every rune but Unicode digits
// (one rune each, replaced by an ASCII digit) and leaves ASCII text
// alone; ParseLong is strconv.ParseInt of its result.
func FuzzASCIIDigits(f *testing.F) {
	for _, s := range []string{"123", "١٢٣", "-٤٥", "x\xff٣", "²", "+０"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, changed := ASCIIDigits(s)
		if !changed && got != s {
			t.Fatalf("ASCIIDigits(%q) = %q unchanged", s, got)
		}
		a, b := []rune(s), []rune(got)
		if len(a) != len(b) {
			t.Fatalf("ASCIIDigits(%q) = %q: %d runes, want %d", s, got, len(b), len(a))
		}
		for i := range a {
			if a[i] != b[i] && !(unicode.IsDigit(a[i]) && b[i] >= '0' && b[i] <= '9') {
				t.Fatalf("ASCIIDigits(%q) = %q: rune %d %q became %q", s, got, i, a[i], b[i])
			}
		}
		v, ok := ParseLong(s)
		w, err := strconv.ParseInt(got, 10, 64)
		if ok != (err == nil) || (ok && v != w) {
			t.Fatalf("ParseLong(%q) = %d, %v; strconv of %q: %d, %v", s, v, ok, got, w, err)
		}
	})
}
