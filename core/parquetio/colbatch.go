package parquetio

import (
	"bytes"
	"fmt"
	"math/big"

	"github.com/parquet-go/parquet-go"

	"github.com/tributary-io/tributary/core/parquetio/filestats"
	"github.com/tributary-io/tributary/core/parquetio/internal/coldata"
	"github.com/tributary-io/tributary/core/parquetio/internal/ptree"
	"github.com/tributary-io/tributary/core/schema"
)

// ColumnBatch is a run of rows already shredded into Parquet leaf values
// (value, repetition and definition levels), built column by column by a
// format reader that decodes its input straight into it: no []any row and
// no second shredding pass. Writer.WriteBatch writes it with the same
// pages, statistics and row groups as Writer.Write writes the same rows.
//
// A reader builds one row at a time: for every node of the schema tree
// (Root) it appends a value (Value or the typed appenders) or nulls (Null)
// to the node's leaf columns, then calls EndRow. Lens and Cut undo what was
// appended under a node since Lens (a collection that turns out not to
// fit); Mark and Drop undo whole rows. A ColumnBatch is not safe for
// concurrent use; byte slices appended must stay unchanged until the batch
// was written.
type ColumnBatch struct {
	tree *ptree.Node
	// schema is the schema the batch was made for: batches made for the
	// same *schema.StructType skip the structural comparison (sameSchema).
	schema *schema.StructType
	root   *ColNode
	cb     colBatch // the finished rows, and the values of the row being built
	// Rescued counts the rows whose rescued data column the reader set; the
	// reader maintains it (Reset clears it).
	Rescued int64
	bytes   int64
	cur     int64 // estimated size of the values of the row being built
}

// ColKind is the shape of a ColNode.
type ColKind uint8

// Node shapes.
const (
	ColLeaf ColKind = iota
	ColStruct
	ColList
	ColMap
)

// ColNode is one node of a ColumnBatch's schema tree with its Dremel
// levels. The root is the top-level struct (its children are the schema's
// fields); a list has one child (the element), a map two (key, value).
type ColNode struct {
	Kind     ColKind
	Type     schema.Type
	Nullable bool
	// Def is the definition level of a non-null value of this node.
	Def int
	// ElemDef and ElemRep are the levels of a list's or map's elements.
	ElemDef, ElemRep int
	Children         []*ColNode
	// Col is a leaf's column index; Lo and Hi bound the leaf columns under
	// the node, [Lo, Hi).
	Col, Lo, Hi int
	t           *ptree.Node
}

// NewColumnBatch returns an empty batch for rows of schema s.
func NewColumnBatch(s *schema.StructType) (*ColumnBatch, error) {
	if s == nil || len(s.Fields) == 0 {
		return nil, fmt.Errorf("%w: schema has no fields", ErrUnsupportedSchema)
	}
	ps, err := ptree.ParquetSchema(s, nil)
	if err != nil {
		return nil, err
	}
	tree, err := ptree.BuildTree(ps)
	if err != nil {
		return nil, err
	}
	if err := levelsFit(tree); err != nil {
		return nil, err
	}
	return &ColumnBatch{tree: tree, schema: s, root: colNode(tree), cb: newColBatch(tree)}, nil
}

// levelsFit checks that the tree's levels fit the byte a column keeps per
// level, and its leaf columns parquet-go's column index (parquet.Value's
// limits).
func levelsFit(t *ptree.Node) error {
	if len(t.Leaves) > parquet.MaxColumnIndex+1 || t.Def > parquet.MaxDefinitionLevel || t.Rep > parquet.MaxRepetitionLevel ||
		t.ElemDef > parquet.MaxDefinitionLevel || t.ElemRep > parquet.MaxRepetitionLevel {
		return fmt.Errorf("%w: %s is nested too deep or has too many columns", ErrUnsupportedSchema, t.Path)
	}
	for _, c := range t.Children {
		if err := levelsFit(c); err != nil {
			return err
		}
	}
	return nil
}

