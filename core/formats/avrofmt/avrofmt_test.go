package avrofmt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

var update = flag.Bool("update", os.Getenv("UPDATE_GOLDEN") != "", "rewrite golden files")

// writeOCF encodes records with hamba/avro's container writer (an
// implementation independent of this package's reader).
func writeOCF(t testing.TB, schemaJSON, codec string, records []any) []byte {
	t.Helper()
	return writeOCFBlocks(t, schemaJSON, codec, 2, records)
}

// writeOCFBlocks is writeOCF with blockLen records per block.
func writeOCFBlocks(t testing.TB, schemaJSON, codec string, blockLen int, records []any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc, err := ocf.NewEncoder(schemaJSON, &buf, ocf.WithCodec(ocf.CodecName(codec)), ocf.WithBlockLength(blockLen), ocf.WithEncoderSchemaCache(&avro.SchemaCache{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if err := enc.Encode(r); err != nil {
			t.Fatalf("encoding %v: %v", r, err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readRows infers the schema of data and reads it back.
func readRows(t testing.TB, data []byte, opts fileformat.ReadOptions) (*schema.StructType, [][]any, fileformat.ReadStats, error) {
	t.Helper()
	inf := Format{}.NewInferrer(fileformat.InferOptions{RescuedDataColumn: opts.RescuedDataColumn, Options: opts.Options})
	if err := inf.Add(context.Background(), "f.avro", bytes.NewReader(data)); err != nil {
		return nil, nil, fileformat.ReadStats{}, err
	}
	s := inf.Schema()
	rows, st, err := readWith(t, data, s, opts)
	return s, rows, st, err
}

func readWith(t testing.TB, data []byte, s *schema.StructType, opts fileformat.ReadOptions) ([][]any, fileformat.ReadStats, error) {
	rr, err := Format{}.Open(context.Background(), bytes.NewReader(data), s, opts)
	if err != nil {
		return nil, fileformat.ReadStats{}, err
	}
	defer rr.Close()
	var rows [][]any
	for {
		row, err := rr.Next()
		if errors.Is(err, io.EOF) {
			return rows, rr.Stats(), nil
		}
		if err != nil {
			return rows, rr.Stats(), err
		}
		rows = append(rows, row)
	}
}

// show prints a row value for golden files.
func show(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = show(e)
		}
		return out
	case []schema.MapEntry:
		out := map[string]any{}
		for _, e := range x {
			out[fmt.Sprint(e.Key)] = show(e.Value)
		}
		return out
	case schema.Decimal:
		return "decimal:" + decimalText(x)
	case schema.Date:
		return "date:" + time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02")
	case time.Time:
		return "ts:" + x.Format(time.RFC3339Nano)
	case []byte:
		return fmt.Sprintf("bytes:%x", x)
	}
	return fmt.Sprintf("%T:%v", v, v)
}

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with UPDATE_GOLDEN=1 to create)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file:\n%s", name, got)
	}
}

// goldenCases are the tricky schemas; each is written to
// testdata/<name>.avro (deflate) and its schema and rows to
// testdata/<name>.golden.json.
var goldenCases = []struct {
	name    string
	schema  string
	records []any
}{
	{"unions", `{"type":"record","name":"r","fields":[
		{"name":"opt","type":["null","string"]},
		{"name":"optLast","type":["long","null"]},
		{"name":"intLong","type":["int","long"]},
		{"name":"floatDouble","type":["null","float","double"]},
		{"name":"multi","type":["null","int","string",{"type":"record","name":"inner","fields":[{"name":"x","type":"int"}]}]},
		{"name":"onlyNull","type":"null"}]}`,
		[]any{
			map[string]any{"opt": map[string]any{"string": "a"}, "optLast": map[string]any{"long": int64(1)}, "intLong": map[string]any{"int": 7}, "floatDouble": map[string]any{"float": float32(1.5)}, "multi": map[string]any{"int": 3}, "onlyNull": nil},
			map[string]any{"opt": nil, "optLast": nil, "intLong": map[string]any{"long": int64(1) << 40}, "floatDouble": map[string]any{"double": 2.25}, "multi": map[string]any{"string": "s"}, "onlyNull": nil},
			map[string]any{"opt": nil, "optLast": nil, "intLong": map[string]any{"int": -1}, "floatDouble": nil, "multi": map[string]any{"inner": map[string]any{"x": 9}}, "onlyNull": nil},
		}},
	{"logical", `{"type":"record","name":"r","fields":[
		{"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
		{"name":"decFixed","type":{"type":"fixed","name":"f8","size":8,"logicalType":"decimal","precision":18,"scale":4}},
		{"name":"day","type":{"type":"int","logicalType":"date"}},
		{"name":"tsMillis","type":{"type":"long","logicalType":"timestamp-millis"}},
		{"name":"tsMicros","type":{"type":"long","logicalType":"timestamp-micros"}},
		{"name":"local","type":{"type":"long","logicalType":"local-timestamp-micros"}},
		{"name":"id","type":{"type":"string","logicalType":"uuid"}},
		{"name":"tm","type":{"type":"int","logicalType":"time-millis"}}]}`,
		[]any{
			map[string]any{"dec": big.NewRat(-12345, 100), "decFixed": big.NewRat(1, 10000), "day": time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), "tsMillis": time.Date(2024, 1, 2, 3, 4, 5, 6e6, time.UTC), "tsMicros": time.Date(1969, 12, 31, 23, 59, 59, 999999e3, time.UTC), "local": time.Date(2020, 6, 1, 12, 0, 0, 1000, time.UTC), "id": "0b7e8a9c-4f1e-4c39-9d0e-6f0a1b2c3d4e", "tm": time.Duration(3723004) * time.Millisecond},
		}},
	{"nested", `{"type":"record","name":"r","namespace":"ns","fields":[
		{"name":"user","type":{"type":"record","name":"u","fields":[{"name":"name","type":"string"},{"name":"tags","type":{"type":"array","items":"string"}}]}},
		{"name":"scores","type":{"type":"map","values":["null","double"]}},
		{"name":"color","type":{"type":"enum","name":"c","symbols":["RED","GREEN"]}},
		{"name":"raw","type":"bytes"},
		{"name":"md5","type":{"type":"fixed","name":"h","size":4}},
		{"name":"points","type":{"type":"array","items":{"type":"record","name":"p","fields":[{"name":"x","type":"int"},{"name":"y","type":"float"}]}}},
		{"name":"flag","type":"boolean"}]}`,
		[]any{
			map[string]any{"user": map[string]any{"name": "ann", "tags": []any{"a", "b"}}, "scores": map[string]any{"m": map[string]any{"double": 1.0}, "z": nil}, "color": "GREEN", "raw": []byte{0, 255}, "md5": [4]byte{1, 2, 3, 4}, "points": []any{map[string]any{"x": 1, "y": float32(0.5)}}, "flag": true},
			map[string]any{"user": map[string]any{"name": "", "tags": []any{}}, "scores": map[string]any{}, "color": "RED", "raw": []byte{}, "md5": [4]byte{}, "points": []any{}, "flag": false},
		}},
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join("testdata", tc.name+".avro")
			if *update {
				if err := os.WriteFile(path, writeOCF(t, tc.schema, "deflate", tc.records), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, rows, _, err := readRows(t, data, fileformat.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			fmt.Fprintf(&out, "schema: %s\n", schema.FormatDDL(hintsOf(s)))
			for _, r := range rows {
				b, _ := json.Marshal(show(r))
				fmt.Fprintf(&out, "%s\n", b)
			}
			golden(t, tc.name+".golden.txt", out.Bytes())
		})
	}
}

func hintsOf(s *schema.StructType) []schema.HintField {
	var h []schema.HintField
	for _, f := range s.Fields {
		h = append(h, schema.HintField{Path: []string{f.Name}, Type: f.Type})
	}
	return h
}
