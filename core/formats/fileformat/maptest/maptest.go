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

// TailCase is a case of a reader's test that the short rest of a source
// of known length is mapped with its last window (fileformat.Window): the
// source's length, whether the source tells it (fileformat.Sized), and
// how many windows a reader in place maps to read it.
type TailCase struct {
	Size  int
	Sized bool
	Maps  int
}

// TailCases are the TailCases for windows of w bytes (w >= 40): a window
// and a little more, or a quarter more, is mapped once; a window and a
// half twice, as is a window and a little of unknown length; a window or
// less once.
func TailCases(w int) []TailCase {
	return []TailCase{
		{w + 10, true, 1},
		{w + w/4, true, 1},
		{w + w*5/8, true, 2},
		{w + 10, false, 2},
		{w, true, 1},
		{w / 2, true, 1},
	}
}
