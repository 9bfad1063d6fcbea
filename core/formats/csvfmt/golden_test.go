package csvfmt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGolden infers and reads the tricky files in testdata/ (quoted
// newlines, byte order marks in UTF-8 and UTF-16, semicolons with decimal
// commas, escapes, Spark's inference order) and compares the schema, rows
// and stats with testdata/<name>.golden (go test -update rewrites them).
func TestGolden(t *testing.T) {
	tests := []struct {
		name, file string
		opts       map[string]string
		text       fileformat.TextOptions
		infer      bool
	}{
		{"quoted_newlines", "quoted_newlines.csv", map[string]string{"header": "true", "multiLine": "true"}, fileformat.TextOptions{}, true},
		{"quoted_newlines_lines", "quoted_newlines.csv", map[string]string{"header": "true"}, fileformat.TextOptions{}, true},
		{"bom_utf8", "bom_utf8.csv", map[string]string{"header": "true"}, fileformat.TextOptions{}, true},
		{"bom_utf16", "bom_utf16.csv", map[string]string{"header": "true", "sep": ";"}, fileformat.TextOptions{Encoding: "UTF-16"}, true},
		{"semicolons", "semicolons.csv", map[string]string{"header": "true", "sep": ";"}, fileformat.TextOptions{}, true},
		{"escapes", "escapes.csv", map[string]string{"header": "true"}, fileformat.TextOptions{}, false},
		{"escapes_rfc4180", "escapes.csv", map[string]string{"header": "true", "escape": "\""}, fileformat.TextOptions{}, false},
		{"escapes_cte", "escapes.csv", map[string]string{"header": "true", "charToEscapeQuoteEscaping": "#", "quote": "\"", "escape": "\\"}, fileformat.TextOptions{}, false},
		{"inference", "inference.csv", map[string]string{"header": "true"}, fileformat.TextOptions{}, true},
		{"inference_strings", "inference.csv", map[string]string{"header": "true"}, fileformat.TextOptions{}, false},
		{"no_header", "semicolons.csv", map[string]string{"sep": ";"}, fileformat.TextOptions{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got := render(t, data, tc.opts, tc.text, tc.infer)
			golden := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update creates it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs:\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}

// render infers a schema from data and reads data with it.
func render(t *testing.T, data []byte, opts map[string]string, text fileformat.TextOptions, infer bool) string {
	t.Helper()
	ctx := context.Background()
	inf := Format{}.NewInferrer(fileformat.InferOptions{Options: opts, Text: text, InferColumnTypes: infer, RescuedDataColumn: fileformat.DefaultRescuedDataColumn})
	if err := inf.Add(ctx, "f.csv", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	s := inf.Schema()
	var b strings.Builder
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "option %s=%q\n", k, opts[k])
	}
	if text.Encoding != "" {
		fmt.Fprintf(&b, "encoding %s\n", text.Encoding)
	}
	fmt.Fprintf(&b, "inferColumnTypes %v\nschema %s\n", infer, schema.DDLType(s))
	rr, err := Format{}.Open(ctx, bytes.NewReader(data), s, fileformat.ReadOptions{Options: opts, Text: text, FilePath: "f.csv", RescuedDataColumn: fileformat.DefaultRescuedDataColumn})
	if err != nil {
		t.Fatal(err)
	}
	for {
		row, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		js, err := json.Marshal(printable(row))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "row %s\n", js)
	}
	st := rr.Stats()
	fmt.Fprintf(&b, "stats rows=%d rescued=%d corrupt=%d unknown=%v mismatched=%v\n", st.RowsRead, st.RowsRescued, st.CorruptRecords, st.UnknownFields, st.MismatchedFields)
	return b.String()
}

// printable makes values JSON-friendly (decimals, NaN and infinities as text).
func printable(row []any) []any {
	out := make([]any, len(row))
	for i, v := range row {
		switch x := v.(type) {
		case schema.Decimal:
			out[i] = fmt.Sprintf("%s scale %d", x.Unscaled, x.Scale)
		case float64, float32:
			out[i] = fmt.Sprint(x)
		default:
			out[i] = v
		}
	}
	return out
}
