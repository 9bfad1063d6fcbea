package parquetio

import (
	"testing"

	"github.com/tributary-io/tributary/core/schema"
)

// TestGrow checks that Grow reserves room for rows without changing the
// batch: the values appended before and after it stay, and appending n
// rows of one value per column after Grow(n) does not reallocate.
func TestGrow(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{
		{Name: "a", Type: schema.Long, Nullable: true},
		{Name: "l", Type: &schema.ArrayType{Element: schema.String, ContainsNull: true}, Nullable: true},
	}}
	for _, tc := range []struct{ before, grow int }{{0, 0}, {0, 10}, {3, 10}, {5, -1}} {
		b, err := NewColumnBatch(s)
		if err != nil {
			t.Fatal(err)
		}
		a, l := b.Root().Children[0], b.Root().Children[1]
		row := func(i int) {
			b.Int64(a, int64(i), 0)
			b.ByteArray(l.Children[0], []byte("x"), 0)
			b.EndRow()
		}
		for i := range tc.before {
			row(i)
		}
		bytes := b.Bytes()
		b.Grow(tc.grow)
		if b.Rows() != tc.before || b.Bytes() != bytes {
			t.Fatalf("%+v: Grow changed rows or bytes: %d, %d", tc, b.Rows(), b.Bytes())
		}
		if tc.grow > 0 {
			p := &b.cb.cols[a.Col].I64[:1][0]
			for i := range tc.grow {
				row(tc.before + i)
			}
			if &b.cb.cols[a.Col].I64[0] != p {
				t.Fatalf("%+v: column reallocated after Grow", tc)
			}
		}
		for i := range b.Rows() {
			if got := b.cb.cols[a.Col].I64[i]; got != int64(i) {
				t.Fatalf("%+v: row %d holds %d", tc, i, got)
			}
		}
	}
}
