package csvfmt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/fileformat/maptest"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// readBatches reads r with ReadBatch (maxRows rows per call) on workers
// goroutines and writes what it read to one Parquet file; par reports
// whether the read went parallel.
func readBatches(t testing.TB, r io.Reader, s *schema.StructType, opts fileformat.ReadOptions, workers, maxRows int) (res readResult, par bool) {
	t.Helper()
	opts.Workers = workers
	opts.BadRecords = hookInto(opts.BadRecords, &res.bad)
	rr, err := Format{}.Open(context.Background(), r, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	rd := rr.(*reader)
	rd.col.anySize = true
	var buf strings.Builder
	w, err := parquetio.NewWriter(&buf, s, parquetio.WriterOptions{PageBytes: 512})
	if err != nil {
		t.Fatal(err)
	}
	b, err := parquetio.NewColumnBatch(s)
	if err != nil {
		t.Fatal(err)
	}
	for {
		rerr := rd.ReadBatch(b, maxRows, 1<<20)
		par = par || rd.par != nil
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
	res.file = []byte(buf.String())
	res.read = rr.Stats()
	return res, par
}

// checkParallel reads doc serially and on 2-4 workers in chunks of a few
// bytes (src makes the source) and fails on any difference.
func checkParallel(t *testing.T, r *rand.Rand, doc string, src func() io.Reader, s *schema.StructType, opts fileformat.ReadOptions) bool {
	t.Helper()
	defer func(n int) { parChunkBytes = n }(parChunkBytes)
	parChunkBytes = 1 + r.Intn(64)
	maxRows := 1 + r.Intn(8)
	want, _ := readBatches(t, src(), s, opts, 1, maxRows)
	got, par := readBatches(t, src(), s, opts, 2+r.Intn(3), maxRows)
	ctx := fmt.Sprintf("schema %s options %v rescue %q mode %q chunk %d\n%q", s, opts.Options, opts.RescuedDataColumn, opts.Mode, parChunkBytes, doc)
	if got.err != want.err || got.rows != want.rows || got.rescued != want.rescued {
		t.Fatalf("%s\nparallel: rows %d rescued %d err %q\nserial:   rows %d rescued %d err %q", ctx, got.rows, got.rescued, got.err, want.rows, want.rescued, want.err)
	}
	if !reflect.DeepEqual(got.read, want.read) || !reflect.DeepEqual(got.bad, want.bad) {
		t.Fatalf("%s\nparallel: %+v %+v\nserial:   %+v %+v", ctx, got.read, got.bad, want.read, want.bad)
	}
	if got.stats != want.stats {
		t.Fatalf("%s\nparallel stats %s\nserial stats   %s", ctx, got.stats, want.stats)
	}
	sameParquet(t, want.file, got.file)
	return par
}

// TestParallelReadMatchesSerial: ReadBatch on several workers (a file cut
// into chunks of lines) gives the serial read's Parquet content,
// statistics, read statistics, rows, rescued rows, bad records (with their
// line numbers) and error, on random documents, schemas and options; with
// lines ended by a lone "\r" (the parallel read stops and reads on
// serially), and with a read error part way. A file read in place with
// shared windows is cut into chunks that are slices of them
// (csvpar.InPlace): no value is read from a window once it is given back
// (maptest.Poison poisons it), and every window is given back by the end
// of the read, also when it ends early (FAILFAST) or stops part way.
func TestParallelReadMatchesSerial(t *testing.T) {
	r := rand.New(rand.NewSource(23))
	n := 1500
	if testing.Short() {
		n = 200
	}
	pars, inPlace := 0, 0
	for range n {
		doc, s, opts := randomParallelCase(r)
		src := func() io.Reader { return strings.NewReader(doc) }
		var ms []*maptest.Poison
		switch k := r.Intn(5); {
		case k == 0 && len(doc) > 0:
			cut := r.Intn(len(doc))
			src = func() io.Reader { return &failAfter{data: []byte(doc[:cut]), err: errors.New("disk on fire")} }
		case k >= 3:
			src = func() io.Reader {
				m := maptest.NewPoison([]byte(doc))
				ms = append(ms, m)
				return m
			}
		}
		if checkParallel(t, r, doc, src, s, opts) {
			pars++
		}
		for _, m := range ms {
			if n := m.Live.Load(); n != 0 {
				t.Fatalf("%d shared windows left mapped\n%q", n, doc)
			}
			if m.Maps.Load() > 0 {
				inPlace++
			}
		}
	}
	if pars < n/4 || inPlace < n/10 {
		t.Fatalf("only %d of %d reads went parallel, %d cut their chunks in place", pars, n, inPlace)
	}
}

// randomParallelCase is a random document, schema and options for the
// parallel read: randomCase's with more records, at random a bad records
// hook, and line ends made lone "\r"s (everywhere, or after the header).
func randomParallelCase(r *rand.Rand) (string, *schema.StructType, fileformat.ReadOptions) {
	doc, s, opts := randomCase(r)
	for range r.Intn(4) {
		_, _, more := randomCaseRows(r, s, opts)
		doc += more
	}
	if r.Intn(3) == 0 {
		opts.BadRecords = func(fileformat.BadRecord) {}
	}
	switch r.Intn(6) {
	case 0:
		doc = strings.ReplaceAll(doc, "\r\n", "\r")
	case 1:
		if i := strings.IndexByte(doc, '\n'); i >= 0 {
			// Lone "\r" line ends after the header.
			doc = doc[:i+1] + strings.ReplaceAll(strings.ReplaceAll(doc[i+1:], "\r\n", "\n"), "\n", "\r")
		}
	}
	return doc, s, opts
}

// randomCaseRows is more records for randomCase's schema and options.
func randomCaseRows(r *rand.Rand, s *schema.StructType, opts fileformat.ReadOptions) (string, *schema.StructType, string) {
	sep := ","
	if v, ok := opts.Options["sep"]; ok {
		sep = v
	}
	ncol := len(s.Fields)
	if opts.RescuedDataColumn != "" || s.FieldIndex("_corrupt_record") >= 0 {
		ncol--
	}
	var b strings.Builder
	for n := r.Intn(30); n > 0; n-- {
		var vals []string
		for i := 0; i < ncol; i++ {
			vals = append(vals, randValue(r, s.Fields[i].Type))
		}
		if r.Intn(12) == 0 {
			vals = append(vals, "more")
		}
		b.WriteString(strings.Join(vals, sep))
		b.WriteString([]string{"\n", "\r\n"}[r.Intn(2)])
	}
	return "", s, b.String()
}

// FuzzParallelRead checks the parallel read against the serial one on
// any document.
func FuzzParallelRead(f *testing.F) {
	f.Add("a,b\n1,x\n2,\"y\"\nz,3,4\n\"q\nr\",5\n", int64(1))
	f.Add("c0;c1\r1;2.5\r;;\r\n#x\n", int64(2))
	f.Fuzz(func(t *testing.T, doc string, seed int64) {
		r := rand.New(rand.NewSource(seed))
		_, s, opts := randomCase(r)
		opts.Options["header"] = "true"
		checkParallel(t, r, doc, func() io.Reader { return strings.NewReader(doc) }, s, opts)
	})
}
