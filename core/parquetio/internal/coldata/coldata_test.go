package coldata

import (
	"bytes"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// TestColumn appends values and nulls of every kind, then checks At, Size,
// Truncate, Sub, Run and AppendFrom against the values appended.
func TestColumn(t *testing.T) {
	for _, tc := range []struct {
		kind parquet.Kind
		vals []parquet.Value // zero Values: nulls
	}{
		{parquet.Boolean, []parquet.Value{parquet.BooleanValue(true), {}, parquet.BooleanValue(false)}},
		{parquet.Int32, []parquet.Value{parquet.Int32Value(-7), {}, parquet.Int32Value(1 << 30)}},
		{parquet.Int64, []parquet.Value{{}, parquet.Int64Value(-1 << 40), parquet.Int64Value(3)}},
		{parquet.Float, []parquet.Value{parquet.FloatValue(1.5), parquet.FloatValue(-0), {}}},
		{parquet.Double, []parquet.Value{parquet.DoubleValue(2.25), {}, parquet.DoubleValue(-1e300)}},
		{parquet.ByteArray, []parquet.Value{parquet.ByteArrayValue([]byte("abc")), {}, parquet.ByteArrayValue([]byte{}), parquet.ByteArrayValue([]byte("z"))}},
		{parquet.FixedLenByteArray, []parquet.Value{parquet.FixedLenByteArrayValue([]byte{1, 2}), {}, parquet.FixedLenByteArrayValue([]byte{3, 4})}},
	} {
		t.Run(tc.kind.String(), func(t *testing.T) {
			for _, rep := range []bool{false, true} {
				d := New(tc.kind, 2, rep)
				for i, v := range tc.vals {
					if v.IsNull() {
						d.Null(i%2, 1)
					} else {
						d.Value(v, i%2, 2)
					}
				}
				check := func(d *Column, want []parquet.Value) {
					t.Helper()
					if d.Len() != len(want) {
						t.Fatalf("rep %v: %d values, want %d", rep, d.Len(), len(want))
					}
					for i, v := range want {
						got := d.At(i)
						if got.IsNull() != v.IsNull() || !v.IsNull() && !bytes.Equal(got.Bytes(), v.Bytes()) {
							t.Fatalf("rep %v: value %d is %v, want %v", rep, i, got, v)
						}
						wantSize := int64(1)
						if !v.IsNull() {
							switch tc.kind {
							case parquet.Boolean:
								wantSize = 2
							case parquet.Int32, parquet.Float:
								wantSize = 5
							case parquet.Int64, parquet.Double:
								wantSize = 9
							case parquet.FixedLenByteArray:
								wantSize = int64(len(v.ByteArray())) + 1
							default:
								wantSize = int64(len(v.ByteArray())) + 5
							}
						}
						if got := d.Size(i); got != wantSize {
							t.Fatalf("rep %v: value %d size %d, want %d", rep, i, got, wantSize)
						}
					}
				}
				check(&d, tc.vals)
				sub := d.Sub(1, len(tc.vals))
				check(&sub, tc.vals[1:])
				r := d.Slice(1, len(tc.vals))
				if len(r.Defs) != len(tc.vals)-1 || rep != (r.Reps != nil) {
					t.Fatalf("rep %v: run of %d levels (reps %v)", rep, len(r.Defs), r.Reps != nil)
				}
				e := New(tc.kind, 2, rep)
				if base := e.AppendFrom(&sub); base != 0 {
					t.Fatalf("AppendFrom returned %d", base)
				}
				if base := e.AppendFrom(&d); base != len(tc.vals)-1 {
					t.Fatalf("AppendFrom returned %d", base)
				}
				check(&e, append(append([]parquet.Value{}, tc.vals[1:]...), tc.vals...))
				d.Truncate(1)
				check(&d, tc.vals[:1])
				d.Grow(10)
				check(&d, tc.vals[:1])
			}
		})
	}
}
