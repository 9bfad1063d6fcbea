package csvfmt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/csvfmt/csvcol"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

func strSchema(names ...string) *schema.StructType {
	s := &schema.StructType{}
	for _, n := range names {
		typ := schema.Type(schema.String)
		if n == "id" {
			typ = schema.Integer
		}
		s.Fields = append(s.Fields, schema.Field{Name: n, Type: typ, Nullable: true})
	}
	return s
}

func readAll(t *testing.T, data string, s *schema.StructType, ro fileformat.ReadOptions) ([][]any, fileformat.ReadStats, error) {
	t.Helper()
	rr, err := Format{}.Open(context.Background(), strings.NewReader(data), s, ro)
	if err != nil {
		return nil, fileformat.ReadStats{}, err
	}
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

func TestReaderModes(t *testing.T) {
	const data = "id,name\n1,a\n2\nx,c\n"
	hdr := map[string]string{"header": "true"}
	// PERMISSIVE with a corrupt-record column: the short record keeps its
	// values and its text; without rescue the mismatch is a bad record too.
	s := strSchema("id", "name", "_corrupt_record")
	rows, st, err := readAll(t, data, s, fileformat.ReadOptions{Options: hdr, FilePath: "f.csv"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{int32(1), "a", nil}, {int32(2), nil, "2"}, {nil, "c", "x,c"}}
	if !reflect.DeepEqual(rows, want) || st.CorruptRecords != 2 {
		t.Errorf("PERMISSIVE: %v (corrupt %d), want %v", rows, st.CorruptRecords, want)
	}
	rows, _, err = readAll(t, data, strSchema("id", "name"), fileformat.ReadOptions{Options: hdr, Mode: fileformat.DropMalformed})
	if err != nil || len(rows) != 1 {
		t.Errorf("DROPMALFORMED: %v %v, want one row", rows, err)
	}
	_, _, err = readAll(t, data, strSchema("id", "name"), fileformat.ReadOptions{Options: hdr, Mode: fileformat.FailFast, FilePath: "f.csv"})
	if !errors.Is(err, fileformat.ErrMalformedRecord) || !strings.Contains(err.Error(), "f.csv line 3") {
		t.Errorf("FAILFAST: %v", err)
	}
	var bad []fileformat.BadRecord
	rows, _, _ = readAll(t, data, strSchema("id", "name"), fileformat.ReadOptions{Options: hdr, BadRecords: func(b fileformat.BadRecord) { bad = append(bad, b) }})
	if len(rows) != 1 || len(bad) != 2 || bad[0].Line != 3 || bad[0].Record != "2" {
		t.Errorf("badRecordsPath: rows %v, bad %+v", rows, bad)
	}
}

func TestReaderRescueByName(t *testing.T) {
	s := strSchema("id", "name", "_rescued_data")
	ro := fileformat.ReadOptions{Options: map[string]string{"header": "true"}, FilePath: "f.csv", RescuedDataColumn: "_rescued_data"}
	rows, st, err := readAll(t, "name,ID,age\nBob,7,25\n", s, ro)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{nil, "Bob", `{"ID":"7","age":"25","_file_path":"f.csv"}`}}
	if !reflect.DeepEqual(rows, want) || !reflect.DeepEqual(st.UnknownFields, []string{"age"}) {
		t.Errorf("rows %v stats %+v, want %v and age unknown (ID differs only by case)", rows, st, want)
	}
	rows, st, _ = readAll(t, "name,id\nBob,x\n", s, ro)
	if rows[0][2] != `{"id":"x","_file_path":"f.csv"}` || !reflect.DeepEqual(st.MismatchedFields, []string{"id"}) {
		t.Errorf("mismatch: %v %+v", rows, st)
	}
	// Duplicate header names get their index (Spark).
	rows, st, _ = readAll(t, "name,id,ID\nBob,1,2\n", s, ro)
	if !reflect.DeepEqual(st.UnknownFields, []string{"id1", "ID2"}) {
		t.Errorf("duplicates: %v %+v", rows, st)
	}
	ro.CaseInsensitive = true
	rows, _, _ = readAll(t, "name,ID\nBob,7\n", s, ro)
	if rows[0][0] != int32(7) {
		t.Errorf("readerCaseSensitive=false: %v", rows)
	}
	// Headerless: extra values are the unknown columns _c<i>.
	ro = fileformat.ReadOptions{FilePath: "f.csv", RescuedDataColumn: "_rescued_data"}
	rows, st, _ = readAll(t, "1,a,z\n", strSchema("_c0", "_c1", "_rescued_data"), ro)
	if rows[0][2] != `{"_c2":"z","_file_path":"f.csv"}` || !reflect.DeepEqual(st.UnknownFields, []string{"_c2"}) {
		t.Errorf("headerless: %v %+v", rows, st)
	}
}

func TestReaderEnforceSchema(t *testing.T) {
	s := strSchema("id", "name")
	rows, _, err := readAll(t, "name,id\n1,b\n", s, fileformat.ReadOptions{Options: map[string]string{"header": "true"}})
	if err != nil || rows[0][0] != int32(1) || rows[0][1] != "b" {
		t.Errorf("enforceSchema=true: %v %v, want positional", rows, err)
	}
	_, _, err = readAll(t, "name,id\n1,b\n", s, fileformat.ReadOptions{Options: map[string]string{"header": "true", "enforceSchema": "false"}, FilePath: "f.csv"})
	if !errors.Is(err, ErrHeaderMismatch) || !strings.Contains(err.Error(), "f.csv") || !strings.Contains(err.Error(), "expected id but found name") {
		t.Errorf("enforceSchema=false: %v", err)
	}
	if _, _, err = readAll(t, "ID,Name\n1,b\n", s, fileformat.ReadOptions{Options: map[string]string{"header": "true", "enforceSchema": "false"}}); err != nil {
		t.Errorf("enforceSchema=false, same names in another case: %v", err)
	}
}

func TestReaderNestedRefused(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{{Name: "a", Type: &schema.StructType{Fields: []schema.Field{{Name: "b", Type: schema.String}}}}}}
	if _, err := (Format{}).Open(context.Background(), strings.NewReader(""), s, fileformat.ReadOptions{}); !errors.Is(err, fileformat.ErrReadSchema) {
		t.Errorf("nested column: %v", err)
	}
}

