package filestats

import (
	"fmt"
	"math"
	"testing"

	"github.com/tributary-io/tributary/core/schema"
)

// TestFloatBounds: a double column's bounds are its least and greatest
// values, the first of equal extremes kept (-0 before 0); a NaN anywhere
// drops them, wherever it comes. The bounds kept while a NaN is seen are
// those of the other values, also when the NaN comes first (it once left
// the minimum at 0 there).
func TestFloatBounds(t *testing.T) {
	nan := math.NaN()
	negZero := math.Copysign(0, -1)
	tests := []struct {
		vals     []float64
		min, max float64
		nan      bool
	}{
		{vals: []float64{3, 2, 5}, min: 2, max: 5},
		{vals: []float64{negZero, 0, 1}, min: negZero, max: 1},
		{vals: []float64{0, negZero, -1}, min: -1, max: 0},
		{vals: []float64{1, 0, negZero}, min: 0, max: 1},
		{vals: []float64{nan, 2, 3}, min: 2, max: 3, nan: true},
		{vals: []float64{2, nan, 3}, min: 2, max: 3, nan: true},
		{vals: []float64{5, 7, nan}, min: 5, max: 7, nan: true},
		{vals: []float64{nan, -4}, min: -4, max: -4, nan: true},
	}
	st := &schema.StructType{Fields: []schema.Field{{Name: "d", Type: schema.Double, Nullable: true}}}
	for _, tc := range tests {
		name := fmt.Sprint(tc.vals)
		for _, byLeaf := range []bool{false, true} {
			c := New(st, Options{NumIndexedCols: -1})
			for _, v := range tc.vals {
				if byLeaf {
					c.Leaf(0).Float(v)
				} else {
					c.Add([]any{v})
				}
			}
			if byLeaf {
				c.AddRows(int64(len(tc.vals)))
			}
			sc := c.cols[0]
			if !sc.hasF || sc.nan != tc.nan || math.Float64bits(sc.minF) != math.Float64bits(tc.min) || math.Float64bits(sc.maxF) != math.Float64bits(tc.max) {
				t.Errorf("%s (leaf %v): min %v max %v nan %v, want %v %v %v", name, byLeaf, sc.minF, sc.maxF, sc.nan, tc.min, tc.max, tc.nan)
			}
			r := c.Result()
			_, hasMin := r.MinValues["d"]
			_, hasMax := r.MaxValues["d"]
			if hasMin == tc.nan || hasMax == tc.nan {
				t.Errorf("%s (leaf %v): minValues %v maxValues %v; bounds wanted: %v", name, byLeaf, r.MinValues, r.MaxValues, !tc.nan)
			}
			if !tc.nan && (r.MinValues["d"] != tc.min || math.Signbit(r.MinValues["d"].(float64)) != math.Signbit(tc.min)) {
				t.Errorf("%s (leaf %v): minValues %v, want %v", name, byLeaf, r.MinValues["d"], tc.min)
			}
		}
	}
}
