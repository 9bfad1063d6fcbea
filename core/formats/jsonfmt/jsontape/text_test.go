package jsontape

import (
	"strings"
	"testing"
)

// TestTextInvalidUTF8 checks that Text replaces invalid UTF-8 wherever it
// sits in a string (in the 8-byte steps of the scanner or after them) and
// keeps valid text, ASCII or not, as it is.
func TestTextInvalidUTF8(t *testing.T) {
	for _, bad := range []string{"\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80"} {
		for pos := 0; pos <= 20; pos++ {
			for _, tail := range []string{"", "abcdefghijklmnop", "é"} {
				s := strings.Repeat("a", pos) + bad + tail
				tp := Tape{Owned: pos%2 == 0}
				if err := tp.Parse([]byte(`"` + s + `"`)); err != nil {
					t.Fatal(err)
				}
				if got, want := tp.Text(0), string([]rune(s)); got != want {
					t.Fatalf("Text of %q = %q, want %q", s, got, want)
				}
			}
		}
	}
	for _, s := range []string{"", "plain", "Grüße", strings.Repeat("x", 17) + "✓", "\u00e9" + strings.Repeat("y", 9)} {
		tp := Tape{}
		if err := tp.Parse([]byte(`"` + s + `"`)); err != nil {
			t.Fatal(err)
		}
		if got := tp.Text(0); got != s {
			t.Fatalf("Text of %q = %q", s, got)
		}
	}
}
