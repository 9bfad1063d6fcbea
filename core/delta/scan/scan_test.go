package scan

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/internal/dirstore"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// testdataRoot is the shared Delta test tables, beside the repository.
const testdataRoot = "../../../../shared/testdata/delta"

func fixture(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(testdataRoot, filepath.FromSlash(rel))
	if _, err := os.Stat(filepath.Join(p, "_delta_log")); err != nil {
		t.Fatalf("fixture %s: %v", rel, err)
	}
	return p
}

func openFixture(t *testing.T, rel string) *delta.Table {
	t.Helper()
	return delta.NewTable(dirstore.New(fixture(t, rel)))
}

// render prints a value of type t canonically, independently of the Go
// type that holds it: struct fields by lower-cased name, map entries
// sorted, numbers by value, times as UTC instants.
func render(v any, t schema.Type) string {
	if v == nil {
		return "null"
	}
	switch tt := t.(type) {
	case *schema.StructType:
		vals := v.([]any)
		parts := make([]string, len(tt.Fields))
		for i, f := range tt.Fields {
			parts[i] = strings.ToLower(f.Name) + ":" + render(vals[i], f.Type)
		}
		sort.Strings(parts)
		return "{" + strings.Join(parts, ",") + "}"
	case *schema.ArrayType:
		vals := v.([]any)
		parts := make([]string, len(vals))
		for i, e := range vals {
			parts[i] = render(e, tt.Element)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *schema.MapType:
		ents := v.([]schema.MapEntry)
		parts := make([]string, len(ents))
		for i, e := range ents {
			parts[i] = render(e.Key, tt.Key) + "=>" + render(e.Value, tt.Value)
		}
		sort.Strings(parts)
		return "map(" + strings.Join(parts, ",") + ")"
	}
	switch x := v.(type) {
	case int8, int16, int32, int64:
		return fmt.Sprint(x)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case schema.Decimal:
		r := new(big.Rat).SetFrac(x.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil))
		return "dec:" + r.RatString()
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case schema.Date:
		return time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02")
	case []byte:
		return "0x" + hex.EncodeToString(x)
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprintf("%T(%v)", v, v)
}

// renderRow renders a row of st keyed by field name.
func renderRow(row []any, st *schema.StructType) string {
	return render(row, st)
}

// expectedRows reads the expected/ Parquet files beside a golden table.
func expectedRows(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	var out []string
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		st, rows, err := parquetio.ReadFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("expected rows %s: %v", p, err)
		}
		for _, r := range rows {
			out = append(out, renderRow(r, st))
		}
	}
	sort.Strings(out)
	return out
}