func colNode(t *ptree.Node) *ColNode {
	n := &ColNode{Type: t.Type, Nullable: t.Nullable, Def: t.Def, ElemDef: t.ElemDef, ElemRep: t.ElemRep, Col: t.Col, t: t}
	if len(t.Leaves) > 0 {
		n.Lo, n.Hi = t.Leaves[0], t.Leaves[len(t.Leaves)-1]+1
	}
	switch t.Kind {
	case ptree.KindLeaf:
		n.Kind = ColLeaf
	case ptree.KindStruct:
		n.Kind = ColStruct
	case ptree.KindList:
		n.Kind = ColList
	case ptree.KindMap:
		n.Kind = ColMap
	}
	for _, c := range t.Children {
		n.Children = append(n.Children, colNode(c))
	}
	return n
}

// Root is the top-level struct node.
func (b *ColumnBatch) Root() *ColNode { return b.root }

// Rows is the number of finished rows.
func (b *ColumnBatch) Rows() int { return b.cb.rows }

// Bytes is the estimated uncompressed size of the finished rows.
func (b *ColumnBatch) Bytes() int64 { return b.bytes }

// Reset empties the batch for reuse (the values of its rows are dropped).
func (b *ColumnBatch) Reset() {
	for c := range b.cb.cols {
		b.cb.release(c)
		b.cb.ends[c] = b.cb.ends[c][:0]
	}
	b.cb.sizes, b.cb.rows, b.bytes, b.cur, b.Rescued = b.cb.sizes[:0], 0, 0, 0, 0
}

// Value appends row value v (as Writer.Write takes it: int64 for long,
// string for string, schema.Decimal, time.Time, ...) to leaf n at
// repetition level r. A value of the wrong Go type or a decimal out of range
// gives an error wrapping ErrInvalidValue.
func (b *ColumnBatch) Value(n *ColNode, v any, r int) error {
	pv, _, err := leafValue(n.t, v)
	if err != nil {
		return fmt.Errorf("%w: column %s (%s): %v", ErrInvalidValue, n.t.Path, n.t.Type, err)
	}
	b.cb.cols[n.Col].Value(pv, r, n.Def)
	b.cur += valueSize(pv)
	return nil
}

// Int64 appends x to long leaf n at repetition level r.
func (b *ColumnBatch) Int64(n *ColNode, x int64, r int) {
	d := &b.cb.cols[n.Col]
	d.Levels(r, n.Def)
	d.I64 = append(d.I64, x)
	b.cur += 9
}

// Int32 appends x to an int leaf n (Spark INTEGER: a plain INT32 column)
// at repetition level r; what Value writes for an int32, without boxing.
func (b *ColumnBatch) Int32(n *ColNode, x int32, r int) {
	d := &b.cb.cols[n.Col]
	d.Levels(r, n.Def)
	d.I32 = append(d.I32, x)
	b.cur += 5
}

// Double appends x to double leaf n at repetition level r.
func (b *ColumnBatch) Double(n *ColNode, x float64, r int) {
	d := &b.cb.cols[n.Col]
	d.Levels(r, n.Def)
	d.F64 = append(d.F64, x)
	b.cur += 9
}

// Boolean appends x to boolean leaf n at repetition level r.
func (b *ColumnBatch) Boolean(n *ColNode, x bool, r int) {
	d := &b.cb.cols[n.Col]
	d.Levels(r, n.Def)
	d.Bools = append(d.Bools, x)
	b.cur += 2
}

// ByteArray appends a copy of x to string or binary leaf n at repetition
// level r (x may change afterwards).
func (b *ColumnBatch) ByteArray(n *ColNode, x []byte, r int) {
	b.cb.cols[n.Col].Bytes(x, r, n.Def)
	b.cur += int64(len(x)) + 5
}

