package parquetio

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/schema"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
	return v
}

// TestSparkStats re-writes a Spark-written file and requires Spark's stats.
func TestSparkStats(t *testing.T) {
	data, err := os.ReadFile("testdata/spark-all-types/data.snappy.parquet")
	if err != nil {
		t.Fatal(err)
	}
	s, rows, err := ReadFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("ReadFile(Spark file): %v", err)
	}
	wantTypes := "struct<byte,short,integer,long,float,double,date,timestamp,timestamp_ntz,string,decimal(10,2),boolean,binary,array<integer>,map<string,integer>,struct<integer,string,double>>"
	var got []string
	for _, f := range s.Fields {
		got = append(got, typeShape(f.Type))
	}
	if g := "struct<" + strings.Join(got, ",") + ">"; g != wantTypes {
		t.Fatalf("Spark file schema\n got %s\nwant %s", g, wantTypes)
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows, want 4", len(rows))
	}
	// The independent reader must agree with ReadFile on Spark's own file.
	_, arrowRows := readArrow(t, data, s)
	compareRows(t, "ReadFile vs pqarrow on Spark file", s, arrowRows, rows)

	_, st := writeFile(t, s, rows, WriterOptions{})
	j, err := st.JSON()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/spark-all-types/stats.json")
	if err != nil {
		t.Fatal(err)
	}
	g, w := decodeJSON(t, []byte(j)), decodeJSON(t, want)
	delete(g.(map[string]any), "tightBounds")
	if !reflect.DeepEqual(g, w) {
		t.Errorf("stats differ from Spark's\n got %s\nwant %s", j, want)
	}
}

// typeShape is a type's simple string without field names.
func typeShape(t schema.Type) string {
	switch t := t.(type) {
	case *schema.StructType:
		var parts []string
		for _, f := range t.Fields {
			parts = append(parts, typeShape(f.Type))
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	case *schema.ArrayType:
		return "array<" + typeShape(t.Element) + ">"
	case *schema.MapType:
		return "map<" + typeShape(t.Key) + "," + typeShape(t.Value) + ">"
	}
	return t.String()
}

func TestGoldenStats(t *testing.T) {
	tests := []struct {
		name string
		s    *schema.StructType
		rows [][]any
		opts WriterOptions
	}{
		{"primitives", primitiveSchema(), primitiveRows(), WriterOptions{}},
		{"decimals", decimalSchema(), decimalRows(), WriterOptions{}},
		{"nested", nestedSchema(), nestedRows(), WriterOptions{}},
		{"nested-4-indexed", nestedSchema(), nestedRows(), WriterOptions{NumIndexedCols: 4}},
		// delta.dataSkippingStatsColumns: st.n whole, st.a, m and a missing name; id is left out.
		{"nested-stats-columns", nestedSchema(), nestedRows(), WriterOptions{NumIndexedCols: 1, StatsColumns: [][]string{{"ST", "n"}, {"st", "a"}, {"m"}, {"nope"}}}},
		{"strings", stringSchema(), stringRows(), WriterOptions{}},
		{"no-stats", primitiveSchema(), primitiveRows(), WriterOptions{NoStats: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, st := writeFile(t, tc.s, tc.rows, tc.opts)
			j, err := st.JSON()
			if err != nil {
				t.Fatal(err)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, []byte(j), "", " "); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
			path := filepath.Join("testdata", "stats", tc.name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(pretty.Bytes(), want) {
				t.Errorf("stats differ from %s\n got %s\nwant %s", path, pretty.Bytes(), want)
			}
		})
	}
}

func stringSchema() *schema.StructType {
	return structOf(
		field("short", schema.String, true),
		field("long_ascii", schema.String, true),
		field("long_max_char", schema.String, true),
		field("long_nonascii", schema.String, true),
		field("all_null", schema.String, true),
	)
}

func stringRows() [][]any {
	a40 := strings.Repeat("a", 40)
	return [][]any{
		{"b", a40, strings.Repeat("z", 31) + "\x7f" + "zzz", strings.Repeat("é", 40), nil},
		{"a", strings.Repeat("a", 32) + "b", strings.Repeat("z", 31) + "\x7f" + "\x7f", "ä", nil},
		{"c", "b", "a", "x", nil},
	}
}

func TestTimestampBounds(t *testing.T) {
	s := structOf(field("ts", schema.Timestamp, true), field("ntz", schema.TimestampNTZ, true))
	tests := []struct {
		name     string
		vals     []string
		min, max string
	}{
		{"exact millis", []string{"2024-01-02T03:04:05.123Z"}, "2024-01-02T03:04:05.123", "2024-01-02T03:04:05.123"},
		{"micros round out", []string{"2024-01-02T03:04:05.123456Z", "2024-01-02T03:04:05.123001Z"}, "2024-01-02T03:04:05.123", "2024-01-02T03:04:05.124"},
		{"before epoch", []string{"1969-12-31T23:59:59.999001Z"}, "1969-12-31T23:59:59.999", "1970-01-01T00:00:00.000"},
		{"max rolls over a second", []string{"2024-12-31T23:59:59.9995Z"}, "2024-12-31T23:59:59.999", "2025-01-01T00:00:00.000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var rows [][]any
			for _, v := range tc.vals {
				rows = append(rows, []any{ts(v), ts(v)})
			}
			_, st := writeFile(t, s, rows, WriterOptions{})
			want := map[string]any{"ts": tc.min + "Z", "ntz": tc.min}
			if !reflect.DeepEqual(st.MinValues, want) {
				t.Errorf("min = %v, want %v", st.MinValues, want)
			}
			want = map[string]any{"ts": tc.max + "Z", "ntz": tc.max}
			if !reflect.DeepEqual(st.MaxValues, want) {
				t.Errorf("max = %v, want %v", st.MaxValues, want)
			}
		})
	}
}
