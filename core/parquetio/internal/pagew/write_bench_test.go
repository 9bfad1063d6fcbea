package pagew

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/tributary-io/tributary/core/parquetio/internal/chunkstats"
	"github.com/tributary-io/tributary/core/parquetio/internal/codec"
	"github.com/tributary-io/tributary/core/parquetio/internal/spill"
)

// BenchmarkWriteStrings writes a column chunk of 64k optional strings (no
// dictionary: DELTA_LENGTH_BYTE_ARRAY, snappy) in runs of 1,000 values:
// words of a small vocabulary, and timestamps sharing a long prefix.
func BenchmarkWriteStrings(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	words := []string{"lorem", "ipsum", "dolor", "sit", "amet", "Grüße", "日本語", "'quoted'", "consectetur", "tempor"}
	shapes := map[string]func(i int) string{
		"words": func(int) string {
			s := words[r.IntN(len(words))]
			for range r.IntN(12) {
				s += " " + words[r.IntN(len(words))]
			}
			return s
		},
		"timestamps": func(i int) string {
			return fmt.Sprintf("2024-03-01T%02d:%02d:%02d.%06dZ", i/3600%24, i/60%60, i%60, r.IntN(1000000))
		},
	}
	for _, name := range []string{"words", "timestamps"} {
		var run Run
		run.Offs = []uint32{0}
		for i := range 1 << 16 {
			if r.IntN(10) == 0 {
				run.Defs = append(run.Defs, 0)
			} else {
				run.Defs = append(run.Defs, 1)
				run.Data = append(run.Data, shapes[name](i)...)
			}
			run.Offs = append(run.Offs, uint32(len(run.Data)))
		}
		b.Run(name, func(b *testing.B) {
			pool := spill.NewPool(b.TempDir(), spill.DefaultBytes)
			b.SetBytes(int64(len(run.Data)))
			for range b.N {
				c := NewColumn(Options{Path: []string{"s"}, Type: parquet.String().Type(), MaxDef: 1,
					PageBytes: 1 << 20, Codec: codec.FastSnappy{}, Track: chunkstats.NewTrack(0), Pool: pool})
				for at := 0; at < len(run.Defs); at += 1000 {
					end := min(at+1000, len(run.Defs))
					sub := Run{Defs: run.Defs[at:end], Data: run.Data, Offs: run.Offs[at : end+1]}
					if err := c.Write(&sub, end-at, nil); err != nil {
						b.Fatal(err)
					}
				}
				if err := c.Flush(); err != nil {
					b.Fatal(err)
				}
				if _, err := c.writeTo(discard{}, 0); err != nil {
					b.Fatal(err)
				}
				c.Release()
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
