package jsonfmt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsoninfer"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// foldOptions are the option sets of the one-pass check's differential
// tests: inferTimestamp with and without a pattern, the allow* syntax
// options, a time zone.
var foldOptions = []map[string]string{
	{},
	{"inferTimestamp": "true"},
	{"inferTimestamp": "true", "timestampFormat": "yyyy-MM-dd'T'HH:mm:ss"},
	{"allowComments": "true", "allowUnquotedFieldNames": "true"},
	{"allowNonNumericNumbers": "false", "allowSingleQuotes": "false"},
	{"allowNumericLeadingZeros": "true", "timeZone": "America/New_York"},
}

// foldGen makes documents whose records mostly keep one shape (a random
// schema), departing from it at a rate: values of other kinds, nulls,
// unknown fields, names in other cases, huge integers, timestamps that
// do not parse, top-level arrays, blank, malformed and non-standard
// lines.
type foldGen struct {
	docGen
	odd int // per mille of values that depart
}

func (g foldGen) departs() bool { return g.r.IntN(1000) < g.odd }

// value is a value of type t (or, departing, anything).
func (g foldGen) value(t schema.Type, depth int) string {
	switch {
	case g.r.IntN(8) == 0:
		return "null"
	case g.departs():
		if depth < 3 && g.r.IntN(2) == 0 {
			return g.any(depth + 1)
		}
		return g.scalar()
	}
	switch t := t.(type) {
	case *schema.StructType:
		return g.object(t, depth+1)
	case *schema.ArrayType:
		parts := make([]string, g.r.IntN(4))
		for i := range parts {
			parts[i] = g.value(t.Element, depth+1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case schema.DecimalType:
		return []string{"1.5", "-0.25", "12345", "99999999999999999999"}[g.r.IntN(4)]
	case schema.PrimitiveType:
		switch t {
		case schema.Long, schema.Integer, schema.Short, schema.Byte:
			return fmt.Sprint(g.r.Int64N(400) - 200)
		case schema.Double, schema.Float:
			return []string{fmt.Sprintf("%.4f", g.r.Float64()*100), "1e5", "-0.0", "2.5E-3"}[g.r.IntN(4)]
		case schema.Boolean:
			return []string{"true", "false"}[g.r.IntN(2)]
		case schema.Timestamp, schema.TimestampNTZ, schema.DateType:
			return fmt.Sprintf(`"2024-0%d-1%dT0%d:30:00"`, 1+g.r.IntN(9), g.r.IntN(10), g.r.IntN(10))
		}
	}
	return fmt.Sprintf(`"s%d"`, g.r.IntN(50))
}

func (g foldGen) object(st *schema.StructType, depth int) string {
	var parts []string
	for _, i := range g.r.Perm(len(st.Fields)) {
		f := st.Fields[i]
		if g.r.IntN(6) == 0 {
			continue
		}
		name := f.Name
		if g.departs() {
			name = strings.ToUpper(name)
		}
		parts = append(parts, fmt.Sprintf("%q:%s", name, g.value(f.Type, depth)))
	}
	if g.departs() {
		v := []string{"null", "1", `"x"`, "{}", "[]"}[g.r.IntN(5)]
		parts = append(parts, fmt.Sprintf(`"zz%d":%s`, g.r.IntN(3), v))
	}
	sep := ","
	if g.r.IntN(10) == 0 {
		sep = " , "
	}
	return "{" + strings.Join(parts, sep) + "}"
}

func (g foldGen) document(st *schema.StructType, lines int) string {
	var b strings.Builder
	for range lines {
		switch k := g.r.IntN(1000); {
		case k < 10:
			b.WriteString(`[` + g.object(st, 0) + `,` + g.object(st, 0) + `]`)
		case k < 20:
			b.WriteString("  ")
		case k < 20+g.odd/20:
			b.WriteString([]string{`{"broken":`, `42`, `{'q':1}`, `{"a":1} // c`, `{"n":NaN}`, `{"l":007}`, `[{"x":1},2]`}[g.r.IntN(7)])
		default:
			b.WriteString(g.object(st, 0))
		}
		b.WriteString([]string{"\n", "\n", "\n", "\r\n"}[g.r.IntN(4)])
	}
	return b.String()
}

// foldInfer is Add of doc with iopts: the inferrer and its schema and
// error as text.
func foldInfer(iopts fileformat.InferOptions, doc string) (fileformat.Inferrer, string) {
	in := jsoninfer.New(iopts)
	err := in.Add(context.Background(), "f0", strings.NewReader(doc))
	return in, fmt.Sprintf("%s %v", in.Schema(), err)
}

// foldCase infers a provisional schema from doc's first prefix lines,
// reads doc in column batches checking its records against it (workers
// > 1: the parallel chunk reader, chunks of chunk bytes): unless the read
// abandons (or fails), Add over the whole document must infer the
// provisional schema, and the Parquet file written be the one a read of
// doc with Add's schema and without the check writes. It reports whether
// the read went to the end.
func foldCase(t *testing.T, iopts fileformat.InferOptions, doc string, prefix, workers, chunk int) bool {
	t.Helper()
	lines := strings.SplitAfter(doc, "\n")
	prov, provText := foldInfer(iopts, strings.Join(lines[:min(prefix, len(lines))], ""))
	if prov.Sampled().Records == 0 || len(prov.Schema().Fields) == 0 {
		return false // no provisional schema (evolve.Schemas.provisional), or none to write
	}
	whole, want := foldInfer(iopts, doc)
	opts := fileformat.ReadOptions{Options: iopts.Options, Mode: iopts.Mode, RescuedDataColumn: iopts.RescuedDataColumn, FilePath: "f0"}
	folded := opts
	folded.Fold = prov
	one := batchPath(t, doc, prov.Schema(), folded, 7, workers, chunk)
	if one.err != "" {
		if !strings.Contains(one.err, fileformat.ErrFoldAbandoned.Error()) && !strings.Contains(one.err, "FAILFAST") && iopts.Mode != fileformat.FailFast {
			t.Fatalf("options %+v doc %q: the read failed: %s", iopts, doc, one.err)
		}
		return false
	}
	if want != provText {
		t.Fatalf("options %+v workers %d chunk %d prefix %d doc %q:\nread to the end with %s\nadd  %s", iopts, workers, chunk, prefix, doc, provText, want)
	}
	two := batchPath(t, doc, whole.Schema(), opts, 7, workers, chunk)
	if !bytes.Equal(one.file, two.file) || one.rows != two.rows || two.err != "" {
		t.Fatalf("options %+v doc %q: the checked read's file differs from the two-pass one (rows %d, %d; %s)", iopts, doc, one.rows, two.rows, two.err)
	}
	return true
}

// foldInferOptions are random inference options over foldOptions.
func foldInferOptions(r *rand.Rand) fileformat.InferOptions {
	iopts := fileformat.InferOptions{Options: foldOptions[r.IntN(len(foldOptions))], InferColumnTypes: r.IntN(6) != 0,
		PrefersDecimal: r.IntN(6) == 0, PrimitivesAsString: r.IntN(8) == 0, DropFieldIfAllNull: r.IntN(6) == 0}
	if r.IntN(2) == 0 {
		iopts.RescuedDataColumn = fileformat.DefaultRescuedDataColumn
	}
	switch r.IntN(6) {
	case 0:
		iopts.Mode = fileformat.DropMalformed
	case 1:
		iopts.Mode = fileformat.FailFast
	}
	if r.IntN(6) == 0 {
		iopts.Hints, _ = schema.ParseDDL([]string{"a0 STRING", "b1 DOUBLE", "c0 ARRAY<STRING>", "d2 STRUCT<q: BIGINT>"}[r.IntN(4)])
	}
	return iopts
}

// TestFoldRandom: a reader that checks every record against a schema
// inferred from a prefix of whole lines, and reads to the end without
// abandoning, proves that Add infers that schema from the whole file, and
// writes the two-pass file: on random documents (nulls in the prefix,
// numbers in string columns, longs meeting doubles, structs gaining
// fields, arrays whose elements widen, timestamps, names differing in
// case, rescue, hints, the parse modes), serially and on the parallel
// chunk reader.
func TestFoldRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 2027))
	n, kept := 3000, 0
	if testing.Short() {
		n = 300
	}
	for range n {
		g := foldGen{docGen{r}, []int{0, 0, 2, 10, 50}[r.IntN(5)]}
		st := g.structType(0, 1+r.IntN(6))
		doc := g.document(st, 1+r.IntN(200))
		prefix := 1 + r.IntN(1+strings.Count(doc, "\n"))
		if r.IntN(4) == 0 {
			prefix = len(doc) // the whole document
		}
		workers, chunk := 1+r.IntN(3), 1+r.IntN(400)
		if foldCase(t, foldInferOptions(r), doc, prefix, workers, chunk) {
			kept++
		}
	}
	t.Logf("%d of %d cases read to the end", kept, n)
	if kept < n/5 {
		t.Errorf("only %d of %d cases read to the end", kept, n)
	}
}

