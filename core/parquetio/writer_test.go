package parquetio

import (
	"bytes"
	"errors"
	"io"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tributary-io/tributary/core/parquetio/internal/ptree"
	"github.com/tributary-io/tributary/core/schema"
)

func TestWriteRejectsBadValues(t *testing.T) {
	s := structOf(
		field("id", schema.Long, false),
		field("st", structOf(field("a", schema.Integer, true), field("req", schema.String, false)), true),
		field("arr", &schema.ArrayType{Element: schema.Long, ContainsNull: false}, true),
		field("m", &schema.MapType{Key: schema.String, Value: schema.DecimalType{Precision: 4, Scale: 2}, ValueContainsNull: true}, true),
		field("ts", schema.Timestamp, true),
	)
	good := []any{int64(1), nil, nil, nil, nil}
	tests := []struct {
		name string
		row  []any
		want string // substring of the error
	}{
		{"wrong width", []any{int64(1)}, "row 1 has 1 values"},
		{"int instead of int64", []any{1, nil, nil, nil, nil}, "column id (long): want int64, got int"},
		{"null in required", []any{nil, nil, nil, nil, nil}, "column id (long): null in a non-nullable column"},
		{"struct field type", []any{int64(1), []any{int64(3), "x"}, nil, nil, nil}, "column st.a (integer): want int32, got int64"},
		{"struct required field null", []any{int64(1), []any{nil, nil}, nil, nil, nil}, "column st.req (string): null"},
		{"struct width", []any{int64(1), []any{nil}, nil, nil, nil}, "column st (struct<a:integer,req:string>): struct value has 1 fields, want 2"},
		{"struct not slice", []any{int64(1), map[string]any{}, nil, nil, nil}, "want []any, got map[string]interface {}"},
		{"null element", []any{int64(1), nil, []any{int64(1), nil}, nil, nil}, "column arr.element (long): null in a non-nullable column"},
		{"element type", []any{int64(1), nil, []any{"x"}, nil, nil}, "column arr.element (long): want int64, got string"},
		{"map type", []any{int64(1), nil, nil, map[string]any{}, nil}, "want []schema.MapEntry"},
		{"null key", []any{int64(1), nil, nil, []schema.MapEntry{{Key: nil, Value: nil}}, nil}, "column m.key (string): null map key"},
		{"decimal too wide", []any{int64(1), nil, nil, []schema.MapEntry{{Key: "k", Value: dec("12345", 2)}}, nil}, "does not fit precision 4"},
		{"decimal too many digits", []any{int64(1), nil, nil, []schema.MapEntry{{Key: "k", Value: dec("12345", 4)}}, nil}, "more than 2 fractional digits"},
		{"decimal nil", []any{int64(1), nil, nil, []schema.MapEntry{{Key: "k", Value: schema.Decimal{}}}, nil}, "nil Unscaled"},
		{"timestamp as string", []any{int64(1), nil, nil, nil, "2024-01-01"}, "column ts (timestamp): want time.Time, got string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, s, WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			err = w.Write([][]any{good, tc.row})
			if !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("Write error = %v, want ErrInvalidValue", err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "row 1") {
				t.Fatalf("Write error = %q, want it to contain %q and the row", err, tc.want)
			}
			// Nothing of the failed batch is written; the writer stays usable.
			if err := w.Write([][]any{good}); err != nil {
				t.Fatal(err)
			}
			st, err := w.Close()
			if err != nil {
				t.Fatal(err)
			}
			if st.NumRecords != 1 {
				t.Errorf("NumRecords = %d, want 1", st.NumRecords)
			}
			_, rows, err := ReadFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
			if err != nil || len(rows) != 1 {
				t.Fatalf("ReadFile: %d rows, %v", len(rows), err)
			}
		})
	}
}

func TestDecimalRescale(t *testing.T) {
	s := structOf(field("d", schema.DecimalType{Precision: 6, Scale: 3}, false))
	rows := [][]any{{dec("12", 0)}, {dec("-15", 1)}, {dec("1230000", 6)}}
	data, st := writeFile(t, s, rows, WriterOptions{})
	_, got, err := ReadFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"12000", "-1500", "1230"}
	for i, r := range got {
		d := r[0].(schema.Decimal)
		if d.Scale != 3 || d.Unscaled.String() != want[i] {
			t.Errorf("row %d = %s@%d, want %s@3", i, d.Unscaled, d.Scale, want[i])
		}
	}
	if st.MinValues["d"] != any(jsonNumber("-1.500")) || st.MaxValues["d"] != any(jsonNumber("12.000")) {
		t.Errorf("stats min %v max %v", st.MinValues["d"], st.MaxValues["d"])
	}
}

// TestParquetDecimalStatsSigned checks the Parquet footer min/max of a
// FIXED_LEN_BYTE_ARRAY decimal use signed order: readers prune row groups
// with them.
func TestParquetDecimalStatsSigned(t *testing.T) {
	s := structOf(field("d", schema.DecimalType{Precision: 30, Scale: 0}, true))
	rows := [][]any{{dec("5", 0)}, {dec("-7", 0)}, {nil}, {dec("3", 0)}, {dec("-2", 0)}}
	data, _ := writeFile(t, s, rows, WriterOptions{PageBytes: 64})
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	st := f.Metadata().RowGroups[0].Columns[0].MetaData.Statistics
	if lo, hi := ptree.FromTwosComplement(st.MinValue), ptree.FromTwosComplement(st.MaxValue); lo.Int64() != -7 || hi.Int64() != 5 {
		t.Errorf("footer min/max = %s/%s, want -7/5", lo, hi)
	}
	for _, ci := range f.ColumnIndexes() {
		for p := range ci.MinValues {
			if ci.NullPages[p] {
				continue
			}
			if lo, hi := ptree.FromTwosComplement(ci.MinValues[p]), ptree.FromTwosComplement(ci.MaxValues[p]); lo.Cmp(hi) > 0 {
				t.Errorf("column index page %d: min %s > max %s", p, lo, hi)
			}
		}
	}
}