// readAll reads a table's live rows with ReadRowsAt and renders them.
func readAllRows(t *testing.T, tbl *delta.Table, version int64) ([]string, *delta.Snapshot) {
	t.Helper()
	var out []string
	files := 0
	snap, err := RowsAt(context.Background(), tbl, version, func(fr FileRows) error {
		files++
		return nil
	})
	if err != nil {
		t.Fatalf("ReadRowsAt: %v", err)
	}
	_, err = RowsAt(context.Background(), tbl, version, func(fr FileRows) error {
		for _, r := range fr.Rows {
			if len(r) != len(snap.Schema().Fields) {
				t.Fatalf("row of %d values, schema has %d fields", len(r), len(snap.Schema().Fields))
			}
			out = append(out, renderRow(r, snap.Schema()))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files != snap.NumFiles() {
		t.Fatalf("ReadRowsAt visited %d files, snapshot has %d", files, snap.NumFiles())
	}
	sort.Strings(out)
	return out, snap
}

func diffRows(t *testing.T, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	gm := map[string]int{}
	for _, g := range got {
		gm[g]++
	}
	for _, w := range want {
		gm[w]--
	}
	n := 0
	for r, c := range gm {
		if c != 0 && n < 8 {
			t.Errorf("row %s: read %+d times more than expected", r, c)
			n++
		}
	}
	t.Errorf("read %d rows, expected %d", len(got), len(want))
}

// TestGoldenTablesRows reads every Spark-written golden table that ships
// expected rows and compares the live rows, value by value, with them:
// deletion vectors applied, column mapping resolved, partition values typed.
func TestGoldenTablesRows(t *testing.T) {
	tables, err := filepath.Glob(filepath.Join(testdataRoot, "spark-golden", "*", "*", "expected"))
	if err != nil || len(tables) < 35 {
		t.Fatalf("golden tables with expected rows: %d (err %v)", len(tables), err)
	}
	// Tables whose expected/ is not the latest snapshot.
	asOf := map[string]int64{}
	checked, rows := 0, 0
	for _, exp := range tables {
		dir := filepath.Join(filepath.Dir(exp), "delta")
		name := filepath.Base(filepath.Dir(exp))
		t.Run(name, func(t *testing.T) {
			v, ok := asOf[name]
			if !ok {
				v = -1
			}
			got, _ := readAllRows(t, delta.NewTable(dirstore.New(dir)), v)
			want := expectedRows(t, exp)
			diffRows(t, got, want)
			checked++
			rows += len(got)
		})
	}
	t.Logf("%d tables, %d rows compared", checked, rows)
}

func TestParsePartitionValue(t *testing.T) {
	s := func(v string) *string { return &v }
	ts := time.Date(2021, 1, 2, 3, 4, 5, 123456000, time.UTC)
	tests := []struct {
		raw  *string
		typ  schema.Type
		want any
		ok   bool
	}{
		{nil, schema.String, nil, true},
		{s(""), schema.Long, nil, true}, // "" is NULL for every type
		{s("a b"), schema.String, "a b", true},
		{s("42"), schema.Long, int64(42), true},
		{s("2021.0"), schema.Integer, int32(2021), true}, // delta-rs, float-typed source
		{s("300"), schema.Byte, nil, false},
		{s("true"), schema.Boolean, true, true},
		{s("yes"), schema.Boolean, nil, false},
		{s("1.5"), schema.Double, 1.5, true},
		{s("2024-02-29"), schema.DateType, schema.Date(19782), true},
		{s("2021-01-02 03:04:05.123456"), schema.Timestamp, ts, true},
		{s("2021-01-02T03:04:05.123456Z"), schema.Timestamp, ts, true},
		{s("2021-01-02 03:04:05.123456"), schema.TimestampNTZ, ts, true},
		{s("12.3"), schema.DecimalType{Precision: 5, Scale: 2}, schema.Decimal{Unscaled: big.NewInt(1230), Scale: 2}, true},
		{s("12.345"), schema.DecimalType{Precision: 5, Scale: 2}, nil, false},
		{s("x"), &schema.ArrayType{Element: schema.String}, nil, false},
	}
	for _, tc := range tests {
		got, err := parsePartitionValue(map[string]*string{"p": tc.raw}, "p", "p", tc.typ)
		if (err == nil) != tc.ok {
			t.Errorf("%v as %s: err %v", tc.raw, tc.typ, err)
			continue
		}
		if tc.ok && render(got, tc.typ) != render(tc.want, tc.typ) {
			t.Errorf("%q as %s = %s, want %s", *tc.raw, tc.typ, render(got, tc.typ), render(tc.want, tc.typ))
		}
		if !tc.ok && !errors.Is(err, ErrUnreadableFile) {
			t.Errorf("error does not wrap ErrUnreadableFile: %v", err)
		}
	}
	// A missing key is NULL too.
	if v, err := parsePartitionValue(map[string]*string{}, "p", "p", schema.Long); v != nil || err != nil {
		t.Errorf("missing key: %v, %v", v, err)
	}
}

func FuzzParsePartitionValue(f *testing.F) {
	for _, s := range []string{"1", "2021.0", "2024-02-29", "2021-01-02 03:04:05.1", "1e400", "-0", "12.30"} {
		f.Add(s)
	}
	types := []schema.Type{schema.String, schema.Long, schema.Integer, schema.Short, schema.Byte, schema.Double, schema.Float,
		schema.Boolean, schema.DateType, schema.Timestamp, schema.TimestampNTZ, schema.Binary, schema.DecimalType{Precision: 10, Scale: 3}}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, typ := range types {
			v, err := parsePartitionValue(map[string]*string{"p": &raw}, "p", "p", typ)
			if err != nil {
				if !errors.Is(err, ErrUnreadableFile) {
					t.Fatalf("%q as %s: %v", raw, typ, err)
				}
				continue
			}
			_ = render(v, typ) // the value has the type's Go representation
		}
	})
}

func TestConvertPrimitive(t *testing.T) {
	tests := []struct {
		in   any
		to   schema.Type
		want string
		ok   bool
	}{
		{int8(1), schema.Long, "1", true},
		{int32(-7), schema.Double, "-7", true},
		{float32(3.4), schema.Double, "3.4000000953674316", true},
		{int16(2), schema.DecimalType{Precision: 6, Scale: 1}, "dec:2", true},
		{schema.Decimal{Unscaled: big.NewInt(6789), Scale: 2}, schema.DecimalType{Precision: 20, Scale: 5}, "dec:6789/100", true},
		{schema.Decimal{Unscaled: big.NewInt(6789), Scale: 2}, schema.DecimalType{Precision: 20, Scale: 1}, "", false},
		{schema.Date(19975), schema.TimestampNTZ, "2024-09-09T00:00:00Z", true},
		{int64(1 << 40), schema.Integer, "", false},
		{"x", schema.Long, "", false},
		{[]byte("ab"), schema.String, `"ab"`, true},
	}
	for _, tc := range tests {
		got, err := convertPrimitive(tc.in, tc.to)
		if (err == nil) != tc.ok || tc.ok && render(got, tc.to) != tc.want {
			t.Errorf("convert %T(%v) to %s = %v, %v; want %s", tc.in, tc.in, tc.to, got, err, tc.want)
		}
	}
}

// sharedTables lists every shared test table a reader must load (the
// broken logs it must refuse and the log-less folder excluded).
func sharedTables(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, pat := range []string{"spark-golden/*/*/delta", "kernel/*", "kernel/*/delta", "delta-rs/*"} {
		m, _ := filepath.Glob(filepath.Join(testdataRoot, filepath.FromSlash(pat)))
		for _, dir := range m {
			if _, err := os.Stat(filepath.Join(dir, "_delta_log")); err != nil {
				continue
			}
			rel, _ := filepath.Rel(testdataRoot, dir)
			rel = filepath.ToSlash(rel)
			switch {
			case strings.Contains(rel, "versions-not-contiguous"), strings.Contains(rel, "deltalog-invalid-protocol-version"),
				strings.Contains(rel, "deltalog-state-reconstruction-without"), rel == "delta-rs/simple_table_features":
				continue
			}
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

// TestCountRowsEqualsRowsRead: on every shared table, the count from
// stats and footers minus deletion vectors equals the rows actually read.
func TestCountRowsEqualsRowsRead(t *testing.T) {
	tables := sharedTables(t)
	if len(tables) < 60 {
		t.Fatalf("only %d shared tables", len(tables))
	}
	footers, dvs, logOnly := 0, 0, 0
	for _, rel := range tables {
		t.Run(rel, func(t *testing.T) {
			tbl := openFixture(t, rel)
			if missing := missingDataFiles(t, rel); missing > 0 {
				// The fixture holds only the log: counting must use stats
				// or name the file it could not read.
				logOnly++
				snap, err := tbl.Snapshot(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if _, err := CountRows(context.Background(), snap); err != nil && !errors.Is(err, objstore.ErrNotFound) {
					t.Errorf("log-only table: %v", err)
				}
				return
			}
			var read int64
			snap, err := RowsAt(context.Background(), tbl, -1, func(fr FileRows) error {
				read += int64(len(fr.Rows))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			rc, err := CountRows(context.Background(), snap)
			if err != nil {
				t.Fatal(err)
			}
			if rc.Rows != read {
				t.Errorf("CountRows = %+v, read %d rows", rc, read)
			}
			if rc.FromFooters > 0 {
				footers++
			}
			if rc.DeletedByDVs > 0 {
				dvs++
			}
		})
	}
	if footers < 10 || dvs < 3 || logOnly > 8 {
		t.Errorf("%d tables counted from footers, %d with deletion vectors, %d log-only: the fixtures changed?", footers, dvs, logOnly)
	}
	t.Logf("%d tables (%d log-only): %d counted (partly) from footers, %d with deletion vectors", len(tables), logOnly, footers, dvs)
}

// missingDataFiles counts the active files a fixture does not ship.
func missingDataFiles(t *testing.T, rel string) int {
	t.Helper()
	snap, err := openFixture(t, rel).Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for a := range snap.Files() {
		key, err := delta.ObjectKey(a.Path)
		if err != nil {
			n++
			continue
		}
		if _, err := os.Stat(filepath.Join(testdataRoot, filepath.FromSlash(rel), filepath.FromSlash(key))); err != nil {
			n++
		}
	}
	return n
}

// TestTypeWideningReadsWidenedValues reads kernel/type-widening (columns
// widened byte→long, float→double, int→decimal, date→timestamp_ntz, …
// between its two files): every file holds one row, so each row must equal
// its file's stats (written in the file's own, narrower types).
func TestTypeWideningReadsWidenedValues(t *testing.T) {
	tbl := openFixture(t, "kernel/type-widening")
	snap, err := tbl.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st := snap.Schema()
	files := 0
	err = Rows(context.Background(), snap, func(fr FileRows) error {
		files++
		stats, err := fr.Add.ParseStats()
		if err != nil || stats == nil || stats.NumRecords != 1 || len(fr.Rows) != 1 {
			t.Fatalf("%s: %d rows, stats %+v %v", fr.Add.Path, len(fr.Rows), stats, err)
		}
		for i, f := range st.Fields {
			got, want := fr.Rows[0][i], stats.MinValues[f.Name]
			if !sameAsStat(got, want) {
				t.Errorf("%s: %s (%s) = %s, stats say %v", fr.Add.Path, f.Name, f.Type, render(got, f.Type), want)
			}
		}
		return nil
	})
	if err != nil || files != 2 {
		t.Fatalf("%d files, %v", files, err)
	}
}

// sameAsStat compares a read value with a stats value: exactly for
// integers and decimals, at float32 precision for doubles (a float column
// widened to double), to the millisecond for timestamps.
func sameAsStat(v, stat any) bool {
	n, ok := stat.(json.Number)
	switch x := v.(type) {
	case int64:
		return ok && n.String() == strconv.FormatInt(x, 10)
	case float64:
		f, err := strconv.ParseFloat(string(n), 64)
		return ok && err == nil && (f == x || float32(f) == float32(x))
	case schema.Decimal:
		r, okr := new(big.Rat).SetString(string(n))
		d := new(big.Rat).SetFrac(x.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil))
		return ok && okr && r.Cmp(d) == 0
	case time.Time:
		s, _ := stat.(string)
		for _, layout := range []string{"2006-01-02T15:04:05.000", "2006-01-02"} {
			if ts, err := time.Parse(layout, s); err == nil {
				return x.Truncate(time.Millisecond).Equal(ts)
			}
		}
	}
	return false
}
