package fileformat

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// checkISOMicros: what ISOMicros reads, ParseTimestamp reads
// to the same instant (microseconds).
func checkISOMicros(t *testing.T, s string) bool {
	t.Helper()
	got, ok := ISOMicros(s)
	if !ok {
		return false
	}
	want, wok := ParseTimestamp(s, false)
	if !wok || want.UnixMicro() != got {
		t.Fatalf("ISOMicros(%q) = %d; ParseTimestamp %v (%d), %v", s, got, want, want.UnixMicro(), wok)
	}
	return true
}

// FuzzISOMicros checks the timestamp fast path against ParseTimestamp.
func FuzzISOMicros(f *testing.F) {
	for _, s := range []string{"2024-03-01T00:00:00.037527Z", "2024-02-29T23:59:59Z", "1900-02-29T00:00:00Z", "0000-01-01T00:00:00.123456789Z",
		"9999-12-31T23:59:59.999999Z", "2024-13-01T00:00:00Z", "2024-03-01T24:00:00Z", "2024-03-01 00:00:00Z", "2024-03-01T00:00:00.Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkISOMicros(t, s) })
}

// TestISOMicrosRandom: random timestamps of the common form (any year,
// days past the month's end, hours, minutes and seconds out of range,
// fractions of 0 to 10 digits) read the same both ways, and the fast path
// takes the valid ones.
func TestISOMicrosRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 24))
	taken := 0
	for i := 0; i < 200000; i++ {
		s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", r.IntN(10000), r.IntN(14), r.IntN(33), r.IntN(26), r.IntN(62), r.IntN(62))
		if k := r.IntN(11); k > 0 {
			s += "."
			for ; k > 1; k-- {
				s += string(rune('0' + r.IntN(10)))
			}
		}
		s += "Z"
		if checkISOMicros(t, s) {
			taken++
		} else if _, ok := ParseTimestamp(s, false); ok && len(s) >= 22 && s[19] == '.' && len(s) <= 30 {
			t.Fatalf("ISOMicros refused %q, which ParseTimestamp reads", s)
		}
	}
	if taken < 50000 {
		t.Fatalf("the fast path took %d of 200000", taken)
	}
	for _, s := range []string{"2024-03-01T00:00:00Z", "2024-03-01T00:00:00.1Z"} {
		if !checkISOMicros(t, s) {
			t.Fatalf("ISOMicros refused %q", s)
		}
	}
}

// TestDaysSinceEpoch: the calendar arithmetic that ParseDate and
// ISOMicros use counts days as time.Date does, for every month of years 0
// to 9999 (first and last day) and random days.
func TestDaysSinceEpoch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for y := 0; y <= 9999; y++ {
		for m := 1; m <= 12; m++ {
			last := time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
			if got := daysIn(y, m); got != last {
				t.Fatalf("daysIn(%d, %d) = %d, want %d", y, m, got, last)
			}
			for _, d := range []int{1, last, 1 + r.IntN(last)} {
				want := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
				if got := daysSinceEpoch(y, m, d); got != want {
					t.Fatalf("daysSinceEpoch(%d, %d, %d) = %d, want %d", y, m, d, got, want)
				}
			}
		}
	}
}
