package xmlfmt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

var update = flag.Bool("update", os.Getenv("UPDATE_GOLDEN") != "", "rewrite golden files")

func infer(t testing.TB, data string, opts fileformat.InferOptions) (*schema.StructType, error) {
	inf := newInferrer(opts)
	if err := inf.Add(context.Background(), "f.xml", strings.NewReader(data)); err != nil {
		return nil, err
	}
	return inf.Schema(), nil
}

func read(t testing.TB, data string, s *schema.StructType, opts fileformat.ReadOptions) ([][]any, fileformat.ReadStats, error) {
	rr, err := open(context.Background(), iotest.HalfReader(strings.NewReader(data)), s, opts)
	if err != nil {
		return nil, fileformat.ReadStats{}, err
	}
	defer rr.Close()
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

func ddl(s *schema.StructType) string {
	var parts []string
	for _, f := range s.Fields {
		parts = append(parts, "`"+f.Name+"` "+schema.DDLType(f.Type))
	}
	return strings.Join(parts, ", ")
}

func show(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = show(e)
		}
		return out
	case schema.Decimal:
		return fmt.Sprintf("decimal:%s/%d", x.Unscaled, x.Scale)
	case schema.Date:
		return fmt.Sprintf("date:%d", int32(x))
	case time.Time:
		return "ts:" + x.UTC().Format(time.RFC3339Nano)
	case nil, string:
		return x
	}
	return fmt.Sprintf("%T:%v", v, v)
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (UPDATE_GOLDEN=1 creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file; got:\n%s", name, got)
	}
}

// TestGolden infers and reads testdata/*.xml under several option sets.
func TestGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/books.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		infer bool
		opts  map[string]string
	}{
		{"books.strings", false, map[string]string{"rowTag": "book"}},
		{"books.typed", true, map[string]string{"rowTag": "book"}},
		{"books.options", true, map[string]string{"rowTag": "book", "attributePrefix": "@", "valueTag": "#text", "ignoreNamespace": "true"}},
		{"books.noattrs", true, map[string]string{"rowTag": "book", "excludeAttribute": "true"}},
		{"books.nested-rowtag", false, map[string]string{"rowTag": "tag"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := infer(t, string(data), fileformat.InferOptions{InferColumnTypes: tc.infer, Options: tc.opts, RescuedDataColumn: "_rescued_data"})
			if err != nil {
				t.Fatal(err)
			}
			rows, _, err := read(t, string(data), s, fileformat.ReadOptions{Options: tc.opts, RescuedDataColumn: "_rescued_data", FilePath: "books.xml"})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			fmt.Fprintf(&out, "schema: %s\n", ddl(s))
			for _, r := range rows {
				b, _ := json.Marshal(show(r))
				fmt.Fprintf(&out, "%s\n", b)
			}
			golden(t, tc.name+".golden.txt", out.Bytes())
		})
	}
}

