package csvfmt

import (
	"bytes"
	"io"
	"math/rand"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// poisonMapper is a fileformat.SharedMapper over data whose windows are
// copies, overwritten with 0xFF when they are unmapped: a value read from
// one after that shows.
type poisonMapper struct {
	*bytes.Reader
	data []byte
	win  []byte
	live atomic.Int32 // shared windows not unmapped yet
	maps int          // MapShared calls
}

var _ fileformat.SharedMapper = (*poisonMapper)(nil)

func newPoisonMapper(data []byte) *poisonMapper {
	return &poisonMapper{Reader: bytes.NewReader(data), data: data}
}

func (m *poisonMapper) window(off int64, n int) []byte {
	if off >= int64(len(m.data)) {
		return nil
	}
	return bytes.Clone(m.data[off:min(int64(len(m.data)), off+int64(n))])
}

func (m *poisonMapper) MapAt(off int64, n int) ([]byte, error) {
	m.Unmap()
	m.win = m.window(off, n)
	return m.win, nil
}

func (m *poisonMapper) Unmap() {
	for i := range m.win {
		m.win[i] = 0xFF
	}
	m.win = nil
}

func (m *poisonMapper) MapShared(off int64, n int) ([]byte, func(), error) {
	w := m.window(off, n)
	m.maps++
	m.live.Add(1)
	var done atomic.Bool
	return w, func() {
		if done.Swap(true) {
			panic("a shared window unmapped twice")
		}
		for i := range w {
			w[i] = 0xFF
		}
		m.live.Add(-1)
	}, nil
}

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
		doc, s, opts := randomCase(r)
		for range r.Intn(4) {
			_, _, more := randomCaseRows(r, s, opts)
			doc += more
		}
		if r.Intn(3) == 0 {
			opts.BadRecords = func(fileformat.BadRecord) {}
		}
		if r.Intn(6) == 0 {
			if i := strings.IndexByte(doc, '\n'); i >= 0 {
				doc = doc[:i+1] + strings.ReplaceAll(strings.ReplaceAll(doc[i+1:], "\r\n", "\n"), "\n", "\r")
			}
		}
		var ms []*poisonMapper
		src := func() io.Reader {
			m := newPoisonMapper([]byte(doc))
			ms = append(ms, m)
			return m
		}
		checkParallel(t, r, doc, src, s, opts)
		for _, m := range ms {
			if n := m.live.Load(); n != 0 {
				t.Fatalf("%d shared windows left mapped\n%q", n, doc)
			}
			if m.maps > 0 {
				inPlace++
			}
		}
	}
	if inPlace < n/4 {
		t.Fatalf("only %d of %d reads cut their chunks in place", inPlace, n)
	}
}
