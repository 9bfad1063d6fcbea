package filestats

import (
	"bytes"
	"unicode/utf8"
)

// Limits of the Parquet min/max statistics of BYTE_ARRAY columns (strings,
// binary), as parquet-mr (parquet-java) applies them when Spark writes.
const (
	// MaxStatsSize: a column chunk's min and max are left out of the footer
	// when together they take MaxStatsSize bytes or more
	// (ParquetMetadataConverter.MAX_STATS_SIZE), and a column index is left
	// out when its min/max values take more than MaxStatsSize bytes per page.
	MaxStatsSize = 4096
	// ColumnIndexTruncateLength is the length column-index min/max values
	// are truncated to (parquet.columnindex.truncate.length).
	ColumnIndexTruncateLength = 64
)

// bound stands for one byte-array value of a min/max statistic. Only the
// first keep bytes of a long value are copied, so a 64 MB string costs at
// most keep bytes here; whether the whole value is valid UTF-8 and its
// length are remembered, which is all the truncation rules need.
type bound struct {
	b     []byte // the value, or its first keep bytes
	size  int    // length of the whole value
	valid bool   // the whole value is valid UTF-8
}

// long reports whether b holds only a prefix of the value.
func (b *bound) long() bool { return b.size > len(b.b) }

func (b *bound) set(x []byte, keep int) {
	b.b = append(b.b[:0], x[:min(len(x), keep)]...)
	b.size = len(x)
	b.valid = utf8.Valid(x)
}

func (b *bound) copyFrom(o *bound) {
	b.b = append(b.b[:0], o.b...)
	b.size, b.valid = o.size, o.valid
}

// cmp compares x with the value b stands for (byte order, as Parquet and
// Spark order strings). It returns 0 for a long b when x is longer than
// the kept prefix and starts with it: both values then share their first
// keep bytes, which is all any statistic derived from them uses.
func (b *bound) cmp(x []byte) int {
	if !b.long() {
		return bytes.Compare(x, b.b)
	}
	if len(x) <= len(b.b) {
		if c := bytes.Compare(x, b.b); c != 0 {
			return c
		}
		return -1 // x is a proper prefix of the value
	}
	return bytes.Compare(x[:len(b.b)], b.b)
}

// cmpBounds compares the values a and b stand for (0 when undecidable, see
// cmp).
func cmpBounds(a, b *bound) int {
	switch {
	case !a.long():
		return b.cmp(a.b)
	case !b.long():
		return -a.cmp(b.b)
	}
	return bytes.Compare(a.b, b.b)
}

// MinMax accumulates the min and max of byte-array values.
type MinMax struct {
	keep   int // bytes kept of a long value
	has    bool
	lo, hi bound
}

// Add folds one value in.
func (m *MinMax) Add(x []byte) {
	if !m.has {
		m.has = true
		m.lo.set(x, m.keep)
		m.hi.set(x, m.keep)
		return
	}
	if m.lo.cmp(x) < 0 {
		m.lo.set(x, m.keep)
	}
	if m.hi.cmp(x) > 0 {
		m.hi.set(x, m.keep)
	}
}

// AddSpan folds in a run of values given by its smallest lo and largest
// hi (in byte order), as Add of each value of the run would, and reports
// true; when lo or hi is longer than the bytes m keeps of a value, it adds
// nothing and reports false: the outcome of Add then depends on the order
// of the values, which must be added one by one.
func (m *MinMax) AddSpan(lo, hi []byte) bool {
	if len(lo) > m.keep || len(hi) > m.keep {
		return false
	}
	// Add orders a value correctly against a bound whenever it calls them
	// different, so a value no longer than keep that is the run's
	// smallest (largest) becomes the min (max) exactly when it is below
	// (above) the current one, and no other value of the run changes it.
	m.Add(lo)
	m.Add(hi)
	return true
}

// merge folds o into m (both with the same keep).
func (m *MinMax) Merge(o *MinMax) {
	if !o.has {
		return
	}
	if !m.has {
		m.has = true
		m.lo.copyFrom(&o.lo)
		m.hi.copyFrom(&o.hi)
		return
	}
	if cmpBounds(&o.lo, &m.lo) < 0 {
		m.lo.copyFrom(&o.lo)
	}
	if cmpBounds(&o.hi, &m.hi) > 0 {
		m.hi.copyFrom(&o.hi)
	}
}

