package hivepart

import (
	"errors"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/schema"
)

func strp(s string) *string { return &s }

func TestColumnsOf(t *testing.T) {
	cols := Columns{Names: []string{"day", "n"}, Types: map[string]schema.Type{"n": schema.Integer}}
	tests := []struct {
		name    string
		path    string
		wantDir string
		want    map[string]*string
		wantErr string
	}{
		{"plain", "in/day=2026-01-02/n=07/a.json", "day=2026-01-02/n=7/", map[string]*string{"day": strp("2026-01-02"), "n": strp("7")}, ""},
		{"case and escapes", "in/DAY=a%2Fb/N=1/a.json", "day=a%2Fb/n=1/", map[string]*string{"day": strp("a/b"), "n": strp("1")}, ""},
		{"nulls", "day=/n=__HIVE_DEFAULT_PARTITION__/a.json", "day=__HIVE_DEFAULT_PARTITION__/n=__HIVE_DEFAULT_PARTITION__/", map[string]*string{"day": nil, "n": nil}, ""},
		{"file name is no directory", "day=1/n=2", "", nil, "has no n=<value> directory"},
		{"missing column", "day=1/a.json", "", nil, "has no n=<value> directory"},
		{"bad typed value", "day=1/n=seven/a.json", "", nil, "partition column n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := cols.Of(tt.path)
			if tt.wantErr != "" {
				if !errors.Is(err, ErrMissingPartition) || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), tt.path) {
					t.Fatalf("err %v, want ErrMissingPartition naming %s and %q", err, tt.path, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Dir != tt.wantDir {
				t.Errorf("Dir %q, want %q", p.Dir, tt.wantDir)
			}
			if len(p.Values) != len(tt.want) {
				t.Fatalf("Values %v, want %v", p.Values, tt.want)
			}
			for k, w := range tt.want {
				g, ok := p.Values[k]
				if !ok || (g == nil) != (w == nil) || (g != nil && *g != *w) {
					t.Errorf("Values[%s] = %v, want %v", k, g, w)
				}
			}
		})
	}
	if p, err := (Columns{}).Of("a/b=c/x.json"); err != nil || p.Dir != "" || len(p.Values) != 0 {
		t.Errorf("no partition columns: %+v, %v; want the empty partition", p, err)
	}
}

func FuzzColumnsOf(f *testing.F) {
	for _, s := range []string{"day=1/n=2/a.json", "day=%ZZ/n=/x", "n=__HIVE_DEFAULT_PARTITION__/day=a%2Fb/f"} {
		f.Add(s)
	}
	cols := Columns{Names: []string{"day", "n"}, Types: map[string]schema.Type{"n": schema.Long}}
	f.Fuzz(func(t *testing.T, path string) {
		p, err := cols.Of(path)
		if err != nil {
			if !errors.Is(err, ErrMissingPartition) {
				t.Fatalf("error %v is not ErrMissingPartition", err)
			}
			return
		}
		if len(p.Values) != 2 || !strings.HasSuffix(p.Dir, "/") || strings.Count(p.Dir, "/") != 2 {
			t.Fatalf("%q: partition %+v, want two values and two directories", path, p)
		}
	})
}

func TestHintTypes(t *testing.T) {
	tests := []struct {
		name    string
		hints   []Hint
		want    map[string]schema.Type
		wantErr string
	}{
		{"typed by hints", []Hint{{"cloudFiles.schemaHints", "day DATE, other BINARY"}}, map[string]schema.Type{"day": schema.DateType}, ""},
		{"user schema too", []Hint{{"cloudFiles.schemaHints", ""}, {"schema", "n INT"}}, map[string]schema.Type{"n": schema.Integer}, ""},
		{"binary refused", []Hint{{"cloudFiles.schemaHints", "n BINARY"}}, nil, "option cloudFiles.schemaHints types partition column n as BINARY"},
		{"nested refused", []Hint{{"schema", "day ARRAY<INT>"}}, nil, "option schema types partition column day"},
		{"bad DDL", []Hint{{"schema", "day"}}, nil, "option schema:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := HintTypes([]string{"day", "n"}, tt.hints...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("types %v, want %v", got, tt.want)
			}
			for k, w := range tt.want {
				if !schema.EqualType(got[k], w) {
					t.Errorf("type of %s = %v, want %v", k, got[k], w)
				}
			}
		})
	}
}

func TestSchemas(t *testing.T) {
	cols := Columns{Names: []string{"day"}, Types: map[string]schema.Type{"day": schema.DateType}}
	table := &schema.StructType{Fields: []schema.Field{{Name: "Day", Type: schema.String}, {Name: "id", Type: schema.Long}}}
	data := cols.DataSchema(table)
	if len(data.Fields) != 1 || data.Fields[0].Name != "id" {
		t.Fatalf("DataSchema %v, want [id]", data.Fields)
	}
	back := cols.WithPartitions(table)
	if len(back.Fields) != 2 || back.Fields[1].Name != "day" || !schema.EqualType(back.Fields[1].Type, schema.DateType) {
		t.Errorf("WithPartitions %v, want [id day DATE]", back.Fields)
	}
	if got := (Columns{}).DataSchema(table); got != table {
		t.Errorf("no partition columns: DataSchema changed the schema")
	}
}

func TestBySplit(t *testing.T) {
	in := &schema.StructType{Fields: []schema.Field{{Name: "id", Type: schema.Long}, {Name: "Country", Type: schema.String}}}
	if _, err := NewBy([]string{"nope"}, in); err == nil || !strings.Contains(err.Error(), "column nope is not in the stream's schema") {
		t.Errorf("unknown column: %v", err)
	}
	if by, err := NewBy(nil, in); by != nil || err != nil {
		t.Errorf("no columns: %v, %v; want nil", by, err)
	}
	by, err := NewBy([]string{"country"}, in)
	if err != nil {
		t.Fatal(err)
	}
	if fs := by.FileSchema(in); len(fs.Fields) != 1 || fs.Fields[0].Name != "id" {
		t.Errorf("FileSchema %v, want [id]", fs.Fields)
	}
	base := Partition{Dir: "day=1/", Values: map[string]*string{"day": strp("1")}}
	parts, groups := by.Split(base, [][]any{{int64(1), "fr"}, {int64(2), nil}, {int64(3), "fr"}})
	if len(parts) != 2 || parts[0].Dir != "day=1/Country=fr/" || parts[1].Dir != "day=1/Country=__HIVE_DEFAULT_PARTITION__/" {
		t.Fatalf("parts %+v", parts)
	}
	if *parts[0].Values["day"] != "1" || *parts[0].Values["Country"] != "fr" || parts[1].Values["Country"] != nil {
		t.Errorf("values %v %v", parts[0].Values, parts[1].Values)
	}
	if len(groups[0]) != 2 || groups[0][1][0] != int64(3) || len(groups[0][0]) != 1 || len(groups[1]) != 1 {
		t.Errorf("groups %v", groups)
	}
}
