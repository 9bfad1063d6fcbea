package pvalue

import (
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestMatchesLevel compares Level with parquet.Value.Level for every kind
// of value, levels and columns at both ends of their ranges.
func TestMatchesLevel(t *testing.T) {
	vals := []parquet.Value{
		parquet.NullValue(),
		parquet.BooleanValue(true),
		parquet.BooleanValue(false),
		parquet.Int32Value(-7),
		parquet.Int64Value(1 << 40),
		parquet.FloatValue(1.5),
		parquet.DoubleValue(-2.25),
		parquet.ByteArrayValue([]byte("abc")),
		parquet.ByteArrayValue([]byte{}),
		parquet.FixedLenByteArrayValue([]byte{1, 2, 3, 4}),
	}
	levels := []int{0, 1, 2, 7, 254, parquet.MaxRepetitionLevel}
	cols := []int{0, 1, 255, 256, 4097, parquet.MaxColumnIndex}
	for _, v := range vals {
		for _, r := range levels {
			for _, d := range levels {
				for _, c := range cols {
					want := v.Level(r, d, c)
					got := Level(v, r, d, c)
					if got != want || got.RepetitionLevel() != r || got.DefinitionLevel() != d || got.Column() != c {
						t.Fatalf("Level(%v, %d, %d, %d) = %#v, parquet-go's %#v", v, r, d, c, got, want)
					}
					if !parquet.Equal(got, want) || got.Kind() != want.Kind() || string(got.Bytes()) != string(want.Bytes()) {
						t.Fatalf("Level(%v) changed the value: %v", v, got)
					}
				}
			}
		}
	}
}
