package filestats

import (
	"testing"
)

func TestTruncateStrings(t *testing.T) {
	maxRune := "\U0010FFFF"
	tests := []struct {
		in       string
		prefix   int
		min, max string
		maxOK    bool
	}{
		{"abc", 3, "abc", "abc", true},
		{"abcd", 3, "abc", "abc\x7f", true},
		{"ab\x7fd", 2, "ab", "ab" + maxRune, true},
		{"abéd", 2, "ab", "ab" + maxRune, true},
		// A surrogate pair is not split: the prefix grows by one unit.
		{"a🎉bc", 2, "a🎉", "a🎉\x7f", true},
		// Max characters after the prefix are skipped.
		{"ab" + maxRune + "c", 2, "ab", "ab" + maxRune + "\x7f", true},
		// No upper bound within 2×prefix units.
		{"ab" + maxRune + maxRune + "c", 2, "ab", "", false},
		{"ab" + maxRune + maxRune, 2, "ab", "", false},
		{"ab" + maxRune, 2, "ab", "ab" + maxRune, true},
	}
	for _, tc := range tests {
		if got, _ := truncateMin(tc.in, tc.prefix); got != tc.min {
			t.Errorf("truncateMin(%q, %d) = %q, want %q", tc.in, tc.prefix, got, tc.min)
		}
		got, ok := truncateMax(tc.in, tc.prefix)
		if got != tc.max || ok != tc.maxOK {
			t.Errorf("truncateMax(%q, %d) = %q, %v; want %q, %v", tc.in, tc.prefix, got, ok, tc.max, tc.maxOK)
		}
		if ok && got < tc.in {
			t.Errorf("truncateMax(%q) = %q is below the input", tc.in, got)
		}
	}
}
