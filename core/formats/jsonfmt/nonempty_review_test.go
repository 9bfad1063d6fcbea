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

	"github.com/tributary-io/tributary/core/parquetio"
)

// TestReviewReadBatchAppends: ReadBatch appends to the batch it is given
// (parquetio.BatchReader's contract), also when the batch already holds
// rows (of another file, say) and the file is decoded in parallel chunks:
// the rows already there stay, followed by the file's.
func TestReviewReadBatchAppends(t *testing.T) {
	g := cleanGen{rand.New(rand.NewPCG(9, 606))}
	for i := range 20 {
		c := g.randomCase()
		var doc strings.Builder
		for doc.Len() < 8<<10 {
			doc.WriteString(g.object(c.s) + "\n")
		}
		first := c.doc
		read := func(workers int) (int, string, []byte) {
			b, err := parquetio.NewColumnBatch(c.s)
			if err != nil {
				t.Fatal(err)
			}
			var stats []string
			for k, d := range []string{first, doc.String()} {
				rr, err := Format{}.Open(context.Background(), strings.NewReader(d), c.s, c.opts)
				if err != nil {
					t.Fatal(err)
				}
				rd := rr.(*reader)
				rd.parWorkers, rd.parChunk = 1, 0
				if k == 1 {
					rd.parWorkers, rd.parChunk = workers, 1<<10
				}
				for {
					if err := rd.ReadBatch(b, 1<<30, 1<<40); errors.Is(err, io.EOF) {
						break
					} else if err != nil {
						t.Fatal(err)
					}
				}
				stats = append(stats, fmt.Sprintf("%+v", rr.Stats()))
				rr.Close()
			}
			var buf bytes.Buffer
			w, err := parquetio.NewWriter(&buf, c.s, parquetio.WriterOptions{PageBytes: 512})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteBatch(b, 0, b.Rows()); err != nil {
				t.Fatal(err)
			}
			if _, err := w.Close(); err != nil {
				t.Fatal(err)
			}
			return b.Rows(), strings.Join(stats, " "), buf.Bytes()
		}
		wantRows, wantStats, want := read(1)
		gotRows, gotStats, got := read(3)
		if gotRows != wantRows || gotStats != wantStats {
			t.Fatalf("case %d: a batch holding %q, then the second file read in parallel chunks: %d rows (%s); serially %d rows (%s)", i, first, gotRows, gotStats, wantRows, wantStats)
		}
		sameParquet(t, want, got)
	}
}
