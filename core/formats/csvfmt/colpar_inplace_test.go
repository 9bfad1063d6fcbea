package csvfmt

import (
	"io"
	"math/rand"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat/maptest"
)

// TestParallelInPlaceMatchesSerial: a file read in place with shared
// windows is cut into chunks that are slices of them (csvpar.InPlace);
// the parallel read gives the serial read's content, statistics, bad
// records and errors, no value is read from a window once it is given
// back (poisoned), and every window is given back by the end of the read
// (Close), also when it ends early (FAILFAST) or stops part way (lines
// ended by a lone "\r").
func TestParallelInPlaceMatchesSerial(t *testing.T) {
	r := rand.New(rand.NewSource(29))
	n := 800
	if testing.Short() {
		n = 150
	}
	inPlace := 0
	for range n {
		doc, s, opts := randomParallelCase(r)
		var ms []*maptest.Poison
		src := func() io.Reader {
			m := maptest.NewPoison([]byte(doc))
			ms = append(ms, m)
			return m
		}
		checkParallel(t, r, doc, src, s, opts)
		for _, m := range ms {
			if n := m.Live.Load(); n != 0 {
				t.Fatalf("%d shared windows left mapped\n%q", n, doc)
			}
			if m.Maps.Load() > 0 {
				inPlace++
			}
		}
	}
	if inPlace < n/4 {
		t.Fatalf("only %d of %d reads cut their chunks in place", inPlace, n)
	}
}