// TestRescueAndUnknown reads fields the schema lacks and values that do
// not fit into the rescued data column, whose JSON names attributes and
// element text as the read names columns (attributePrefix, valueTag).
func TestRescueAndUnknown(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{
		{Name: "id", Type: schema.Long, Nullable: true},
		{Name: "_rescued_data", Type: schema.String, Nullable: true},
	}}
	tests := []struct {
		name string
		opts map[string]string
		want string
	}{
		{name: "defaults", opts: map[string]string{"rowTag": "r"},
			want: `{"id":"x1","new":{"_a":"1","_VALUE":"v"},"_file_path":"f"}`},
		{name: "attributePrefix and valueTag", opts: map[string]string{"rowTag": "r", "attributePrefix": "@", "valueTag": "#text"},
			want: `{"id":"x1","new":{"@a":"1","#text":"v"},"_file_path":"f"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, st, err := read(t, `<r><id>x1</id><new a="1">v</new></r><r><id>2</id></r>`, s, fileformat.ReadOptions{Options: tt.opts, RescuedDataColumn: "_rescued_data", FilePath: "f"})
			if err != nil {
				t.Fatal(err)
			}
			want := [][]any{{nil, tt.want}, {int64(2), nil}}
			if fmt.Sprint(rows) != fmt.Sprint(want) {
				t.Errorf("rows %v, want %v", rows, want)
			}
			if !slices.Equal(st.UnknownFields, []string{"new"}) || !slices.Equal(st.MismatchedFields, []string{"id"}) {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func TestMalformed(t *testing.T) {
	const data = "<r><a>1</a></r>\n<r><a>2</b></r>\n<r><a>3</a></r>\n<r><a>4"
	opts := fileformat.InferOptions{Options: map[string]string{"rowTag": "r"}}
	s, err := infer(t, data, opts)
	if err != nil || ddl(s) != "`a` STRING, `_corrupt_record` STRING" {
		t.Fatalf("PERMISSIVE inference: %v %v", ddl(s), err)
	}
	ro := fileformat.ReadOptions{Options: opts.Options}
	rows, st, err := read(t, data, s, ro)
	if err != nil || len(rows) != 4 || rows[1][1] != "<r><a>2</b></r>" || rows[2][0] != "3" || rows[3][1] != "<r><a>4" || st.CorruptRecords != 2 {
		t.Errorf("PERMISSIVE: %q %+v %v", rows, st, err)
	}
	ro.Mode = fileformat.DropMalformed
	if rows, _, err := read(t, data, s, ro); err != nil || len(rows) != 2 {
		t.Errorf("DROPMALFORMED: %v %v", rows, err)
	}
	ro.Mode = fileformat.FailFast
	if _, _, err := read(t, data, s, ro); !errors.Is(err, fileformat.ErrMalformedRecord) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("FAILFAST: %v", err)
	}
	var bad []fileformat.BadRecord
	ro.Mode, ro.BadRecords = "", func(b fileformat.BadRecord) { bad = append(bad, b) }
	if rows, _, err := read(t, data, s, ro); err != nil || len(rows) != 2 || len(bad) != 2 || bad[0].Line != 2 {
		t.Errorf("badRecordsPath: %v %v %+v", rows, err, bad)
	}
}

func TestOptionsErrors(t *testing.T) {
	for name, opts := range map[string]map[string]string{
		"no rowTag":       {},
		"bad rowTag":      {"rowTag": "<a>"},
		"bad bool":        {"rowTag": "a", "excludeAttribute": "maybe"},
		"prefix is value": {"rowTag": "a", "attributePrefix": "_VALUE"},
	} {
		if _, err := infer(t, "<a/>", fileformat.InferOptions{Options: opts}); !errors.Is(err, fileformat.ErrBadOption) {
			t.Errorf("%s: %v, want ErrBadOption", name, err)
		}
	}
}

func TestNullValueAndSpaces(t *testing.T) {
	opts := map[string]string{"rowTag": "r", "nullValue": "NA", "ignoreSurroundingSpaces": "false"}
	s, err := infer(t, "<r><a> x </a><b>NA</b><c></c></r>", fileformat.InferOptions{Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := read(t, "<r><a> x </a><b>NA</b><c></c></r>", s, fileformat.ReadOptions{Options: opts})
	if err != nil || !slices.Equal(rows[0], []any{" x ", nil, nil}) {
		t.Errorf("rows %q %v (schema %s)", rows, err, ddl(s))
	}
}

func TestScannerRecordsSplitAcrossReads(t *testing.T) {
	data := `<a><row x="1>2"><row>nested</row></row><rowx>no</rowx><!-- <row> --><![CDATA[<row>]]><row/></a>`
	sc := newScanner(iotest.OneByteReader(strings.NewReader(data)), "row")
	var got []string
	for {
		rec, _, err := sc.next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			break
		}
		got = append(got, string(rec))
	}
	want := []string{`<row x="1>2"><row>nested</row></row>`, `<row/>`}
	if !slices.Equal(got, want) {
		t.Errorf("records %q, want %q", got, want)
	}
}

// FuzzXML: no input panics; every error is a record-level outcome.
func FuzzXML(f *testing.F) {
	data, _ := os.ReadFile("testdata/books.xml")
	f.Add(string(data), "book")
	f.Add("<r><a>1</a></r><r", "r")
	f.Add("<r a='1'/><r><![CDATA[x]]></r>", "r")
	f.Fuzz(func(t *testing.T, data, rowTag string) {
		opts := map[string]string{"rowTag": rowTag}
		if CheckRowTag(rowTag) != nil {
			return
		}
		s, err := infer(t, data, fileformat.InferOptions{InferColumnTypes: true, Options: opts, RescuedDataColumn: "_rescued_data"})
		if err != nil {
			t.Fatalf("inference: %v", err)
		}
		if _, _, err := read(t, data, s, fileformat.ReadOptions{Options: opts, RescuedDataColumn: "_rescued_data"}); err != nil {
			t.Fatalf("read: %v", err)
		}
	})
}

// sparkType renders a type as Spark's simpleString.
func sparkType(t schema.Type) string {
	switch x := t.(type) {
	case *schema.StructType:
		parts := make([]string, len(x.Fields))
		for i, f := range x.Fields {
			parts[i] = f.Name + ":" + sparkType(f.Type)
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	case *schema.ArrayType:
		return "array<" + sparkType(x.Element) + ">"
	case schema.PrimitiveType:
		switch x {
		case schema.Long:
			return "bigint"
		case schema.Integer:
			return "int"
		}
	}
	return t.String()
}

// TestSparkSchemas: the schemas Spark 4.1's XML source infers for
// testdata/books.xml (testdata/books.spark-4.1.txt, written by
// testdata/spark_check.py; Spark's inferSchema is Auto Loader's
// cloudFiles.inferColumnTypes) are the ones this package infers.
func TestSparkSchemas(t *testing.T) {
	data, err := os.ReadFile("testdata/books.xml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile("testdata/books.spark-4.1.txt")
	if err != nil {
		t.Fatal(err)
	}
	var spark []string
	for _, l := range strings.Split(string(out), "\n") {
		if s, ok := strings.CutPrefix(l, "SCHEMA "); ok {
			spark = append(spark, s)
		}
	}
	cases := []struct {
		infer bool
		opts  map[string]string
	}{
		{true, map[string]string{"rowTag": "book"}},
		{false, map[string]string{"rowTag": "book"}},
		{true, map[string]string{"rowTag": "book", "attributePrefix": "@", "valueTag": "#text", "ignoreNamespace": "true"}},
		{true, map[string]string{"rowTag": "tag"}},
	}
	if len(spark) != len(cases) {
		t.Fatalf("%d Spark schemas, want %d", len(spark), len(cases))
	}
	for i, tc := range cases {
		s, err := infer(t, string(data), fileformat.InferOptions{InferColumnTypes: tc.infer, Options: tc.opts})
		if err != nil {
			t.Fatal(err)
		}
		if got := sparkType(s); got != spark[i] {
			t.Errorf("%v: inferred\n%s\nSpark 4.1 infers\n%s", tc.opts, got, spark[i])
		}
	}
}
