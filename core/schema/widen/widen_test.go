package widen

import (
	"errors"
	"testing"

	"github.com/tributary-io/tributary/core/schema"
)

func ddl(t *testing.T, s string) schema.Type {
	t.Helper()
	ty, err := schema.ParseDDLType(s)
	if err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return ty
}

func structOf(t *testing.T, s string) *schema.StructType {
	t.Helper()
	st, ok := ddl(t, "STRUCT<"+s+">").(*schema.StructType)
	if !ok {
		t.Fatalf("%s: not a struct", s)
	}
	return st
}

// TestType is seed 002's table of supported changes, its decimal precision
// rule, and changes that are not widenings (the value stays rescued).
func TestType(t *testing.T) {
	parquet := Options{DateToTimestampNTZ: true}
	tests := []struct {
		cur, inf, want string
		opts           Options
	}{
		{"TINYINT", "SMALLINT", "SMALLINT", Options{}},
		{"TINYINT", "INT", "INT", Options{}},
		{"TINYINT", "BIGINT", "BIGINT", Options{}},
		{"TINYINT", "DOUBLE", "DOUBLE", Options{}},
		{"TINYINT", "DECIMAL(5,2)", "DECIMAL(12,2)", Options{}},
		{"SMALLINT", "INT", "INT", Options{}},
		{"SMALLINT", "DOUBLE", "DOUBLE", Options{}},
		{"INT", "BIGINT", "BIGINT", Options{}},
		{"INT", "DOUBLE", "DOUBLE", Options{}},
		{"INT", "DECIMAL(5,2)", "DECIMAL(12,2)", Options{}}, // the seed's example
		{"INT", "DECIMAL(12,0)", "DECIMAL(12,0)", Options{}},
		{"BIGINT", "DECIMAL(5,2)", "DECIMAL(22,2)", Options{}},
		{"BIGINT", "DECIMAL(38,20)", "BIGINT", Options{}}, // 20 + 20 digits > 38
		{"BIGINT", "DOUBLE", "BIGINT", Options{}},         // long → double is not a widening
		{"FLOAT", "DOUBLE", "DOUBLE", Options{}},
		{"DECIMAL(10,2)", "DECIMAL(20,2)", "DECIMAL(20,2)", Options{}},
		{"DECIMAL(10,2)", "DECIMAL(5,4)", "DECIMAL(12,4)", Options{}},
		{"DATE", "TIMESTAMP_NTZ", "DATE", Options{}}, // Parquet only
		{"DATE", "TIMESTAMP_NTZ", "TIMESTAMP_NTZ", parquet},
		{"DATE", "TIMESTAMP", "DATE", parquet},
		{"INT", "STRING", "INT", Options{}},
		{"BIGINT", "INT", "BIGINT", Options{}}, // narrower values fit
		{"DOUBLE", "INT", "DOUBLE", Options{}},
		{"STRING", "INT", "STRING", Options{}},
		{"BOOLEAN", "INT", "BOOLEAN", Options{}},
	}
	for _, tc := range tests {
		t.Run(tc.cur+"+"+tc.inf, func(t *testing.T) {
			got := Type(ddl(t, tc.cur), ddl(t, tc.inf), tc.opts)
			if !schema.EqualType(got, ddl(t, tc.want)) {
				t.Errorf("Type(%s, %s) = %s, want %s", tc.cur, tc.inf, got, tc.want)
			}
		})
	}
}

