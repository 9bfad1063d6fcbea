package dictpick

import "testing"

// TestEstimateDistinct: the cardinality estimate from a sample, and the
// decision it drives.
func TestEstimateDistinct(t *testing.T) {
	for _, tc := range []struct {
		n, d   int
		lo, hi float64
	}{
		{512, 1, 1, 1},
		{512, 10, 10, 10.01},
		{512, 256, 300, 340},
		{512, 481, 3300, 4100}, // screen widths: 3,520 in the whole dataset
		{512, 511, 100_000, 160_000},
	} {
		if got := EstimateDistinct(tc.n, tc.d); got < tc.lo || got > tc.hi {
			t.Errorf("EstimateDistinct(%d, %d) = %.1f, want %.0f..%.0f", tc.n, tc.d, got, tc.lo, tc.hi)
		}
	}
	for _, tc := range []struct {
		n, d, b int
		want    bool
	}{
		{15, 2, 16, false},            // too few values
		{512, 512, 4096, false},       // no value repeats
		{512, 481, 3848, true},        // ~3.7k int64 values
		{512, 511, 4088, false},       // ~130k values: past MaxEntries
		{512, 300, 300 * 8000, false}, // ~400 values of 8 KB: past MaxBytes
		{512, 20, 160, true},
	} {
		if got := Pays(tc.n, tc.d, tc.b); got != tc.want {
			t.Errorf("Pays(%d, %d, %d) = %v, want %v", tc.n, tc.d, tc.b, got, tc.want)
		}
	}
}