func TestInferMerge(t *testing.T) {
	tests := []struct {
		values []string
		want   string
	}{
		{[]string{"1", "2147483648"}, "BIGINT"},
		{[]string{"1", "1.5"}, "DOUBLE"},
		{[]string{"1", "99999999999999999999"}, "DECIMAL(20,0)"},
		{[]string{"2147483648", "99999999999999999999"}, "DECIMAL(20,0)"},
		{[]string{"1.5", "99999999999999999999"}, "DOUBLE"},
		{[]string{"true", "FALSE"}, "BOOLEAN"},
		{[]string{"true", "1"}, "STRING"},
		{[]string{"2024-01-01", "2024-01-01 10:00:00"}, "TIMESTAMP"},
		{[]string{"2024-1-1"}, "TIMESTAMP"},
		{[]string{`"1,000"`}, "DECIMAL(4,0)"},
		{[]string{"Inf", "-Inf", "NaN", "1"}, "DOUBLE"},
		{[]string{"1.5d"}, "DOUBLE"},
		{[]string{"", ""}, "STRING"},
	}
	for _, tc := range tests {
		data := "v\n" + strings.Join(tc.values, "\n") + "\n"
		inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, Options: map[string]string{"header": "true"}})
		if err := inf.Add(context.Background(), "f.csv", bytes.NewReader([]byte(data))); err != nil {
			t.Fatal(err)
		}
		if got := schema.DDLType(inf.Schema().Fields[0].Type); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.values, got, tc.want)
		}
	}
	// prefersDecimal
	inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, PrefersDecimal: true, Options: map[string]string{"header": "true"}})
	_ = inf.Add(context.Background(), "f.csv", strings.NewReader("v\n1.5\n10.25\n"))
	if got := schema.DDLType(inf.Schema().Fields[0].Type); got != "DECIMAL(4,2)" {
		t.Errorf("prefersDecimal: %s", got)
	}
	// Columns union across files by name, in first-seen order.
	inf = Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, Options: map[string]string{"header": "true"}, RescuedDataColumn: "_rescued_data"})
	_ = inf.Add(context.Background(), "1.csv", strings.NewReader("id,name\n1,John\n"))
	_ = inf.Add(context.Background(), "2.csv", strings.NewReader("ID,name,age,a\n2147483648,Bob,25,\n"))
	if got := schema.DDLType(inf.Schema()); got != "STRUCT<id: BIGINT, name: STRING, age: INT, a: STRING, _rescued_data: STRING>" {
		t.Errorf("union: %s", got)
	}
}

