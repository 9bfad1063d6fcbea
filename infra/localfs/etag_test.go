package localfs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// formatETag writes what fmt.Sprintf("%x-%x-%x", …) wrote before it,
// negative sizes and times (before 1970) included.
func TestFormatETagMatchesSprintf(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	cases := [][3]int64{{0, 0, 0}, {-1, -1, -1}, {math.MaxInt64, math.MinInt64, math.MinInt64}, {1, 1024, -1_000_000_000}}
	for range 1000 {
		cases = append(cases, [3]int64{int64(r.Uint64()), r.Int64() >> r.IntN(64), int64(r.Uint64())})
	}
	for _, c := range cases {
		ino := uint64(c[0])
		if got, want := formatETag(ino, c[1], c[2]), fmt.Sprintf("%x-%x-%x", ino, c[1], c[2]); got != want {
			t.Fatalf("formatETag(%d, %d, %d) = %q, want %q", ino, c[1], c[2], got, want)
		}
	}
}
