package parquetio

import (
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/tributary-io/tributary/core/parquetio/internal/coldata"
	"github.com/tributary-io/tributary/core/parquetio/internal/pagew"
	"github.com/tributary-io/tributary/core/parquetio/internal/ptree"
	"github.com/tributary-io/tributary/core/parquetio/internal/values"
	"github.com/tributary-io/tributary/core/schema"
)

// colBatch is a batch of rows shredded into columns (Dremel encoding): per
// leaf column its values with their repetition and definition levels in
// typed buffers (coldata.Column), per repeated leaf column (rep) the end offset of
// each row's values (a column that is not repeated holds exactly one value
// per row: row i is value i), and per row its estimated uncompressed size.
type colBatch struct {
	cols  []coldata.Column
	ends  [][]int32 // by leaf column; only repeated columns keep them
	rep   []bool    // by leaf column: the column is repeated (in a list or map)
	reps  []int     // the repeated leaf columns
	sizes []int64
	rows  int
}

func newColBatch(tree *ptree.Node) colBatch {
	cols := len(tree.Leaves)
	b := colBatch{cols: make([]coldata.Column, cols), ends: make([][]int32, cols), rep: make([]bool, cols)}
	var walk func(t *ptree.Node)
	walk = func(t *ptree.Node) {
		if t.Kind == ptree.KindLeaf {
			b.cols[t.Col] = coldata.New(coldata.KindOf(t.Conv), t.Def, t.Rep > 0)
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

// reset empties the batch for rows rows.
func (b *colBatch) reset(rows int) {
	for c := range b.cols {
		b.cols[c].Truncate(0)
		b.ends[c] = b.ends[c][:0]
	}
	b.sizes = resetSizes(b.sizes, rows)
	b.rows = rows
}

// release drops the values of column c (keeping the buffers).
func (b *colBatch) release(c int) {
	b.cols[c].Truncate(0)
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
	return b.cols[c].Slice(b.start(c, from), b.start(c, to))
}

// maxColumnBytes is the most bytes of byte-array values one column of a
// batch may hold: coldata's offsets are uint32 (a var for the tests).
var maxColumnBytes int64 = math.MaxUint32

// fits checks that no column holds more than maxColumnBytes bytes of
// values (beyond, the offsets would have wrapped around).
func (b *colBatch) fits() error {
	for c := range b.cols {
		if n := int64(len(b.cols[c].Data)); n > maxColumnBytes {
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
		n := b.cols[c].Len()
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
				b.ends[c] = append(b.ends[c], int32(b.cols[c].Len()))
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
		s.b.cols[t.Col].Value(pv, r, t.Def)
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
		s.b.cols[c].Null(r, d)
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
