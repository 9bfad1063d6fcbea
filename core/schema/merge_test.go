package schema

import (
	"errors"
	"strings"
	"testing"
)

func mergeTestStruct(fields ...Field) *StructType { return &StructType{Fields: fields} }

func mergeTestField(name string, t Type) Field { return Field{Name: name, Type: t, Nullable: true} }

func TestWidenType(t *testing.T) {
	tests := []struct {
		a, b Type
		want Type // nil: no widening
	}{
		{Integer, Integer, Integer},
		{Byte, Short, Short},
		{Short, Byte, Short},
		{Byte, Long, Long},
		{Integer, Long, Long},
		{Byte, Double, Double},
		{Short, Double, Double},
		{Integer, Double, Double},
		{Long, Double, nil}, // seed 002: long widens to decimal only
		{Float, Double, Double},
		{Float, Integer, nil},
		{Integer, DecimalType{5, 2}, DecimalType{12, 2}}, // the seed's example
		{DecimalType{5, 2}, Integer, DecimalType{12, 2}},
		{Byte, DecimalType{3, 0}, DecimalType{10, 0}},
		{Long, DecimalType{5, 2}, DecimalType{22, 2}},
		{Long, DecimalType{10, 20}, nil}, // 20 digits + scale 20 > 38
		{DecimalType{10, 2}, DecimalType{5, 4}, DecimalType{12, 4}},
		{DecimalType{38, 0}, DecimalType{38, 1}, nil},
		{DecimalType{10, 2}, Double, nil},
		{DateType, TimestampNTZ, TimestampNTZ},
		{TimestampNTZ, DateType, TimestampNTZ},
		{DateType, Timestamp, nil},
		{Integer, String, nil},
		{String, Long, nil},
		{Boolean, Integer, nil},
		{Long, Integer, Long},
	}
	for _, tc := range tests {
		got, ok := WidenType(tc.a, tc.b)
		if tc.want == nil {
			if ok {
				t.Errorf("WidenType(%s, %s) = %s, want no widening", tc.a, tc.b, got)
			}
			continue
		}
		if !ok || !EqualType(got, tc.want) {
			t.Errorf("WidenType(%s, %s) = %v, %v; want %s", tc.a, tc.b, got, ok, tc.want)
		}
	}
}

func TestMerge(t *testing.T) {
	a := mergeTestStruct(
		mergeTestField("id", Integer),
		mergeTestField("Name", String),
		mergeTestField("user", mergeTestStruct(mergeTestField("dob", DateType))),
		mergeTestField("tags", &ArrayType{Element: Short}),
		Field{Name: "m", Type: &MapType{Key: String, Value: Float}},
	)
	b := mergeTestStruct(
		mergeTestField("age", Integer),
		Field{Name: "id", Type: Long},
		mergeTestField("name", String),
		mergeTestField("user", mergeTestStruct(mergeTestField("zip", String), mergeTestField("dob", TimestampNTZ))),
		mergeTestField("tags", &ArrayType{Element: Integer, ContainsNull: true}),
		Field{Name: "m", Type: &MapType{Key: String, Value: Double, ValueContainsNull: true}},
	)
	got, err := Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := mergeTestStruct(
		mergeTestField("id", Long),
		mergeTestField("Name", String),
		mergeTestField("user", mergeTestStruct(mergeTestField("dob", TimestampNTZ), mergeTestField("zip", String))),
		mergeTestField("tags", &ArrayType{Element: Integer, ContainsNull: true}),
		Field{Name: "m", Type: &MapType{Key: String, Value: Double, ValueContainsNull: true}},
		mergeTestField("age", Integer),
	)
	if !Equal(got, want) {
		t.Errorf("Merge =\n%s\nwant\n%s", got, want)
	}
	// Inputs untouched.
	if a.Fields[0].Type != Integer || len(a.Fields[2].Type.(*StructType).Fields) != 1 {
		t.Errorf("Merge modified its input: %s", a)
	}
	// nil inputs.
	if got, err := Merge(nil, b); err != nil || !Equal(got, b) {
		t.Errorf("Merge(nil, b) = %s, %v", got, err)
	}
}

