// Package maptest provides, for the tests of readers that read a file in
// place, a fileformat.SharedMapper over bytes whose windows are poisoned
// when they are unmapped: a value read from one afterwards shows.
package maptest

import (
	"bytes"
	"sync/atomic"
)

// Poison is a fileformat.SharedMapper over data whose windows are
// copies, overwritten with 0xFF when they are unmapped.
type Poison struct {
	*bytes.Reader
	data []byte
	win  []byte
	// Live is the shared windows not unmapped yet; Maps counts MapShared
	// calls.
	Live atomic.Int32
	Maps atomic.Int32
}

// NewPoison returns a Poison over data.
func NewPoison(data []byte) *Poison {
	return &Poison{Reader: bytes.NewReader(data), data: data}
}

// window is a copy of data's bytes [off, off+n).
func (m *Poison) window(off int64, n int) []byte {
	if off >= int64(len(m.data)) {
		return nil
	}
	return bytes.Clone(m.data[off:min(int64(len(m.data)), off+int64(n))])
}

// MapAt maps a window, unmapping (poisoning) the one mapped before.
func (m *Poison) MapAt(off int64, n int) ([]byte, error) {
	m.Unmap()
	m.win = m.window(off, n)
	return m.win, nil
}

// Unmap poisons the window MapAt mapped.
func (m *Poison) Unmap() {
	for i := range m.win {
		m.win[i] = 0xFF
	}
	m.win = nil
}

// MapShared maps a shared window, poisoned by its unmap, which panics
// when called twice.
func (m *Poison) MapShared(off int64, n int) ([]byte, func(), error) {
	w := m.window(off, n)
	m.Maps.Add(1)
	m.Live.Add(1)
	var done atomic.Bool
	return w, func() {
		if done.Swap(true) {
			panic("a shared window unmapped twice")
		}
		for i := range w {
			w[i] = 0xFF
		}
		m.Live.Add(-1)
	}, nil
}
