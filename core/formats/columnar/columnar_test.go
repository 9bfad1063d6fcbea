package columnar

import (
	"errors"
	"io"
	"math/big"
	"reflect"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// rowsSource is a Source over fixed rows.
type rowsSource struct{ rows [][]any }

func (s *rowsSource) Next() ([]any, error) {
	if len(s.rows) == 0 {
		return nil, io.EOF
	}
	r := s.rows[0]
	s.rows = s.rows[1:]
	return r, nil
}
func (s *rowsSource) Close() error { return nil }

func st(fs ...schema.Field) *schema.StructType { return &schema.StructType{Fields: fs} }
func fl(n string, t schema.Type) schema.Field  { return schema.Field{Name: n, Type: t, Nullable: true} }
func dec(u int64, s int) schema.Decimal        { return schema.Decimal{Unscaled: big.NewInt(u), Scale: s} }

func TestReader(t *testing.T) {
	rescued := fl("_rescued_data", schema.String)
	tests := []struct {
		name    string
		file, s *schema.StructType
		in      []any
		want    []any
		unknown []string
	}{
		{"reorder and fill", st(fl("b", schema.String), fl("a", schema.Long)), st(fl("a", schema.Long), fl("b", schema.String), fl("c", schema.Double), rescued),
			[]any{"x", int64(1)}, []any{int64(1), "x", nil, nil}, nil},
		{"widen", st(fl("i", schema.Integer), fl("f", schema.Float), fl("d", schema.DecimalType{Precision: 5, Scale: 2}), fl("day", schema.DateType), fl("b", schema.Byte)),
			st(fl("i", schema.Long), fl("f", schema.Double), fl("d", schema.DecimalType{Precision: 10, Scale: 4}), fl("day", schema.TimestampNTZ), fl("b", schema.DecimalType{Precision: 10}), rescued),
			[]any{int32(-7), float32(1.5), dec(-12345, 2), schema.Date(1), int8(3)},
			[]any{int64(-7), 1.5, dec(-1234500, 4), time.Unix(86400, 0).UTC(), dec(3, 0), nil}, nil},
		{"narrowing is rescued", st(fl("i", schema.Long), fl("d", schema.DecimalType{Precision: 12, Scale: 2})), st(fl("i", schema.Integer), fl("d", schema.DecimalType{Precision: 4, Scale: 2}), rescued),
			[]any{int64(1), dec(123456, 2)}, []any{nil, nil, `{"d":1234.56,"i":1,"_file_path":"f"}`}, nil},
		{"nested struct: unknown and mismatched fields rescued at their path",
			st(fl("u", st(fl("a", schema.String), fl("n", schema.Long), fl("new", schema.Boolean)))),
			st(fl("u", st(fl("a", schema.String), fl("n", schema.Integer))), rescued),
			[]any{[]any{"x", int64(5), true}}, []any{[]any{"x", nil}, `{"u":{"n":5,"new":true},"_file_path":"f"}`}, []string{"u.new"}},
		{"array with a mismatched element is rescued whole",
			st(fl("xs", &schema.ArrayType{Element: schema.Long, ContainsNull: true})),
			st(fl("xs", &schema.ArrayType{Element: schema.Integer, ContainsNull: true}), rescued),
			[]any{[]any{int64(1), nil}}, []any{nil, `{"xs":[1,null],"_file_path":"f"}`}, nil},
		{"map values widen",
			st(fl("m", &schema.MapType{Key: schema.String, Value: schema.Integer, ValueContainsNull: true})),
			st(fl("m", &schema.MapType{Key: schema.String, Value: schema.Long, ValueContainsNull: true}), rescued),
			[]any{[]schema.MapEntry{{Key: "k", Value: int32(2)}, {Key: "z", Value: nil}}},
			[]any{[]schema.MapEntry{{Key: "k", Value: int64(2)}, {Key: "z", Value: nil}}, nil}, nil},
		{"a file column named like the rescued column is rescued", st(fl("_rescued_data", schema.String)), st(rescued),
			[]any{"old"}, []any{`{"_rescued_data":"old","_file_path":"f"}`}, []string{"_rescued_data"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rd, err := NewReader(&rowsSource{rows: [][]any{tt.in}}, tt.file, tt.s,
				fileformat.ReadOptions{FilePath: "f", RescuedDataColumn: "_rescued_data"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := rd.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("row %#v, want %#v", got, tt.want)
			}
			if u := rd.Stats().UnknownFields; !reflect.DeepEqual(u, tt.unknown) {
				t.Errorf("unknown %v, want %v", u, tt.unknown)
			}
			if _, err := rd.Next(); !errors.Is(err, io.EOF) {
				t.Errorf("after the last row: %v, want io.EOF", err)
			}
		})
	}
}

func TestReaderOpenError(t *testing.T) {
	bad := errors.New("not parquet")
	s := st(fl("a", schema.Long))
	rd, err := NewReader(nil, nil, s, fileformat.ReadOptions{}, bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(); !errors.Is(err, bad) {
		t.Errorf("Next: %v, want the open error", err)
	}
	if _, err := NewReader(nil, nil, s, fileformat.ReadOptions{RescuedDataColumn: "_rescued_data"}, nil); !errors.Is(err, fileformat.ErrReadSchema) {
		t.Errorf("missing rescued column: %v, want ErrReadSchema", err)
	}
}

func TestAppendValueJSON(t *testing.T) {
	tests := []struct {
		v    any
		t    schema.Type
		want string
	}{
		{dec(-5, 3), schema.DecimalType{Precision: 4, Scale: 3}, "-0.005"},
		{dec(120, -1), schema.DecimalType{Precision: 4}, "1200"},
		{2.0, schema.Double, "2.0"},
		{float32(0.1), schema.Float, "0.1"},
		{[]byte("hi"), schema.Binary, `"aGk="`},
		{time.Date(2024, 1, 2, 3, 4, 5, 6000, time.UTC), schema.Timestamp, `"2024-01-02T03:04:05.000006Z"`},
		{[]schema.MapEntry{{Key: int32(1), Value: "a"}}, &schema.MapType{Key: schema.Integer, Value: schema.String}, `{"1":"a"}`},
	}
	for _, tt := range tests {
		if got := string(AppendValueJSON(nil, tt.v, tt.t)); got != tt.want {
			t.Errorf("AppendValueJSON(%v) = %s, want %s", tt.v, got, tt.want)
		}
	}
}
