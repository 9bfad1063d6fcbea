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

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// heldBatchPath reads doc with ReadBatch into a new batch per call and
// writes the batches only once the file was read to its end and the
// reader closed, as the engine's encoder may: the tokenizer's read buffer
// was refilled many times meanwhile.
func heldBatchPath(t *testing.T, doc string, s *schema.StructType, opts fileformat.ReadOptions, maxRows int) readResult {
	t.Helper()
	var res readResult
	opts.BadRecords = hookInto(opts.BadRecords, &res.bad)
	rr, err := Format{}.Open(context.Background(), strings.NewReader(doc), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	br, ok := rr.(parquetio.BatchReader)
	if !ok || !br.BatchReadable() {
		t.Fatalf("schema %s: not batch readable", s)
	}
	var held []*parquetio.ColumnBatch
	for {
		b, err := parquetio.NewColumnBatch(s)
		if err != nil {
			t.Fatal(err)
		}
		rerr := br.ReadBatch(b, maxRows, 1<<20)
		held = append(held, b)
		res.rows += b.Rows()
		res.rescued += b.Rescued
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			res.err = rerr.Error()
			break
		}
	}
	res.read = rr.Stats()
	rr.Close()
	var buf bytes.Buffer
	w, err := parquetio.NewWriter(&buf, s, parquetio.WriterOptions{PageBytes: 512})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range held {
		if err := w.WriteBatch(b, 0, b.Rows()); err != nil {
			t.Fatal(err)
		}
	}
	st, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	res.stats, _ = st.JSON()
	res.file = buf.Bytes()
	return res
}

// TestReviewBatchesOutliveReadBuffer: the rows of a column batch stay
// intact after the tokenizer moved on: random documents grown past the
// 64 KiB read buffer (so it is refilled, and the line fast path's views
// of it go stale) are read into batches that are written only at the
// end, and compared with the row path (Parquet content, statistics, read
// stats, bad records). A value pointing into the read buffer shows up
// here.
func TestReviewBatchesOutliveReadBuffer(t *testing.T) {
	n := 40
	if testing.Short() {
		n = 10
	}
	r := rand.New(rand.NewSource(606))
	for i := 0; i < n; i++ {
		doc, s, opts := randomCase(r)
		if opts.Options["multiLine"] == "true" {
			delete(opts.Options, "multiLine")
		}
		head, body := "", doc
		if opts.Options["header"] == "true" {
			if k := strings.IndexByte(doc, '\n'); k >= 0 {
				head, body = doc[:k+1], doc[k+1:]
			}
		}
		if strings.TrimSpace(body) == "" {
			continue
		}
		if !strings.HasSuffix(body, "\n") {
			body += "\n"
		}
		var big strings.Builder
		big.WriteString(head)
		for big.Len() < 200<<10 {
			big.WriteString(body)
		}
		want := readPath(t, big.String(), s, opts, false, 0)
		got := heldBatchPath(t, big.String(), s, opts, 1+r.Intn(50))
		where := fmt.Sprintf("case %d: schema %s options %v rescue %q mode %q, %d bytes of\n%s", i, s, opts.Options, opts.RescuedDataColumn, opts.Mode, big.Len(), head+body)
		if got.err != want.err || got.rows != want.rows || got.rescued != want.rescued {
			t.Fatalf("%s\nbatch: rows %d rescued %d err %q\nrows:  rows %d rescued %d err %q", where, got.rows, got.rescued, got.err, want.rows, want.rescued, want.err)
		}
		if !reflect.DeepEqual(got.read, want.read) || !reflect.DeepEqual(got.bad, want.bad) {
			t.Fatalf("%s\nbatch: %+v %d bad\nrows:  %+v %d bad", where, got.read, len(got.bad), want.read, len(want.bad))
		}
		if got.stats != want.stats {
			t.Fatalf("%s\nbatch stats %s\nrow stats   %s", where, got.stats, want.stats)
		}
		sameParquet(t, want.file, got.file)
	}
}
