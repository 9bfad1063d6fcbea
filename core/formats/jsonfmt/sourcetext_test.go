package jsonfmt

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// TestStringColumnKeepsSourceText: a number, object or array read into a
// string column keeps the record's own text, white space and non-standard
// syntax included, as Spark 4.1.1 reads it (spark.sql.json.
// enableExactStringParsing, on by default; checked with PySpark 4.1.1 on
// these records). Both the row path and the batch path.
func TestStringColumnKeepsSourceText(t *testing.T) {
	lenient := map[string]string{"allowNumericLeadingZeros": "true", "allowSingleQuotes": "true",
		"allowComments": "true", "allowUnquotedFieldNames": "true", "allowNonNumericNumbers": "true"}
	cases := []struct {
		name   string
		record string
		opts   map[string]string
		want   any
	}{
		{"exponent", `{"a": 1.0e5}`, nil, "1.0e5"},
		{"upper exponent", `{"a": 1E2}`, nil, "1E2"},
		{"negative zero", `{"a": -0.0}`, nil, "-0.0"},
		{"beyond long", `{"a": 12345678901234567890}`, nil, "12345678901234567890"},
		{"beyond double", `{"a": 1e400}`, nil, "1e400"},
		{"trailing zero", `{"a": 123456789.1250}`, nil, "123456789.1250"},
		{"boolean", `{"a": true}`, nil, "true"},
		{"string", `{"a": "s\u00e9"}`, nil, "sé"},
		{"array with spaces", "{\"a\": [ 1 ,\t2.50 ] }", nil, "[ 1 ,\t2.50 ]"},
		{"object with escapes", `{"a": {  "b" : "x\u00e9\n" } }`, nil, `{  "b" : "x\u00e9\n" }`},
		{"leading zeros", `{"a": 007}`, lenient, "007"},
		{"lenient array", `{'a': [007, 'x', /*c*/ NaN]}`, lenient, `[007, 'x', /*c*/ NaN]`},
		{"unquoted names", `{a: {b : 'y'}}`, lenient, `{b : 'y'}`},
		{"invalid UTF-8", "{\"a\": [\"\xff\"]}", nil, "[\"\uFFFD\"]"},
		{"null", `{"a": null}`, nil, nil},
	}
	s := &schema.StructType{Fields: []schema.Field{{Name: "a", Type: schema.String, Nullable: true}}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.record + "\n"
			opts := fileformat.ReadOptions{Options: tc.opts}
			rr, err := Format{}.Open(context.Background(), strings.NewReader(doc), s, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Close()
			row, err := rr.Next()
			if err != nil {
				t.Fatal(err)
			}
			if row[0] != tc.want {
				t.Errorf("row path: %q, want %q", row[0], tc.want)
			}
			if _, err := rr.Next(); !errors.Is(err, io.EOF) {
				t.Fatalf("second record: %v", err)
			}
			row1, col := rowPath(t, doc, s, opts), batchPath(t, doc, s, opts, 1, 1, 0)
			compareResults(t, row1, col, doc)
		})
	}
}
