package jsoninfer

import (
	"strings"
	"testing"
)

// TestReviewScanEdges: the type scanner infers what the tape path infers
// on edge documents (duplicate and case-colliding keys, decimals at and
// past precision 38, int64 limits, -0 and huge exponents, deep nesting of
// nullable lists, empty containers, invalid UTF-8, a BOM, no final
// newline, a malformed last line) under option combinations.
func TestReviewScanEdges(t *testing.T) {
	deep := strings.Repeat("[", 40) + "null,1" + strings.Repeat("]", 40)
	docs := []string{
		`{"a":1,"a":"x"}` + "\n" + `{"a":2.5,"A":true}` + "\n" + `{"A":{"b":1},"a":null}` + "\n",
		`{"d":12345678901234567890123456789012345678}` + "\n" + `{"d":1234567890123456789012345678901234567.8}` + "\n" + `{"d":123456789012345678901234567890123456789}` + "\n",
		`{"d":0.00000000000000000000000000000000000001}` + "\n" + `{"d":1e-40}` + "\n" + `{"d":1.0}` + "\n",
		`{"l":9223372036854775807}` + "\n" + `{"l":-9223372036854775808}` + "\n" + `{"l":9223372036854775808}` + "\n" + `{"l":-0}` + "\n" + `{"l":1e309}` + "\n",
		`{"x":` + deep + `}` + "\n" + `{"x":[[[[null]]]]}` + "\n" + `{"x":[]}` + "\n",
		`{"e":{},"f":[],"g":[{}],"h":[[]],"n":null}` + "\n" + `{"e":{"z":null}}` + "\n" + `[]` + "\n" + `[{}]` + "\n",
		"{\"k\xff\":1,\"s\":\"\xfe\"}\n{\"s\":\"\\ud800\"}\n",
		"\uFEFF{\"a\":1}\n{\"a\":\"2024-03-01T10:00:00Z\"}",
		`{"a":1}` + "\n" + `{"a":`,
		`{"a":1}` + "\r\n" + `{"b":[1,2.5,"x",null]}` + "\r\n\r\n",
		strings.Repeat(`{"n":null,"m":[null,null]}`+"\n", 500) + `{"n":1}` + "\n",
		`{"ts":"2024-03-01T00:00:00.123456Z","dt":"2024-03-01","t2":"01/03/2024 10:11","d2":"01/03/2024"}` + "\n" + `{"ts":"2024-13-01T00:00:00Z"}` + "\n",
		`{"a":{"b":{"c":{"d":[{"e":1},{"E":2},{"e":"x"}]}}}}` + "\n",
		"   \n\t\n",
		"",
	}
	for i, doc := range docs {
		files := splitFiles([]byte(doc))
		for _, bits := range []uint32{0, 1, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1<<5 | 1<<7, 1 << 6, 1 << 8, 1<<8 | 1<<9 | 1<<10, 1 << 11, 1<<11 | 1<<12, 1<<13 | 1<<15 | 1<<16, 1 << 18, 1 << 19, 1<<22 | 1<<1} {
			opts := scanOptions(t, bits)
			for _, chunk := range []int{-1, 1, 64} {
				want, _ := inferWith(opts, files, true, chunk)
				got, _ := inferWith(opts, files, false, chunk)
				if got != want {
					t.Errorf("doc %d bits %#x chunk %d:\ntape %s\nscan %s\ndata:\n%q", i, bits, chunk, want, got, doc)
				}
			}
		}
	}
}
