// Package keyset keeps the sorted keys of a map up to date by merging the
// keys added since they were sorted, instead of sorting them all again.
package keyset

import "slices"

// Merge returns the keys of sorted (ascending) and of added (any order)
// that live reports, ascending, each once. added is sorted in place; the
// result does not share sorted's array.
func Merge(sorted, added []string, live func(string) bool) []string {
	slices.Sort(added)
	out := make([]string, 0, len(sorted)+len(added))
	i, j := 0, 0
	for i < len(sorted) || j < len(added) {
		var k string
		switch {
		case j == len(added) || i < len(sorted) && sorted[i] < added[j]:
			k, i = sorted[i], i+1
		default:
			k, j = added[j], j+1
		}
		if (len(out) == 0 || out[len(out)-1] != k) && live(k) {
			out = append(out, k)
		}
	}
	return out
}