func TestSchema(t *testing.T) {
	tests := []struct {
		name, cur, inf, want string
		changes              []string
	}{
		{"seed 002", "id INT, name STRING, _rescued_data STRING", "id BIGINT, name STRING, age INT",
			"id BIGINT, name STRING, _rescued_data STRING", []string{"id: integer -> long"}},
		{"nothing to widen", "id BIGINT, name STRING", "id INT, name INT", "id BIGINT, name STRING", nil},
		{"nested struct, array, map", "s STRUCT<a: INT, b: FLOAT>, l ARRAY<SMALLINT>, m MAP<STRING, INT>",
			"S STRUCT<A: BIGINT, b: DOUBLE>, l ARRAY<INT>, m MAP<STRING, DECIMAL(5,2)>",
			"s STRUCT<a: BIGINT, b: DOUBLE>, l ARRAY<INT>, m MAP<STRING, DECIMAL(12,2)>",
			[]string{"s.a: integer -> long", "s.b: float -> double", "l (element): short -> integer", "m (value): integer -> decimal(12,2)"}},
		{"shape change is not a widening", "s STRUCT<a: INT>, l ARRAY<INT>", "s STRING, l BIGINT", "s STRUCT<a: INT>, l ARRAY<INT>", nil},
		{"rescued column left alone", "_rescued_data STRING", "_rescued_data INT", "_rescued_data STRING", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cur := structOf(t, tc.cur)
			before := cur.Clone()
			got, changes := Schema(cur, structOf(t, tc.inf), "_rescued_data", Options{})
			if !schema.Equal(got, structOf(t, tc.want)) {
				t.Errorf("schema %s, want %s", schema.DDLType(got), tc.want)
			}
			var cs []string
			for _, c := range changes {
				cs = append(cs, c.String())
			}
			if len(cs) != len(tc.changes) {
				t.Fatalf("changes %q, want %q", cs, tc.changes)
			}
			for i := range cs {
				if cs[i] != tc.changes[i] {
					t.Errorf("change %d: %q, want %q", i, cs[i], tc.changes[i])
				}
			}
			if !schema.Equal(cur, before) {
				t.Errorf("current schema modified")
			}
		})
	}
}

func TestTableSchema(t *testing.T) {
	old := structOf(t, "id INT, s STRUCT<x: TINYINT>, l ARRAY<INT>, c STRING")
	old.Fields[0].Metadata = map[string]any{"comment": "the id", TypeChangesKey: []any{map[string]any{"fromType": "short", "toType": "integer"}}}
	old.Fields[3].Metadata = map[string]any{"comment": "kept"}
	next := structOf(t, "id BIGINT, s STRUCT<x: SMALLINT, y: INT>, l ARRAY<DOUBLE>, c STRING, n INT")
	got, changes, err := TableSchema(old, next, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 3 {
		t.Errorf("changes %v", changes)
	}
	want := []map[string]any{
		{"comment": "the id", TypeChangesKey: []any{map[string]any{"fromType": "short", "toType": "integer"}, map[string]any{"fromType": "integer", "toType": "long"}}},
		nil,
		{TypeChangesKey: []any{map[string]any{"fromType": "integer", "toType": "double", "fieldPath": "element"}}},
		{"comment": "kept"},
		nil,
	}
	gotJSON, err := schema.MarshalDeltaJSON(got)
	if err != nil {
		t.Fatal(err)
	}
	wantSt := next.Clone()
	for i, m := range want {
		wantSt.Fields[i].Metadata = m
	}
	wantSt.Fields[1].Type.(*schema.StructType).Fields[0].Metadata = map[string]any{TypeChangesKey: []any{map[string]any{"fromType": "byte", "toType": "short"}}}
	wantJSON, _ := schema.MarshalDeltaJSON(wantSt)
	if gotJSON != wantJSON {
		t.Errorf("table schema\n %s\nwant\n %s", gotJSON, wantJSON)
	}
	// Unchanged: the same schema, metadata kept, no change.
	again, changes, err := TableSchema(got, next, Options{})
	if err != nil || len(changes) != 0 {
		t.Fatalf("again: %v, %v", changes, err)
	}
	if j, _ := schema.MarshalDeltaJSON(again); j != gotJSON {
		t.Errorf("again: %s", j)
	}
	for _, bad := range []string{
		"id INT, s STRUCT<x: TINYINT>, l ARRAY<INT>, c INT",         // string → int
		"id SMALLINT, s STRUCT<x: TINYINT>, l ARRAY<INT>, c STRING", // narrowing
		"id INT, s STRUCT<x: TINYINT>, l ARRAY<INT>",                // dropped
		"id INT, s STRUCT<x: TINYINT>, l INT, c STRING",             // shape
	} {
		if _, _, err := TableSchema(old, structOf(t, bad), Options{}); !errors.Is(err, ErrNotWidening) {
			t.Errorf("%s: %v, want ErrNotWidening", bad, err)
		}
	}
}
