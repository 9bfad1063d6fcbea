package jsonfmt

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
)

// failingReader gives data, then fails with err.
type failingReader struct {
	data string
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.data == "" {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// TestReviewReuseAfterFailedFile reads a file that fails (a read error
// part-way through, a cancelled context, FAILFAST on a malformed record,
// a caller that stops after the first batch) with a Reuse, then reads
// another file of the same schema and options with the plan (column plan,
// fast decoder) that the failed reader left, and checks it reads as a
// fresh reader does: Parquet content, statistics, read stats, bad
// records, errors.
func TestReviewReuseAfterFailedFile(t *testing.T) {
	g := docGen{rand.New(rand.NewPCG(77, 2026))}
	boom := errors.New("boom")
	for i := range 40 {
		c := g.randomCase()
		next := g.document(c.s, 1+g.r.IntN(40))
		failing := []struct {
			name  string
			src   func() io.Reader
			ctx   func() context.Context
			stop  bool // stop after the first batch
			rows  int
			par   [2]int
			force fileformat.ParseMode
		}{
			{name: "read error", src: func() io.Reader { return &failingReader{data: c.doc[:len(c.doc)/2], err: boom} }, rows: 2},
			{name: "read error parallel", src: func() io.Reader { return &failingReader{data: c.doc[:len(c.doc)/2], err: boom} }, rows: 2, par: [2]int{3, 64}},
			{name: "stopped", src: func() io.Reader { return strings.NewReader(c.doc) }, stop: true, rows: 1},
			{name: "stopped parallel", src: func() io.Reader { return strings.NewReader(c.doc) }, stop: true, rows: 1, par: [2]int{3, 40}},
			{name: "cancelled", src: func() io.Reader { return strings.NewReader(c.doc) }, ctx: func() context.Context {
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				return ctx
			}, rows: 3, par: [2]int{2, 32}},
			{name: "failfast", src: func() io.Reader { return strings.NewReader(c.doc + "{\"x\":\n" + c.doc) }, rows: 4, force: fileformat.FailFast},
			{name: "failfast parallel", src: func() io.Reader { return strings.NewReader(c.doc + "{\"x\":\n" + c.doc) }, rows: 4, force: fileformat.FailFast, par: [2]int{3, 50}},
		}
		for _, f := range failing {
			opts := c.opts
			if f.force != "" {
				opts.Mode = f.force
			}
			want := batchPath(t, next, c.s, opts, 3, 1, 0)
			wantPar := batchPath(t, next, c.s, opts, 3, 3, 100)
			wantRows := rowPath(t, next, c.s, opts)
			for round := range 2 {
				reuse := &fileformat.Reuse{}
				ropts := opts
				ropts.Reuse = reuse
				ctx := context.Background()
				if f.ctx != nil {
					ctx = f.ctx()
				}
				rr, err := Format{}.Open(ctx, f.src(), c.s, ropts)
				if err != nil {
					t.Fatal(err)
				}
				rd := rr.(*reader)
				rd.parWorkers, rd.parChunk = max(f.par[0], 1), f.par[1]
				if round == 0 {
					b, err := parquetio.NewColumnBatch(c.s)
					if err != nil {
						t.Fatal(err)
					}
					for {
						rerr := rd.ReadBatch(b, f.rows, 1<<20)
						b.Reset()
						if rerr != nil || f.stop {
							break
						}
					}
				} else {
					for {
						if _, rerr := rd.Next(); rerr != nil || f.stop {
							break
						}
					}
				}
				rr.Close()
				where := fmt.Sprintf("case %d, after a %s file (round %d), schema %s, options %+v\nfailed document:\n%s\nnext document:\n%s", i, f.name, round, c.s, opts, c.doc, next)
				got := batchPath(t, next, c.s, ropts, 3, 1, 0)
				compareResults(t, want, got, "serial "+where)
				if want.err == "" {
					sameParquet(t, want.file, got.file)
				}
				// The reader above left the plan again: a parallel read.
				got = batchPath(t, next, c.s, ropts, 3, 3, 100)
				compareResults(t, wantPar, got, "parallel "+where)
				// And the row path on it.
				gotRows := rowPath(t, next, c.s, ropts)
				compareResults(t, wantRows, gotRows, "rows "+where)
			}
		}
	}
}
