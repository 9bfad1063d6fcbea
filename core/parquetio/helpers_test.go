package parquetio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/parquet-go/parquet-go"

	"github.com/tributary-io/tributary/core/parquetio/internal/values"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/internal/arrowtest"
)

// writeFile writes rows with opts and returns the file bytes and stats.
func writeFile(t testing.TB, s *schema.StructType, rows [][]any, opts WriterOptions) ([]byte, FileStats) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, s, opts)
	if err != nil {
		t.Fatalf("NewWriter: %v", err)
	}
	if err := w.Write(rows); err != nil {
		t.Fatalf("Write: %v", err)
	}
	st, err := w.Close()
	if err != nil {
		t.Fatalf("Close: %v", err)
	}
	return buf.Bytes(), st
}

// readArrow reads a Parquet file with arrow-go's independent reader and
// converts the table to the row representation. It returns the arrow schema
// too.
func readArrow(t testing.TB, data []byte, s *schema.StructType) (*arrow.Schema, [][]any) {
	t.Helper()
	tbl := arrowtest.ReadTable(t, data)
	defer tbl.Release()
	n := int(tbl.NumRows())
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = make([]any, tbl.NumCols())
	}
	for c := 0; c < int(tbl.NumCols()); c++ {
		r := 0
		for _, chunk := range tbl.Column(c).Data().Chunks() {
			for i := 0; i < chunk.Len(); i++ {
				rows[r][c] = arrowValue(t, chunk, i, s.Fields[c].Type)
				r++
			}
		}
	}
	return tbl.Schema(), rows
}

func arrowValue(t testing.TB, a arrow.Array, i int, typ schema.Type) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.String:
		return a.Value(i)
	case *array.Int8:
		return a.Value(i)
	case *array.Int16:
		return a.Value(i)
	case *array.Int32:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Float32:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.Binary:
		return bytes.Clone(a.Value(i))
	case *array.Date32:
		return schema.Date(a.Value(i))
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return a.Value(i).ToTime(unit).UTC()
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		return schema.Decimal{Unscaled: a.Value(i).BigInt(), Scale: int(dt.Scale)}
	case *array.Struct:
		st := typ.(*schema.StructType)
		out := make([]any, a.NumField())
		for j := range out {
			out[j] = arrowValue(t, a.Field(j), i, st.Fields[j].Type)
		}
		return out
	case *array.Map:
		mt := typ.(*schema.MapType)
		start, end := a.ValueOffsets(i)
		out := []schema.MapEntry{}
		for j := int(start); j < int(end); j++ {
			out = append(out, schema.MapEntry{
				Key:   arrowValue(t, a.Keys(), j, mt.Key),
				Value: arrowValue(t, a.Items(), j, mt.Value),
			})
		}
		return out
	case *array.List:
		at := typ.(*schema.ArrayType)
		start, end := a.ValueOffsets(i)
		out := []any{}
		for j := int(start); j < int(end); j++ {
			out = append(out, arrowValue(t, a.ListValues(), j, at.Element))
		}
		return out
	}
	t.Fatalf("unexpected arrow array %T (%s)", a, a.DataType())
	return nil
}

// arrowTypeString describes an arrow type in the form deltaArrowType
// produces, naming list/map children and their nullability.
func arrowTypeString(dt arrow.DataType) string {
	switch dt := dt.(type) {
	case *arrow.StructType:
		parts := make([]string, 0, dt.NumFields())
		for _, f := range dt.Fields() {
			parts = append(parts, fieldString(f))
		}
		return "struct<" + strings.Join(parts, ", ") + ">"
	case *arrow.MapType:
		return "map<" + arrowTypeString(dt.KeyType()) + ", " + fieldString(dt.ItemField()) + ">"
	case *arrow.ListType:
		return "list<" + fieldString(dt.ElemField()) + ">"
	}
	return dt.String()
}

func fieldString(f arrow.Field) string {
	s := f.Name + ": " + arrowTypeString(f.Type)
	if !f.Nullable {
		s += " not null"
	}
	return s
}