func TestSafeHeader(t *testing.T) {
	got := csvcol.SafeHeader([]string{"a", "", "A", "b", "NA"}, "NA")
	want := []string{"a0", "_c1", "A2", "b", "_c4"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}

// FuzzRead infers a schema from any input and reads the input with it:
// no panic, every row as wide as the schema.
func FuzzRead(f *testing.F) {
	f.Add([]byte("id,name\n1,\"a\nb\"\n2,c,d\n"), true, true)
	f.Add([]byte("\xef\xbb\xbfx;y\r\n\"1\";2"), false, false)
	f.Fuzz(func(t *testing.T, data []byte, header, multi bool) {
		opts := map[string]string{"header": "false", "multiLine": "false"}
		if header {
			opts["header"] = "true"
		}
		if multi {
			opts["multiLine"] = "true"
		}
		inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, Options: opts, RescuedDataColumn: "_rescued_data"})
		if err := inf.Add(context.Background(), "f.csv", bytes.NewReader(data)); err != nil {
			return
		}
		s := inf.Schema()
		rr, err := Format{}.Open(context.Background(), bytes.NewReader(data), s, fileformat.ReadOptions{Options: opts, RescuedDataColumn: "_rescued_data"})
		if err != nil {
			t.Fatal(err)
		}
		for {
			row, err := rr.Next()
			if err != nil {
				break
			}
			if len(row) != len(s.Fields) {
				t.Fatalf("row of %d values, schema of %d", len(row), len(s.Fields))
			}
		}
	})
}

// TestSamplingRatio: samplingRatio samples a fraction of the records for
// inference, the same ones on every run.
func TestSamplingRatio(t *testing.T) {
	var b strings.Builder
	b.WriteString("a\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "%d\n", i)
	}
	count := func(opts map[string]string) int64 {
		inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, Options: opts})
		if err := inf.Add(context.Background(), "a.csv", strings.NewReader(b.String())); err != nil {
			t.Fatal(err)
		}
		return inf.Sampled().Records
	}
	if n := count(map[string]string{"header": "true"}); n != 1000 {
		t.Errorf("default: %d records sampled", n)
	}
	n := count(map[string]string{"header": "true", "samplingRatio": "0.1"})
	if n < 50 || n > 150 || count(map[string]string{"header": "true", "samplingRatio": "0.1"}) != n {
		t.Errorf("samplingRatio=0.1: %d records sampled, want about 100, the same each time", n)
	}
	inf := Format{}.NewInferrer(fileformat.InferOptions{Options: map[string]string{"samplingRatio": "0"}})
	if err := inf.Add(context.Background(), "a.csv", strings.NewReader("a\n")); !errors.Is(err, fileformat.ErrBadOption) {
		t.Errorf("samplingRatio=0: %v", err)
	}
}

// TestFloatRoundedOnce: a FLOAT value is rounded once to a float32, as
// Spark 4.1.1 reads it (Float.parseFloat; checked with PySpark), not
// through a double: the halfway case rounds up and the top of the range
// stays finite.
func TestFloatRoundedOnce(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{{Name: "v", Type: schema.Float, Nullable: true}}}
	rows, _, err := readAll(t, "1.00000005960464477539062500001\n3.4028235677973366e38\n16777217\nInf\n", s,
		fileformat.ReadOptions{FilePath: "f.csv", Options: map[string]string{}})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{float32(1.0000001), float32(math.MaxFloat32), float32(16777216), float32(math.Inf(1))}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, w := range want {
		if rows[i][0] != w {
			t.Errorf("row %d: %v (%T), want %v", i, rows[i][0], rows[i][0], w)
		}
	}
}
