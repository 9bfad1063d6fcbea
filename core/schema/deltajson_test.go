package schema

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestDeltaJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		typ  *StructType
		want string // exact JSON, in Delta's key order
	}{
		{
			name: "primitives",
			typ: &StructType{Fields: []Field{
				{Name: "s", Type: String, Nullable: true},
				{Name: "l", Type: Long, Nullable: false},
				{Name: "i", Type: Integer, Nullable: true},
				{Name: "sh", Type: Short, Nullable: true},
				{Name: "b", Type: Byte, Nullable: true},
				{Name: "d", Type: Double, Nullable: true},
				{Name: "f", Type: Float, Nullable: true},
				{Name: "bo", Type: Boolean, Nullable: true},
				{Name: "bi", Type: Binary, Nullable: true},
				{Name: "da", Type: DateType, Nullable: true},
				{Name: "ts", Type: Timestamp, Nullable: true},
				{Name: "ntz", Type: TimestampNTZ, Nullable: true},
			}},
			want: `{"type":"struct","fields":[{"name":"s","type":"string","nullable":true,"metadata":{}},{"name":"l","type":"long","nullable":false,"metadata":{}},{"name":"i","type":"integer","nullable":true,"metadata":{}},{"name":"sh","type":"short","nullable":true,"metadata":{}},{"name":"b","type":"byte","nullable":true,"metadata":{}},{"name":"d","type":"double","nullable":true,"metadata":{}},{"name":"f","type":"float","nullable":true,"metadata":{}},{"name":"bo","type":"boolean","nullable":true,"metadata":{}},{"name":"bi","type":"binary","nullable":true,"metadata":{}},{"name":"da","type":"date","nullable":true,"metadata":{}},{"name":"ts","type":"timestamp","nullable":true,"metadata":{}},{"name":"ntz","type":"timestamp_ntz","nullable":true,"metadata":{}}]}`,
		},
		{
			name: "decimals",
			typ: &StructType{Fields: []Field{
				{Name: "a", Type: DecimalType{Precision: 10, Scale: 2}, Nullable: true},
				{Name: "b", Type: DecimalType{Precision: 38, Scale: 38}, Nullable: true},
				{Name: "c", Type: DecimalType{Precision: 1, Scale: 0}, Nullable: false},
			}},
			want: `{"type":"struct","fields":[{"name":"a","type":"decimal(10,2)","nullable":true,"metadata":{}},{"name":"b","type":"decimal(38,38)","nullable":true,"metadata":{}},{"name":"c","type":"decimal(1,0)","nullable":false,"metadata":{}}]}`,
		},
		{
			name: "nested",
			typ: &StructType{Fields: []Field{
				{Name: "st", Nullable: true, Type: &StructType{Fields: []Field{
					{Name: "x", Type: Integer, Nullable: true},
					{Name: "arr", Type: &ArrayType{Element: &StructType{Fields: []Field{{Name: "y", Type: String, Nullable: false}}}, ContainsNull: false}, Nullable: true},
				}}},
				{Name: "m", Nullable: true, Type: &MapType{Key: String, Value: &ArrayType{Element: DecimalType{Precision: 5, Scale: 1}, ContainsNull: true}, ValueContainsNull: true}},
				{Name: "mm", Nullable: false, Type: &MapType{Key: &StructType{Fields: []Field{{Name: "k", Type: Long, Nullable: true}}}, Value: &MapType{Key: Integer, Value: Binary, ValueContainsNull: false}, ValueContainsNull: false}},
			}},
			want: `{"type":"struct","fields":[{"name":"st","type":{"type":"struct","fields":[{"name":"x","type":"integer","nullable":true,"metadata":{}},{"name":"arr","type":{"type":"array","elementType":{"type":"struct","fields":[{"name":"y","type":"string","nullable":false,"metadata":{}}]},"containsNull":false},"nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},{"name":"m","type":{"type":"map","keyType":"string","valueType":{"type":"array","elementType":"decimal(5,1)","containsNull":true},"valueContainsNull":true},"nullable":true,"metadata":{}},{"name":"mm","type":{"type":"map","keyType":{"type":"struct","fields":[{"name":"k","type":"long","nullable":true,"metadata":{}}]},"valueType":{"type":"map","keyType":"integer","valueType":"binary","valueContainsNull":false},"valueContainsNull":false},"nullable":false,"metadata":{}}]}`,
		},
		{
			name: "field metadata",
			typ: &StructType{Fields: []Field{
				{Name: "id", Type: Long, Nullable: true, Metadata: map[string]any{
					"delta.columnMapping.id":           json.Number("1"),
					"delta.columnMapping.physicalName": "col-5f422f40",
					"delta.identity.highWaterMark":     json.Number("9223372036854775807"),
					"comment":                          "a <b> & c",
					"nested":                           map[string]any{"list": []any{json.Number("1.5"), true, nil}},
				}},
			}},
			want: `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{"comment":"a <b> & c","delta.columnMapping.id":1,"delta.columnMapping.physicalName":"col-5f422f40","delta.identity.highWaterMark":9223372036854775807,"nested":{"list":[1.5,true,null]}}}]}`,
		},
		{
			name: "empty struct",
			typ:  &StructType{Fields: []Field{}},
			want: `{"type":"struct","fields":[]}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MarshalDeltaJSON(tc.typ)
			if err != nil {
				t.Fatalf("MarshalDeltaJSON: %v", err)
			}
			if got != tc.want {
				t.Fatalf("MarshalDeltaJSON:\n got %s\nwant %s", got, tc.want)
			}
			back, err := ParseDeltaJSON(got)
			if err != nil {
				t.Fatalf("ParseDeltaJSON: %v", err)
			}
			if !reflect.DeepEqual(back, tc.typ) {
				t.Fatalf("round trip mismatch:\n got %#v\nwant %#v", back, tc.typ)
			}
		})
	}
}

func TestParseDeltaJSONDefaultsAndSparkForms(t *testing.T) {
	// Spark writes "nullable" and "metadata" always; a missing nullable
	// means nullable, a missing containsNull means true.
	in := `{"type":"struct","fields":[{"name":"a","type":{"type":"array","elementType":"long"}},{"name":"b","type":"decimal( 12 , 3 )","nullable":false}]}`
	got, err := ParseDeltaJSON(in)
	if err != nil {
		t.Fatal(err)
	}
	want := &StructType{Fields: []Field{
		{Name: "a", Type: &ArrayType{Element: Long, ContainsNull: true}, Nullable: true},
		{Name: "b", Type: DecimalType{Precision: 12, Scale: 3}, Nullable: false},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v, want %#v", got, want)
	}
}

func TestParseDeltaJSONErrors(t *testing.T) {
	tests := []struct {
		name, in, wantSub string
		unknownType       bool
	}{
		{"not json", `{`, "decode schemaString", false},
		{"trailing", `{"type":"struct","fields":[]} {}`, "trailing", false},
		{"not a struct", `"long"`, "want a struct", false},
		{"variant", `{"type":"struct","fields":[{"name":"v","type":"variant","nullable":true,"metadata":{}}]}`, `field "v"`, true},
		{"nested unknown", `{"type":"struct","fields":[{"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"interval"}]}}]}`, `field "s.x"`, true},
		{"unknown complex", `{"type":"struct","fields":[{"name":"u","type":{"type":"udt"}}]}`, `"udt"`, true},
		{"bad decimal", `{"type":"struct","fields":[{"name":"d","type":"decimal(39,2)"}]}`, "decimal(39,2)", false},
		{"decimal scale > precision", `{"type":"struct","fields":[{"name":"d","type":"decimal(2,3)"}]}`, "decimal(2,3)", false},
		{"malformed decimal", `{"type":"struct","fields":[{"name":"d","type":"decimal(10"}]}`, "malformed decimal", true},
		{"duplicate field", `{"type":"struct","fields":[{"name":"a","type":"long"},{"name":"a","type":"long"}]}`, "duplicate", false},
		{"missing name", `{"type":"struct","fields":[{"type":"long"}]}`, "no string \"name\"", false},
		{"missing type", `{"type":"struct","fields":[{"name":"a"}]}`, "missing \"type\"", false},
		{"bad nullable", `{"type":"struct","fields":[{"name":"a","type":"long","nullable":"yes"}]}`, "nullable", false},
		{"array without element", `{"type":"struct","fields":[{"name":"a","type":{"type":"array"}}]}`, "elementType", false},
		{"map without value", `{"type":"struct","fields":[{"name":"a","type":{"type":"map","keyType":"string"}}]}`, "valueType", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDeltaJSON(tc.in)
			if err == nil {
				t.Fatalf("ParseDeltaJSON(%s) succeeded, want error", tc.in)
			}
			if !strings.Contains(err.Error(), tc.wantSub) {
				t.Fatalf("error %q does not mention %q", err, tc.wantSub)
			}
			if got := errors.Is(err, ErrUnknownType); got != tc.unknownType {
				t.Fatalf("errors.Is(ErrUnknownType) = %v, want %v (err %v)", got, tc.unknownType, err)
			}
		})
	}
}

func TestMarshalDeltaJSONErrors(t *testing.T) {
	tests := []struct {
		name string
		typ  *StructType
	}{
		{"nil", nil},
		{"nil field type", &StructType{Fields: []Field{{Name: "a"}}}},
		{"bad primitive", &StructType{Fields: []Field{{Name: "a", Type: PrimitiveType("variant")}}}},
		{"bad decimal", &StructType{Fields: []Field{{Name: "a", Type: DecimalType{Precision: 0}}}}},
		{"array nil element", &StructType{Fields: []Field{{Name: "a", Type: &ArrayType{}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := MarshalDeltaJSON(tc.typ); err == nil {
				t.Fatal("MarshalDeltaJSON succeeded, want error")
			}
		})
	}
}

func FuzzParseDeltaJSON(f *testing.F) {
	seeds := []string{
		`{"type":"struct","fields":[]}`,
		`{"type":"struct","fields":[{"name":"a","type":"decimal(10,2)","nullable":true,"metadata":{"k":1}}]}`,
		`{"type":"struct","fields":[{"name":"a","type":{"type":"map","keyType":"string","valueType":{"type":"array","elementType":"timestamp_ntz","containsNull":false},"valueContainsNull":true},"nullable":true,"metadata":{}}]}`,
		`{"type":"struct","fields":[{"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"binary"}]}}]}`,
		`{"type":"struct","fields":[{"name":"v","type":"variant"}]}`,
		`"long"`,
		`{"type":"struct","fields":[{"name":"d","type":"decimal(1,-1)"}]}`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		st, err := ParseDeltaJSON(in)
		if err != nil {
			return
		}
		out, err := MarshalDeltaJSON(st)
		if err != nil {
			t.Fatalf("parsed schema does not marshal: %v (input %q)", err, in)
		}
		back, err := ParseDeltaJSON(out)
		if err != nil {
			t.Fatalf("marshalled schema does not parse: %v (%s)", err, out)
		}
		out2, err := MarshalDeltaJSON(back)
		if err != nil || out2 != out {
			t.Fatalf("not a fixed point:\n%s\n%s (err %v)", out, out2, err)
		}
	})
}
