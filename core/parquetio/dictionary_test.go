package parquetio

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/tributary-io/tributary/core/schema"
)

// dictionaryEncoded reports, per top-level column name, whether the
// column's first chunk has a dictionary page (read by arrow-go).
func dictionaryEncoded(t *testing.T, data []byte) map[string]bool {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	rg := pf.MetaData().RowGroup(0)
	out := map[string]bool{}
	for i := 0; i < rg.NumColumns(); i++ {
		cc, err := rg.ColumnChunk(i)
		if err != nil {
			t.Fatal(err)
		}
		out[cc.PathInSchema().String()] = cc.HasDictionaryPage()
	}
	return out
}

// TestDictionaryEncoding: low-cardinality columns of every primitive type
// but boolean are dictionary encoded, the others stay plain, and every
// value (nulls included) reads back equal through arrow-go's reader, with
// the same statistics as plain encoding.
func TestDictionaryEncoding(t *testing.T) {
	base := primitiveRows()
	prim, nested := primitiveSchema(), nestedSchema()
	tests := []struct {
		name  string
		s     *schema.StructType
		rows  [][]any
		want  map[string]bool // columns expected dictionary encoded
		plain bool            // no column dictionary encoded
	}{
		{
			// 4 distinct rows repeated 50 times: every column low-cardinality.
			name: "repeated",
			s:    prim,
			rows: func() [][]any {
				var rows [][]any
				for i := 0; i < 50; i++ {
					rows = append(rows, base...)
				}
				return rows
			}(),
			want: map[string]bool{"s": true, "l": true, "i": true, "sh": true, "b": true, "d": true, "f": true, "bin": true,
				"dt": true, "ts": true, "ntz": true, "a_last": true, "bo": false},
		},
		{
			// Distinct values in every row of a_last and s: those stay plain.
			name: "unique keys",
			s:    prim,
			rows: func() [][]any {
				var rows [][]any
				for i := 0; i < 200; i++ {
					r := append([]any(nil), base[i%len(base)]...)
					r[0] = fmt.Sprintf("user-%d", i)
					r[12] = int64(i)
					rows = append(rows, r)
				}
				return rows
			}(),
			want: map[string]bool{"s": false, "a_last": false, "l": true, "bo": false},
		},
		{
			// A column of 3,000 values in 4,000 rows (three quarters of
			// the sample distinct, which the previous "at most half"
			// rule left plain): the estimate gives it a dictionary; the
			// unique strings of s stay plain.
			name: "sampled cardinality",
			s:    prim,
			rows: func() [][]any {
				var rows [][]any
				for i := 0; i < 4000; i++ {
					r := append([]any(nil), base[i%len(base)]...)
					r[0] = fmt.Sprintf("user-%d", i)
					r[12] = int64(i * 7919 % 3000)
					rows = append(rows, r)
				}
				return rows
			}(),
			want: map[string]bool{"s": false, "a_last": true},
		},
		{
			// Fewer than dictpick.MinValues values: plain.
			name:  "few rows",
			s:     prim,
			rows:  base,
			plain: true,
		},
		{
			// Nested leaves (struct fields, list elements, map keys and
			// values) are chosen by their Parquet paths.
			name: "nested",
			s:    nested,
			rows: func() [][]any {
				var rows [][]any
				for i := 0; i < 40; i++ {
					rows = append(rows, nestedRows()...)
				}
				return rows
			}(),
			want: map[string]bool{"st.a": true, "st.n.y": true, "arr.list.element": true, "m.key_value.key": true,
				"m.key_value.value": true, "dec_in_map.key_value.value": true, "aoa.list.element.list.element": true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			data, st := writeFile(t, s, tc.rows, WriterOptions{})
			enc := dictionaryEncoded(t, data)
			for col, want := range tc.want {
				if enc[col] != want {
					t.Errorf("column %s dictionary encoded = %v, want %v", col, enc[col], want)
				}
			}
			if tc.plain {
				for col, got := range enc {
					if got {
						t.Errorf("column %s dictionary encoded, want plain", col)
					}
				}
			}
			_, got := readArrow(t, data, s)
			compareRows(t, "arrow-go", s, tc.rows, got)
			// The statistics do not depend on the encoding.
			var plainBuf bytes.Buffer
			w, err := NewWriter(&plainBuf, s, WriterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.start(nil); err != nil {
				t.Fatal(err)
			}
			if err := w.Write(tc.rows); err != nil {
				t.Fatal(err)
			}
			plainSt, err := w.Close()
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(st) != fmt.Sprint(plainSt) {
				t.Errorf("stats differ:\ndictionary %v\nplain      %v", st, plainSt)
			}
			for col, got := range dictionaryEncoded(t, plainBuf.Bytes()) {
				if got {
					t.Errorf("the plain writer dictionary encoded %s", col)
				}
			}
		})
	}
}

// TestDictionaryFallback: a column sampled as low-cardinality that turns
// out not to be grows its dictionary past dictFallbackBytes; parquet-go
// then writes plain pages for the rest of the row group (the chunk lists
// both encodings) and every value reads back equal through arrow-go and
// ReadFile.
func TestDictionaryFallback(t *testing.T) {
	s := structOf(field("id", schema.Long, false), field("s", schema.String, true))
	var rows [][]any
	for i := range 512 {
		rows = append(rows, []any{int64(i), fmt.Sprintf("v%d", i%8)})
	}
	for i := range 30000 {
		rows = append(rows, []any{int64(512 + i), fmt.Sprintf("%0100d", i)})
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, s, WriterOptions{PageBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(rows); i += 512 {
		if err := w.Write(rows[i:min(i+512, len(rows))]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	if !dictionaryEncoded(t, data)["s"] {
		t.Fatal("column s has no dictionary page")
	}
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	pr, err := pf.RowGroup(0).GetColumnPageReader(1)
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]int{}
	for pr.Next() {
		if p := pr.Page(); fmt.Sprint(p.Type()) != "DICTIONARY_PAGE" {
			pages[fmt.Sprint(p.Encoding())]++
		}
	}
	if err := pr.Err(); err != nil {
		t.Fatal(err)
	}
	pf.Close()
	if pages["RLE_DICTIONARY"] == 0 || pages["PLAIN"] == 0 {
		t.Errorf("column s data pages by encoding %v, want dictionary pages, then plain ones", pages)
	}
	_, got := readArrow(t, data, s)
	compareRows(t, "arrow-go", s, rows, got)
	_, own, err := ReadFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	compareRows(t, "ReadFile", s, rows, own)
}
