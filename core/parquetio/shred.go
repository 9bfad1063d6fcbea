package parquetio

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tributary-io/tributary/core/parquetio/internal/pagew"
	"github.com/tributary-io/tributary/core/parquetio/internal/ptree"
	"github.com/tributary-io/tributary/core/parquetio/internal/values"
	"github.com/tributary-io/tributary/core/schema"
)

// colBatch is a batch of rows shredded into columns (Dremel encoding): per
// leaf column its values with their repetition and definition levels in
// typed buffers (colData), per repeated leaf column (rep) the end offset of
// each row's values (a column that is not repeated holds exactly one value
// per row: row i is value i), and per row its estimated uncompressed size.
type colBatch struct {
	cols  []colData
	ends  [][]int32 // by leaf column; only repeated columns keep them
	rep   []bool    // by leaf column: the column is repeated (in a list or map)
	reps  []int     // the repeated leaf columns
	sizes []int64
	rows  int
}

// colData is one leaf column of a colBatch: per value its definition level,
// its repetition level (repeated columns only) and a slot in the buffer of
// the column's physical kind; a null's slot is the zero value (no bytes for
// a byte array), so that value i is slot i of every buffer.
type colData struct {
	kind   parquet.Kind
	maxDef byte // the definition level of a non-null value
	rep    bool // repetition levels are kept
	reps   []byte
	defs   []byte
	bools  []bool
	i32    []int32
	i64    []int64
	f32    []float32
	f64    []float64
	data   []byte   // BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY: the values back to back
	offs   []uint32 // value i is data[offs[i]:offs[i+1]]; offs[0] is 0
}

