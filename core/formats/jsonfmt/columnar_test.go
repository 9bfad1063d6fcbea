package jsonfmt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/fileformat/maptest"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/internal/arrowtest"
)

// docGen produces random schemas and JSON documents that mostly fit them,
// with the ways records go wrong mixed in (values of the wrong type, unknown
// fields, repeated keys, names differing by case, malformed lines, arrays of
// records).
type docGen struct{ r *rand.Rand }

var colPrims = []schema.PrimitiveType{
	schema.String, schema.String, schema.Long, schema.Long, schema.Double, schema.Boolean,
	schema.Integer, schema.Short, schema.Byte, schema.Float, schema.Binary, schema.DateType,
	schema.Timestamp, schema.TimestampNTZ,
}

func (g docGen) typ(depth int) schema.Type {
	k := g.r.IntN(10)
	if depth >= 3 {
		k = g.r.IntN(7)
	}
	switch {
	case k < 6:
		return colPrims[g.r.IntN(len(colPrims))]
	case k == 6:
		p := 1 + g.r.IntN(38)
		return schema.DecimalType{Precision: p, Scale: g.r.IntN(min(p, 6) + 1)}
	case k == 7 || k == 8:
		return g.structType(depth+1, 1+g.r.IntN(4))
	default:
		return &schema.ArrayType{Element: g.typ(depth + 1), ContainsNull: true}
	}
}

func (g docGen) structType(depth, n int) *schema.StructType {
	st := &schema.StructType{}
	for i := range n {
		name := fmt.Sprintf("%c%d", 'a'+rune(g.r.IntN(6)), i)
		if g.r.IntN(8) == 0 {
			name = strings.ToUpper(name[:1]) + name[1:]
		}
		st.Fields = append(st.Fields, schema.Field{Name: name, Type: g.typ(depth), Nullable: true})
	}
	return st
}

// scalar is a random JSON scalar, of any kind.
func (g docGen) scalar() string {
	switch g.r.IntN(16) {
	case 0:
		return "null"
	case 1:
		return "true"
	case 2:
		return "false"
	case 3:
		return fmt.Sprint(g.r.Int64N(200) - 100)
	case 4:
		return fmt.Sprint(g.r.Int64())
	case 5:
		return "123456789012345678901234567890"
	case 6:
		return fmt.Sprintf("%.3f", g.r.Float64()*1000-500)
	case 7:
		return []string{"NaN", "Infinity", "-Infinity", "1e400", "-0.0", "2.5e-3"}[g.r.IntN(6)]
	case 8:
		return fmt.Sprintf(`"2024-0%d-1%dT0%d:00:00Z"`, 1+g.r.IntN(9), g.r.IntN(10), g.r.IntN(10))
	case 9:
		return fmt.Sprintf(`"2024-0%d-1%d"`, 1+g.r.IntN(9), g.r.IntN(10))
	case 10:
		return []string{`"aGVsbG8="`, `"aGVsbG8"`, `"!!"`}[g.r.IntN(3)]
	case 11:
		return []string{`"NaN"`, `"INF"`, `"-Infinity"`, `"12.50"`, `"-3"`}[g.r.IntN(5)]
	case 12:
		return []string{`"a\"b\\c\u00e9\ud83d\ude00"`, `"\u0000x"`, `""`, `"Grüße"`}[g.r.IntN(4)]
	case 13:
		return fmt.Sprint(g.r.IntN(300) - 150)
	}
	return fmt.Sprintf(`"s%d"`, g.r.IntN(50))
}

