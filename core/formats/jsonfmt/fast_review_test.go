package jsonfmt

import (
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// TestReviewFastEdges runs the differential check (row path, batch path
// with and without the fast decoder, serial and parallel) on edge-case
// documents chosen to break the fast paths.
func TestReviewFastEdges(t *testing.T) {
	flat := func(extra ...schema.Field) *schema.StructType {
		s := &schema.StructType{Fields: []schema.Field{
			{Name: "s", Type: schema.String, Nullable: true},
			{Name: "l", Type: schema.Long, Nullable: true},
			{Name: "d", Type: schema.Double, Nullable: true},
			{Name: "b", Type: schema.Boolean, Nullable: true},
			{Name: "a", Type: &schema.ArrayType{Element: &schema.ArrayType{Element: schema.Long, ContainsNull: true}, ContainsNull: true}, Nullable: true},
			{Name: "o", Type: &schema.StructType{Fields: []schema.Field{{Name: "x", Type: schema.Long, Nullable: true}, {Name: "X", Type: schema.String, Nullable: true}}}, Nullable: true},
		}}
		s.Fields = append(s.Fields, extra...)
		return s
	}
	corrupt := schema.Field{Name: fileformat.DefaultCorruptRecordColumn, Type: schema.String, Nullable: true}
	rescued := schema.Field{Name: fileformat.DefaultRescuedDataColumn, Type: schema.String, Nullable: true}
	docs := map[string]string{
		"escape and invalid UTF-8":   "{\"s\":\"\\u0041\xff\"}\n{\"s\":\"\\n\xc3\"}\n",
		"invalid UTF-8 key":          "{\"s\\u0041\xff\":1}\n",
		"corrupt column as a key":    `{"l":1,"_corrupt_record":"zz"}` + "\n",
		"corrupt column wrong type":  `{"l":1,"_corrupt_record":5}` + "\n",
		"no trailing newline":        `{"l":1}` + "\n" + `{"l":2}`,
		"malformed last line":        `{"l":1}` + "\n" + `{"l":`,
		"CRLF":                       "{\"l\":1}\r\n{\"l\":2}\r\n\r\n",
		"BOM":                        "\xef\xbb\xbf{\"l\":1}\n{\"l\":2}\n",
		"empty":                      "",
		"blank lines":                "\n\n  \n",
		"long edges":                 `{"l":999999999999999999}` + "\n" + `{"l":-9223372036854775808}` + "\n" + `{"l":9223372036854775807}` + "\n" + `{"l":9223372036854775808}` + "\n",
		"double edges":               `{"d":-0.0}` + "\n" + `{"d":0}` + "\n" + `{"d":-0}` + "\n" + `{"d":4503599627370495.5}` + "\n" + `{"d":1e-400}` + "\n" + `{"d":-1e400}` + "\n" + `{"d":0.30000000000000004}` + "\n",
		"nested nullable lists":      `{"a":[[1,null],null,[],[null]]}` + "\n" + `{"a":[]}` + "\n" + `{"a":null}` + "\n" + `{"a":[null,null]}` + "\n" + `{}` + "\n",
		"case colliding keys":        `{"o":{"x":1,"X":"a"}}` + "\n" + `{"o":{"X":"b","x":2}}` + "\n" + `{"O":{"x":3}}` + "\n",
		"huge string":                `{"s":"` + strings.Repeat("é", 300000) + `"}` + "\n" + `{"s":"` + strings.Repeat("x", 1<<20) + `\n"}` + "\n",
		"nulls run":                  strings.Repeat(`{"s":null,"l":null,"d":null,"b":null,"a":null,"o":null}`+"\n", 600),
		"string from scalars":        `{"s":1.0e5}` + "\n" + `{"s":-0}` + "\n" + `{"s":true}` + "\n" + `{"s":12345678901234567890123}` + "\n",
		"NUL and surrogate escapes":  `{"s":"\u0000\ud800\udc00\udfff"}` + "\n",
		"whitespace around":          " \t{ \"l\" : 1 } \t\n",
		"nested object null members": `{"o":{}}` + "\n" + `{"o":null}` + "\n" + `{"o":{"x":null}}` + "\n",
	}
	for name, doc := range docs {
		for _, extra := range [][]schema.Field{nil, {corrupt}, {rescued}} {
			for _, mode := range []fileformat.ParseMode{fileformat.Permissive, fileformat.DropMalformed, fileformat.FailFast} {
				opts := fileformat.ReadOptions{FilePath: "s3://b/in/f.json", Mode: mode}
				if len(extra) == 1 && extra[0].Name == rescued.Name {
					opts.RescuedDataColumn = rescued.Name
				}
				for _, ci := range []bool{false, true} {
					opts.CaseInsensitive = ci
					t.Run(name, func(t *testing.T) {
						checkSamePaths(t, randomCase{s: flat(extra...), doc: doc, opts: opts}, 3)
					})
				}
			}
		}
	}
}
