package csvfmt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// foldOptions are the option sets of the fold's differential tests:
// header or not, nullValue, timestamps, quotes and escapes, multiLine,
// comments, white space, encodings.
var foldOptions = []map[string]string{
	{"header": "true"},
	{"header": "false"},
	{"header": "true", "nullValue": "null"},
	{"header": "true", "nullValue": "\uFFFD"},
	{"header": "true", "timestampFormat": "yyyy-MM-dd HH:mm:ss", "preferDate": "false"},
	{"header": "true", "dateFormat": "yyyy-MM-dd", "timeZone": "America/New_York"},
	{"header": "true", "quote": "'", "escape": "'"},
	{"header": "true", "escape": `"`, "emptyValue": "E"},
	{"header": "true", "multiLine": "true"},
	{"header": "false", "multiLine": "true", "comment": "#"},
	{"header": "true", "comment": "#", "unescapedQuoteHandling": "RAISE_ERROR"},
	{"header": "true", "ignoreLeadingWhiteSpace": "true", "ignoreTrailingWhiteSpace": "true", "nanValue": "\uFFFD"},
	{"header": "true", "sep": ";", "skipRows": "1"},
}

// foldDoc is a random document: randomCSV's or typedCSV's, with bytes
// that are not UTF-8 now and then, with "\n" line ends or not.
func foldDoc(rng *rand.Rand, header bool) string {
	doc := randomCSV(rng, header)
	if rng.IntN(3) == 0 {
		doc = typedCSV(rng, header)
	}
	if rng.IntN(2) == 0 {
		doc = strings.ReplaceAll(strings.ReplaceAll(doc, "\r\n", "\n"), "\r", "\n")
	}
	if rng.IntN(3) == 0 {
		var b strings.Builder
		for j := 0; j < len(doc); j++ {
			b.WriteByte(doc[j])
			if (doc[j] == ',' || doc[j] == '\n') && rng.IntN(8) == 0 {
				b.WriteString(invalidUTF8[rng.IntN(len(invalidUTF8))])
			}
		}
		doc = b.String()
	}
	return doc
}

// foldFiles reads files with readers opened with read options opts, in
// order, each folding into a new inferrer of infer options iopts (all:
// past records not read plainly), in rows or in column batches, with
// schema s: the inferrer's schema and records, and the readers' errors,
// as text.
func foldFiles(t *testing.T, iopts fileformat.InferOptions, opts fileformat.ReadOptions, s *schema.StructType, files []string, batch, all bool) (string, error) {
	t.Helper()
	in := newInferrer(iopts)
	opts.Fold = in
	var out strings.Builder
	var first error
	for i, f := range files {
		opts.FilePath = fmt.Sprint("f", i)
		rd, err := open(context.Background(), strings.NewReader(f), s, opts)
		if err != nil {
			t.Fatal(err)
		}
		rd.fold.all = all
		rd.col.anySize = true
		if err = foldReadAll(rd, s, batch); err != nil {
			fmt.Fprintf(&out, "file %d: %v\n", i, err)
			if first == nil {
				first = err
			}
		}
	}
	fmt.Fprintf(&out, "%s\nrecords %d\n", in.Schema(), in.Sampled().Records)
	return out.String(), first
}

// foldReadAll reads rd to its end, in rows or column batches.
func foldReadAll(rd *reader, s *schema.StructType, batch bool) error {
	if !batch || !rd.BatchReadable() {
		for {
			if _, err := rd.Next(); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
		}
	}
	b, err := parquetio.NewColumnBatch(s)
	if err != nil {
		return err
	}
	for {
		err := rd.ReadBatch(b, 7, 1<<20)
		b.Reset()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// addFiles is Inferrer.Add over files: the schema and records, and the
// errors, as foldFiles gives them.
func addFiles(iopts fileformat.InferOptions, files []string) string {
	in := newInferrer(iopts)
	var out strings.Builder
	for i, f := range files {
		if err := in.Add(context.Background(), fmt.Sprint("f", i), strings.NewReader(f)); err != nil {
			fmt.Fprintf(&out, "file %d: %v\n", i, err)
		}
	}
	fmt.Fprintf(&out, "%s\nrecords %d\n", in.Schema(), in.Sampled().Records)
	return out.String()
}

// TestFoldRandom: readers that fold every record they read (in rows or
// in column batches) infer what Inferrer.Add infers from the same files,
// on random documents under random options: the same schema and record
// count; the reader's own errors (parser limits) are Add's.
func TestFoldRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 7))
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		m := foldOptions[rng.IntN(len(foldOptions))]
		iopts := fileformat.InferOptions{Options: m, InferColumnTypes: rng.IntN(5) != 0, PrefersDecimal: rng.IntN(2) == 0,
			RescuedDataColumn: fileformat.DefaultRescuedDataColumn}
		if rng.IntN(3) == 0 {
			iopts.Mode = fileformat.DropMalformed
		}
		files := make([]string, 1+rng.IntN(2))
		for k := range files {
			files[k] = foldDoc(rng, m["header"] == "true")
		}
		want := addFiles(iopts, files)
		s := newInferrer(iopts)
		for k, f := range files {
			_ = s.Add(context.Background(), fmt.Sprint("f", k), strings.NewReader(f))
		}
		opts := fileformat.ReadOptions{Options: m, Mode: iopts.Mode, RescuedDataColumn: fileformat.DefaultRescuedDataColumn}
		batch := rng.IntN(2) == 0
		got, _ := foldFiles(t, iopts, opts, s.Schema(), files, batch, true)
		if got != want {
			t.Fatalf("case %d options %q batch %v files %q:\nfold %s\nadd  %s", i, m, batch, files, got, want)
		}
	}
}