// value is a JSON value for type t, sometimes of another type.
func (g docGen) value(t schema.Type, depth int) string {
	if g.r.IntN(12) == 0 {
		return g.scalar()
	}
	if g.r.IntN(12) == 0 && depth < 4 {
		return g.any(depth + 1)
	}
	switch t := t.(type) {
	case *schema.StructType:
		return g.object(t, depth+1)
	case *schema.ArrayType:
		n := g.r.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = g.value(t.Element, depth+1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case schema.DecimalType:
		return []string{"1.5", "-0.25", `"3.14159"`, "12345", "99999999999999999999.5"}[g.r.IntN(5)]
	case schema.PrimitiveType:
		switch t {
		case schema.Long, schema.Integer, schema.Short, schema.Byte:
			return fmt.Sprint(g.r.Int64N(400) - 200)
		case schema.Double, schema.Float:
			return fmt.Sprintf("%.4f", g.r.Float64()*100)
		case schema.Boolean:
			return []string{"true", "false"}[g.r.IntN(2)]
		case schema.DateType:
			return fmt.Sprintf(`"2024-0%d-1%d"`, 1+g.r.IntN(9), g.r.IntN(10))
		case schema.Timestamp, schema.TimestampNTZ:
			return fmt.Sprintf(`"2024-0%d-1%dT0%d:30:00"`, 1+g.r.IntN(9), g.r.IntN(10), g.r.IntN(10))
		case schema.Binary:
			return `"aGVsbG8="`
		}
	}
	return g.scalar()
}

// any is a random JSON value: an object, an array or a scalar.
func (g docGen) any(depth int) string {
	switch g.r.IntN(3) {
	case 0:
		return fmt.Sprintf(`{"q":%s,"r":[%s]}`, g.scalar(), g.scalar())
	case 1:
		return fmt.Sprintf(`[%s,%s]`, g.scalar(), g.scalar())
	}
	return g.scalar()
}

func (g docGen) object(st *schema.StructType, depth int) string {
	var parts []string
	for _, i := range g.r.Perm(len(st.Fields)) {
		f := st.Fields[i]
		if g.r.IntN(5) == 0 {
			continue
		}
		name := f.Name
		if g.r.IntN(15) == 0 {
			name = strings.ToUpper(name)
		}
		parts = append(parts, fmt.Sprintf("%q:%s", name, g.value(f.Type, depth)))
		if g.r.IntN(20) == 0 { // a repeated key
			parts = append(parts, fmt.Sprintf("%q:%s", name, g.value(f.Type, depth)))
		}
	}
	if g.r.IntN(6) == 0 {
		parts = append(parts, fmt.Sprintf(`"zz_unknown%d":%s`, g.r.IntN(3), g.any(depth)))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func (g docGen) document(st *schema.StructType, lines int) string {
	var b strings.Builder
	for range lines {
		switch g.r.IntN(40) {
		case 0:
			b.WriteString(`{"broken":`)
		case 1:
			b.WriteString("   ")
		case 2:
			b.WriteString(`[` + g.object(st, 0) + `,` + g.object(st, 0) + `]`)
		case 3:
			b.WriteString(`42`)
		case 4:
			b.WriteString(`[{"x":1},2]`)
		default:
			b.WriteString(g.object(st, 0))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// readResult is what one path produced.
type readResult struct {
	file    []byte
	stats   string
	read    fileformat.ReadStats
	err     string
	rows    int
	rescued int64
	bad     []fileformat.BadRecord
}

func rowPath(t testing.TB, doc string, s *schema.StructType, opts fileformat.ReadOptions) readResult {
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
		if i := s.FieldIndex(opts.RescuedDataColumn); i >= 0 && opts.RescuedDataColumn != "" && row[i] != nil {
			res.rescued++
		}
		rows = append(rows, row)
		if len(rows) == 3 {
			if err := w.Write(rows); err != nil {
				t.Fatal(err)
			}
			rows = rows[:0]
		}
	}
	if err := w.Write(rows); err != nil {
		t.Fatal(err)
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

func hookInto(h func(fileformat.BadRecord), dst *[]fileformat.BadRecord) func(fileformat.BadRecord) {
	if h == nil {
		return nil
	}
	return func(b fileformat.BadRecord) { *dst = append(*dst, b) }
}

// batchPath reads with ReadBatch: serially (workers 1), or in parallel
// chunks of chunk bytes;
// setup, if given, adjusts the reader before the read.
func batchPath(t testing.TB, doc string, s *schema.StructType, opts fileformat.ReadOptions, maxRows, workers, chunk int, setup ...func(*reader)) readResult {
	return batchPathFrom(t, strings.NewReader(doc), s, opts, maxRows, workers, chunk, setup...)
}

// batchPathFrom is batchPath reading src.
func batchPathFrom(t testing.TB, src io.Reader, s *schema.StructType, opts fileformat.ReadOptions, maxRows, workers, chunk int, setup ...func(*reader)) readResult {
	var res readResult
	opts.BadRecords = hookInto(opts.BadRecords, &res.bad)
	rr, err := Format{}.Open(context.Background(), src, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	rr.(*reader).parWorkers, rr.(*reader).parChunk = workers, chunk
	for _, f := range setup {
		f(rr.(*reader))
	}
	br, ok := rr.(parquetio.BatchReader)
	if !ok || !br.BatchReadable() {
		t.Fatalf("schema %s: not batch readable", s)
	}
	var buf bytes.Buffer
	w, err := parquetio.NewWriter(&buf, s, parquetio.WriterOptions{PageBytes: 512})
	if err != nil {
		t.Fatal(err)
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

// randomCase is one differential case: a schema, a document and read
// options.
type randomCase struct {
	s    *schema.StructType
	doc  string
	opts fileformat.ReadOptions
}

func (g docGen) randomCase() randomCase {
	s := g.structType(0, 1+g.r.IntN(6))
	doc := g.document(s, 1+g.r.IntN(40))
	var opts fileformat.ReadOptions
	opts.FilePath = "s3://b/in/f.json"
	opts.Mode = []fileformat.ParseMode{fileformat.Permissive, fileformat.DropMalformed, fileformat.FailFast, ""}[g.r.IntN(4)]
	switch g.r.IntN(3) {
	case 0:
		opts.RescuedDataColumn = fileformat.DefaultRescuedDataColumn
		s.Fields = append(s.Fields, schema.Field{Name: opts.RescuedDataColumn, Type: schema.String, Nullable: true})
	case 1:
		s.Fields = append(s.Fields, schema.Field{Name: fileformat.DefaultCorruptRecordColumn, Type: schema.String, Nullable: true})
	}
	opts.CaseInsensitive = g.r.IntN(2) == 0
	if g.r.IntN(6) == 0 {
		opts.BadRecords = func(fileformat.BadRecord) {}
	}
	return randomCase{s: s, doc: doc, opts: opts}
}

// checkSamePaths reads c with Next and with ReadBatch and fails unless the
// Parquet content, file statistics, read statistics, bad records, rescued
// counts and errors are the same.
func checkSamePaths(t *testing.T, c randomCase, maxRows int) {
	t.Helper()
	row := rowPath(t, c.doc, c.s, c.opts)
	for _, par := range [][2]int{{1, 0}, {3, 1 + maxRows*40}} {
		col := batchPath(t, c.doc, c.s, c.opts, maxRows, par[0], par[1])
		where := fmt.Sprintf("workers %d, chunk %d, schema %s, options %+v, document:\n%s", par[0], par[1], c.s, c.opts, c.doc)
		compareResults(t, row, col, where)
	}
	// In parallel from a file read in place (blocks of shared windows):
	// a window is poisoned when it is unmapped, so rows that pointed into
	// it would differ.
	m := maptest.NewPoison([]byte(c.doc))
	col := batchPathFrom(t, m, c.s, c.opts, maxRows, 3, 1+maxRows*40)
	compareResults(t, row, col, fmt.Sprintf("in place, workers 3, schema %s, options %+v, document:\n%s", c.s, c.opts, c.doc))
	// Lines split by lineSep, or decoded from another charset, are read
	// with Read (not in blocks).
	inPlace := c.opts.Text.LineSep == "" && c.opts.Text.Encoding == ""
	if n := m.Live.Load(); n != 0 || (inPlace && m.Maps.Load() == 0 && c.doc != "") {
		t.Fatalf("%d shared windows left mapped, %d mapped", n, m.Maps.Load())
	}
	// The tape path alone (no fast decoder), which the fast decoder falls
	// back to.
	col = batchPath(t, c.doc, c.s, c.opts, maxRows, 1, 0, func(rd *reader) { rd.noFast = true })
	compareResults(t, row, col, fmt.Sprintf("without the fast decoder, schema %s, options %+v, document:\n%s", c.s, c.opts, c.doc))
}

func compareResults(t *testing.T, row, col readResult, where string) {
	t.Helper()
	if row.err != col.err {
		t.Fatalf("error: row path %q, batch path %q\n%s", row.err, col.err, where)
	}
	if row.rows != col.rows || row.rescued != col.rescued {
		t.Fatalf("rows/rescued: row path %d/%d, batch path %d/%d\n%s", row.rows, row.rescued, col.rows, col.rescued, where)
	}
	if !reflect.DeepEqual(row.read, col.read) {
		t.Fatalf("read stats: row path %+v, batch path %+v\n%s", row.read, col.read, where)
	}
	if !reflect.DeepEqual(row.bad, col.bad) {
		t.Fatalf("bad records: row path %+v, batch path %+v\n%s", row.bad, col.bad, where)
	}
	if row.stats != col.stats {
		t.Fatalf("file stats: row path %s, batch path %s\n%s", row.stats, col.stats, where)
	}
	sameParquet(t, row.file, col.file)
}

// TestBatchReadMatchesRows checks the columnar read against the row read
// on random schemas and documents: identical Parquet content read back by
// arrow-go, statistics, counts, bad records and errors.
func TestBatchReadMatchesRows(t *testing.T) {
	g := docGen{rand.New(rand.NewPCG(11, 2026))}
	for i := range 400 {
		c := g.randomCase()
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			checkSamePaths(t, c, 1+i%7)
		})
	}
}

// FuzzBatchRead runs the differential check on fuzzed documents against
// a schema drawn from the seed.
func FuzzBatchRead(f *testing.F) {
	f.Add(uint64(1), `{"a0":1,"b1":"x"}`+"\n"+`{"a0":"y"}`)
	f.Add(uint64(7), `[{"a0":[1,2]},{"a0":null}]`+"\n{")
	f.Add(uint64(3), `{"A0":{"q":1},"a0":2,"a0":3}`)
	f.Fuzz(func(t *testing.T, seed uint64, doc string) {
		g := docGen{rand.New(rand.NewPCG(seed, 7))}
		c := g.randomCase()
		c.doc = doc
		checkSamePaths(t, c, 1+int(seed%5))
	})
}
