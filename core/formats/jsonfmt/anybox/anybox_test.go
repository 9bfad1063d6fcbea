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
