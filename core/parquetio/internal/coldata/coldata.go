// Package coldata holds a column batch's leaf columns as typed buffers:
// per value its definition level, its repetition level (repeated columns
// only) and a slot in the buffer of the column's physical kind, byte
// arrays as one []byte of data plus uint32 offsets. A column costs 9 bytes
// per long (10 repeated) rather than a 24-byte parquet.Value, and hands
// runs of values to the page encoder (pagew.Run) without conversion.
package coldata

import (
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/tributary-io/tributary/core/parquetio/internal/pagew"
	"github.com/tributary-io/tributary/core/parquetio/internal/ptree"
)

// Column is one leaf column of a column batch: per value its definition
// level, its repetition level (when Rep) and a slot in the buffer of the
// column's physical kind; a null's slot is the zero value (no bytes for a
// byte array), so that value i is slot i of every buffer.
type Column struct {
	// Kind is the column's physical kind: the buffer its values are in.
	Kind parquet.Kind
	// MaxDef is the definition level of a non-null value.
	MaxDef byte
	// Rep says the repetition levels are kept (a repeated column).
	Rep bool
	// Run holds the values' levels and the values, in the buffer of
	// Kind (Reps only when Rep); Offs[0] is 0 in a column made by New.
	pagew.Run
}

// New returns an empty column of kind k whose non-null values have
// definition level maxDef, keeping repetition levels when rep.
func New(k parquet.Kind, maxDef int, rep bool) Column {
	d := Column{Kind: k, MaxDef: byte(maxDef), Rep: rep}
	if k == parquet.ByteArray || k == parquet.FixedLenByteArray {
		d.Offs = []uint32{0}
	}
	return d
}

// KindOf is the physical kind of a leaf written with conversion c.
func KindOf(c ptree.Conv) parquet.Kind {
	switch c {
	case ptree.ConvBool:
		return parquet.Boolean
	case ptree.ConvInt8, ptree.ConvInt16, ptree.ConvInt32, ptree.ConvUint8, ptree.ConvUint16, ptree.ConvUint32,
		ptree.ConvDate, ptree.ConvDecimal32:
		return parquet.Int32
	case ptree.ConvInt64, ptree.ConvUint64, ptree.ConvTimestampMillis, ptree.ConvTimestampMicros,
		ptree.ConvTimestampNanos, ptree.ConvDecimal64:
		return parquet.Int64
	case ptree.ConvFloat:
		return parquet.Float
	case ptree.ConvDouble:
		return parquet.Double
	case ptree.ConvDecimalBytes, ptree.ConvInt96:
		return parquet.FixedLenByteArray
	}
	return parquet.ByteArray
}

// Len is the number of values.
func (d *Column) Len() int { return len(d.Defs) }

// Truncate drops the values from value n on.
func (d *Column) Truncate(n int) {
	if d.Rep {
		d.Reps = d.Reps[:n]
	}
	d.Defs = d.Defs[:n]
	switch d.Kind {
	case parquet.Boolean:
		d.Bools = d.Bools[:n]
	case parquet.Int32:
		d.I32 = d.I32[:n]
	case parquet.Int64:
		d.I64 = d.I64[:n]
	case parquet.Float:
		d.F32 = d.F32[:n]
	case parquet.Double:
		d.F64 = d.F64[:n]
	default:
		d.Data = d.Data[:d.Offs[n]]
		d.Offs = d.Offs[:n+1]
	}
}

// Levels appends a value's levels.
func (d *Column) Levels(r, def int) {
	if d.Rep {
		d.Reps = append(d.Reps, byte(r))
	}
	d.Defs = append(d.Defs, byte(def))
}

// Null appends a null at levels (r, def).
func (d *Column) Null(r, def int) {
	d.Levels(r, def)
	switch d.Kind {
	case parquet.Boolean:
		d.Bools = append(d.Bools, false)
	case parquet.Int32:
		d.I32 = append(d.I32, 0)
	case parquet.Int64:
		d.I64 = append(d.I64, 0)
	case parquet.Float:
		d.F32 = append(d.F32, 0)
	case parquet.Double:
		d.F64 = append(d.F64, 0)
	default:
		d.Offs = append(d.Offs, uint32(len(d.Data)))
	}
}

// Bytes appends byte array x at levels (r, def).
func (d *Column) Bytes(x []byte, r, def int) {
	d.Levels(r, def)
	d.Data = append(d.Data, x...)
	d.Offs = append(d.Offs, uint32(len(d.Data)))
}

// Value appends v (of the column's kind, or null) at levels (r, def).
func (d *Column) Value(v parquet.Value, r, def int) {
	if v.IsNull() {
		d.Null(r, def)
		return
	}
	switch d.Kind {
	case parquet.Boolean:
		d.Levels(r, def)
		d.Bools = append(d.Bools, v.Boolean())
	case parquet.Int32:
		d.Levels(r, def)
		d.I32 = append(d.I32, v.Int32())
	case parquet.Int64:
		d.Levels(r, def)
		d.I64 = append(d.I64, v.Int64())
	case parquet.Float:
		d.Levels(r, def)
		d.F32 = append(d.F32, v.Float())
	case parquet.Double:
		d.Levels(r, def)
		d.F64 = append(d.F64, v.Double())
	default:
		d.Bytes(v.ByteArray(), r, def)
	}
}

