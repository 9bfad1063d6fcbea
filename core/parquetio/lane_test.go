package parquetio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
)

// TestWriteBatchOwnedMatchesWriteBatch writes random schemas and batches
// whole with WriteBatchOwned (on two or three workers, so that the lane
// encodes a share of the columns after the call returned; some writes in
// between are synchronous: a row range, a small batch, the row path) and
// the same rows with WriteBatch on one worker: the files must be
// identical byte for byte, the statistics equal, and every batch released
// once, before Close returns.
func TestWriteBatchOwnedMatchesWriteBatch(t *testing.T) {
	for seed := range uint64(60) {
		g := gen{rand.New(rand.NewPCG(seed, 17))}
		s := g.structType(0, 1+g.r.IntN(10))
		opts := WriterOptions{PageBytes: 64 + g.r.IntN(8192)}
		switch g.r.IntN(3) {
		case 0:
			opts.RowGroupRows = 1 + g.r.IntN(300)
		case 1:
			opts.RowGroupBytes = 256 + int64(g.r.IntN(64<<10))
		}
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			var ab, sb bytes.Buffer
			aw, err := NewWriter(&ab, s, opts)
			if err != nil {
				t.Fatal(err)
			}
			sw, err := NewWriter(&sb, s, opts)
			if err != nil {
				t.Fatal(err)
			}
			aw.workers, aw.minParallel = 2+g.r.IntN(2), 0
			sw.workers = 1
			var written, released atomic.Int64
			for range 1 + g.r.IntN(12) {
				rows := make([][]any, g.r.IntN(120))
				for i := range rows {
					rows[i] = g.value(s, false).([]any)
				}
				if g.r.IntN(8) == 0 { // the row path drains the lane
					if err := aw.Write(rows); err != nil {
						t.Fatal(err)
					}
					if err := sw.Write(rows); err != nil {
						t.Fatal(err)
					}
					continue
				}
				a := batchOfRand(t, s, rows, g.r)
				b, err := NewColumnBatch(s) // the same rows
				if err != nil {
					t.Fatal(err)
				}
				if err := b.Append(a); err != nil {
					t.Fatal(err)
				}
				if g.r.IntN(6) == 0 && len(rows) > 1 { // a row range: synchronous
					k := g.r.IntN(len(rows))
					for _, rg := range [][2]int{{0, k}, {k, len(rows)}} {
						if err := aw.WriteBatch(a, rg[0], rg[1]); err != nil {
							t.Fatal(err)
						}
						if err := sw.WriteBatch(b, rg[0], rg[1]); err != nil {
							t.Fatal(err)
						}
					}
					continue
				}
				written.Add(1)
				err = aw.WriteBatchOwned(a, func() {
					// The batch stays unchanged until now: scribble on it.
					a.Reset()
					released.Add(1)
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := sw.WriteBatch(b, 0, b.Rows()); err != nil {
					t.Fatal(err)
				}
			}
			ast, err := aw.Close()
			if err != nil {
				t.Fatal(err)
			}
			if n, m := released.Load(), written.Load(); n != m {
				t.Fatalf("%d batches released by Close, %d written", n, m)
			}
			sst, err := sw.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ab.Bytes(), sb.Bytes()) {
				t.Fatalf("files differ (%d vs %d bytes); schema %s, opts %+v", ab.Len(), sb.Len(), s, opts)
			}
			aj, _ := json.Marshal(ast)
			sj, _ := json.Marshal(sst)
			if !bytes.Equal(aj, sj) {
				t.Fatalf("stats differ:\n  owned %s\n  sync  %s", aj, sj)
			}
		})
	}
}
