package schemamerge

import (
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/schema"
)

func ddl(t *testing.T, s string) *schema.StructType {
	t.Helper()
	hints, err := schema.ParseDDL(s)
	if err != nil {
		t.Fatal(err)
	}
	return schema.ApplyHints(&schema.StructType{}, hints)
}

func names(st *schema.StructType) []string {
	var out []string
	for _, f := range st.Fields {
		out = append(out, f.Name)
	}
	return out
}

func TestCompatibleAndAdopt(t *testing.T) {
	tests := []struct {
		name, table, ours string
		compatErr         string // "" compatible
		adoptErr          string // "" adoptable
		adopted           []string
	}{
		{"same", "a INT, b STRING", "A INT, b STRING", "", "", []string{"A", "b"}},
		{"new column", "a INT", "a INT, c STRING", "", "", []string{"a", "c"}},
		{"nullable column missing", "a INT, b STRING", "a INT, c STRING", "column b would be dropped", "", []string{"a", "b", "c"}},
		{"retyped", "a INT", "a STRING", "column a would change", "column a would change from INT to STRING", nil},
		{"nested missing", "s STRUCT<x: INT, y: INT>", "s STRUCT<x: INT>", "column s.y would be dropped", "", []string{"s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table, ours := ddl(t, tt.table), ddl(t, tt.ours)
			if err := Compatible(table, ours, ""); (err == nil) != (tt.compatErr == "") || err != nil && !strings.Contains(err.Error(), tt.compatErr) {
				t.Errorf("Compatible: %v, want %q", err, tt.compatErr)
			}
			got, err := Adopt(table, ours)
			if tt.adoptErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.adoptErr) {
					t.Fatalf("Adopt: %v, want %q", err, tt.adoptErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(names(got), tt.adopted) {
				t.Errorf("Adopt: %v, want %v", names(got), tt.adopted)
			}
		})
	}
	notNull := &schema.StructType{Fields: []schema.Field{{Name: "a", Type: schema.Integer}, {Name: "k", Type: schema.Integer}}}
	if _, err := Adopt(notNull, ddl(t, "a INT")); err == nil || !strings.Contains(err.Error(), "column k is NOT NULL") {
		t.Errorf("Adopt without a NOT NULL column: %v", err)
	}
}

func TestAddMissingAndPaths(t *testing.T) {
	cur := ddl(t, "a INT, _rescued_data STRING, s STRUCT<x: INT>")
	inf := ddl(t, "A INT, b STRING, s STRUCT<x: INT, y: INT>")
	got, added := AddMissing(cur, inf, "_rescued_data")
	if !slices.Equal(names(got), []string{"a", "s", "b", "_rescued_data"}) || !slices.Equal(added, []string{"b", "s.y"}) {
		t.Errorf("AddMissing: %v added %v", names(got), added)
	}
	if !got.Fields[2].Nullable {
		t.Error("an added column must be nullable")
	}
	if len(cur.Fields) != 3 {
		t.Error("AddMissing changed its input")
	}
	if p := MissingPaths(got, cur, ""); !slices.Equal(p, []string{"s.y", "b"}) {
		t.Errorf("MissingPaths: %v", p)
	}
	for path, want := range map[string]bool{"s.y": true, "S.X": true, "s.z": false, "a.x": false, "b": true, "c": false} {
		if HasPath(got, path) != want {
			t.Errorf("HasPath(%s) = %v", path, !want)
		}
	}
	if w := WithRescued(cur, "_rescued_data"); w != cur {
		t.Error("WithRescued added a present column")
	}
	if w := WithRescued(inf, "_r"); !slices.Equal(names(w), []string{"A", "b", "s", "_r"}) || len(inf.Fields) != 3 {
		t.Errorf("WithRescued: %v", names(w))
	}
	if w := WithRescued(inf, ""); w != inf {
		t.Error("WithRescued without a name changed the schema")
	}
}