// At is value i as a parquet.Value (without levels); null below MaxDef.
func (d *Column) At(i int) parquet.Value {
	if d.Defs[i] < d.MaxDef {
		return parquet.NullValue()
	}
	switch d.Kind {
	case parquet.Boolean:
		return parquet.BooleanValue(d.Bools[i])
	case parquet.Int32:
		return parquet.Int32Value(d.I32[i])
	case parquet.Int64:
		return parquet.Int64Value(d.I64[i])
	case parquet.Float:
		return parquet.FloatValue(d.F32[i])
	case parquet.Double:
		return parquet.DoubleValue(d.F64[i])
	case parquet.FixedLenByteArray:
		return parquet.FixedLenByteArrayValue(d.Data[d.Offs[i]:d.Offs[i+1]])
	}
	return parquet.ByteArrayValue(d.Data[d.Offs[i]:d.Offs[i+1]])
}

// Size is Writer.Write's estimate of value i's uncompressed size (the
// value plus one for its levels).
func (d *Column) Size(i int) int64 {
	if d.Defs[i] < d.MaxDef {
		return ValueSize(d.Kind, true, 0)
	}
	var n int
	if d.Offs != nil {
		n = int(d.Offs[i+1] - d.Offs[i])
	}
	return ValueSize(d.Kind, false, n)
}

// ValueSize is the writer's estimate of a value's uncompressed size (the
// value plus one for its levels): a null, or a value of kind k that is n
// bytes long when a byte array.
func ValueSize(k parquet.Kind, null bool, n int) int64 {
	if null {
		return 1
	}
	switch k {
	case parquet.Boolean:
		return 2
	case parquet.Int32, parquet.Float:
		return 5
	case parquet.Int64, parquet.Double:
		return 9
	case parquet.FixedLenByteArray:
		return int64(n) + 1
	}
	return int64(n) + 5
}

// Slice is values [lo, hi) as a run for the column encoder (sharing the
// buffers).
func (d *Column) Slice(lo, hi int) pagew.Run {
	r := pagew.Run{Defs: d.Defs[lo:hi]}
	if d.Rep {
		r.Reps = d.Reps[lo:hi]
	}
	switch d.Kind {
	case parquet.Boolean:
		r.Bools = d.Bools[lo:hi]
	case parquet.Int32:
		r.I32 = d.I32[lo:hi]
	case parquet.Int64:
		r.I64 = d.I64[lo:hi]
	case parquet.Float:
		r.F32 = d.F32[lo:hi]
	case parquet.Double:
		r.F64 = d.F64[lo:hi]
	default:
		r.Data, r.Offs = d.Data, d.Offs[lo:hi+1]
	}
	return r
}

// Sub is values [lo, hi) as a Column sharing d's buffers (offsets stay
// those of d.Data); it must not be appended to.
func (d *Column) Sub(lo, hi int) Column {
	s := *d
	s.Run = d.Slice(lo, hi)
	return s
}

// Grow makes room for n more values.
func (d *Column) Grow(n int) {
	if d.Rep {
		d.Reps = slices.Grow(d.Reps, n)
	}
	d.Defs = slices.Grow(d.Defs, n)
	switch d.Kind {
	case parquet.Boolean:
		d.Bools = slices.Grow(d.Bools, n)
	case parquet.Int32:
		d.I32 = slices.Grow(d.I32, n)
	case parquet.Int64:
		d.I64 = slices.Grow(d.I64, n)
	case parquet.Float:
		d.F32 = slices.Grow(d.F32, n)
	case parquet.Double:
		d.F64 = slices.Grow(d.F64, n)
	default:
		d.Offs = slices.Grow(d.Offs, n)
	}
}

// AppendFrom appends all of s's values (a column of the same kind) and
// returns the number of values d held before.
func (d *Column) AppendFrom(s *Column) int {
	base := d.Len()
	if d.Rep {
		d.Reps = append(d.Reps, s.Reps...)
	}
	d.Defs = append(d.Defs, s.Defs...)
	switch d.Kind {
	case parquet.Boolean:
		d.Bools = append(d.Bools, s.Bools...)
	case parquet.Int32:
		d.I32 = append(d.I32, s.I32...)
	case parquet.Int64:
		d.I64 = append(d.I64, s.I64...)
	case parquet.Float:
		d.F32 = append(d.F32, s.F32...)
	case parquet.Double:
		d.F64 = append(d.F64, s.F64...)
	default:
		n := s.Len()
		shift := uint32(len(d.Data)) - s.Offs[0]
		d.Data = append(d.Data, s.Data[s.Offs[0]:s.Offs[n]]...)
		for _, o := range s.Offs[1 : n+1] {
			d.Offs = append(d.Offs, o+shift)
		}
	}
	return base
}
