package jsonnum

import (
	"math"
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
