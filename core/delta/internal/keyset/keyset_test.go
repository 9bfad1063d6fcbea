package keyset

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// Merging after random adds and deletes gives the map's sorted keys.
func TestMergeMatchesSort(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 1))
		m := map[string]bool{}
		var sorted, added []string
		for step := range 200 {
			k := fmt.Sprintf("k%03d", r.IntN(150))
			if r.IntN(3) == 0 {
				delete(m, k)
			} else {
				if !m[k] {
					added = append(added, k)
				}
				m[k] = true
			}
			if r.IntN(10) == 0 || step == 199 {
				sorted = Merge(sorted, added, func(k string) bool { return m[k] })
				added = nil
				if want := slices.Sorted(maps.Keys(m)); !slices.Equal(sorted, want) {
					t.Fatalf("seed %d step %d: %v, want %v", seed, step, sorted, want)
				}
			}
		}
	}
}
