package csvtok

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// benchDoc is n lines shaped like the benchmarks' CSV (ids, ints, a
// timestamp, doubles, booleans, short strings and a quoted message, half
// of them with UTF-8).
func benchDoc(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"lorem", "ipsum", "sed", "do", "'quoted'", "日本語", "Grüße", "tempor", "labore"}
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "%016x,%d,2024-03-01T00:05:%02d.%06dZ,%d,purchase,%d.%02d,%d,%v,US,Windows,Firefox,%d,%d,%.6f,%.6f,",
			rng.Uint64(), i, i%60, rng.IntN(1e6), rng.IntN(5e6), rng.IntN(1e4), rng.IntN(100), rng.IntN(20), rng.IntN(2) == 0,
			rng.IntN(2000), rng.IntN(1000), rng.Float64()*180-90, rng.Float64()*100)
		if rng.IntN(4) != 0 {
			b.WriteByte('"')
			for k := 3 + rng.IntN(10); k > 0; k-- {
				b.WriteString(words[rng.IntN(len(words))])
				b.WriteByte(' ')
			}
			b.WriteByte('"')
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkTokenize reads benchDoc's records (in place, as files are
// read), validating UTF-8 and not (as type inference reads).
func BenchmarkTokenize(b *testing.B) {
	doc := benchDoc(20000)
	for _, skip := range []bool{false, true} {
		b.Run(fmt.Sprintf("skipUTF8=%v", skip), func(b *testing.B) {
			c := &Config{Sep: ",", Quote: '"', Escape: '\\', MaxColumns: 20480, UnescapedQuoteHandling: StopAtDelimiter}
			b.SetBytes(int64(len(doc)))
			for range b.N {
				tk := New(&viewMapper{bytes.NewReader(doc), doc}, c)
				if skip {
					tk.SkipUTF8Check()
				}
				for {
					err := tk.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil || tk.Len() != 16 {
						b.Fatalf("record %d: %v, %d values", tk.Line(), err, tk.Len())
					}
				}
			}
		})
	}
}

// viewMapper is a fileformat.Mapper whose windows are views of data (no
// copy, no check): the benchmarks' source.
type viewMapper struct {
	*bytes.Reader
	data []byte
}

func (m *viewMapper) MapAt(off int64, n int) ([]byte, error) {
	if off >= int64(len(m.data)) {
		return nil, nil
	}
	return m.data[off:min(int64(len(m.data)), off+int64(n))], nil
}

func (m *viewMapper) Unmap() {}