// TestFoldAbandons: a folding reader stops with ErrFoldAbandoned at the
// first record its schema does not read plainly (a value that does not
// fit, an unknown column, a malformed record), and reads the rows it
// reads without folding otherwise.
func TestFoldAbandons(t *testing.T) {
	sch := &schema.StructType{Fields: []schema.Field{
		{Name: "a", Type: schema.Integer, Nullable: true}, {Name: "b", Type: schema.String, Nullable: true},
		{Name: fileformat.DefaultRescuedDataColumn, Type: schema.String, Nullable: true}}}
	iopts := fileformat.InferOptions{Options: map[string]string{"header": "true"}, InferColumnTypes: true, RescuedDataColumn: fileformat.DefaultRescuedDataColumn}
	opts := fileformat.ReadOptions{Options: map[string]string{"header": "true"}, RescuedDataColumn: fileformat.DefaultRescuedDataColumn}
	for _, tt := range []struct {
		name, doc string
		abandon   bool
	}{
		{"plain", "a,b\n1,x\n2,\n,y\n", false},
		{"widens", "a,b\n1,x\n2.5,y\n", true},
		{"unknown column", "a,b,c\n1,x,3\n", true},
		{"malformed", "a,b\n1,x\n2\n", true},
		{"case", "A,b\n1,x\n", true},
	} {
		for _, batch := range []bool{false, true} {
			_, err := foldFiles(t, iopts, opts, sch, []string{tt.doc}, batch, false)
			if got := errors.Is(err, fileformat.ErrFoldAbandoned); got != tt.abandon || (err != nil && !got) {
				t.Errorf("%s batch %v: error %v, want abandoned %v", tt.name, batch, err, tt.abandon)
			}
			plain := readPath(t, tt.doc, sch, opts, batch, 3)
			opts2 := opts
			opts2.Fold = newInferrer(iopts)
			if !tt.abandon {
				if folded := readPath(t, tt.doc, sch, opts2, batch, 3); fmt.Sprint(folded) != fmt.Sprint(plain) {
					t.Errorf("%s batch %v: folding read %+v, plain %+v", tt.name, batch, folded, plain)
				}
			}
		}
	}
	// An inferrer that samples at random, or of other options, cannot fold.
	for _, o := range []map[string]string{{"header": "true", "samplingRatio": "0.5"}, {"header": "false"}, {"header": "true", "sep": ";"}} {
		_, err := open(context.Background(), strings.NewReader("a,b\n"), sch, fileformat.ReadOptions{Options: map[string]string{"header": "true"}, Fold: newInferrer(fileformat.InferOptions{Options: o})})
		if !errors.Is(err, fileformat.ErrFoldAbandoned) {
			t.Errorf("fold with inference options %q: error %v", o, err)
		}
	}
}

// FuzzFold: on any document and a few options, the fold of a reader
// (rows or batches) infers Add's schema and records.
func FuzzFold(f *testing.F) {
	f.Add("a,b\n1,x\n2.5,\n", uint8(0), true)
	f.Add("1,2\n\"x\ny\",3\n", uint8(8), false)
	f.Add("a\n\xff\n1\n", uint8(3), true)
	f.Fuzz(func(t *testing.T, doc string, opt uint8, batch bool) {
		m := foldOptions[int(opt)%len(foldOptions)]
		iopts := fileformat.InferOptions{Options: m, InferColumnTypes: true, RescuedDataColumn: fileformat.DefaultRescuedDataColumn}
		want := addFiles(iopts, []string{doc})
		s := newInferrer(iopts)
		_ = s.Add(context.Background(), "f0", strings.NewReader(doc))
		opts := fileformat.ReadOptions{Options: m, RescuedDataColumn: fileformat.DefaultRescuedDataColumn}
		if got, _ := foldFiles(t, iopts, opts, s.Schema(), []string{doc}, batch, true); got != want {
			t.Fatalf("options %q batch %v doc %q:\nfold %s\nadd  %s", m, batch, doc, got, want)
		}
	})
}

