package filestats

import "math/big"

// Leaf feeds the statistics of one column covered by a Collector value by
// value, for writers that hold a column's values rather than rows (see
// parquetio.ColumnBatch). It counts exactly what Collector.Add counts for
// the same values: a struct's field is one Leaf, an array or map column is
// one Leaf that only counts nulls.
type Leaf struct{ sc *statCol }

// Leaf returns the statistics column at path (field indices from the top
// level down through structs), or nil when that column gets no statistics
// (stats disabled, beyond the indexed columns, not selected). A path
// ending at a struct returns nil: its fields are columns of their own.
func (c *Collector) Leaf(path ...int) *Leaf {
	if c.noStats || len(path) == 0 {
		return nil
	}
	cols := c.cols
	var sc *statCol
	for _, i := range path {
		if i < 0 || i >= len(cols) || cols[i].skip {
			return nil
		}
		sc = cols[i]
		cols = sc.children
	}
	if sc.children != nil {
		return nil
	}
	return &Leaf{sc: sc}
}

// AddRows counts n rows whose values are fed through Leaf handles.
func (c *Collector) AddRows(n int64) { c.n += n }

// Null counts a null value.
func (l *Leaf) Null() { l.sc.nulls++ }

// Nulls counts n null values.
func (l *Leaf) Nulls(n int64) { l.sc.nulls += n }

// Int adds a non-null integral value: a byte, short, int or long, a date
// as days since the epoch, a timestamp as microseconds since the epoch.
func (l *Leaf) Int(x int64) {
	if !l.sc.minmax {
		return
	}
	first := !l.sc.has
	l.sc.has = true
	l.sc.addInt(x, first)
}

// Float adds a non-null float or double value.
func (l *Leaf) Float(x float64) {
	if !l.sc.minmax {
		return
	}
	l.sc.has = true
	l.sc.addFloat(x)
}

// Bytes adds a non-null string value (its UTF-8 bytes).
func (l *Leaf) Bytes(b []byte) {
	if !l.sc.minmax {
		return
	}
	l.sc.has = true
	l.sc.strs.Add(b)
}

// BytesSpan adds a run of non-null string values given by its smallest lo
// and largest hi (byte order), as Bytes of each would, and reports true;
// it adds nothing and reports false when lo or hi is too long for that
// (see MinMax.AddSpan): then each value must be added with Bytes.
func (l *Leaf) BytesSpan(lo, hi []byte) bool {
	if !l.sc.minmax {
		return true
	}
	if !l.sc.strs.AddSpan(lo, hi) {
		return false
	}
	l.sc.has = true
	return true
}

// Unscaled adds a non-null decimal value given as its unscaled integer at
// the column's scale; u is not retained.
func (l *Leaf) Unscaled(u *big.Int) {
	sc := l.sc
	if !sc.minmax {
		return
	}
	first := !sc.has
	sc.has = true
	if first || u.Cmp(sc.minD) < 0 {
		sc.minD = new(big.Int).Set(u)
	}
	if first || u.Cmp(sc.maxD) > 0 {
		sc.maxD = new(big.Int).Set(u)
	}
}