// convKind is the physical kind of a leaf written with conversion c.
func convKind(c ptree.Conv) parquet.Kind {
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

func newColBatch(tree *ptree.Node) colBatch {
	cols := len(tree.Leaves)
	b := colBatch{cols: make([]colData, cols), ends: make([][]int32, cols), rep: make([]bool, cols)}
	var walk func(t *ptree.Node)
	walk = func(t *ptree.Node) {
		if t.Kind == ptree.KindLeaf {
			d := &b.cols[t.Col]
			d.kind, d.maxDef, d.rep = convKind(t.Conv), byte(t.Def), t.Rep > 0
			if d.kind == parquet.ByteArray || d.kind == parquet.FixedLenByteArray {
				d.offs = []uint32{0}
			}
			if t.Rep > 0 {
				b.rep[t.Col] = true
				b.reps = append(b.reps, t.Col)
			}
			return
		}
		for _, c := range t.Children {
			walk(c)
		}
	}
	walk(tree)
	return b
}

// len is the number of values.
func (d *colData) len() int { return len(d.defs) }

// truncate drops the values from value n on.
func (d *colData) truncate(n int) {
	if d.rep {
		d.reps = d.reps[:n]
	}
	d.defs = d.defs[:n]
	switch d.kind {
	case parquet.Boolean:
		d.bools = d.bools[:n]
	case parquet.Int32:
		d.i32 = d.i32[:n]
	case parquet.Int64:
		d.i64 = d.i64[:n]
	case parquet.Float:
		d.f32 = d.f32[:n]
	case parquet.Double:
		d.f64 = d.f64[:n]
	default:
		d.data = d.data[:d.offs[n]]
		d.offs = d.offs[:n+1]
	}
}

// levels appends a value's levels.
func (d *colData) levels(r, def int) {
	if d.rep {
		d.reps = append(d.reps, byte(r))
	}
	d.defs = append(d.defs, byte(def))
}

// null appends a null at levels (r, def).
func (d *colData) null(r, def int) {
	d.levels(r, def)
	switch d.kind {
	case parquet.Boolean:
		d.bools = append(d.bools, false)
	case parquet.Int32:
		d.i32 = append(d.i32, 0)
	case parquet.Int64:
		d.i64 = append(d.i64, 0)
	case parquet.Float:
		d.f32 = append(d.f32, 0)
	case parquet.Double:
		d.f64 = append(d.f64, 0)
	default:
		d.offs = append(d.offs, uint32(len(d.data)))
	}
}

// bytes appends byte array x at levels (r, def).
func (d *colData) bytes(x []byte, r, def int) {
	d.levels(r, def)
	d.data = append(d.data, x...)
	d.offs = append(d.offs, uint32(len(d.data)))
}

// value appends v (of the column's kind, or null) at levels (r, def).
func (d *colData) value(v parquet.Value, r, def int) {
	if v.IsNull() {
		d.null(r, def)
		return
	}
	switch d.kind {
	case parquet.Boolean:
		d.levels(r, def)
		d.bools = append(d.bools, v.Boolean())
	case parquet.Int32:
		d.levels(r, def)
		d.i32 = append(d.i32, v.Int32())
	case parquet.Int64:
		d.levels(r, def)
		d.i64 = append(d.i64, v.Int64())
	case parquet.Float:
		d.levels(r, def)
		d.f32 = append(d.f32, v.Float())
	case parquet.Double:
		d.levels(r, def)
		d.f64 = append(d.f64, v.Double())
	default:
		d.bytes(v.ByteArray(), r, def)
	}
}

// at is value i as a parquet.Value (without levels); null below maxDef.
func (d *colData) at(i int) parquet.Value {
	if d.defs[i] < d.maxDef {
		return parquet.NullValue()
	}
	switch d.kind {
	case parquet.Boolean:
		return parquet.BooleanValue(d.bools[i])
	case parquet.Int32:
		return parquet.Int32Value(d.i32[i])
	case parquet.Int64:
		return parquet.Int64Value(d.i64[i])
	case parquet.Float:
		return parquet.FloatValue(d.f32[i])
	case parquet.Double:
		return parquet.DoubleValue(d.f64[i])
	case parquet.FixedLenByteArray:
		return parquet.FixedLenByteArrayValue(d.data[d.offs[i]:d.offs[i+1]])
	}
	return parquet.ByteArrayValue(d.data[d.offs[i]:d.offs[i+1]])
}

// size is Writer.Write's estimate of value i's uncompressed size (the
// value plus one for its levels).
func (d *colData) size(i int) int64 {
	if d.defs[i] < d.maxDef {
		return 1
	}
	switch d.kind {
	case parquet.Boolean:
		return 2
	case parquet.Int32, parquet.Float:
		return 5
	case parquet.Int64, parquet.Double:
		return 9
	case parquet.FixedLenByteArray:
		return int64(d.offs[i+1]-d.offs[i]) + 1
	}
	return int64(d.offs[i+1]-d.offs[i]) + 5
}

// slice is values [lo, hi) as a run for the column encoder (sharing the
// buffers).
func (d *colData) slice(lo, hi int) pagew.Run {
	r := pagew.Run{Defs: d.defs[lo:hi]}
	if d.rep {
		r.Reps = d.reps[lo:hi]
	}
	switch d.kind {
	case parquet.Boolean:
		r.Bools = d.bools[lo:hi]
	case parquet.Int32:
		r.I32 = d.i32[lo:hi]
	case parquet.Int64:
		r.I64 = d.i64[lo:hi]
	case parquet.Float:
		r.F32 = d.f32[lo:hi]
	case parquet.Double:
		r.F64 = d.f64[lo:hi]
	default:
		r.Data, r.Offs = d.data, d.offs[lo:hi+1]
	}
	return r
}

// sub is values [lo, hi) as a colData sharing d's buffers (offsets stay
// those of d.data); it must not be appended to.
func (d *colData) sub(lo, hi int) colData {
	s := *d
	r := d.slice(lo, hi)
	s.reps, s.defs, s.bools, s.i32, s.i64, s.f32, s.f64, s.data, s.offs = r.Reps, r.Defs, r.Bools, r.I32, r.I64, r.F32, r.F64, r.Data, r.Offs
	return s
}

// grow makes room for n more values.
func (d *colData) grow(n int) {
	if d.rep {
		d.reps = slices.Grow(d.reps, n)
	}
	d.defs = slices.Grow(d.defs, n)
	switch d.kind {
	case parquet.Boolean:
		d.bools = slices.Grow(d.bools, n)
	case parquet.Int32:
		d.i32 = slices.Grow(d.i32, n)
	case parquet.Int64:
		d.i64 = slices.Grow(d.i64, n)
	case parquet.Float:
		d.f32 = slices.Grow(d.f32, n)
	case parquet.Double:
		d.f64 = slices.Grow(d.f64, n)
	default:
		d.offs = slices.Grow(d.offs, n)
	}
}

// appendFrom appends all of s's values (a column of the same kind) and
// returns the number of values d held before.
func (d *colData) appendFrom(s *colData) int {
	base := d.len()
	if d.rep {
		d.reps = append(d.reps, s.reps...)
	}
	d.defs = append(d.defs, s.defs...)
	switch d.kind {
	case parquet.Boolean:
		d.bools = append(d.bools, s.bools...)
	case parquet.Int32:
		d.i32 = append(d.i32, s.i32...)
	case parquet.Int64:
		d.i64 = append(d.i64, s.i64...)
	case parquet.Float:
		d.f32 = append(d.f32, s.f32...)
	case parquet.Double:
		d.f64 = append(d.f64, s.f64...)
	default:
		n := s.len()
		shift := uint32(len(d.data)) - s.offs[0]
		d.data = append(d.data, s.data[s.offs[0]:s.offs[n]]...)
		for _, o := range s.offs[1 : n+1] {
			d.offs = append(d.offs, o+shift)
		}
	}
	return base
}

// reset empties the batch for rows rows.
func (b *colBatch) reset(rows int) {
	for c := range b.cols {
		b.cols[c].truncate(0)
		b.ends[c] = b.ends[c][:0]
	}
	b.sizes = resetSizes(b.sizes, rows)
	b.rows = rows
}

// release drops the values of column c (keeping the buffers).
func (b *colBatch) release(c int) {
	b.cols[c].truncate(0)
}

// start is where row i's values start in column c (i may be the number of
// rows: then it is the end of the column's values).
func (b *colBatch) start(c, i int) int {
	if !b.rep[c] {
		return i
	}
	if i == 0 {
		return 0
	}
	return int(b.ends[c][i-1])
}

// rowValues returns the values of rows [from, to) of column c as a run.
func (b *colBatch) rowValues(c, from, to int) pagew.Run {
	return b.cols[c].slice(b.start(c, from), b.start(c, to))
}

// maxColumnBytes is the most bytes of byte-array values one column of a
// batch may hold: colData's offsets are uint32 (a var for the tests).
var maxColumnBytes int64 = math.MaxUint32

// fits checks that no column holds more than maxColumnBytes bytes of
// values (beyond, the offsets would have wrapped around).
func (b *colBatch) fits() error {
	for c := range b.cols {
		if n := int64(len(b.cols[c].data)); n > maxColumnBytes {
			return fmt.Errorf("%w: leaf column %d holds %d bytes of values in one batch, more than %d", ErrInvalidValue, c, n, maxColumnBytes)
		}
	}
	return nil
}

// check verifies that every column that is not repeated holds one value
// per row, and every repeated column one end per row, and that the values
// fit (fits).
func (b *colBatch) check() error {
	if err := b.fits(); err != nil {
		return err
	}
	for c := range b.cols {
		n := b.cols[c].len()
		if !b.rep[c] && n != b.rows || b.rep[c] && (len(b.ends[c]) != b.rows || b.rows > 0 && int(b.ends[c][b.rows-1]) != n) {
			return fmt.Errorf("%w: leaf column %d holds %d values for %d rows", ErrInvalidValue, c, n, b.rows)
		}
	}
	return nil
}

func resetSizes(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// shredder shreds rows into a colBatch, one top-level field at a time.
// Different top-level fields own different leaf columns, so shredders of
// different fields can run at the same time on one batch.
type shredder struct {
	tree  *ptree.Node
	b     *colBatch
	sizes []int64 // per row: estimated bytes of the fields this shredder shredded
	row   int64   // the row being shredded, counted over the file (messages)
	size  int64   // estimated bytes of the row being shredded
}

// fieldErr is the first failure shredding one top-level field of a batch:
// its row in the batch (the batch length when none) and the error.
type fieldErr struct {
	row int
	err error
}

// field shreds top-level field f of rows (whose first row is row first of
// the file) and stops at the first value that does not match the schema.
func (s *shredder) field(f int, rows [][]any, first int64) fieldErr {
	t := s.tree.Children[f]
	b := s.b
	for i, r := range rows {
		s.row, s.size = first+int64(i), 0
		if err := s.shred(t, r[f], 0, 0); err != nil {
			return fieldErr{row: i, err: err}
		}
		s.sizes[i] += s.size
		for _, c := range t.Leaves {
			if b.rep[c] {
				b.ends[c] = append(b.ends[c], int32(b.cols[c].len()))
			}
		}
	}
	return fieldErr{row: len(rows)}
}

func (s *shredder) fail(t *ptree.Node, format string, args ...any) error {
	return fmt.Errorf("%w: row %d, column %s (%s): %s", ErrInvalidValue, s.row, t.Path, t.Type, fmt.Sprintf(format, args...))
}

// shred writes value v of node t; r is the repetition level of its first
// value and d the definition level of its parent.
func (s *shredder) shred(t *ptree.Node, v any, r, d int) error {
	if v == nil {
		if !t.Nullable {
			return s.fail(t, "null in a non-nullable column")
		}
		s.nulls(t, r, d)
		return nil
	}
	switch t.Kind {
	case ptree.KindLeaf:
		pv, n, err := leafValue(t, v)
		if err != nil {
			return s.fail(t, "%v", err)
		}
		s.b.cols[t.Col].value(pv, r, t.Def)
		s.size += n + 1
	case ptree.KindStruct:
		fields, ok := v.([]any)
		if !ok {
			return s.fail(t, "want []any, got %T", v)
		}
		if len(fields) != len(t.Children) {
			return s.fail(t, "struct value has %d fields, want %d", len(fields), len(t.Children))
		}
		for i, c := range t.Children {
			if err := s.shred(c, fields[i], r, t.Def); err != nil {
				return err
			}
		}
	case ptree.KindList:
		elems, ok := v.([]any)
		if !ok {
			return s.fail(t, "want []any, got %T", v)
		}
		if len(elems) == 0 {
			s.nulls(t, r, t.Def)
			return nil
		}
		e := t.Children[0]
		for i, x := range elems {
			rr := r
			if i > 0 {
				rr = t.ElemRep
			}
			if err := s.shred(e, x, rr, t.ElemDef); err != nil {
				return err
			}
		}
	case ptree.KindMap:
		entries, ok := v.([]schema.MapEntry)
		if !ok {
			return s.fail(t, "want []schema.MapEntry, got %T", v)
		}
		if len(entries) == 0 {
			s.nulls(t, r, t.Def)
			return nil
		}
		k, val := t.Children[0], t.Children[1]
		for i, me := range entries {
			rr := r
			if i > 0 {
				rr = t.ElemRep
			}
			if me.Key == nil {
				return s.fail(k, "null map key")
			}
			if err := s.shred(k, me.Key, rr, t.ElemDef); err != nil {
				return err
			}
			if err := s.shred(val, me.Value, rr, t.ElemDef); err != nil {
				return err
			}
		}
	}
	return nil
}

// nulls writes one null at levels (r, d) to every leaf column under t.
func (s *shredder) nulls(t *ptree.Node, r, d int) {
	for _, c := range t.Leaves {
		s.b.cols[c].null(r, d)
	}
	s.size += int64(len(t.Leaves))
}

// leafValue converts a row value to a Parquet value and its estimated
// uncompressed size.
func leafValue(t *ptree.Node, v any) (parquet.Value, int64, error) {
	switch t.Conv {
	case ptree.ConvBool:
		if x, ok := v.(bool); ok {
			return parquet.BooleanValue(x), 1, nil
		}
	case ptree.ConvInt8:
		if x, ok := v.(int8); ok {
			return parquet.Int32Value(int32(x)), 4, nil
		}
	case ptree.ConvInt16:
		if x, ok := v.(int16); ok {
			return parquet.Int32Value(int32(x)), 4, nil
		}
	case ptree.ConvInt32:
		if x, ok := v.(int32); ok {
			return parquet.Int32Value(x), 4, nil
		}
	case ptree.ConvInt64:
		if x, ok := v.(int64); ok {
			return parquet.Int64Value(x), 8, nil
		}
	case ptree.ConvFloat:
		if x, ok := v.(float32); ok {
			return parquet.FloatValue(x), 4, nil
		}
	case ptree.ConvDouble:
		if x, ok := v.(float64); ok {
			return parquet.DoubleValue(x), 8, nil
		}
	case ptree.ConvString:
		if x, ok := v.(string); ok {
			return parquet.ByteArrayValue(values.UnsafeBytes(x)), int64(len(x)) + 4, nil
		}
	case ptree.ConvBinary:
		if x, ok := v.([]byte); ok {
			if x == nil {
				x = []byte{}
			}
			return parquet.ByteArrayValue(x), int64(len(x)) + 4, nil
		}
	case ptree.ConvDate:
		if x, ok := v.(schema.Date); ok {
			return parquet.Int32Value(int32(x)), 4, nil
		}
	case ptree.ConvTimestampMicros:
		if x, ok := v.(time.Time); ok {
			return parquet.Int64Value(x.UnixMicro()), 8, nil
		}
	case ptree.ConvDecimal32, ptree.ConvDecimal64, ptree.ConvDecimalBytes:
		x, ok := v.(schema.Decimal)
		if !ok {
			break
		}
		u, err := values.Rescale(x, t.Scale, t.Limit)
		if err != nil {
			return parquet.Value{}, 0, err
		}
		switch t.Conv {
		case ptree.ConvDecimal32:
			return parquet.Int32Value(int32(u.Int64())), 4, nil
		case ptree.ConvDecimal64:
			return parquet.Int64Value(u.Int64()), 8, nil
		default:
			return parquet.FixedLenByteArrayValue(twosComplement(u, t.Width)), int64(t.Width), nil
		}
	}
	return parquet.Value{}, 0, fmt.Errorf("want %s, got %T", goTypeName(t), v)
}

func goTypeName(t *ptree.Node) string {
	switch t.Conv {
	case ptree.ConvBool:
		return "bool"
	case ptree.ConvInt8:
		return "int8"
	case ptree.ConvInt16:
		return "int16"
	case ptree.ConvInt32:
		return "int32"
	case ptree.ConvInt64:
		return "int64"
	case ptree.ConvFloat:
		return "float32"
	case ptree.ConvDouble:
		return "float64"
	case ptree.ConvString:
		return "string"
	case ptree.ConvBinary:
		return "[]byte"
	case ptree.ConvDate:
		return "schema.Date"
	case ptree.ConvTimestampMicros:
		return "time.Time"
	}
	return "schema.Decimal"
}

// twosComplement encodes u big-endian in width bytes.
func twosComplement(u *big.Int, width int) []byte {
	b := make([]byte, width)
	if u.Sign() >= 0 {
		u.FillBytes(b)
		return b
	}
	m := new(big.Int).Lsh(big.NewInt(1), uint(8*width))
	m.Add(m, u)
	m.FillBytes(b)
	return b
}
