package pagew

import (
	"bytes"
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

// TestReserveKeepsBytes writes the same runs of optional strings and
// longs, PLAIN and dictionary encoded, with Reserve of random (also too
// small and too large) sizes before each run and without: the column
// chunks must be identical.
func TestReserveKeepsBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	var run Run
	run.Offs = []uint32{0}
	for i := range 20000 {
		run.Defs = append(run.Defs, byte(min(1, r.IntN(8))))
		run.I64 = append(run.I64, int64(r.IntN(50)))
		if run.Defs[i] == 1 {
			run.Data = append(run.Data, fmt.Sprintf("v%d", r.IntN(300))...)
		}
		run.Offs = append(run.Offs, uint32(len(run.Data)))
	}
	for _, tc := range []struct {
		name string
		typ  parquet.Type
		dict bool
	}{
		{"strings", parquet.String().Type(), false},
		{"strings dict", parquet.String().Type(), true},
		{"longs", parquet.Int64Type, false},
		{"longs dict", parquet.Int64Type, true},
	} {
		write := func(reserve bool) []byte {
			pool := spill.NewPool(t.TempDir(), spill.DefaultBytes)
			o := Options{Path: []string{"c"}, Type: tc.typ, MaxDef: 1, Dict: tc.dict, DictMaxBytes: 1 << 10,
				PageBytes: 4096, Codec: codec.FastSnappy{}, Pool: pool}
			if tc.typ.Kind() == parquet.ByteArray {
				o.Track = chunkstats.NewTrack(0)
			}
			c := NewColumn(o)
			defer c.Release()
			rr := rand.New(rand.NewPCG(15, 16))
			for at := 0; at < len(run.Defs); {
				end := min(len(run.Defs), at+1+rr.IntN(700))
				sub := Run{Defs: run.Defs[at:end], I64: run.I64[at:end], Data: run.Data, Offs: run.Offs[at : end+1]}
				values, bytes := rr.IntN(3*(end-at)), rr.IntN(10000) // the same runs either way
				if reserve {
					c.Reserve(values, bytes)
				}
				if err := c.Write(&sub, end-at, nil); err != nil {
					t.Fatal(err)
				}
				at = end
			}
			if err := c.Flush(); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if _, err := c.writeTo(&out, 0); err != nil {
				t.Fatal(err)
			}
			return out.Bytes()
		}
		if a, b := write(false), write(true); !bytes.Equal(a, b) {
			t.Errorf("%s: %d bytes without Reserve, %d with, not the same", tc.name, len(a), len(b))
		}
	}
}
