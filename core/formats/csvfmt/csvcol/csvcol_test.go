package csvcol

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

func TestBatchable(t *testing.T) {
	tests := []struct {
		name string
		s    *schema.StructType
		want bool
	}{
		{"primitives", &schema.StructType{Fields: []schema.Field{{Name: "a", Type: schema.String, Nullable: true}, {Name: "d", Type: schema.DecimalType{Precision: 5, Scale: 1}, Nullable: true}}}, true},
		{"not nullable", &schema.StructType{Fields: []schema.Field{{Name: "a", Type: schema.Long}}}, false},
		{"nested", &schema.StructType{Fields: []schema.Field{{Name: "a", Type: &schema.ArrayType{Element: schema.Long, ContainsNull: true}, Nullable: true}}}, false},
		{"empty", &schema.StructType{}, false},
	}
	for _, tt := range tests {
		if got := Batchable(tt.s); got != tt.want {
			t.Errorf("%s: Batchable = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestAppend: a record whose values all fit is one row; one that does not
// fit leaves the batch as it was.
func TestAppend(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{
		{Name: "s", Type: schema.String, Nullable: true}, {Name: "l", Type: schema.Long, Nullable: true},
		{Name: "i", Type: schema.Integer, Nullable: true}, {Name: "d", Type: schema.Double, Nullable: true},
		{Name: "b", Type: schema.Boolean, Nullable: true}, {Name: "o", Type: schema.Short, Nullable: true},
	}}
	conv := Conv{
		Double: func(s string) (float64, bool) { f, err := strconv.ParseFloat(s, 64); return f, err == nil },
		Other: func(_ schema.Type, s string) (any, bool) {
			n, err := strconv.ParseInt(s, 10, 16)
			return int16(n), err == nil
		},
	}
	p, err := NewPlan(s, conv)
	if err != nil {
		t.Fatal(err)
	}
	b, err := parquetio.NewColumnBatch(s)
	if err != nil {
		t.Fatal(err)
	}
	v := func(xs ...string) []Value {
		var out []Value
		for _, x := range xs {
			if x == "<null>" {
				out = append(out, Value{Null: true})
			} else {
				out = append(out, Value{B: []byte(x)})
			}
		}
		return out
	}
	tests := []struct {
		name string
		vals []Value
		ok   bool
	}{
		{"all fit", v("x", "1", "2", "1.5", "TRUE", "7"), true},
		{"nulls", v("<null>", "<null>", "<null>", "<null>", "<null>", "<null>"), true},
		{"long", v("x", "1.5", "2", "1.5", "true", "7"), false},
		{"int range", v("x", "1", "3000000000", "1.5", "true", "7"), false},
		{"double", v("x", "1", "2", "x", "true", "7"), false},
		{"bool", v("x", "1", "2", "1", "yes", "7"), false},
		{"other", v("x", "1", "2", "1", "false", "70000"), false},
	}
	rows := 0
	for _, tt := range tests {
		bytes := b.Bytes()
		ok, err := p.Append(b, tt.vals)
		if err != nil || ok != tt.ok {
			t.Fatalf("%s: Append = %v, %v; want %v", tt.name, ok, err, tt.ok)
		}
		if ok {
			rows++
		}
		if b.Rows() != rows || (!ok && b.Bytes() != bytes) {
			t.Fatalf("%s: %d rows (%d bytes), want %d rows", tt.name, b.Rows(), b.Bytes(), rows)
		}
	}
	if _, err := p.Append(b, v("x")); err == nil {
		t.Fatal("a record of the wrong length was taken")
	}
}

// TestAppendRow: a row is appended (and counted as rescued when its
// rescue column is set); a value of the wrong Go type leaves b as it was.
func TestAppendRow(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{
		{Name: "l", Type: schema.Long, Nullable: true}, {Name: "_rescued_data", Type: schema.String, Nullable: true},
	}}
	b, err := parquetio.NewColumnBatch(s)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		row           []any
		ok            bool
		rows, rescued int
	}{
		{[]any{int64(1), nil}, true, 1, 0},
		{[]any{nil, `{"x":"y"}`}, true, 2, 1},
		{[]any{"not a long", nil}, false, 2, 1},
		{[]any{int64(1)}, false, 2, 1},
	}
	for i, tt := range tests {
		err := AppendRow(b, tt.row, 1)
		if (err == nil) != tt.ok || b.Rows() != tt.rows || int(b.Rescued) != tt.rescued {
			t.Fatalf("case %d: err %v, %d rows, %d rescued; want ok %v, %d, %d", i, err, b.Rows(), b.Rescued, tt.ok, tt.rows, tt.rescued)
		}
	}
}

// TestWhole: a source within the buffer is whole; a larger one is not; a
// read error met while filling is kept for the reader.
func TestWhole(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name  string
		r     io.Reader
		whole bool
		data  string
		err   error
	}{
		{"small", strings.NewReader("abc"), true, "abc", nil},
		{"large", strings.NewReader(strings.Repeat("x", 100)), false, strings.Repeat("x", 100), nil},
		{"error", io.MultiReader(strings.NewReader("ab"), errReader{boom}), false, "ab", boom},
	}
	for _, tt := range tests {
		whole, br := Whole(bufio.NewReaderSize(tt.r, 16))
		got, err := io.ReadAll(br)
		if whole != tt.whole || string(got) != tt.data || !errors.Is(err, tt.err) {
			t.Errorf("%s: whole %v, read %q, %v; want %v, %q, %v", tt.name, whole, got, err, tt.whole, tt.data, tt.err)
		}
	}
}

// boolRef is the BOOLEAN reading parseBool replaced.
func boolRef(s string) (x, ok bool) {
	switch {
	case strings.EqualFold(s, "true"):
		return true, true
	case strings.EqualFold(s, "false"):
		return false, true
	}
	return false, false
}

// FuzzParseBool: parseBool reads what strings.EqualFold reads.
func FuzzParseBool(f *testing.F) {
	for _, s := range []string{"true", "TRUE", "tRuE", "false", "FALSE", "falſe", "fal\xc5\xbfe", "True ", "truee", "t", "", "trUe", "4rue", "\x14RUE", "fAlSe", "1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		x, ok := parseBool([]byte(s))
		if wx, wok := boolRef(s); x != wx || ok != wok {
			t.Fatalf("parseBool(%q) = %v, %v, want %v, %v", s, x, ok, wx, wok)
		}
	})
}

// TestParseBoolEveryByte: each byte of "true" and "false" replaced by
// every byte value reads as strings.EqualFold reads it.
func TestParseBoolEveryByte(t *testing.T) {
	for _, w := range []string{"true", "false", "TRUE", "FALSE"} {
		for i := range w {
			for c := 0; c < 256; c++ {
				s := w[:i] + string([]byte{byte(c)}) + w[i+1:]
				x, ok := parseBool([]byte(s))
				if wx, wok := boolRef(s); x != wx || ok != wok {
					t.Fatalf("parseBool(%q) = %v, %v, want %v, %v", s, x, ok, wx, wok)
				}
			}
		}
	}
}
