package anybox

import (
	"runtime"
	"strconv"
	"testing"
)

// TestBoxes: boxed values read back as what was stored, also after the
// slabs moved on and a GC ran.
func TestBoxes(t *testing.T) {
	var b Boxes
	var got []any
	for i := range 5000 {
		got = append(got, b.String(strconv.Itoa(i)), b.Long(int64(i)-2500), b.Double(float64(i)/3))
	}
	runtime.GC()
	for i := range 5000 {
		if s, ok := got[3*i].(string); !ok || s != strconv.Itoa(i) {
			t.Fatalf("string %d: %#v", i, got[3*i])
		}
		if v, ok := got[3*i+1].(int64); !ok || v != int64(i)-2500 {
			t.Fatalf("long %d: %#v", i, got[3*i+1])
		}
		if v, ok := got[3*i+2].(float64); !ok || v != float64(i)/3 {
			t.Fatalf("double %d: %#v", i, got[3*i+2])
		}
	}
	if got[0] != any("0") || got[1] != any(int64(-2500)) {
		t.Fatalf("boxed values compare unequal to converted ones: %#v %#v", got[0], got[1])
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
