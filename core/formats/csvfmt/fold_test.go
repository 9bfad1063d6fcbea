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
	{"header": "false", "comment": "#"},
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

// foldReadDoc reads doc with a reader opened with read options opts that
// checks its records against inferrer p (ReadOptions.Fold), with
// schema s, in rows or column batches (workers > 1: in parallel chunks):
// the read's error.
func foldReadDoc(t *testing.T, p fileformat.Inferrer, opts fileformat.ReadOptions, s *schema.StructType, doc string, batch bool, workers int) error {
	t.Helper()
	opts.Fold, opts.FilePath, opts.Workers = p, "f0", workers
	rd, err := open(context.Background(), strings.NewReader(doc), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	rd.col.anySize = true
	return foldReadAll(rd, s, batch)
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

// addDoc is Inferrer.Add of doc: the inferrer, and its schema and error
// as text.
func addDoc(iopts fileformat.InferOptions, doc string) (*inferrer, string) {
	in := newInferrer(iopts)
	err := in.Add(context.Background(), "f0", strings.NewReader(doc))
	return in, fmt.Sprintf("%s %v", in.Schema(), err)
}

// foldCase infers a provisional schema from doc's first `prefix` lines
// (Add), reads doc with it, checking its records against it, in rows or
// batches, serially or in parallel chunks: unless the reader abandons
// (or fails), Add over the whole document must infer the provisional
// schema. It reports whether the read went to the end.
func foldCase(t *testing.T, iopts fileformat.InferOptions, doc string, prefix int, batch bool, workers int) bool {
	t.Helper()
	lines := strings.SplitAfter(doc, "\n")
	prov, provText := addDoc(iopts, strings.Join(lines[:min(prefix, len(lines))], ""))
	_, want := addDoc(iopts, doc)
	opts := fileformat.ReadOptions{Options: iopts.Options, Mode: iopts.Mode, RescuedDataColumn: iopts.RescuedDataColumn}
	if err := foldReadDoc(t, prov, opts, prov.Schema(), doc, batch, workers); err != nil {
		if !errors.Is(err, fileformat.ErrFoldAbandoned) && !strings.Contains(want, err.Error()) && !errors.Is(err, ErrLimit) {
			t.Fatalf("options %q doc %q: the read failed: %v", iopts.Options, doc, err)
		}
		return false
	}
	if want != provText {
		t.Fatalf("options %q batch %v workers %d prefix %d doc %q:\nread to the end with %s\nadd  %s", iopts.Options, batch, workers, prefix, doc, provText, want)
	}
	return true
}

// TestFoldRandom: a reader that checks every record against a schema
// inferred from a prefix of whole lines, and reads to the end without
// abandoning, proves that Add infers that schema from the whole file
// (the fold from the prefix's types keeps them), on random documents
// under random options (header or not, nullValue, timestamps, quotes,
// comments, white space, bytes that are not UTF-8), in rows or batches,
// serially or in parallel chunks.
func TestFoldRandom(t *testing.T) {
	defer func(n int) { parChunkBytes = n }(parChunkBytes)
	rng := rand.New(rand.NewPCG(11, 7))
	n, kept := 3000, 0
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
		doc := foldDoc(rng, m["header"] == "true")
		parChunkBytes = 1 + rng.IntN(300)
		prefix := 1 + rng.IntN(1+strings.Count(doc, "\n"))
		if rng.IntN(3) == 0 {
			prefix = len(doc) // the whole document
		}
		if foldCase(t, iopts, doc, prefix, rng.IntN(2) == 0, 1+rng.IntN(3)) {
			kept++
		}
	}
	if kept < n/10 {
		t.Errorf("only %d of %d cases read to the end", kept, n)
	}
}

// TestFoldAbandons: a checking reader stops with ErrFoldAbandoned at the
// first record the schema does not read plainly (a value that does not
// fit, an unknown column, a malformed record) or whose values widen a
// type, and reads the rows it reads without checking otherwise.
func TestFoldAbandons(t *testing.T) {
	iopts := fileformat.InferOptions{Options: map[string]string{"header": "true"}, InferColumnTypes: true, RescuedDataColumn: fileformat.DefaultRescuedDataColumn}
	opts := fileformat.ReadOptions{Options: map[string]string{"header": "true"}, RescuedDataColumn: fileformat.DefaultRescuedDataColumn}
	prov, _ := addDoc(iopts, "a,b\n1,x\n")
	sch := prov.Schema()
	for _, tt := range []struct {
		name, doc string
		abandon   bool
	}{
		{"plain", "a,b\n1,x\n2,\n,y\n", false},
		{"widens", "a,b\n1,x\n2.5,y\n", true},
		{"widens in a fitting value", "a,b\n1,x\n+1,y\n", false},
		{"unknown column", "a,b,c\n1,x,3\n", true},
		{"malformed", "a,b\n1,x\n2\n", true},
		{"case", "A,b\n1,x\n", true},
	} {
		for _, batch := range []bool{false, true} {
			err := foldReadDoc(t, prov, opts, sch, tt.doc, batch, 1)
			if got := errors.Is(err, fileformat.ErrFoldAbandoned); got != tt.abandon || (err != nil && !got) {
				t.Errorf("%s batch %v: error %v, want abandoned %v", tt.name, batch, err, tt.abandon)
			}
			if !tt.abandon {
				plain := readPath(t, tt.doc, sch, opts, batch, 3)
				opts2 := opts
				opts2.Fold = prov
				if folded := readPath(t, tt.doc, sch, opts2, batch, 3); fmt.Sprint(folded) != fmt.Sprint(plain) {
					t.Errorf("%s batch %v: checking read %+v, plain %+v", tt.name, batch, folded, plain)
				}
			}
		}
	}
	// An inferrer that samples at random, of other options, or whose
	// records may span a "\n", cannot check.
	for _, o := range []map[string]string{{"header": "true", "samplingRatio": "0.5"}, {"header": "false"}, {"header": "true", "sep": ";"}, {"header": "true", "multiLine": "true"}} {
		_, err := open(context.Background(), strings.NewReader("a,b\n"), sch, fileformat.ReadOptions{Options: map[string]string{"header": "true"}, Fold: newInferrer(fileformat.InferOptions{Options: o})})
		if !errors.Is(err, fileformat.ErrFoldAbandoned) {
			t.Errorf("fold with inference options %q: error %v", o, err)
		}
	}
}

// FuzzFold: any document, a prefix and a few options: a reader that
// reads to the end checking against the prefix's schema proves Add's.
func FuzzFold(f *testing.F) {
	f.Add("a,b\n1,x\n2.5,\n", uint8(0), uint8(2), true)
	f.Add("1,2\n\"x\ny\",3\n", uint8(1), uint8(1), false)
	f.Add("a\n\xff\n1\n", uint8(3), uint8(2), true)
	f.Fuzz(func(t *testing.T, doc string, opt, prefix uint8, batch bool) {
		m := foldOptions[int(opt)%len(foldOptions)]
		iopts := fileformat.InferOptions{Options: m, InferColumnTypes: true, RescuedDataColumn: fileformat.DefaultRescuedDataColumn}
		foldCase(t, iopts, doc, int(prefix), batch, 1+int(opt)%2)
	})
}

// skipValues are values near the edges of what Append's parsers take and
// inferField keeps: signs, spaces, Unicode digits, Java's number forms,
// overflows, timestamps with space around them, booleans in any case.
var skipValues = []string{"1", "-7", "+3", " 1", "1 ", "١٢", "1_0", "0x10", "1e5", "1.", ".5", "1d", "1f", "2.5",
	"NaN", "Inf", "-Inf", "Infinity", "2147483648", "-2147483649", "9223372036854775808", "-0", "007",
	"2020-01-01", "2020-01-01 10:00:00", "2020-01-01T10:00:00Z", " 2020-01-01T10:00:00Z", "2020-01-01T10:00:00Z ",
	"2020-01-01T10:00:00.123456Z", "2020-01-01\u00a0", "true", "FALSE", "tRuE", "yes", "", `""`, "x"}

// TestFoldSkipRandom: checking records read plainly (skipping the values
// their conversion proves kept) against a provisional schema proves
// Add's schema whenever the reader reads to the end, on random documents
// of typed columns and edge values.
func TestFoldSkipRandom(t *testing.T) {
	defer func(n int) { parChunkBytes = n }(parChunkBytes)
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
		iopts := fileformat.InferOptions{Options: m, InferColumnTypes: true, RescuedDataColumn: fileformat.DefaultRescuedDataColumn}
		parChunkBytes = 1 + rng.IntN(200)
		if foldCase(t, iopts, b.String(), 1+rng.IntN(rows), rng.IntN(2) == 0, 1+rng.IntN(2)) {
			kept++
		}
	}
	if kept < n/10 {
		t.Errorf("only %d of %d cases read to the end without abandoning", kept, n)
	}
}

// FuzzFoldSkip: a column typed by its first value, then any value: a
// reader that reads to the end checking against that schema proves Add's.
func FuzzFoldSkip(f *testing.F) {
	for i, v := range skipValues {
		f.Add(skipValues[i%5], v, uint8(i))
	}
	f.Fuzz(func(t *testing.T, first, v string, opt uint8) {
		if strings.ContainsAny(first+v, ",\r\n\"") {
			return
		}
		m := []map[string]string{{"header": "true"}, {"header": "true", "timestampFormat": "yyyy-MM-dd HH:mm:ss"}}[int(opt)%2]
		iopts := fileformat.InferOptions{Options: m, InferColumnTypes: true, RescuedDataColumn: fileformat.DefaultRescuedDataColumn}
		foldCase(t, iopts, "c\n"+first+"\n"+v+"\n", 2, opt&4 != 0, 1)
	})
}
