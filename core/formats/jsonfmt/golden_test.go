package jsonfmt

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenCase infers a schema from testdata/<input> (unless readDDL gives
// one) and reads the file with it; the schema, rows and stats are compared
// with testdata/<name>.golden.json.
type goldenCase struct {
	name    string
	input   string
	infer   fileformat.InferOptions
	hints   string
	readDDL string // explicit read schema; "" = the inferred one
	read    fileformat.ReadOptions
}

func TestGolden(t *testing.T) {
	rescue := fileformat.DefaultRescuedDataColumn
	cases := []goldenCase{
		{name: "strings_default", input: "strings.ndjson",
			infer: fileformat.InferOptions{RescuedDataColumn: rescue},
			read:  fileformat.ReadOptions{RescuedDataColumn: rescue, FilePath: "s3://bucket/in/strings.ndjson"}},
		{name: "strings_case_insensitive", input: "strings.ndjson",
			infer: fileformat.InferOptions{RescuedDataColumn: rescue},
			read:  fileformat.ReadOptions{RescuedDataColumn: rescue, CaseInsensitive: true, FilePath: "f.json"}},
		{name: "typed", input: "typed.ndjson",
			infer: fileformat.InferOptions{InferColumnTypes: true, RescuedDataColumn: rescue},
			read:  fileformat.ReadOptions{RescuedDataColumn: rescue, FilePath: "typed.ndjson"}},
		{name: "typed_prefers_decimal", input: "typed.ndjson",
			infer: fileformat.InferOptions{InferColumnTypes: true, PrefersDecimal: true},
			read:  fileformat.ReadOptions{FilePath: "typed.ndjson"}},
		{name: "hints_strings", input: "hints.ndjson",
			hints: "age INT, user_info.dob DATE, tags ARRAY<INT>, score DECIMAL(5,2), missing.deep BIGINT",
			infer: fileformat.InferOptions{RescuedDataColumn: rescue},
			read:  fileformat.ReadOptions{RescuedDataColumn: rescue, FilePath: "hints.ndjson"}},
		{name: "hints_typed", input: "hints.ndjson",
			hints: "user_id STRING, user_info.dob DATE",
			infer: fileformat.InferOptions{InferColumnTypes: true, RescuedDataColumn: rescue},
			read:  fileformat.ReadOptions{RescuedDataColumn: rescue, FilePath: "hints.ndjson"}},
		{name: "hints_no_rescue", input: "hints.ndjson",
			hints: "age INT, user_info.dob DATE, tags ARRAY<INT>",
			infer: fileformat.InferOptions{},
			read:  fileformat.ReadOptions{FilePath: "hints.ndjson"}},
		{name: "conversions", input: "conversions.ndjson",
			readDDL: "b TINYINT, s SMALLINT, i INT, l BIGINT, f FLOAT, d DOUBLE, bool BOOLEAN, dec DECIMAL(5,2), " +
				"date DATE, ts TIMESTAMP, ntz TIMESTAMP_NTZ, bin BINARY, m MAP<INT,STRING>, a ARRAY<INT>, " +
				"st STRUCT<x: INT, y: STRING>, _rescued_data STRING",
			read: fileformat.ReadOptions{RescuedDataColumn: rescue, FilePath: "conv.json"}},
		{name: "corrupt_permissive_rescue", input: "corrupt.ndjson",
			infer:   fileformat.InferOptions{InferColumnTypes: true, RescuedDataColumn: rescue},
			readDDL: "id BIGINT, name STRING, _rescued_data STRING",
			read:    fileformat.ReadOptions{RescuedDataColumn: rescue, FilePath: "bad.json"}},
		{name: "corrupt_permissive_column", input: "corrupt.ndjson",
			infer: fileformat.InferOptions{InferColumnTypes: true, RescuedDataColumn: rescue},
			read:  fileformat.ReadOptions{RescuedDataColumn: rescue, FilePath: "bad.json"}},
		{name: "corrupt_dropmalformed", input: "corrupt.ndjson",
			infer: fileformat.InferOptions{Mode: fileformat.DropMalformed},
			read:  fileformat.ReadOptions{Mode: fileformat.DropMalformed, FilePath: "bad.json"}},
		{name: "toplevel_array", input: "toplevel_array.ndjson",
			infer: fileformat.InferOptions{InferColumnTypes: true, RescuedDataColumn: rescue},
			read:  fileformat.ReadOptions{RescuedDataColumn: rescue, FilePath: "arr.json"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := runGolden(t, tc)
			path := filepath.Join("testdata", tc.name+".golden.json")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (run go test -update after checking):\n%s", path, got)
			}
		})
	}
}