// Null appends one null at levels (r, d) to every leaf column under n: a
// null n when d is the definition level of n's parent, an empty list or map
// when d is n.Def.
func (b *ColumnBatch) Null(n *ColNode, r, d int) {
	for c := n.Lo; c < n.Hi; c++ {
		b.cb.cols[c].Null(r, d)
	}
	b.cur += int64(n.Hi - n.Lo)
}

// Lens appends to dst the number of values in each leaf column under n,
// for Cut.
func (b *ColumnBatch) Lens(n *ColNode, dst []int) []int {
	for c := n.Lo; c < n.Hi; c++ {
		dst = append(dst, b.cb.cols[c].Len())
	}
	return dst
}

// Cut drops the values appended under n since Lens returned lens.
func (b *ColumnBatch) Cut(n *ColNode, lens []int) {
	for i, c := 0, n.Lo; c < n.Hi; i, c = i+1, c+1 {
		d := &b.cb.cols[c]
		for k := lens[i]; k < d.Len(); k++ {
			b.cur -= d.Size(k)
		}
		d.Truncate(lens[i])
	}
}

// rowStart is where row i's values start in column c.
func (b *ColumnBatch) rowStart(c, i int) int { return b.cb.start(c, i) }

// EndRow finishes the row being built.
func (b *ColumnBatch) EndRow() {
	for _, c := range b.cb.reps {
		b.cb.ends[c] = append(b.cb.ends[c], int32(b.cb.cols[c].Len()))
	}
	b.cb.sizes = append(b.cb.sizes, b.cur)
	b.cb.rows++
	b.bytes += b.cur
	b.cur = 0
}

// valueSize is Writer.Write's estimate of a shredded value's uncompressed
// size (the value plus one for its levels).
func valueSize(v parquet.Value) int64 {
	var n int
	if k := v.Kind(); k == parquet.ByteArray || k == parquet.FixedLenByteArray {
		n = len(v.ByteArray())
	}
	return coldata.ValueSize(v.Kind(), v.IsNull(), n)
}

// BatchMark is a point between rows of a batch, for Drop.
type BatchMark struct{ rows int }

// Mark returns the point after the finished rows.
func (b *ColumnBatch) Mark() BatchMark { return BatchMark{rows: b.cb.rows} }

// Drop removes the rows finished since m, and the row being built.
func (b *ColumnBatch) Drop(m BatchMark) {
	for c := range b.cb.cols {
		b.cb.cols[c].Truncate(b.rowStart(c, m.rows))
		if b.cb.rep[c] {
			b.cb.ends[c] = b.cb.ends[c][:m.rows]
		}
	}
	for _, s := range b.cb.sizes[m.rows:] {
		b.bytes -= s
	}
	b.cb.sizes = b.cb.sizes[:m.rows]
	b.cb.rows = m.rows
	b.cur = 0
}

// SetField sets top-level field i, a string or binary leaf, to x in every
// row finished since m.
func (b *ColumnBatch) SetField(m BatchMark, i int, x []byte) {
	n := b.root.Children[i]
	d := &b.cb.cols[n.Col]
	if m.rows >= b.cb.rows {
		return
	}
	// A top-level leaf has one value per row: value k is row k's. The
	// values from row m.rows on are appended again with x (and those of a
	// row being built after them).
	var tail coldata.Column
	if d.Len() > b.cb.rows {
		tail = coldata.New(d.Kind, int(d.MaxDef), false)
		sub := d.Sub(b.cb.rows, d.Len())
		tail.AppendFrom(&sub)
	}
	for row := m.rows; row < b.cb.rows; row++ {
		s := int64(len(x)) + 5 - d.Size(row)
		b.cb.sizes[row] += s
		b.bytes += s
	}
	d.Truncate(m.rows)
	for range b.cb.rows - m.rows {
		d.Bytes(x, 0, n.Def)
	}
	if tail.Len() > 0 {
		d.AppendFrom(&tail)
	}
}

