package schema

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseDDL(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []HintField
	}{
		{"empty", "", nil},
		{"blank", "  \t\n", nil},
		{"spec example", "user_id STRING, age INT, user_info.dob DATE", []HintField{
			{Path: []string{"user_id"}, Type: String},
			{Path: []string{"age"}, Type: Integer},
			{Path: []string{"user_info", "dob"}, Type: DateType},
		}},
		{"deep path and lower case", "a.b.c bigint", []HintField{
			{Path: []string{"a", "b", "c"}, Type: Long},
		}},
		{"collections", "arr ARRAY<INT>, m MAP<STRING,INT>", []HintField{
			{Path: []string{"arr"}, Type: &ArrayType{Element: Integer, ContainsNull: true}},
			{Path: []string{"m"}, Type: &MapType{Key: String, Value: Integer, ValueContainsNull: true}},
		}},
		{"decimals", "d DECIMAL(10,2), e dec, f NUMERIC( 5 ), g decimal(38, 38)", []HintField{
			{Path: []string{"d"}, Type: DecimalType{10, 2}},
			{Path: []string{"e"}, Type: DecimalType{10, 0}},
			{Path: []string{"f"}, Type: DecimalType{5, 0}},
			{Path: []string{"g"}, Type: DecimalType{38, 38}},
		}},
		{"backquotes", "`odd name`.`a``b` STRING, `x.y` LONG", []HintField{
			{Path: []string{"odd name", "a`b"}, Type: String},
			{Path: []string{"x.y"}, Type: Long},
		}},
		{"all primitives", "a TINYINT, b SMALLINT, c SHORT, d BYTE, e LONG, f INTEGER, g FLOAT, h REAL, i DOUBLE, j BOOLEAN, k BINARY, l TIMESTAMP, m TIMESTAMP_NTZ, n TIMESTAMP_LTZ, o VARCHAR(10), p CHAR(3)", []HintField{
			{Path: []string{"a"}, Type: Byte}, {Path: []string{"b"}, Type: Short},
			{Path: []string{"c"}, Type: Short}, {Path: []string{"d"}, Type: Byte},
			{Path: []string{"e"}, Type: Long}, {Path: []string{"f"}, Type: Integer},
			{Path: []string{"g"}, Type: Float}, {Path: []string{"h"}, Type: Float},
			{Path: []string{"i"}, Type: Double}, {Path: []string{"j"}, Type: Boolean},
			{Path: []string{"k"}, Type: Binary}, {Path: []string{"l"}, Type: Timestamp},
			{Path: []string{"m"}, Type: TimestampNTZ}, {Path: []string{"n"}, Type: Timestamp},
			{Path: []string{"o"}, Type: String}, {Path: []string{"p"}, Type: String},
		}},
		{"struct and modifiers", "s STRUCT<a: INT NOT NULL, `b c` STRING COMMENT 'it''s'>, t INT NOT NULL COMMENT \"x\\\"y\", u STRUCT<>", []HintField{
			{Path: []string{"s"}, Type: &StructType{Fields: []Field{
				{Name: "a", Type: Integer},
				{Name: "b c", Type: String, Nullable: true, Metadata: map[string]any{"comment": "it's"}},
			}}},
			{Path: []string{"t"}, Type: Integer, NotNull: true, Comment: `x"y`},
			{Path: []string{"u"}, Type: &StructType{}},
		}},
		{"colon form", "a: INT", []HintField{{Path: []string{"a"}, Type: Integer}}},
		{"nested collections", "x ARRAY<MAP<STRING, ARRAY<STRUCT<k:DECIMAL(4,1)>>>>", []HintField{
			{Path: []string{"x"}, Type: &ArrayType{ContainsNull: true, Element: &MapType{
				Key: String, ValueContainsNull: true, Value: &ArrayType{ContainsNull: true, Element: &StructType{
					Fields: []Field{{Name: "k", Type: DecimalType{4, 1}, Nullable: true}},
				}},
			}}},
		}},
		{"unicode name", "名前 STRING", []HintField{{Path: []string{"名前"}, Type: String}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDDL(tc.in)
			if err != nil {
				t.Fatalf("ParseDDL(%q): %v", tc.in, err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("ParseDDL(%q) = %v, want %v", tc.in, got, tc.want)
			}
			for i := range got {
				if !hintEqual(got[i], tc.want[i]) {
					t.Errorf("field %d = %s %#v, want %s", i, got[i], got[i], tc.want[i])
				}
			}
			// Round trip through FormatDDL.
			again, err := ParseDDL(FormatDDL(got))
			if err != nil {
				t.Fatalf("reparse %q: %v", FormatDDL(got), err)
			}
			for i := range got {
				if !hintEqual(got[i], again[i]) {
					t.Errorf("round trip field %d: %s != %s", i, got[i], again[i])
				}
			}
		})
	}
}

