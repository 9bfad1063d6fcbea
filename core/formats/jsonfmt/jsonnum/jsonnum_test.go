package jsonnum

import (
	"math"
	"strconv"
	"testing"
)

// TestNumbers: number tokens and Spark's special strings, as the JSON
// reader reads them.
func TestNumbers(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    float64
		finite  bool
		special bool // Special takes in
	}{
		{"1.5", 1.5, true, false},
		{"-2e3", -2000, true, false},
		{"1e400", math.Inf(1), true, false},
		{"NaN", math.NaN(), false, true},
		{"Infinity", math.Inf(1), false, true},
		{"-Infinity", math.Inf(-1), false, true},
	} {
		got := Parse(tt.in)
		if got != tt.want && !(math.IsNaN(got) && math.IsNaN(tt.want)) {
			t.Errorf("Parse(%s) = %v, want %v", tt.in, got, tt.want)
		}
		if g32 := Parse32(tt.in); float64(g32) != float64(float32(tt.want)) && !(math.IsNaN(float64(g32)) && math.IsNaN(tt.want)) {
			t.Errorf("Parse32(%s) = %v", tt.in, g32)
		}
		if IsFinite([]byte(tt.in)) != tt.finite {
			t.Errorf("IsFinite(%s) = %v", tt.in, !tt.finite)
		}
		if _, ok := Special(tt.in); ok != tt.special {
			t.Errorf("Special(%s) ok = %v", tt.in, ok)
		}
	}
	if f, ok := Special("-INF"); !ok || !math.IsInf(f, -1) {
		t.Errorf("Special(-INF) = %v %v", f, ok)
	}
}

// TestParseLong checks the fast integer path against strconv.
func TestParseLong(t *testing.T) {
	for _, s := range []string{"0", "-0", "7", "-7", "123456789012345678", "-123456789012345678",
		"999999999999999999", "1234567890123456789", "-9223372036854775808", "9223372036854775807"} {
		v, ok := ParseLong([]byte(s))
		want, err := strconv.ParseInt(s, 10, 64)
		digits := len(s)
		if s[0] == '-' {
			digits--
		}
		if ok != (digits <= 18) {
			t.Errorf("ParseLong(%s) ok = %v", s, ok)
		}
		if ok && (err != nil || v != want) {
			t.Errorf("ParseLong(%s) = %d, want %d (%v)", s, v, want, err)
		}
	}
	if _, ok := ParseLong([]byte("-")); ok {
		t.Error("ParseLong(-) ok")
	}
}