// leafStat says how a leaf column's values feed the file statistics.
type leafStat struct {
	h    *filestats.Leaf // nil: the column gets none
	coll bool            // the column is the first leaf of an array or map column: count its nulls
	def  int             // definition level of a non-null value (of the leaf, or of the collection)
	t    *ptree.Node
	// inRuns: a string, integer or float column whose statistics
	// writeColumn feeds from the min and max it finds for the page
	// statistics, run by run.
	inRuns bool
}

// leafStats maps leaf columns to their statistics columns.
func (w *Writer) leafStats() []leafStat {
	out := make([]leafStat, len(w.tree.Leaves))
	var walk func(t *ptree.Node, path []int)
	walk = func(t *ptree.Node, path []int) {
		for i, c := range t.Children {
			p := append(path[:len(path):len(path)], i)
			switch c.Kind {
			case ptree.KindStruct:
				walk(c, p)
			case ptree.KindLeaf:
				h := w.stats.Leaf(p...)
				inRuns := h != nil && (c.Conv == ptree.ConvString && w.trackOf[c.Col] >= 0 || statsInRuns(c.Conv))
				out[c.Col] = leafStat{h: h, def: c.Def, t: c, inRuns: inRuns}
			default:
				if len(c.Leaves) > 0 {
					out[c.Leaves[0]] = leafStat{h: w.stats.Leaf(p...), coll: true, def: c.Def, t: c}
				}
			}
		}
	}
	walk(w.tree, nil)
	return out
}

// statsInRuns reports whether pagew finds the file statistics of a column
// of conversion conv: its integers and floats (the min and max of each
// run, a float run's NaN before them; Leaf.Int and Leaf.Float keep the
// first of equal extremes, as adding every value does).
func statsInRuns(conv ptree.Conv) bool {
	switch conv {
	case ptree.ConvInt8, ptree.ConvInt16, ptree.ConvInt32, ptree.ConvDate,
		ptree.ConvInt64, ptree.ConvTimestampMicros, ptree.ConvFloat, ptree.ConvDouble:
		return true
	}
	return false
}

// WriteBatch writes rows [from, to) of b, as Write writes the same rows.
// b must have been made for the Writer's schema. The values of the rows
// written are dropped from b's memory (Reset it before reuse).
func (w *Writer) WriteBatch(b *ColumnBatch, from, to int) error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	if b.schema != w.schema && (len(b.tree.Leaves) != len(w.tree.Leaves) || !schema.EqualType(b.tree.Type, w.tree.Type)) {
		return fmt.Errorf("%w: column batch of schema %s written to a file of schema %s", ErrInvalidValue, b.tree.Type, w.tree.Type)
	}
	if from < 0 || to > b.cb.rows || from > to {
		return fmt.Errorf("%w: rows [%d, %d) of a batch of %d", ErrInvalidValue, from, to, b.cb.rows)
	}
	if from == to {
		return nil
	}
	if err := b.cb.check(); err != nil {
		return err
	}
	if w.lstats == nil {
		w.lstats = w.leafStats()
	}
	// The writer encodes w.batch: point it at the rows to write.
	own := w.batch
	defer func() { w.batch = own }()
	if from == 0 && to == b.cb.rows {
		w.batch = b.cb
	} else {
		w.batch = b.view(from, to)
	}
	workers := w.parallelism(to - from)
	w.stats.AddRows(int64(to - from))
	w.row += int64(to - from)
	if w.file == nil {
		if err := w.start(w.dictionaryColumns(&w.batch)); err != nil {
			return err
		}
	}
	// Each leaf column feeds its own statistics column: columnStats on the
	// goroutine that encodes the column, just before its first run (one
	// hand-off per batch, and the values are read while in cache).
	w.runStats, w.preStats = !w.opts.NoStats, !w.opts.NoStats
	defer func() { w.runStats, w.preStats = false, false }()
	return w.encodeBatch(workers)
}

