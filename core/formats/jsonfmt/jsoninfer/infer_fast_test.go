package jsoninfer

import (
	"strconv"
	"testing"
)

// TestFitsInt64 checks the conversion-free check against strconv on the
// edges of the 18-digit shortcut and of int64.
func TestFitsInt64(t *testing.T) {
	for _, raw := range []string{
		"0", "-0", "7", "-7", "999999999999999999", "-999999999999999999",
		"1000000000000000000", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "99999999999999999999", "00000000000000000001",
	} {
		_, err := strconv.ParseInt(raw, 10, 64)
		if got, want := fitsInt64([]byte(raw)), err == nil; got != want {
			t.Errorf("fitsInt64(%s) = %v, want %v", raw, got, want)
		}
	}
}
