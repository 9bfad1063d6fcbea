package parquetio

import "slices"

// Grow makes room in b for n more rows of one value per leaf column (a
// repeated column's rows may hold more or fewer values), so that a batch
// filled from empty does not grow its columns step by step. It changes no
// content.
func (b *ColumnBatch) Grow(n int) {
	if n <= 0 {
		return
	}
	for c := range b.cb.cols {
		b.cb.cols[c].Grow(n)
	}
	for _, c := range b.cb.reps {
		b.cb.ends[c] = slices.Grow(b.cb.ends[c], n)
	}
	b.cb.sizes = slices.Grow(b.cb.sizes, n)
}
