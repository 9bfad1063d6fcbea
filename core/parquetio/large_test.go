package parquetio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/tributary-io/tributary/core/parquetio/filestats"
	"github.com/tributary-io/tributary/core/schema"
)

// randomText is n bytes of text that does not compress.
func randomText(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, seed))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

func openParquet(t *testing.T, data []byte) *parquet.File {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestLargeStringFile: a 1 MiB string costs about 1 MiB of file. Its min
// and max are left out of the footer (parquet-mr's 4096-byte rule; the
// null count stays), the column index holds them cut to 64 bytes, and the
// value reads back whole.
func TestLargeStringFile(t *testing.T) {
	big := randomText(1, 1<<20)
	s := structOf(field("id", schema.Long, false), field("s", schema.String, true))
	rows := [][]any{{int64(1), big}, {int64(2), "short"}, {int64(3), nil}}
	data, st := writeFile(t, s, rows, WriterOptions{})
	if len(data) > len(big)+16<<10 {
		t.Errorf("file is %d bytes for a %d-byte value: statistics are not cut", len(data), len(big))
	}
	_, got := readArrow(t, data, s)
	compareRows(t, "arrow", s, rows, got)

	f := openParquet(t, data)
	cs := f.Metadata().RowGroups[0].Columns[1].MetaData.Statistics
	if cs.MinValue != nil || cs.MaxValue != nil || cs.Min != nil || cs.Max != nil {
		t.Errorf("footer min/max of a 1 MiB value: %d/%d bytes, want none", len(cs.MinValue), len(cs.MaxValue))
	}
	if cs.NullCount != 1 {
		t.Errorf("footer null count = %d, want 1", cs.NullCount)
	}
	ci := f.ColumnIndexes()[1]
	for p := range ci.MinValues {
		if len(ci.MinValues[p]) > filestats.ColumnIndexTruncateLength || len(ci.MaxValues[p]) > filestats.ColumnIndexTruncateLength {
			t.Errorf("column index page %d: min/max %d/%d bytes, want at most %d", p, len(ci.MinValues[p]), len(ci.MaxValues[p]), filestats.ColumnIndexTruncateLength)
		}
	}
	if want := big[:filestats.ColumnIndexTruncateLength]; string(ci.MinValues[0]) > want || string(ci.MaxValues[0]) < big {
		t.Errorf("column index page 0 bounds %q..%q do not hold %q...", ci.MinValues[0], ci.MaxValues[0], want)
	}
	// The Delta stats still cut the string the way Spark does.
	if lo := st.MinValues["s"]; lo != big[:DefaultStringPrefixLength] {
		t.Errorf("Delta minValues.s = %q, want the %d-character prefix", lo, DefaultStringPrefixLength)
	}
}

// pageValues reads the non-null values of each page of column col in row
// group rg.
func pageValues(t *testing.T, f *parquet.File, rg, col int) [][]string {
	t.Helper()
	pages := f.RowGroups()[rg].ColumnChunks()[col].Pages()
	defer pages.Close()
	var out [][]string
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]parquet.Value, p.NumValues())
		n, err := p.Values().ReadValues(vals)
		if err != nil && !errors.Is(err, io.EOF) {
			t.Fatal(err)
		}
		nonNull := []string{}
		for _, v := range vals[:n] {
			if !v.IsNull() {
				nonNull = append(nonNull, string(v.ByteArray()))
			}
		}
		out = append(out, nonNull)
		parquet.Release(p)
	}
}

