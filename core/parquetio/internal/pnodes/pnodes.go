// Package pnodes holds the Parquet schema nodes and types the writer needs
// besides parquet-go's: a group that keeps its fields in schema order, and
// decimals as FIXED_LEN_BYTE_ARRAY ordered as signed integers.
package pnodes

import (
	"bytes"
	"reflect"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"
)

// Group returns a group node whose fields keep the given order.
func Group(fields []parquet.Field) parquet.Node { return &orderedGroup{fields: fields} }

// Field names node n inside a Group.
func Field(name string, n parquet.Node) parquet.Field { return &namedField{Node: n, name: name} }

// SignedFLBA wraps t, a FIXED_LEN_BYTE_ARRAY type holding decimals, so that
// page and column-chunk bounds use the signed order.
func SignedFLBA(t parquet.Type) parquet.Type { return signedFLBAType{t} }

// orderedGroup is a Parquet group whose fields keep the order they were given
// in. parquet.Group is a map and sorts its fields by name, while Spark (and
// readers that resolve columns by position) expect schema order.
type orderedGroup struct {
	fields []parquet.Field
}

func (g *orderedGroup) ID() int                     { return 0 }
func (g *orderedGroup) String() string              { return nodeString(g) }
func (g *orderedGroup) Type() parquet.Type          { return parquet.Group{}.Type() }
func (g *orderedGroup) Optional() bool              { return false }
func (g *orderedGroup) Repeated() bool              { return false }
func (g *orderedGroup) Required() bool              { return true }
func (g *orderedGroup) Leaf() bool                  { return false }
func (g *orderedGroup) Fields() []parquet.Field     { return g.fields }
func (g *orderedGroup) Encoding() encoding.Encoding { return nil }
func (g *orderedGroup) Compression() compress.Codec { return nil }
func (g *orderedGroup) GoType() reflect.Type        { return g.group().GoType() }
func (g *orderedGroup) group() parquet.Group {
	m := make(parquet.Group, len(g.fields))
	for _, f := range g.fields {
		m[f.Name()] = f
	}
	return m
}

func nodeString(n parquet.Node) string {
	var b strings.Builder
	b.WriteString("group {")
	for i, f := range n.Fields() {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.Name())
		b.WriteByte(' ')
		b.WriteString(f.String())
	}
	b.WriteByte('}')
	return b.String()
}

// namedField names a node inside an orderedGroup.
type namedField struct {
	parquet.Node
	name string
}

func (f *namedField) Name() string { return f.name }

func (f *namedField) Value(base reflect.Value) reflect.Value {
	if base.Kind() == reflect.Map {
		return base.MapIndex(reflect.ValueOf(&f.name).Elem())
	}
	return reflect.Value{}
}

// signedFLBAType is a DECIMAL stored as FIXED_LEN_BYTE_ARRAY whose page and
// column-chunk bounds use the signed (two's complement) order the Parquet
// spec requires for decimals. parquet-go compares fixed-length byte arrays as
// unsigned bytes, which would put negative decimals above positive ones and
// make readers that prune on Parquet statistics skip matching row groups.
type signedFLBAType struct{ parquet.Type }

func (t signedFLBAType) Compare(a, b parquet.Value) int {
	return compareSignedBE(a.ByteArray(), b.ByteArray())
}

func (t signedFLBAType) NewColumnBuffer(columnIndex, numValues int) parquet.ColumnBuffer {
	return &signedFLBABuffer{t.Type.NewColumnBuffer(columnIndex, numValues)}
}

func (t signedFLBAType) NewColumnIndexer(sizeLimit int) parquet.ColumnIndexer {
	return unorderedIndexer{t.Type.NewColumnIndexer(sizeLimit)}
}

// compareSignedBE compares two big-endian two's complement integers of the
// same width.
func compareSignedBE(a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return len(a) - len(b)
	}
	na, nb := a[0]&0x80 != 0, b[0]&0x80 != 0
	switch {
	case na && !nb:
		return -1
	case !na && nb:
		return 1
	}
	return bytes.Compare(a, b)
}

type signedFLBABuffer struct{ parquet.ColumnBuffer }

func (b *signedFLBABuffer) Page() parquet.Page { return signedFLBAPage{b.ColumnBuffer.Page()} }

func (b *signedFLBABuffer) Clone() parquet.ColumnBuffer {
	return &signedFLBABuffer{b.ColumnBuffer.Clone()}
}

type signedFLBAPage struct{ parquet.Page }

func (p signedFLBAPage) Slice(i, j int64) parquet.Page { return signedFLBAPage{p.Page.Slice(i, j)} }

func (p signedFLBAPage) Bounds() (minValue, maxValue parquet.Value, ok bool) {
	vals := p.Page.Data()
	data, size := vals.FixedLenByteArray()
	if size <= 0 || len(data) < size {
		return minValue, maxValue, false
	}
	lo, hi := data[:size], data[:size]
	for i := size; i+size <= len(data); i += size {
		v := data[i : i+size]
		if compareSignedBE(v, lo) < 0 {
			lo = v
		}
		if compareSignedBE(v, hi) > 0 {
			hi = v
		}
	}
	col := p.Page.Column()
	minValue = parquet.FixedLenByteArrayValue(bytes.Clone(lo)).Level(0, 0, col)
	maxValue = parquet.FixedLenByteArrayValue(bytes.Clone(hi)).Level(0, 0, col)
	return minValue, maxValue, true
}

// unorderedIndexer declares the column index unordered: the wrapped indexer
// derives the boundary order from unsigned byte comparisons.
type unorderedIndexer struct{ parquet.ColumnIndexer }

func (u unorderedIndexer) ColumnIndex() format.ColumnIndex {
	ci := u.ColumnIndexer.ColumnIndex()
	ci.BoundaryOrder = format.Unordered
	return ci
}