// Reset forgets every value (keeping the buffers).
func (m *MinMax) Reset() {
	m.has = false
	m.lo.b, m.hi.b = m.lo.b[:0], m.hi.b[:0]
}

// ChunkMinMax returns a column chunk's min and max as parquet-mr writes
// them: the exact values, or nothing when together they take MaxStatsSize
// bytes or more.
func (m *MinMax) ChunkMinMax() (lo, hi []byte, ok bool) {
	if !m.has || m.lo.long() || m.hi.long() || m.lo.size+m.hi.size >= MaxStatsSize {
		return nil, nil, false
	}
	return append([]byte{}, m.lo.b...), append([]byte{}, m.hi.b...), true
}

// indexMin is a column-index lower bound of b: the value cut to at most
// length bytes, on a character boundary when the value is valid UTF-8
// (parquet-mr's BinaryTruncator.truncateMin).
func indexMin(b *bound, length int) []byte {
	if !b.long() && b.size <= length {
		return append([]byte{}, b.b...)
	}
	cut := min(length, len(b.b))
	if b.valid {
		if p := truncateUTF8(b.b, cut); p != nil {
			return p
		}
	}
	return append([]byte{}, b.b[:cut]...)
}

// indexMax is a column-index upper bound of b: the value cut to at most
// length bytes and then incremented (parquet-mr's
// BinaryTruncator.truncateMax). When no shorter upper bound exists the
// whole value is the bound; ok is false if that value is longer than what
// b kept.
func indexMax(b *bound, length int) (max []byte, ok bool) {
	if !b.long() && b.size <= length {
		return append([]byte{}, b.b...), true
	}
	cut := min(length, len(b.b))
	var p []byte
	if b.valid {
		p = incrementUTF8(truncateUTF8(b.b, cut))
	} else {
		p = incrementBytes(append([]byte{}, b.b[:cut]...))
	}
	if p != nil {
		return p, true
	}
	if b.long() {
		return nil, false
	}
	return append([]byte{}, b.b...), true
}

// truncateUTF8 returns a copy of the longest prefix of b of at most length
// bytes that is valid UTF-8, or nil if there is none.
func truncateUTF8(b []byte, length int) []byte {
	n := min(length, len(b))
	for n > 0 && !utf8.Valid(b[:n]) {
		n--
	}
	if n == 0 {
		return nil
	}
	return append([]byte{}, b[:n]...)
}

// incrementUTF8 turns a (valid UTF-8) into a greater valid UTF-8 string of
// the same length by incrementing its last possible byte, as parquet-mr
// does; nil if a holds only the greatest characters. a is modified.
func incrementUTF8(a []byte) []byte {
	if a == nil {
		return nil
	}
	for i := len(a) - 1; i >= 0; i-- {
		prev := a[i]
		if prev != 0xFF {
			a[i] = prev + 1
			if utf8.Valid(a) {
				return a
			}
		}
		a[i] = prev
	}
	return nil
}

// incrementBytes adds one to a as a big-endian number (nil on overflow).
func incrementBytes(a []byte) []byte {
	for i := len(a) - 1; i >= 0; i-- {
		a[i]++
		if a[i] != 0 {
			return a
		}
	}
	return nil
}

// NewMinMax returns an empty MinMax that keeps at most keep bytes of a
// long value.
func NewMinMax(keep int) MinMax { return MinMax{keep: keep} }

// Has reports whether a value was added since the last Reset.
func (m *MinMax) Has() bool { return m.has }

// IndexBounds returns the column-index bounds of the values: the min cut
// to at most length bytes, and the max cut and incremented (hiOK false when
// no short upper bound exists), as parquet-mr's BinaryTruncator does.
func (m *MinMax) IndexBounds(length int) (lo, hi []byte, hiOK bool) {
	lo = indexMin(&m.lo, length)
	hi, hiOK = indexMax(&m.hi, length)
	return lo, hi, hiOK
}
