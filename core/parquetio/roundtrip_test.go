package parquetio

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/schema"
)

func field(name string, t schema.Type, nullable bool) schema.Field {
	return schema.Field{Name: name, Type: t, Nullable: nullable}
}

func structOf(fields ...schema.Field) *schema.StructType { return &schema.StructType{Fields: fields} }

// primitiveSchema has one nullable column of every primitive type, in an
// order that is not alphabetical.
func primitiveSchema() *schema.StructType {
	return structOf(
		field("s", schema.String, true),
		field("l", schema.Long, true),
		field("i", schema.Integer, true),
		field("sh", schema.Short, true),
		field("b", schema.Byte, true),
		field("d", schema.Double, true),
		field("f", schema.Float, true),
		field("bo", schema.Boolean, true),
		field("bin", schema.Binary, true),
		field("dt", schema.DateType, true),
		field("ts", schema.Timestamp, true),
		field("ntz", schema.TimestampNTZ, true),
		field("a_last", schema.Long, false),
	)
}

func primitiveRows() [][]any {
	return [][]any{
		{"hello", int64(1), int32(2), int16(3), int8(4), 1.5, float32(2.5), true, []byte{0, 1, 2},
			schema.Date(19723), ts("2024-01-02T03:04:05.123456Z"), ts("2024-01-02T03:04:05.123456Z"), int64(10)},
		{nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, int64(11)},
		{"", int64(math.MinInt64), int32(math.MinInt32), int16(math.MinInt16), int8(math.MinInt8),
			math.Inf(-1), float32(math.Inf(1)), false, []byte{},
			schema.Date(-719162), ts("0001-01-01T00:00:00Z"), ts("1969-12-31T23:59:59.999999Z"), int64(12)},
		{"ünïcødé 🎉", int64(math.MaxInt64), int32(math.MaxInt32), int16(math.MaxInt16), int8(math.MaxInt8),
			math.NaN(), float32(math.NaN()), true, []byte("xyz"),
			schema.Date(2932896), ts("9999-12-31T23:59:59.999999Z"), ts("2000-02-29T12:00:00+05:00"), int64(13)},
	}
}

func decimalSchema() *schema.StructType {
	return structOf(
		field("d52", schema.DecimalType{Precision: 5, Scale: 2}, true),
		field("d184", schema.DecimalType{Precision: 18, Scale: 4}, true),
		field("d1910", schema.DecimalType{Precision: 19, Scale: 10}, true),
		field("d3810", schema.DecimalType{Precision: 38, Scale: 10}, true),
		field("d200", schema.DecimalType{Precision: 20, Scale: 0}, false),
	)
}

func decimalRows() [][]any {
	return [][]any{
		{dec("12345", 2), dec("-123456789012345678", 4), dec("-9999999999999999999", 10), dec("99999999999999999999999999999999999999", 10), dec("12345678901234567890", 0)},
		{nil, nil, nil, nil, dec("-12345678901234567890", 0)},
		{dec("-5", 0), dec("1", 0), dec("0", 10), dec("-99999999999999999999999999999999999999", 10), dec("0", 0)},
		{dec("1", 2), dec("7", 1), dec("-1", 10), dec("-1", 0), dec("-1", 0)},
	}
}

func nestedSchema() *schema.StructType {
	inner := structOf(field("x", schema.Long, true), field("y", schema.String, false))
	return structOf(
		field("id", schema.Long, false),
		field("st", structOf(field("z", schema.Integer, true), field("a", schema.String, true), field("n", inner, true)), true),
		field("arr", &schema.ArrayType{Element: schema.Long, ContainsNull: true}, true),
		field("arr_req", &schema.ArrayType{Element: schema.String, ContainsNull: false}, false),
		field("los", &schema.ArrayType{Element: inner, ContainsNull: true}, true),
		field("m", &schema.MapType{Key: schema.String, Value: schema.Long, ValueContainsNull: true}, true),
		field("moa", &schema.MapType{Key: schema.Integer, Value: &schema.ArrayType{Element: schema.Double, ContainsNull: true}, ValueContainsNull: true}, true),
		field("aoa", &schema.ArrayType{Element: &schema.ArrayType{Element: schema.Integer, ContainsNull: true}, ContainsNull: true}, true),
		field("mos", &schema.MapType{Key: schema.Long, Value: inner, ValueContainsNull: false}, true),
		field("ts_in_list", &schema.ArrayType{Element: schema.Timestamp, ContainsNull: true}, true),
		field("dec_in_map", &schema.MapType{Key: schema.String, Value: schema.DecimalType{Precision: 25, Scale: 3}, ValueContainsNull: true}, true),
	)
}