// TestFoldAbandons: a checking reader stops with ErrFoldAbandoned at the
// first record that would change an inferred type (the cases JSON has)
// or that the schema does not read plainly, in rows and in batches, and
// reads what it keeps as a reader without the check does.
func TestFoldAbandons(t *testing.T) {
	iopts := fileformat.InferOptions{InferColumnTypes: true, RescuedDataColumn: fileformat.DefaultRescuedDataColumn,
		Options: map[string]string{"inferTimestamp": "true"}}
	opts := fileformat.ReadOptions{RescuedDataColumn: fileformat.DefaultRescuedDataColumn, Options: iopts.Options, FilePath: "f0"}
	prov, _ := foldInfer(iopts, `{"l":1,"d":2.5,"s":"x","n":null,"o":{"a":1},"a":[1],"t":"2024-01-01T00:00:00Z","b":true}`+"\n")
	sch := prov.Schema()
	for _, tt := range []struct {
		name, doc string
		abandon   bool
	}{
		{"plain", `{"l":2,"d":3,"s":"y","o":{"a":2},"a":[2,3],"t":"2024-02-01T00:00:00Z","b":false,"n":null}` + "\n\n" + `[{"l":3},{}]`, false},
		{"number in a string column", `{"s":12}`, false},
		{"empty string in a long column (rescued)", `{"l":""}`, true},
		{"null gains a value", `{"n":1}`, true},
		{"long meets double", `{"l":1.5}`, true},
		{"long beyond long", `{"l":12345678901234567890}`, true},
		{"struct gains a field", `{"o":{"a":1,"b":2}}`, true},
		{"array element widens", `{"a":[1,2.5]}`, true},
		{"not a timestamp", `{"t":"soon"}`, true},
		{"new field, null", `{"z":null}`, true},
		{"name in another case", `{"L":1}`, true},
		{"malformed", `{"l":`, true},
		{"non-standard", `{'l':1}`, true},
		{"boolean meets string", `{"b":"true"}`, true},
	} {
		for _, batch := range []bool{false, true} {
			o := opts
			o.Fold = prov
			var got readResult
			if batch {
				got = batchPath(t, tt.doc, sch, o, 3, 1, 0)
			} else {
				got = rowPath(t, tt.doc, sch, o)
			}
			if abandoned := strings.Contains(got.err, fileformat.ErrFoldAbandoned.Error()); abandoned != tt.abandon || (got.err != "" && !abandoned) {
				t.Errorf("%s batch %v: error %q, want abandoned %v", tt.name, batch, got.err, tt.abandon)
			}
			if !tt.abandon {
				plain := batchPath(t, tt.doc, sch, opts, 3, 1, 0)
				if !batch {
					plain = rowPath(t, tt.doc, sch, opts)
				}
				if !bytes.Equal(got.file, plain.file) {
					t.Errorf("%s batch %v: the checking read wrote another file", tt.name, batch)
				}
			}
		}
	}
	// An inferrer that samples at random, or whose records may span a
	// "\n", or of other options, cannot check.
	for _, tt := range []struct {
		infer, read map[string]string
		text        fileformat.TextOptions
	}{
		{map[string]string{"samplingRatio": "0.5"}, map[string]string{"samplingRatio": "0.5"}, fileformat.TextOptions{}},
		{map[string]string{"multiLine": "true"}, map[string]string{"multiLine": "true"}, fileformat.TextOptions{}},
		{map[string]string{}, map[string]string{}, fileformat.TextOptions{LineSep: ";"}},
		{map[string]string{}, map[string]string{}, fileformat.TextOptions{Encoding: "UTF-16"}},
		{map[string]string{}, map[string]string{"allowComments": "true"}, fileformat.TextOptions{}},
	} {
		in := jsoninfer.New(fileformat.InferOptions{Options: tt.infer, Text: tt.text, InferColumnTypes: true})
		_, err := Format{}.Open(context.Background(), strings.NewReader("{}\n"), sch, fileformat.ReadOptions{Options: tt.read, Fold: in})
		if !errors.Is(err, fileformat.ErrFoldAbandoned) {
			t.Errorf("fold with inference options %q %+v: error %v", tt.infer, tt.text, err)
		}
	}
}