func hintEqual(a, b HintField) bool {
	return reflect.DeepEqual(a.Path, b.Path) && EqualType(a.Type, b.Type) && a.NotNull == b.NotNull && a.Comment == b.Comment
}

func TestParseDDLErrors(t *testing.T) {
	tests := []struct{ in, wantMsg string }{
		{"a", "expected a type"},
		{"a FOO", `unknown type "FOO"`},
		{"a INT,", "expected a column name"},
		{"a INT b INT", "expected ',' or end of input"},
		{", a INT", "expected a column name"},
		{"a DECIMAL(39,0)", "precision must be 1..38"},
		{"a DECIMAL(5,6)", "precision must be 1..38"},
		{"a DECIMAL(0)", "precision must be 1..38"},
		{"a DECIMAL(5,", "expected a number"},
		{"a ARRAY<INT", "expected '>'"},
		{"a MAP<INT>", "expected ','"},
		{"a STRUCT<x INT y INT>", "expected ',' or '>' in STRUCT"},
		{"a STRUCT<x INT, X INT>", "given twice"},
		{"`a INT", "unterminated backquoted name"},
		{"`` INT", "empty column name"},
		{"a INT, A LONG", "given twice"},
		{"a INT NOT", "expected NOT NULL"},
		{"a INT COMMENT", "expected a quoted string"},
		{"a INT COMMENT 'x", "unterminated string"},
		{"a VARCHAR", "expected '('"},
		{"a.", "expected a column name"},
		{"a " + strings.Repeat("ARRAY<", 100) + "INT" + strings.Repeat(">", 100), "nested deeper"},
		{"a DECIMAL(99999999999999999999)", "number out of range"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParseDDL(tc.in)
			if !errors.Is(err, ErrDDL) {
				t.Fatalf("ParseDDL(%q) error = %v, want ErrDDL", tc.in, err)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("ParseDDL(%q) error = %q, want it to contain %q", tc.in, err, tc.wantMsg)
			}
		})
	}
}

func TestParseDDLType(t *testing.T) {
	got, err := ParseDDLType(" map<string, array<bigint>> ")
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != "map<string,array<long>>" {
		t.Errorf("got %s", got)
	}
	if _, err := ParseDDLType("INT INT"); !errors.Is(err, ErrDDL) {
		t.Errorf("trailing text: err = %v", err)
	}
}

func FuzzParseDDL(f *testing.F) {
	for _, s := range []string{
		"user_id STRING, age INT, user_info.dob DATE",
		"a.b.c BIGINT", "arr ARRAY<INT>", "m MAP<STRING,INT>", "d DECIMAL(10,2)",
		"`odd name`.`a``b` STRING", "s STRUCT<a: INT NOT NULL, b STRING COMMENT 'c'>",
		"", "a", "a INT,", "x ARRAY<MAP<STRING, ARRAY<STRUCT<k:DECIMAL(4,1)>>>>",
		"t INT NOT NULL COMMENT \"x\\\"y\"", "名前 STRING",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		hints, err := ParseDDL(s)
		if err != nil {
			if !errors.Is(err, ErrDDL) {
				t.Fatalf("error does not wrap ErrDDL: %v", err)
			}
			return
		}
		text := FormatDDL(hints)
		again, err := ParseDDL(text)
		if err != nil {
			t.Fatalf("FormatDDL output %q does not reparse: %v", text, err)
		}
		if len(again) != len(hints) {
			t.Fatalf("round trip of %q lost fields: %q", s, text)
		}
		for i := range hints {
			if !hintEqual(hints[i], again[i]) {
				t.Fatalf("round trip of %q changed field %d: %s -> %s", s, i, hints[i], again[i])
			}
		}
	})
}