// view is a colBatch of rows [from, to) of b (sharing b's values).
func (b *ColumnBatch) view(from, to int) colBatch {
	v := colBatch{cols: make([]coldata.Column, len(b.cb.cols)), ends: make([][]int32, len(b.cb.cols)),
		rep: b.cb.rep, reps: b.cb.reps, sizes: b.cb.sizes[from:to], rows: to - from}
	for c := range b.cb.cols {
		lo := b.rowStart(c, from)
		v.cols[c] = b.cb.cols[c].Sub(lo, b.rowStart(c, to))
		if !b.cb.rep[c] {
			continue
		}
		v.ends[c] = make([]int32, to-from)
		for i, e := range b.cb.ends[c][from:to] {
			v.ends[c][i] = e - int32(lo)
		}
	}
	return v
}

// columnStats adds leaf column c's values to the file statistics when
// they do not come from the runs (lstats inRuns): nulls are counted, and a
// string column's min and max are found in one loop and added through
// Leaf.BytesSpan.
func (w *Writer) columnStats(c int, d *coldata.Column) {
	ls := &w.lstats[c]
	if ls.h == nil || ls.inRuns {
		return
	}
	def := byte(ls.def)
	defs := d.Defs
	var nulls int64
	if ls.coll {
		for i, l := range defs {
			if d.Reps[i] == 0 && l < def {
				nulls++
			}
		}
		ls.h.Nulls(nulls)
		return
	}
	switch ls.t.Conv {
	case ptree.ConvString:
		var lo, hi []byte
		has := false
		for i, l := range defs {
			if l < def {
				nulls++
				continue
			}
			x := d.Data[d.Offs[i]:d.Offs[i+1]]
			if !has {
				lo, hi, has = x, x, true
			} else if bytes.Compare(x, lo) < 0 {
				lo = x
			} else if bytes.Compare(x, hi) > 0 {
				hi = x
			}
		}
		if has && !ls.h.BytesSpan(lo, hi) {
			for i, l := range defs {
				if l >= def {
					ls.h.Bytes(d.Data[d.Offs[i]:d.Offs[i+1]])
				}
			}
		}
	default:
		var u big.Int
		for i, l := range defs {
			if l < def {
				nulls++
				continue
			}
			switch ls.t.Conv {
			case ptree.ConvDecimal32:
				ls.h.Unscaled(u.SetInt64(int64(d.I32[i])))
			case ptree.ConvDecimal64:
				ls.h.Unscaled(u.SetInt64(d.I64[i]))
			case ptree.ConvDecimalBytes:
				ls.h.Unscaled(ptree.FromTwosComplement(d.Data[d.Offs[i]:d.Offs[i+1]]))
			case ptree.ConvBool, ptree.ConvBinary:
			default:
				switch v := d.At(i); v.Kind() {
				case parquet.Int32:
					ls.h.Int(int64(v.Int32()))
				case parquet.Int64:
					ls.h.Int(v.Int64())
				case parquet.Float:
					ls.h.Float(float64(v.Float()))
				case parquet.Double:
					ls.h.Float(v.Double())
				case parquet.ByteArray:
					ls.h.Bytes(v.ByteArray())
				}
			}
		}
	}
	ls.h.Nulls(nulls)
}

// BatchReader is implemented by format readers (fileformat.RowReader)
// that can decode a file straight into column batches. A caller checks
// BatchReadable once, after opening the file, and then reads the whole file
// with either ReadBatch or the row reader's Next, never both.
type BatchReader interface {
	// BatchReadable reports whether ReadBatch covers this file's schema
	// and options.
	BatchReadable() bool
	// ReadBatch appends rows to b (made for the schema the file was opened
	// with) until b holds maxRows rows or maxBytes bytes, or the file ends:
	// then it returns io.EOF. On any other error the rows read before the
	// failure are in b.
	ReadBatch(b *ColumnBatch, maxRows int, maxBytes int64) error
}

// Swap exchanges the contents of b and o (batches of the same schema), so
// that a batch decoded elsewhere is handed over without copying.
func (b *ColumnBatch) Swap(o *ColumnBatch) { *b, *o = *o, *b }
