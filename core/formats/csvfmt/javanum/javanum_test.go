package javanum

import (
	"math"
	"strconv"
	"testing"
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
