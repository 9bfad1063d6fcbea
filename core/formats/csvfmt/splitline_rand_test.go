package csvfmt

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestSplitLineRandom: on random documents made of the bytes the line
// fast path looks for (delimiters, quotes, escapes, "\r", white space,
// non-ASCII and invalid UTF-8) under random options, the fast path
// (bytes.IndexByte over the line, values as views of the read buffer)
// gives the rune-by-rune path's records.
func TestSplitLineRandom(t *testing.T) {
	pieces := []string{"a", "bc", "12", ",", ",", ";", "\"", "\"", "'", "\\", "#", " ", "\t", "\r", "\n", "\n", "\r\n", "é", "日本", "\xff", "\x00"}
	optsList := []map[string]string{
		nil,
		{"escape": `"`},
		{"sep": ";", "quote": "'"},
		{"quote": ""},
		{"escape": "#", "charToEscapeQuoteEscaping": "\\"},
		{"escape": "", "charToEscapeQuoteEscaping": "#"},
		{"ignoreLeadingWhiteSpace": "true", "ignoreTrailingWhiteSpace": "true"},
		{"sep": "\t", "ignoreTrailingWhiteSpace": "true", "maxColumns": "3"},
		{"quote": ",", "sep": ","},
		{"escape": ",", "unescapedQuoteHandling": "RAISE_ERROR"},
		{"unescapedQuoteHandling": "SKIP_VALUE", "comment": "#"},
	}
	rng := rand.New(rand.NewPCG(11, 6))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		var b strings.Builder
		for k := rng.IntN(60); k > 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		in := b.String()
		if rng.IntN(4) == 0 {
			in += "<ERR>"
		}
		m := optsList[rng.IntN(len(optsList))]
		o, err := ParseOptions(m)
		if err != nil {
			continue
		}
		want := tokenizeAll(t, in, &o, false, false)
		if got := tokenizeAll(t, in, &o, true, false); !reflect.DeepEqual(got, want) {
			t.Fatalf("input %q options %v:\nfast %+v\nslow %+v", in, m, got, want)
		}
	}
}