// TestStringStatsFollowPages checks, page by page, that the column index
// of string columns holds every value of its page, marks null pages,
// orders sorted data, and that the footer min/max are the exact ones; for
// flat and repeated columns, sorted and shuffled.
func TestStringStatsFollowPages(t *testing.T) {
	s := structOf(field("s", schema.String, true),
		field("tags", &schema.ArrayType{Element: schema.String, ContainsNull: true}, true),
		field("b", schema.Binary, true))
	r := rand.New(rand.NewPCG(7, 8))
	for _, sorted := range []bool{true, false} {
		t.Run(fmt.Sprintf("sorted=%v", sorted), func(t *testing.T) {
			var rows [][]any
			for i := range 3000 {
				v := fmt.Sprintf("v%05d-%s", i, strings.Repeat("é", r.IntN(40)))
				if !sorted {
					v = fmt.Sprintf("v%05d", r.IntN(100000)) + strings.Repeat("x", r.IntN(100))
				}
				row := []any{v, []any{v, nil, "t" + v}, []byte(v)}
				if i%7 == 0 {
					row[0] = nil
				}
				if i >= 1000 && i < 1400 {
					row = []any{nil, nil, nil} // whole null pages
				}
				rows = append(rows, row)
			}
			var data []byte
			{
				var buf bytes.Buffer
				w, err := NewWriter(&buf, s, WriterOptions{PageBytes: 4 << 10, RowGroupRows: 1700})
				if err != nil {
					t.Fatal(err)
				}
				for start := 0; start < len(rows); start += 333 { // several Write calls
					if err := w.Write(rows[start:min(start+333, len(rows))]); err != nil {
						t.Fatal(err)
					}
				}
				if _, err := w.Close(); err != nil {
					t.Fatal(err)
				}
				data = buf.Bytes()
			}
			f := openParquet(t, data)
			md := f.Metadata()
			if len(md.RowGroups) != 2 {
				t.Fatalf("%d row groups, want 2", len(md.RowGroups))
			}
			cis := f.ColumnIndexes()
			for rg := range md.RowGroups {
				for col := range md.RowGroups[rg].Columns {
					ci := cis[rg*len(md.RowGroups[rg].Columns)+col]
					pages := pageValues(t, f, rg, col)
					if len(pages) < 3 || len(pages) != len(ci.MinValues) {
						t.Fatalf("row group %d column %d: %d pages, column index has %d", rg, col, len(pages), len(ci.MinValues))
					}
					var all []string
					ascending := true
					for p, nonNull := range pages {
						all = append(all, nonNull...)
						if ci.NullPages[p] != (len(nonNull) == 0) {
							t.Errorf("rg %d col %d page %d: null page = %v with %d values", rg, col, p, ci.NullPages[p], len(nonNull))
						}
						if len(nonNull) == 0 {
							continue
						}
						lo, hi := slices.Min(nonNull), slices.Max(nonNull)
						if string(ci.MinValues[p]) > lo || string(ci.MaxValues[p]) < hi {
							t.Errorf("rg %d col %d page %d: index %q..%q does not hold %q..%q", rg, col, p, ci.MinValues[p], ci.MaxValues[p], lo, hi)
						}
						if len(ci.MinValues[p]) > filestats.ColumnIndexTruncateLength || len(ci.MaxValues[p]) > filestats.ColumnIndexTruncateLength {
							t.Errorf("rg %d col %d page %d: bounds longer than %d bytes", rg, col, p, filestats.ColumnIndexTruncateLength)
						}
						if p > 0 && !ci.NullPages[p-1] && (string(ci.MinValues[p]) < string(ci.MinValues[p-1]) || string(ci.MaxValues[p]) < string(ci.MaxValues[p-1])) {
							ascending = false
						}
					}
					if sorted && col == 0 && ci.BoundaryOrder != format.Ascending {
						t.Errorf("rg %d: sorted column has boundary order %v", rg, ci.BoundaryOrder)
					}
					if !ascending && ci.BoundaryOrder == format.Ascending {
						t.Errorf("rg %d col %d: boundary order ascending for unordered pages", rg, col)
					}
					st := md.RowGroups[rg].Columns[col].MetaData.Statistics
					if lo, hi := slices.Min(all), slices.Max(all); string(st.MinValue) != lo || string(st.MaxValue) != hi {
						t.Errorf("rg %d col %d: footer min/max %q/%q, want %q/%q", rg, col, st.MinValue, st.MaxValue, lo, hi)
					}
				}
			}
			_, got := readArrow(t, data, s)
			compareRows(t, "arrow", s, rows, got)
		})
	}
}

// TestSpillKeepsBytes: pages moved to a temporary file give the very same
// file, and no temporary file is left behind.
func TestSpillKeepsBytes(t *testing.T) {
	s := structOf(field("id", schema.Long, false), field("s", schema.String, true))
	var rows [][]any
	for i := range 2000 {
		rows = append(rows, []any{int64(i), randomText(uint64(i), 1+i%700)})
	}
	rows = append(rows, []any{int64(-1), randomText(9, 3<<20)})
	dir := t.TempDir()
	inMemory, _ := writeFile(t, s, rows, WriterOptions{SpillBytes: 1 << 30})
	spilled, _ := writeFile(t, s, rows, WriterOptions{SpillBytes: 8 << 10, TempDir: dir})
	if !bytes.Equal(inMemory, spilled) {
		t.Fatalf("spilled file (%d bytes) differs from the in-memory one (%d bytes)", len(spilled), len(inMemory))
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestHugeRowsPages: a row past PageBytes ends its page, taking the next
// row along when that one is small (parquet-go copies a page holding a
// single byte-array value once more); two big rows get a page each.
func TestHugeRowsPages(t *testing.T) {
	s := structOf(field("s", schema.String, true))
	big := strings.Repeat("b", 3000)
	for _, tc := range []struct {
		rows  []string
		pages []int64 // first row of each page
	}{
		{[]string{big, "x", "y"}, []int64{0, 2}},
		{[]string{big, big, "x"}, []int64{0, 1}},
		{[]string{"x", big, "y", big}, []int64{0, 2}},
		{[]string{"x", "y"}, []int64{0}},
	} {
		var rows [][]any
		for _, v := range tc.rows {
			rows = append(rows, []any{v})
		}
		data, _ := writeFile(t, s, rows, WriterOptions{PageBytes: 1000})
		var got []int64
		for _, loc := range openParquet(t, data).OffsetIndexes()[0].PageLocations {
			got = append(got, loc.FirstRowIndex)
		}
		if !slices.Equal(got, tc.pages) {
			t.Errorf("rows of %v bytes: pages start at %v, want %v", lens(tc.rows), got, tc.pages)
		}
	}
}

func lens(ss []string) []int {
	var out []int
	for _, s := range ss {
		out = append(out, len(s))
	}
	return out
}
