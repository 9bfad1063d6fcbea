package csvfmt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/internal/arrowtest"
)

// readResult is what one read of a file gave.
type readResult struct {
	file    []byte
	stats   string
	read    fileformat.ReadStats
	err     string
	rows    int
	rescued int64
	bad     []fileformat.BadRecord
}

func hookInto(h func(fileformat.BadRecord), dst *[]fileformat.BadRecord) func(fileformat.BadRecord) {
	if h == nil {
		return nil
	}
	return func(b fileformat.BadRecord) { *dst = append(*dst, b) }
}

// readPath reads doc with Next (batch false) or ReadBatch (batch true,
// maxRows rows per batch) and writes what it read to one Parquet file.
func readPath(t testing.TB, doc string, s *schema.StructType, opts fileformat.ReadOptions, batch bool, maxRows int) readResult {
	t.Helper()
	var res readResult
	opts.BadRecords = hookInto(opts.BadRecords, &res.bad)
	rr, err := Format{}.Open(context.Background(), strings.NewReader(doc), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	var buf bytes.Buffer
	w, err := parquetio.NewWriter(&buf, s, parquetio.WriterOptions{PageBytes: 512})
	if err != nil {
		t.Fatal(err)
	}
	if batch {
		rr.(*reader).col.anySize = true
		br, ok := rr.(parquetio.BatchReader)
		if !ok || !br.BatchReadable() {
			t.Fatalf("schema %s: not batch readable", s)
		}
		b, err := parquetio.NewColumnBatch(s)
		if err != nil {
			t.Fatal(err)
		}
		for {
			rerr := br.ReadBatch(b, maxRows, 1<<20)
			res.rows += b.Rows()
			res.rescued += b.Rescued
			if err := w.WriteBatch(b, 0, b.Rows()); err != nil {
				t.Fatal(err)
			}
			b.Reset()
			if errors.Is(rerr, io.EOF) {
				break
			}
			if rerr != nil {
				res.err = rerr.Error()
				break
			}
		}
	} else {
		var rows [][]any
		for {
			row, err := rr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				res.err = err.Error()
				break
			}
			res.rows++
			if i := s.FieldIndex(opts.RescuedDataColumn); opts.RescuedDataColumn != "" && i >= 0 && row[i] != nil {
				res.rescued++
			}
			rows = append(rows, row)
		}
		if err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
	}
	st, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	res.stats, _ = st.JSON()
	res.file = buf.Bytes()
	res.read = rr.Stats()
	return res
}

// sameParquet compares two files' content as arrow-go reads them.
func sameParquet(t testing.TB, a, b []byte) {
	t.Helper()
	ta, tb := arrowtest.ReadTable(t, a), arrowtest.ReadTable(t, b)
	defer ta.Release()
	defer tb.Release()
	if !array.TableApproxEqual(ta, tb, array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
		t.Fatalf("Parquet content differs:\nrow path:\n%s\nbatch path:\n%s", tableString(ta), tableString(tb))
	}
}