func nestedRows() [][]any {
	e := []any{}
	return [][]any{
		{ // everything present
			int64(1),
			[]any{int32(7), "a", []any{int64(1), "y1"}},
			[]any{int64(1), nil, int64(3)},
			[]any{"p", "q"},
			[]any{[]any{int64(5), "five"}, nil, []any{nil, "six"}},
			[]schema.MapEntry{{Key: "k1", Value: int64(1)}, {Key: "k2", Value: nil}},
			[]schema.MapEntry{{Key: int32(1), Value: []any{1.5, nil}}, {Key: int32(2), Value: nil}, {Key: int32(3), Value: e}},
			[]any{[]any{int32(1), int32(2)}, nil, e, []any{nil}},
			[]schema.MapEntry{{Key: int64(9), Value: []any{nil, "nine"}}},
			[]any{ts("2024-05-06T07:08:09.000001Z"), nil},
			[]schema.MapEntry{{Key: "x", Value: dec("-1234567890123456789012", 3)}, {Key: "y", Value: nil}},
		},
		{ // nulls at the top
			int64(2), nil, nil, e, nil, nil, nil, nil, nil, nil, nil,
		},
		{ // empties and nulls one level down
			int64(3),
			[]any{nil, nil, nil},
			e,
			[]any{""},
			e,
			[]schema.MapEntry{},
			[]schema.MapEntry{{Key: int32(0), Value: []any{nil}}},
			[]any{nil, nil},
			[]schema.MapEntry{},
			[]any{nil},
			[]schema.MapEntry{},
		},
		{ // list of nulls only, single elements
			int64(4),
			[]any{nil, "only a", []any{nil, ""}},
			[]any{nil},
			e,
			[]any{nil},
			[]schema.MapEntry{{Key: "", Value: nil}},
			[]schema.MapEntry{{Key: int32(-1), Value: nil}},
			[]any{e},
			[]schema.MapEntry{{Key: int64(-1), Value: []any{int64(0), "z"}}, {Key: int64(2), Value: []any{nil, "w"}}},
			e,
			[]schema.MapEntry{{Key: "z", Value: dec("0", 3)}},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		s    *schema.StructType
		rows [][]any
		opts WriterOptions
	}{
		{"primitives", primitiveSchema(), primitiveRows(), WriterOptions{}},
		{"primitives-zstd", primitiveSchema(), primitiveRows(), WriterOptions{Compression: "zstd"}},
		{"decimals", decimalSchema(), decimalRows(), WriterOptions{}},
		{"nested", nestedSchema(), nestedRows(), WriterOptions{}},
		{"nested-gzip-tiny-row-groups", nestedSchema(), nestedRows(), WriterOptions{Compression: "gzip", RowGroupRows: 1}},
		{"nested-uncompressed", nestedSchema(), nestedRows(), WriterOptions{Compression: "uncompressed", RowGroupBytes: 1}},
		{"no-rows", nestedSchema(), nil, WriterOptions{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, st := writeFile(t, tc.s, tc.rows, tc.opts)
			if st.NumRecords != int64(len(tc.rows)) {
				t.Errorf("NumRecords = %d, want %d", st.NumRecords, len(tc.rows))
			}

			as, got := readArrow(t, data, tc.s)
			compareRows(t, "pqarrow", tc.s, tc.rows, got)
			if len(as.Fields()) != len(tc.s.Fields) {
				t.Fatalf("arrow schema has %d fields, want %d", len(as.Fields()), len(tc.s.Fields))
			}
			for i, f := range tc.s.Fields {
				if g, w := fieldString(as.Field(i)), deltaFieldString(f.Name, f.Type, f.Nullable); g != w {
					t.Errorf("arrow field %d:\n got %s\nwant %s", i, g, w)
				}
			}

			rs, own, err := ReadFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatalf("ReadFile: %v", err)
			}
			if rs.String() != tc.s.String() {
				t.Errorf("ReadFile schema\n got %s\nwant %s", rs, tc.s)
			}
			for i, f := range tc.s.Fields {
				if rs.Fields[i].Nullable != f.Nullable {
					t.Errorf("ReadFile field %s nullable = %v", f.Name, rs.Fields[i].Nullable)
				}
			}
			compareRows(t, "ReadFile", tc.s, tc.rows, own)

			n, err := NumRows(bytes.NewReader(data), int64(len(data)))
			if err != nil || n != int64(len(tc.rows)) {
				t.Errorf("NumRows = %d, %v; want %d", n, err, len(tc.rows))
			}
		})
	}
}

// TestTimestampsAreMicros checks the wire values: nanoseconds are dropped
// (floor), the instant is kept for non-UTC locations.
func TestTimestampsAreMicros(t *testing.T) {
	s := structOf(field("ts", schema.Timestamp, false), field("ntz", schema.TimestampNTZ, false))
	in := time.Date(2024, 3, 4, 5, 6, 7, 891234567, time.FixedZone("X", 3600))
	data, _ := writeFile(t, s, [][]any{{in, in}}, WriterOptions{})
	_, rows, err := ReadFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2024, 3, 4, 4, 6, 7, 891234000, time.UTC)
	for i, v := range rows[0] {
		if got := v.(time.Time); !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("column %d = %v, want %v", i, got, want)
		}
	}
}

// TestMultipleRowGroups checks that row-group limits split the file and the
// rows survive in order.
func TestMultipleRowGroups(t *testing.T) {
	s := structOf(field("id", schema.Long, false), field("s", schema.String, true))
	var rows [][]any
	for i := range 1000 {
		rows = append(rows, []any{int64(i), strings.Repeat("x", i%50)})
	}
	tests := []struct {
		name      string
		opts      WriterOptions
		minGroups int
	}{
		{"by-rows", WriterOptions{RowGroupRows: 100}, 10},
		{"by-bytes", WriterOptions{RowGroupBytes: 4096}, 5},
		{"default", WriterOptions{}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, s, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(rows); i += 77 {
				if err := w.Write(rows[i:min(i+77, len(rows))]); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := w.Close(); err != nil {
				t.Fatal(err)
			}
			groups := countRowGroups(t, buf.Bytes())
			if groups < tc.minGroups || (tc.minGroups == 1 && groups != 1) {
				t.Errorf("%d row groups, want >= %d", groups, tc.minGroups)
			}
			_, got := readArrow(t, buf.Bytes(), s)
			compareRows(t, "pqarrow", s, rows, got)
		})
	}
}