// deltaArrowType is the arrow type a correct Parquet encoding of t reads as.
func deltaArrowType(t schema.Type) string {
	switch t := t.(type) {
	case schema.PrimitiveType:
		return map[schema.PrimitiveType]string{
			schema.String: "utf8", schema.Long: "int64", schema.Integer: "int32",
			schema.Short: "int16", schema.Byte: "int8", schema.Double: "float64",
			schema.Float: "float32", schema.Boolean: "bool", schema.Binary: "binary",
			schema.DateType: "date32", schema.Timestamp: "timestamp[us, tz=UTC]",
			schema.TimestampNTZ: "timestamp[us]",
		}[t]
	case schema.DecimalType:
		return fmt.Sprintf("decimal(%d, %d)", t.Precision, t.Scale)
	case *schema.StructType:
		parts := make([]string, 0, len(t.Fields))
		for _, f := range t.Fields {
			parts = append(parts, deltaFieldString(f.Name, f.Type, f.Nullable))
		}
		return "struct<" + strings.Join(parts, ", ") + ">"
	case *schema.ArrayType:
		return "list<" + deltaFieldString("element", t.Element, t.ContainsNull) + ">"
	case *schema.MapType:
		return "map<" + deltaArrowType(t.Key) + ", " + deltaFieldString("value", t.Value, t.ValueContainsNull) + ">"
	}
	return "?"
}

func deltaFieldString(name string, t schema.Type, nullable bool) string {
	s := name + ": " + deltaArrowType(t)
	if !nullable {
		s += " not null"
	}
	return s
}

// canon maps a value of type t to a comparable form: timestamps to
// microseconds, decimals to their plain string at the type's scale, floats
// NaN to a marker.
func canon(t schema.Type, v any) any {
	if v == nil {
		return nil
	}
	switch t := t.(type) {
	case schema.PrimitiveType:
		switch t {
		case schema.Timestamp, schema.TimestampNTZ:
			return v.(time.Time).UnixMicro()
		case schema.Binary:
			return "bin:" + string(v.([]byte))
		case schema.Double:
			if f := v.(float64); math.IsNaN(f) {
				return "NaN"
			}
		case schema.Float:
			if f := v.(float32); math.IsNaN(float64(f)) {
				return "NaN"
			}
		}
		return v
	case schema.DecimalType:
		d := v.(schema.Decimal)
		u, err := values.Rescale(d, t.Scale, values.Pow10(39))
		if err != nil {
			return "bad decimal " + err.Error()
		}
		return values.DecimalString(u, t.Scale)
	case *schema.StructType:
		in := v.([]any)
		out := make([]any, len(in))
		for i, f := range t.Fields {
			out[i] = canon(f.Type, in[i])
		}
		return out
	case *schema.ArrayType:
		in := v.([]any)
		out := make([]any, len(in))
		for i, e := range in {
			out[i] = canon(t.Element, e)
		}
		return out
	case *schema.MapType:
		in := v.([]schema.MapEntry)
		out := make([]any, len(in))
		for i, e := range in {
			out[i] = [2]any{canon(t.Key, e.Key), canon(t.Value, e.Value)}
		}
		return out
	}
	return v
}

// compareRows fails t at the first value that differs.
func compareRows(t testing.TB, who string, s *schema.StructType, want, got [][]any) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d rows, want %d", who, len(got), len(want))
	}
	for i := range want {
		for j, f := range s.Fields {
			w, g := canon(f.Type, want[i][j]), canon(f.Type, got[i][j])
			if !reflect.DeepEqual(w, g) {
				t.Fatalf("%s: row %d column %s:\n got %#v\nwant %#v", who, i, f.Name, g, w)
			}
		}
	}
}

func dec(s string, scale int) schema.Decimal {
	u, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic("bad decimal " + s)
	}
	return schema.Decimal{Unscaled: u, Scale: scale}
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func countRowGroups(t testing.TB, data []byte) int {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("arrow NewParquetReader: %v", err)
	}
	defer pf.Close()
	return pf.NumRowGroups()
}

func jsonNumber(s string) json.Number { return json.Number(s) }

// values returns the values of rows [from, to) of column c as
// parquet.Values (levels left out).
func (b *colBatch) values(c, from, to int) []parquet.Value {
	var out []parquet.Value
	for i := b.start(c, from); i < b.start(c, to); i++ {
		out = append(out, b.cols[c].At(i))
	}
	return out
}