func tableString(tbl arrow.Table) string {
	var b strings.Builder
	for i := range int(tbl.NumCols()) {
		c := tbl.Column(i)
		fmt.Fprintf(&b, "%s:", c.Name())
		for _, ch := range c.Data().Chunks() {
			fmt.Fprintf(&b, " %v", ch)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// checkSame reads doc both ways and fails on any difference: Parquet
// content and statistics, read statistics, rows, rescued rows, bad records
// and the error.
func checkSame(t *testing.T, doc string, s *schema.StructType, opts fileformat.ReadOptions, maxRows int) {
	t.Helper()
	want := readPath(t, doc, s, opts, false, 0)
	got := readPath(t, doc, s, opts, true, maxRows)
	ctx := fmt.Sprintf("schema %s options %v rescue %q mode %q\n%s", s, opts.Options, opts.RescuedDataColumn, opts.Mode, doc)
	if got.err != want.err || got.rows != want.rows || got.rescued != want.rescued {
		t.Fatalf("%s\nbatch: rows %d rescued %d err %q\nrows:  rows %d rescued %d err %q", ctx, got.rows, got.rescued, got.err, want.rows, want.rescued, want.err)
	}
	if !reflect.DeepEqual(got.read, want.read) || !reflect.DeepEqual(got.bad, want.bad) {
		t.Fatalf("%s\nbatch: %+v %+v\nrows:  %+v %+v", ctx, got.read, got.bad, want.read, want.bad)
	}
	if got.stats != want.stats {
		t.Fatalf("%s\nbatch stats %s\nrow stats   %s", ctx, got.stats, want.stats)
	}
	sameParquet(t, want.file, got.file)
}

var csvTypes = []schema.Type{
	schema.String, schema.Long, schema.Integer, schema.Double, schema.Boolean, schema.DateType,
	schema.Timestamp, schema.TimestampNTZ, schema.Float, schema.Short, schema.Binary, schema.DecimalType{Precision: 10, Scale: 2},
}

// randValue is a value for a column of type t, or a value that does not
// fit it, or a null form.
func randValue(r *rand.Rand, t schema.Type) string {
	switch r.Intn(10) {
	case 0:
		return ""
	case 1:
		return []string{`""`, "NA", "x y", "NaN", "Inf", "-Inf", " 7 ", "é", "true", "9999999999", "1,5"}[r.Intn(11)]
	}
	switch t {
	case schema.Long, schema.Integer, schema.Short:
		return fmt.Sprint(r.Intn(2000) - 1000)
	case schema.Double, schema.Float:
		return fmt.Sprintf("%.3f", r.Float64()*100)
	case schema.Boolean:
		return []string{"true", "FALSE", "True"}[r.Intn(3)]
	case schema.DateType:
		return fmt.Sprintf("2024-%02d-%02d", 1+r.Intn(12), 1+r.Intn(28))
	case schema.Timestamp, schema.TimestampNTZ:
		return fmt.Sprintf("2024-03-%02dT10:%02d:00%s", 1+r.Intn(28), r.Intn(60), []string{"Z", "", ".123456", "+02:00"}[r.Intn(4)])
	}
	if _, ok := t.(schema.DecimalType); ok {
		return fmt.Sprintf("%d.%02d", r.Intn(1000), r.Intn(100))
	}
	return []string{"abc", `"q,uoted"`, "a\"b", "hello world", `"multi` + "\n" + `line"`, "ünï"}[r.Intn(6)]
}

// randomCase builds a schema, a CSV document and read options.
func randomCase(r *rand.Rand) (string, *schema.StructType, fileformat.ReadOptions) {
	ncol := 1 + r.Intn(5)
	s := &schema.StructType{}
	var names []string
	for i := 0; i < ncol; i++ {
		name := fmt.Sprintf("c%d", i)
		names = append(names, name)
		s.Fields = append(s.Fields, schema.Field{Name: name, Type: csvTypes[r.Intn(len(csvTypes))], Nullable: true})
	}
	opts := fileformat.ReadOptions{FilePath: "f.csv", Options: map[string]string{}}
	header := r.Intn(3) > 0
	if header {
		opts.Options["header"] = "true"
	}
	switch r.Intn(4) {
	case 0:
		opts.RescuedDataColumn = "_rescued_data"
		s.Fields = append(s.Fields, schema.Field{Name: "_rescued_data", Type: schema.String, Nullable: true})
	case 1:
		s.Fields = append(s.Fields, schema.Field{Name: "_corrupt_record", Type: schema.String, Nullable: true})
	}
	opts.Mode = []fileformat.ParseMode{"", "PERMISSIVE", "DROPMALFORMED", "FAILFAST"}[r.Intn(4)]
	for k, vs := range map[string][]string{
		"nullValue": {"NA", "-"}, "emptyValue": {"E", "NA"}, "nanValue": {"nan"}, "positiveInf": {"+inf"},
		"ignoreLeadingWhiteSpace": {"true"}, "ignoreTrailingWhiteSpace": {"true"}, "multiLine": {"true"},
		"sep": {";", "\t"}, "comment": {"#"}, "enforceSchema": {"false"}, "mode": {"x"},
	} {
		if k != "mode" && r.Intn(5) == 0 {
			opts.Options[k] = vs[r.Intn(len(vs))]
		}
	}
	sep := ","
	if v, ok := opts.Options["sep"]; ok {
		sep = v
	}
	var b strings.Builder
	if header {
		hn := append([]string(nil), names...)
		switch r.Intn(6) {
		case 0:
			hn = append(hn, "extra") // a column the schema lacks
		case 1:
			hn[0] = strings.ToUpper(hn[0])
		case 2:
			r.Shuffle(len(hn), func(i, j int) { hn[i], hn[j] = hn[j], hn[i] })
		}
		b.WriteString(strings.Join(hn, sep) + "\n")
	}
	for n := r.Intn(30); n > 0; n-- {
		var vals []string
		for i := 0; i < ncol; i++ {
			vals = append(vals, randValue(r, s.Fields[i].Type))
		}
		switch r.Intn(12) {
		case 0:
			vals = vals[:len(vals)-1]
		case 1:
			vals = append(vals, "more")
		case 2:
			b.WriteString("# a comment\n\n")
		}
		b.WriteString(strings.Join(vals, sep))
		b.WriteString([]string{"\n", "\r\n"}[r.Intn(2)])
	}
	return b.String(), s, opts
}

// TestBatchReadMatchesRows: ReadBatch gives the same Parquet content,
// statistics and bad-record decisions as Next on random CSV documents,
// schemas and options.
func TestBatchReadMatchesRows(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for i := 0; i < 800; i++ {
		doc, s, opts := randomCase(r)
		if r.Intn(3) == 0 {
			opts.BadRecords = func(fileformat.BadRecord) {}
		}
		checkSame(t, doc, s, opts, 1+r.Intn(8))
	}
}

// FuzzBatchRead checks ReadBatch against Next on any document.
func FuzzBatchRead(f *testing.F) {
	f.Add("a,b\n1,x\n2,\"y\"\nz,3,4\n", int64(1), true)
	f.Add("1;2.5;true\n;;\n", int64(2), false)
	f.Fuzz(func(t *testing.T, doc string, seed int64, header bool) {
		r := rand.New(rand.NewSource(seed))
		_, s, opts := randomCase(r)
		opts.Options["header"] = fmt.Sprint(header)
		checkSame(t, doc, s, opts, 1+r.Intn(8))
	})
}

// failAfter gives data, then fails with err.
type failAfter struct {
	data []byte
	err  error
}

func (f *failAfter) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// TestSmallFilesReadInRows: a file within the first read buffer is read
// in rows (BatchReadable false), a larger one in batches; a read error met
// while deciding still fails the read.
func TestSmallFilesReadInRows(t *testing.T) {
	s := strSchema("a", "b")
	big := strings.Repeat("x,y\n", 20000)
	boom := errors.New("boom")
	tests := []struct {
		name    string
		r       io.Reader
		batch   bool
		wantErr error
	}{
		{"small", strings.NewReader("x,y\n"), false, nil},
		{"big", strings.NewReader(big), true, nil},
		{"read error", &failAfter{data: []byte("x,y\n"), err: boom}, true, boom},
	}
	for _, tt := range tests {
		rr, err := Format{}.Open(context.Background(), tt.r, s, fileformat.ReadOptions{FilePath: "f.csv"})
		if err != nil {
			t.Fatal(err)
		}
		if got := rr.(parquetio.BatchReader).BatchReadable(); got != tt.batch {
			t.Errorf("%s: BatchReadable = %v, want %v", tt.name, got, tt.batch)
		}
		var rerr error
		for rerr == nil {
			_, rerr = rr.Next()
		}
		if tt.wantErr != nil && !errors.Is(rerr, tt.wantErr) {
			t.Errorf("%s: read error %v, want %v", tt.name, rerr, tt.wantErr)
		}
		if tt.wantErr == nil && !errors.Is(rerr, io.EOF) {
			t.Errorf("%s: read error %v", tt.name, rerr)
		}
	}
}