// skipValues are values near the edges of what Append's parsers take and
// inferField keeps: signs, spaces, Unicode digits, Java's number forms,
// overflows, timestamps with space around them, booleans in any case.
var skipValues = []string{"1", "-7", "+3", " 1", "1 ", "١٢", "1_0", "0x10", "1e5", "1.", ".5", "1d", "1f", "2.5",
	"NaN", "Inf", "-Inf", "Infinity", "2147483648", "-2147483649", "9223372036854775808", "-0", "007",
	"2020-01-01", "2020-01-01 10:00:00", "2020-01-01T10:00:00Z", " 2020-01-01T10:00:00Z", "2020-01-01T10:00:00Z ",
	"2020-01-01T10:00:00.123456Z", "2020-01-01\u00a0", "true", "FALSE", "tRuE", "yes", "", `""`, "x"}

// foldSkipCase reads doc with the schema Add infers from its first
// `prefix` lines (a provisional schema), folding: unless the reader
// abandons, the fold's schema must be Add's over the whole document (the
// values it skips in plainly read records keep their types).
func foldSkipCase(t *testing.T, m map[string]string, doc string, prefix int, batch bool) bool {
	t.Helper()
	iopts := fileformat.InferOptions{Options: m, InferColumnTypes: true, RescuedDataColumn: fileformat.DefaultRescuedDataColumn}
	lines := strings.SplitAfter(doc, "\n")
	prov := newInferrer(iopts)
	_ = prov.Add(context.Background(), "f0", strings.NewReader(strings.Join(lines[:min(prefix, len(lines))], "")))
	want := addFiles(iopts, []string{doc})
	opts := fileformat.ReadOptions{Options: m, RescuedDataColumn: fileformat.DefaultRescuedDataColumn}
	got, err := foldFiles(t, iopts, opts, prov.Schema(), []string{doc}, batch, false)
	if errors.Is(err, fileformat.ErrFoldAbandoned) {
		return false
	}
	if got != want {
		t.Fatalf("options %q batch %v provisional %s doc %q:\nfold %s\nadd  %s", m, batch, prov.Schema(), doc, got, want)
	}
	return true
}

// TestFoldSkipRandom: folding records read plainly with a provisional
// schema (skipping the values their conversion proves kept) infers Add's
// schema whenever the reader does not abandon, on random documents of
// typed columns and edge values.
func TestFoldSkipRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	kinds := [][]string{{"1", "-7", "42"}, {"9000000000", "5"}, {"1.5", "-0.25", "3", "NaN"}, {"2024-03-01T00:00:00.037527Z", "2024-03-01T00:00:00Z"}, {"true", "FALSE"}, {"2024-03-01"}}
	optsList := []map[string]string{{"header": "true"}, {"header": "false"}, {"header": "true", "timestampFormat": "yyyy-MM-dd HH:mm:ss"},
		{"header": "true", "ignoreLeadingWhiteSpace": "true", "ignoreTrailingWhiteSpace": "true"}, {"header": "true", "nanValue": "n", "positiveInf": "1_0"}}
	n, kept := 4000, 0
	if testing.Short() {
		n = 400
	}
	for i := 0; i < n; i++ {
		m := optsList[rng.IntN(len(optsList))]
		cols := make([]int, 1+rng.IntN(3))
		var b strings.Builder
		for c := range cols {
			cols[c] = rng.IntN(len(kinds))
			if m["header"] == "true" {
				fmt.Fprintf(&b, "%sc%d", map[bool]string{true: ","}[c > 0], c)
			}
		}
		if m["header"] == "true" {
			b.WriteByte('\n')
		}
		rows := 2 + rng.IntN(30)
		for r := 0; r < rows; r++ {
			for c, k := range cols {
				if c > 0 {
					b.WriteByte(',')
				}
				v := kinds[k][rng.IntN(len(kinds[k]))]
				if rng.IntN(6) == 0 {
					v = skipValues[rng.IntN(len(skipValues))]
				}
				b.WriteString(v)
			}
			b.WriteByte('\n')
		}
		if foldSkipCase(t, m, b.String(), 1+rng.IntN(rows), rng.IntN(2) == 0) {
			kept++
		}
	}
	if kept < n/10 {
		t.Errorf("only %d of %d cases read to the end without abandoning", kept, n)
	}
}

// FuzzFoldSkip: a column typed by its first value, then any value: the
// fold of a reader with that provisional schema infers Add's schema unless
// it abandons.
func FuzzFoldSkip(f *testing.F) {
	for i, v := range skipValues {
		f.Add(skipValues[i%5], v, uint8(i))
	}
	f.Fuzz(func(t *testing.T, first, v string, opt uint8) {
		if strings.ContainsAny(first+v, ",\r\n\"") {
			return
		}
		m := []map[string]string{{"header": "true"}, {"header": "true", "timestampFormat": "yyyy-MM-dd HH:mm:ss"}}[int(opt)%2]
		foldSkipCase(t, m, "c\n"+first+"\n"+v+"\n", 2, opt&4 != 0)
	})
}
