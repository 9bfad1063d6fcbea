package jsonfmt

import (
	"bytes"
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

// heldBatchPath reads doc with ReadBatch into a new batch per call and
// writes the batches only after the reader is closed and another file
// (scribble) was read, as the engine's encoder may: the read buffer was
// refilled and, from its pool, reused by the other reader meanwhile.
func heldBatchPath(t *testing.T, doc, scribble string, s *schema.StructType, opts fileformat.ReadOptions, maxRows, workers, chunk int, noFast bool) readResult {
	t.Helper()
	var res readResult
	opts.BadRecords = hookInto(opts.BadRecords, &res.bad)
	rr, err := Format{}.Open(context.Background(), strings.NewReader(doc), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	rd := rr.(*reader)
	rd.parWorkers, rd.parChunk, rd.noFast = workers, chunk, noFast
	if !rd.BatchReadable() {
		t.Fatalf("schema %s: not batch readable", s)
	}
	var held []*parquetio.ColumnBatch
	for {
		b, err := parquetio.NewColumnBatch(s)
		if err != nil {
			t.Fatal(err)
		}
		rerr := rd.ReadBatch(b, maxRows, 1<<20)
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
	// Another file, read with the same schema and options: it takes the
	// pooled read buffer and overwrites it.
	sopts := opts
	sopts.BadRecords, sopts.Mode = nil, fileformat.Permissive
	other, err := Format{}.Open(context.Background(), strings.NewReader(scribble), s, sopts)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := other.Next(); err != nil {
			break
		}
	}
	other.Close()
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
// intact after the reader moved on (files larger than the 64 KiB read
// buffer, so it is refilled), was closed, and another reader reused its
// pooled buffer: the batches are then written and compared with the row
// path (Parquet content, statistics, read stats, bad records). A value
// pointing into a read buffer it does not own shows up here.
func TestReviewBatchesOutliveReadBuffer(t *testing.T) {
	n := 12
	if testing.Short() {
		n = 4
	}
	for i := range n {
		g := docGen{rand.New(rand.NewPCG(uint64(i), 606))}
		c := g.randomCase()
		if i%2 == 0 {
			g := cleanGen{rand.New(rand.NewPCG(uint64(i), 607))}
			c = g.randomCase()
		}
		var doc, scribble strings.Builder
		for doc.Len() < 200<<10 {
			if i%2 == 0 {
				g := cleanGen{rand.New(rand.NewPCG(uint64(i), uint64(doc.Len())))}
				var obj strings.Builder
				for range 20 {
					obj.WriteString(g.object(c.s) + "\n")
				}
				doc.WriteString(obj.String())
			} else {
				doc.WriteString(g.document(c.s, 20))
			}
		}
		for scribble.Len() < 300<<10 {
			scribble.WriteString(`{"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz":"` + strings.Repeat("#", 100) + `"}` + "\n")
		}
		want := rowPath(t, doc.String(), c.s, c.opts)
		for _, v := range []struct {
			workers, chunk int
			noFast         bool
		}{{1, 0, false}, {1, 0, true}, {3, 16 << 10, false}} {
			got := heldBatchPath(t, doc.String(), scribble.String(), c.s, c.opts, 37, v.workers, v.chunk, v.noFast)
			if testing.Verbose() {
				t.Logf("case %d: %d bytes, %d rows, error %q", i, doc.Len(), got.rows, got.err)
			}
			compareResults(t, want, got, fmt.Sprintf("case %d, workers %d, chunk %d, no fast decoder %v, schema %s, options %+v", i, v.workers, v.chunk, v.noFast, c.s, c.opts))
		}
	}
}
