package csvfmt

import (
	"reflect"
	"testing"
)

// TestReviewSplitLineEdges: inputs chosen to break the line fast path
// (a lone "\r" where ignoreLeadingWhiteSpace skips white space, control
// bytes, a BOM, lines past the read buffer, no final newline) give the
// rune-by-rune path's records.
func TestReviewSplitLineEdges(t *testing.T) {
	long := make([]byte, 0, 70000)
	for len(long) < 69000 {
		long = append(long, "abcdefgh,"...)
	}
	inputs := []string{
		"a,\rb\n",
		"x\na,\rb\nc\n",
		"x\na, \r\"b\"\n",
		"a, \r b\nc,d\n",
		"\rb,c\n",
		" \r\"q\",x\n",
		"a,\x00b,\x1f\n",
		"\uFEFF\uFEFFa,b\n",
		"a,b",
		"a,b\r",
		string(long) + "\n" + string(long) + "x\n",
		"a,\"b\r\"\n",
		"\"a\",\n\"\"\n",
	}
	optsList := []map[string]string{
		nil,
		{"ignoreLeadingWhiteSpace": "true"},
		{"ignoreLeadingWhiteSpace": "true", "ignoreTrailingWhiteSpace": "true", "multiLine": "true"},
		{"ignoreTrailingWhiteSpace": "true"},
		{"sep": "\t", "ignoreLeadingWhiteSpace": "true"},
	}
	for _, in := range inputs {
		for _, m := range optsList {
			o, err := ParseOptions(m)
			if err != nil {
				t.Fatal(err)
			}
			want := tokenizeAll(t, in, &o, false, false)
			for _, oneByte := range []bool{false, true} {
				if got := tokenizeAll(t, in, &o, true, oneByte); !reflect.DeepEqual(got, want) {
					t.Errorf("input %.60q options %v (one-byte reads %v):\nfast %v\nslow %v", in, m, oneByte, got, want)
				}
			}
		}
	}
}
