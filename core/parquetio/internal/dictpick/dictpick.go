// Package dictpick decides which Parquet columns are dictionary encoded,
// from a sample of their values.
package dictpick

import "math"

// Dictionary encoding, decided once per file from its first batch of rows
// (parquet-go fixes a column's encoding for the file): a leaf column
// (booleans aside) is dictionary encoded when its sampled non-null values
// number at least MinValues, repeat at least once, and the column's
// cardinality estimated from the sample (EstimateDistinct) is at most
// MaxEntries values of at most MaxBytes in all — a column for which
// the dictionary pays. A sample of 512 values with 481 distinct ones (screen
// widths: 3,520 values over 269k rows) gets a dictionary; 512 distinct ones
// do not. Should the estimate be wrong, the column falls back to plain pages
// for the rest of the row group once the dictionary passes
// FallbackBytes, as parquet-mr does.
const (
	// MinValues is the fewest sampled values a dictionary column has.
	MinValues = 16
	// MaxEntries is the most distinct values (estimated) it has.
	MaxEntries = 1 << 16
	// MaxBytes is the most bytes (estimated) of its dictionary.
	MaxBytes = 1 << 20
	// FallbackBytes is the dictionary size past which a column chunk's
	// later pages are PLAIN (parquet-go's DictionaryMaxBytes).
	FallbackBytes = 2 * MaxBytes
)

// Pays reports whether a column whose sample of n non-null values
// holds d distinct ones of b bytes in all gets a dictionary.
func Pays(n, d, b int) bool {
	if n < MinValues || d >= n || d == 0 {
		return false
	}
	est := EstimateDistinct(n, d)
	return est <= MaxEntries && est*float64(b)/float64(d) <= MaxBytes
}

// EstimateDistinct estimates a column's number of distinct values from a
// sample of n values holding d < n distinct ones: the D for which d is the
// expected number of distinct values among n draws from D equally likely
// values, D·(1 − (1 − 1/D)^n) = d (which grows with D towards n).
func EstimateDistinct(n, d int) float64 {
	want := float64(d)
	seen := func(D float64) float64 { return D * (1 - math.Pow(1-1/D, float64(n))) }
	lo, hi := want, want
	for seen(hi) < want {
		lo, hi = hi, 2*hi
		if hi > 1<<40 {
			return hi
		}
	}
	for range 64 {
		mid := (lo + hi) / 2
		if seen(mid) < want {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}