func TestMergeIncompatible(t *testing.T) {
	tests := []struct {
		a, b *StructType
		path string
	}{
		{mergeTestStruct(mergeTestField("id", Integer)), mergeTestStruct(mergeTestField("id", String)), `"id"`},
		{mergeTestStruct(mergeTestField("u", mergeTestStruct(mergeTestField("x", Long)))), mergeTestStruct(mergeTestField("u", mergeTestStruct(mergeTestField("x", Double)))), `"u.x"`},
		{mergeTestStruct(mergeTestField("u", mergeTestStruct())), mergeTestStruct(mergeTestField("u", String)), `"u"`},
		{mergeTestStruct(mergeTestField("a", &ArrayType{Element: Boolean})), mergeTestStruct(mergeTestField("a", &ArrayType{Element: Long})), `"a.element"`},
		{mergeTestStruct(mergeTestField("m", &MapType{Key: String, Value: Long})), mergeTestStruct(mergeTestField("m", &MapType{Key: Long, Value: Long})), `"m.key"`},
	}
	for _, tc := range tests {
		_, err := Merge(tc.a, tc.b)
		if !errors.Is(err, ErrIncompatible) {
			t.Errorf("Merge(%s, %s) error = %v, want ErrIncompatible", tc.a, tc.b, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.path) {
			t.Errorf("error %q does not name %s", err, tc.path)
		}
	}
}

func TestEqual(t *testing.T) {
	base := func() *StructType {
		return mergeTestStruct(mergeTestField("a", Long), Field{Name: "b", Type: &ArrayType{Element: DecimalType{5, 1}}, Metadata: map[string]any{"comment": "x"}})
	}
	if !Equal(base(), base()) || !Equal(nil, nil) {
		t.Fatal("equal schemas reported different")
	}
	mods := map[string]func(s *StructType){
		"name":     func(s *StructType) { s.Fields[0].Name = "A" },
		"type":     func(s *StructType) { s.Fields[0].Type = Integer },
		"nullable": func(s *StructType) { s.Fields[0].Nullable = false },
		"metadata": func(s *StructType) { s.Fields[1].Metadata["comment"] = "y" },
		"element":  func(s *StructType) { s.Fields[1].Type.(*ArrayType).Element = DecimalType{5, 2} },
		"contains": func(s *StructType) { s.Fields[1].Type.(*ArrayType).ContainsNull = true },
		"extra":    func(s *StructType) { s.Fields = append(s.Fields, mergeTestField("c", String)) },
		"order":    func(s *StructType) { s.Fields[0], s.Fields[1] = s.Fields[1], s.Fields[0] },
	}
	for name, mod := range mods {
		s := base()
		mod(s)
		if Equal(base(), s) {
			t.Errorf("%s: different schemas reported equal", name)
		}
	}
	if Equal(base(), nil) {
		t.Error("schema equal to nil")
	}
	empty := mergeTestStruct(Field{Name: "a", Type: Long, Metadata: map[string]any{}})
	if !Equal(empty, mergeTestStruct(Field{Name: "a", Type: Long})) {
		t.Error("empty and nil metadata should be equal")
	}
}

func TestApplyHints(t *testing.T) {
	inferred := mergeTestStruct(
		mergeTestField("Age", String),
		mergeTestField("arr", &ArrayType{Element: String, ContainsNull: true}),
		mergeTestField("m", &MapType{Key: String, Value: String, ValueContainsNull: true}),
		mergeTestField("name", String),
		mergeTestField("user_info", mergeTestStruct(mergeTestField("name", String))),
	)
	hints, err := ParseDDL("age INT, user_info.dob DATE, arr.element BIGINT, m.value DOUBLE, new.deep.x BOOLEAN NOT NULL COMMENT 'c', name.first STRING")
	if err != nil {
		t.Fatal(err)
	}
	got := ApplyHints(inferred, hints)
	want := mergeTestStruct(
		mergeTestField("Age", Integer),
		mergeTestField("arr", &ArrayType{Element: Long, ContainsNull: true}),
		mergeTestField("m", &MapType{Key: String, Value: Double, ValueContainsNull: true}),
		mergeTestField("name", mergeTestStruct(mergeTestField("first", String))),
		mergeTestField("user_info", mergeTestStruct(mergeTestField("name", String), mergeTestField("dob", DateType))),
		mergeTestField("new", mergeTestStruct(mergeTestField("deep", mergeTestStruct(Field{Name: "x", Type: Boolean, Metadata: map[string]any{"comment": "c"}})))),
	)
	if !Equal(got, want) {
		t.Errorf("ApplyHints =\n%s\nwant\n%s", got, want)
	}
	if inferred.Fields[0].Type != String {
		t.Error("ApplyHints modified its input")
	}
	if got := ApplyHints(nil, hints[:1]); !Equal(got, mergeTestStruct(mergeTestField("age", Integer))) {
		t.Errorf("ApplyHints(nil) = %s", got)
	}
}