func runGolden(t *testing.T, tc goldenCase) []byte {
	t.Helper()
	ctx := context.Background()
	data, err := os.ReadFile(filepath.Join("testdata", tc.input))
	if err != nil {
		t.Fatal(err)
	}
	var s *schema.StructType
	if tc.readDDL != "" {
		hs, err := schema.ParseDDL(tc.readDDL)
		if err != nil {
			t.Fatal(err)
		}
		s = schema.ApplyHints(nil, hs)
	} else {
		opts := tc.infer
		if tc.hints != "" {
			if opts.Hints, err = schema.ParseDDL(tc.hints); err != nil {
				t.Fatal(err)
			}
		}
		inf := Format{}.NewInferrer(opts)
		if err := inf.Add(ctx, tc.input, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		s = inf.Schema()
	}
	rr, err := Format{}.Open(ctx, bytes.NewReader(data), s, tc.read)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	var rows []any
	for {
		row, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(row) != len(s.Fields) {
			t.Fatalf("row has %d values, schema %d fields", len(row), len(s.Fields))
		}
		rows = append(rows, renderRow(s, row))
	}
	st := rr.Stats()
	if st.RowsRead != int64(len(rows)) {
		t.Errorf("RowsRead = %d, returned %d rows", st.RowsRead, len(rows))
	}
	out := map[string]any{
		"schema": schema.FormatDDL(hintsOf(s)),
		"rows":   rows,
		"stats":  st,
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func hintsOf(s *schema.StructType) []schema.HintField {
	out := make([]schema.HintField, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = schema.HintField{Path: []string{f.Name}, Type: f.Type, NotNull: !f.Nullable}
	}
	return out
}

// renderRow makes a row JSON-friendly and type-explicit.
func renderRow(s *schema.StructType, row []any) map[string]any {
	out := make(map[string]any, len(row))
	for i, f := range s.Fields {
		out[fmt.Sprintf("%02d:%s", i, f.Name)] = renderValue(row[i])
	}
	return out
}

func renderValue(v any) any {
	switch v := v.(type) {
	case nil, string, bool:
		return v
	case int64:
		return "long " + strconv.FormatInt(v, 10)
	case int32:
		return "int " + strconv.FormatInt(int64(v), 10)
	case int16:
		return "short " + strconv.FormatInt(int64(v), 10)
	case int8:
		return "byte " + strconv.FormatInt(int64(v), 10)
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) || v == 0 && math.Signbit(v) {
			return "double " + fmt.Sprint(v)
		}
		return "double " + strconv.FormatFloat(v, 'g', -1, 64)
	case float32:
		return "float " + strconv.FormatFloat(float64(v), 'g', -1, 32)
	case schema.Date:
		return "date " + time.Unix(int64(v)*86400, 0).UTC().Format("2006-01-02")
	case time.Time:
		return "ts " + v.Format(time.RFC3339Nano)
	case schema.Decimal:
		return fmt.Sprintf("decimal %se-%d", v.Unscaled, v.Scale)
	case []byte:
		return "binary " + base64.StdEncoding.EncodeToString(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = renderValue(e)
		}
		return out
	case []schema.MapEntry:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = []any{renderValue(e.Key), renderValue(e.Value)}
		}
		return map[string]any{"map": out}
	}
	return fmt.Sprintf("unexpected %T %v", v, v)
}