// FuzzFold: any document, a prefix and a few options: a reader that
// reads to the end checking against the prefix's schema proves Add's.
func FuzzFold(f *testing.F) {
	f.Add("{\"a\":1}\n{\"a\":2.5}\n", uint8(0), uint8(1), uint16(7))
	f.Add("{\"a\":null}\n{\"A\":\"2024-01-01T00:00:00Z\"}\n", uint8(1), uint8(1), uint16(1))
	f.Add("[{\"o\":{\"x\":[1]}},{\"o\":{\"x\":[2,\"y\"]}}]\n{\"o\":{}}\n", uint8(2), uint8(2), uint16(300))
	f.Fuzz(func(t *testing.T, doc string, opt, prefix uint8, chunk uint16) {
		iopts := fileformat.InferOptions{Options: foldOptions[int(opt)%len(foldOptions)], InferColumnTypes: opt%5 != 4,
			RescuedDataColumn: fileformat.DefaultRescuedDataColumn, PrefersDecimal: opt%7 == 3}
		foldCase(t, iopts, doc, int(prefix), 1+int(opt)%3, 1+int(chunk))
	})
}

// foldSkipCase infers a provisional schema from doc's first prefix lines
// and, when the checker proves the records the fast decoder takes
// (Checker.Proves), checks that every line of doc the fast decoder
// decodes keeps the types (Checker.Keeps): the records foldLine does not
// scan. It returns how many lines were so checked.
func foldSkipCase(t *testing.T, iopts fileformat.InferOptions, doc string, prefix int) int {
	t.Helper()
	lines := strings.SplitAfter(doc, "\n")
	prov, _ := foldInfer(iopts, strings.Join(lines[:min(prefix, len(lines))], ""))
	s := prov.Schema()
	if prov.Sampled().Records == 0 || len(s.Fields) == 0 {
		return 0
	}
	opts := fileformat.ReadOptions{Options: iopts.Options, Mode: iopts.Mode, RescuedDataColumn: iopts.RescuedDataColumn, FilePath: "f0", Fold: prov}
	rr, err := Format{}.Open(context.Background(), strings.NewReader(""), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	rd := rr.(*reader)
	b, err := parquetio.NewColumnBatch(s)
	if err != nil || !rd.BatchReadable() {
		t.Fatalf("schema %s: %v", s, err)
	}
	if err := rd.bindTo(b.Root()); err != nil {
		t.Fatal(err)
	}
	if !rd.foldSkip || rd.fast == nil {
		return 0
	}
	n := 0
	for _, line := range lines {
		line = strings.TrimRight(line, "\r\n")
		if !rd.fast.Decode([]byte(line), b) {
			b.Reset()
			continue
		}
		n++
		c, err := jsoninfer.NewChecker(prov, opts.Text, opts.Options)
		if err != nil {
			t.Fatal(err)
		}
		if !c.Keeps([]byte(line)) {
			t.Fatalf("options %+v schema %s: the fast decoder took %q, which changes a type of the prefix %q", iopts, s, line, strings.Join(lines[:min(prefix, len(lines))], ""))
		}
	}
	return n
}

// TestFoldSkipRandom: a record the fast decoder decodes, when the
// checker proves such records (Checker.Proves), keeps every inferred
// type, on random documents and options (the records a checking reader
// does not scan).
func TestFoldSkipRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 2027))
	n, checked := 3000, 0
	if testing.Short() {
		n = 300
	}
	for range n {
		g := foldGen{docGen{r}, []int{0, 10, 50, 200}[r.IntN(4)]}
		st := g.structType(0, 1+r.IntN(6))
		doc := g.document(st, 1+r.IntN(100))
		checked += foldSkipCase(t, foldInferOptions(r), doc, 1+r.IntN(1+strings.Count(doc, "\n")))
	}
	t.Logf("%d records taken by the fast decoder checked", checked)
	if checked < n {
		t.Errorf("only %d records checked", checked)
	}
}

// FuzzFoldSkip: any document and prefix: what the fast decoder takes
// under a proving checker keeps the types.
func FuzzFoldSkip(f *testing.F) {
	f.Add("{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":3}\n{\"a\":1e400}\n", uint8(1), false)
	f.Add("{\"o\":{\"x\":[1.5]},\"s\":null}\n{\"o\":{\"x\":[2]},\"s\":\"y\"}\n", uint8(1), true)
	f.Fuzz(func(t *testing.T, doc string, prefix uint8, decimal bool) {
		iopts := fileformat.InferOptions{InferColumnTypes: true, PrefersDecimal: decimal, RescuedDataColumn: fileformat.DefaultRescuedDataColumn}
		foldSkipCase(t, iopts, doc, int(prefix))
	})
}