func TestTwosComplement(t *testing.T) {
	for _, s := range []string{"0", "1", "-1", "127", "-128", "128", "-129", "99999999999999999999999999999999999999", "-99999999999999999999999999999999999999"} {
		u, _ := new(big.Int).SetString(s, 10)
		b := twosComplement(u, 16)
		if got := ptree.FromTwosComplement(b); got.Cmp(u) != 0 {
			t.Errorf("round trip of %s = %s", s, got)
		}
	}
	if ptree.DecimalBytes(19) != 9 || ptree.DecimalBytes(38) != 16 || ptree.DecimalBytes(20) != 9 || ptree.DecimalBytes(21) != 9 || ptree.DecimalBytes(22) != 10 {
		t.Errorf("decimalBytes: 19->%d 20->%d 21->%d 38->%d", ptree.DecimalBytes(19), ptree.DecimalBytes(20), ptree.DecimalBytes(21), ptree.DecimalBytes(38))
	}
}

func TestNewWriterErrors(t *testing.T) {
	tests := []struct {
		name string
		s    *schema.StructType
		opts WriterOptions
		want error
	}{
		{"nil schema", nil, WriterOptions{}, ErrUnsupportedSchema},
		{"empty schema", structOf(), WriterOptions{}, ErrUnsupportedSchema},
		{"empty struct", structOf(field("s", structOf(), true)), WriterOptions{}, ErrUnsupportedSchema},
		{"duplicate", structOf(field("a", schema.Long, true), field("a", schema.Long, true)), WriterOptions{}, ErrUnsupportedSchema},
		{"bad decimal", structOf(field("d", schema.DecimalType{Precision: 39, Scale: 0}, true)), WriterOptions{}, ErrUnsupportedSchema},
		{"bad codec", structOf(field("a", schema.Long, true)), WriterOptions{Compression: "lzo"}, ErrInvalidOption},
		{"negative rows", structOf(field("a", schema.Long, true)), WriterOptions{RowGroupRows: -1}, ErrInvalidOption},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewWriter(io.Discard, tc.s, tc.opts)
			if !errors.Is(err, tc.want) {
				t.Fatalf("NewWriter error = %v, want %v", err, tc.want)
			}
		})
	}
}

func TestClosedWriter(t *testing.T) {
	w, err := NewWriter(io.Discard, structOf(field("a", schema.Long, true)), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Write([][]any{{nil}}); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Close = %v", err)
	}
	if _, err := w.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close = %v", err)
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestOutputError(t *testing.T) {
	s := structOf(field("a", schema.String, true))
	w, err := NewWriter(&failWriter{n: 10}, s, WriterOptions{RowGroupRows: 10})
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for range 100 {
		rows = append(rows, []any{strings.Repeat("x", 100)})
	}
	err = w.Write(rows)
	if err == nil {
		_, err = w.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error = %v, want the output error", err)
	}
	if err := w.Write(rows[:1]); err == nil {
		t.Error("Write after output error succeeded")
	}
}

// TestFieldOrder checks the Parquet schema keeps the Delta field order at
// every level (parquet.Group would sort names).
func TestFieldOrder(t *testing.T) {
	s := structOf(
		field("zeta", schema.Long, true),
		field("alpha", structOf(field("y", schema.Long, true), field("b", schema.Long, true)), true),
		field("mid", &schema.ArrayType{Element: structOf(field("q", schema.Long, true), field("c", schema.Long, true)), ContainsNull: true}, true),
	)
	data, _ := writeFile(t, s, [][]any{{int64(1), []any{int64(2), int64(3)}, []any{[]any{int64(4), int64(5)}}}}, WriterOptions{})
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range f.Metadata().RowGroups[0].Columns {
		paths = append(paths, strings.Join(c.MetaData.PathInSchema, "."))
	}
	want := "zeta alpha.y alpha.b mid.list.element.q mid.list.element.c"
	if got := strings.Join(paths, " "); got != want {
		t.Errorf("column order %q, want %q", got, want)
	}
	var names []string
	for _, el := range f.Metadata().Schema {
		names = append(names, el.Name)
	}
	if got := strings.Join(names, " "); got != "spark_schema zeta alpha y b mid list element q c" {
		t.Errorf("schema elements %q", got)
	}
}

func TestTimestampNTZLogicalType(t *testing.T) {
	s := structOf(field("ts", schema.Timestamp, true), field("ntz", schema.TimestampNTZ, true), field("d", schema.DateType, true))
	data, _ := writeFile(t, s, [][]any{{time.Unix(0, 0), time.Unix(0, 0), schema.Date(0)}}, WriterOptions{})
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, el := range f.Metadata().Schema[1:] {
		got = append(got, el.LogicalType.String())
	}
	want := "TIMESTAMP(isAdjustedToUTC=true,unit=MICROS) TIMESTAMP(isAdjustedToUTC=false,unit=MICROS) DATE"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("logical types %q, want %q", g, want)
	}
}
