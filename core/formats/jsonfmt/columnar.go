package jsonfmt

import (
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsonfast"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsonlines"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsonnum"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsontape"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// The columnar read (ReadBatch) decodes each record's tape straight into a
// parquetio.ColumnBatch: the same conversions, bad-record handling, rescue
// and statistics as Next, without []any rows. It mirrors convStruct and
// conv step by step (the same side effects in the same order); values of
// the types it does not decode itself go through conv and
// ColumnBatch.Value. Maps (whose repeated keys replace earlier entries in
// place) and non-nullable columns are not covered: such a schema is read
// with Next (BatchReadable is false), decided once per file.

// cplan pairs a plan node with its column node.
type cplan struct {
	p    *plan
	n    *parquetio.ColNode
	kids []*cplan // struct fields; list: [element]
	fast leafKind
	// seen[i] == gen when struct field i was set in the object being
	// decoded with this node.
	seen []uint32
	gen  uint32
}

// leafKind is a leaf decoded without conv.
type leafKind uint8

const (
	leafOther leafKind = iota
	leafString
	leafLong
	leafDouble
	leafBool
)

// bindPlan pairs p with n; ok is false when the columnar read does not
// cover the schema.
func bindPlan(p *plan, n *parquetio.ColNode, top bool) (*cplan, bool) {
	cp := &cplan{p: p, n: n}
	if !top && !n.Nullable {
		return nil, false
	}
	switch n.Kind {
	case parquetio.ColLeaf:
		if p.isDec {
			return cp, true
		}
		switch p.prim {
		case schema.String:
			cp.fast = leafString
		case schema.Long:
			cp.fast = leafLong
		case schema.Double:
			cp.fast = leafDouble
		case schema.Boolean:
			cp.fast = leafBool
		}
		return cp, true
	case parquetio.ColStruct:
		if len(p.fields) != len(n.Children) {
			return nil, false
		}
		for i, f := range p.fields {
			k, ok := bindPlan(f, n.Children[i], false)
			if !ok {
				return nil, false
			}
			cp.kids = append(cp.kids, k)
		}
		cp.seen = make([]uint32, len(p.fields))
		return cp, true
	case parquetio.ColList:
		if p.elem == nil {
			return nil, false
		}
		k, ok := bindPlan(p.elem, n.Children[0], false)
		if !ok {
			return nil, false
		}
		cp.kids = []*cplan{k}
		return cp, true
	}
	return nil, false
}

// BatchReadable reports whether ReadBatch reads this file: its schema
// has no map and no non-nullable column.
func (rd *reader) BatchReadable() bool {
	if !rd.colDecided {
		rd.colDecided = true
		rd.colOK = batchable(rd.schema, true)
	}
	return rd.colOK
}

// batchable reports whether the columnar read covers type t (nullable
// says whether values of t may be null).
func batchable(t schema.Type, nullable bool) bool {
	if !nullable {
		return false
	}
	switch tt := t.(type) {
	case *schema.StructType:
		for _, f := range tt.Fields {
			if !batchable(f.Type, f.Nullable) {
				return false
			}
		}
		return true
	case *schema.ArrayType:
		return batchable(tt.Element, tt.ContainsNull)
	case *schema.MapType:
		return false
	}
	return true
}

// bindTo points the reader's columnar plan at batch root n, binding it the
// first time.
func (rd *reader) bindTo(n *parquetio.ColNode) error {
	if rd.colRoot == nil {
		cp, ok := bindPlan(rd.root, n, true)
		if !ok {
			return errors.New("jsonfmt: column batch does not match the reader's schema")
		}
		rd.colRoot = cp
		if !rd.noFast && !rd.lr.Whole {
			if rd.fast, _ = jsonfast.New(rd.schema, n, rd.rescueIdx); rd.fast != nil {
				rd.fastDec = rd.fast
				rd.leafPlans = make([]*plan, n.Hi)
				leafPlans(cp, rd.leafPlans)
				rd.fast.Other = rd.fastOther
			}
		}
		return nil
	}
	if len(n.Children) != len(rd.colRoot.kids) {
		return errors.New("jsonfmt: column batch of another schema")
	}
	rd.rebind(rd.colRoot, n)
	return nil
}

// ReadBatch decodes records into b (made for the reader's schema) until b
// holds maxRows rows or maxBytes bytes, or the file ends (io.EOF, with the
// rows read before it in b). On an error, the rows read before the
// failing record are in b. It may be called only when BatchReadable is
// true, and not mixed with Next.
func (rd *reader) ReadBatch(b *parquetio.ColumnBatch, maxRows int, maxBytes int64) error {
	if !rd.BatchReadable() {
		return errors.New("jsonfmt: schema not readable into column batches")
	}
	if err := rd.bindTo(b.Root()); err != nil {
		return err
	}
	if rd.parallel() {
		return rd.readPar(b)
	}
	for b.Rows() < maxRows && b.Bytes() < maxBytes {
		if rd.done {
			return io.EOF
		}
		rd.tape.B = nil
		line, err := rd.lr.Next()
		rd.tape.Owned = rd.lr.Owned()
		if errors.Is(err, io.EOF) {
			rd.done = true
			return io.EOF
		}
		if err != nil {
			return fmt.Errorf("jsonfmt: read %s: %w", rd.file, err)
		}
		rd.lineNo = rd.lr.Line()
		if rd.lineNo%1024 == 0 {
			if err := rd.ctx.Err(); err != nil {
				return err
			}
		}
		if jsonlines.IsBlank(line) {
			continue
		}
		if err := rd.batchLine(line, b); err != nil {
			return err
		}
	}
	return nil
}

// leafPlans records the plan of each leaf under cp by leaf column.
func leafPlans(cp *cplan, dst []*plan) {
	if cp.n.Kind == parquetio.ColLeaf {
		dst[cp.n.Col] = cp.p
	}
	for _, k := range cp.kids {
		leafPlans(k, dst)
	}
}

// fastOther decodes for the fast decoder a scalar of a type it does not
// convert itself (raw is standard JSON: a string, number, true or false)
// as valBatch does: the value parsed on the tape and converted by conv.
// It returns false, appending nothing, when the value does not fit.
func (rd *reader) fastOther(b *parquetio.ColumnBatch, col *parquetio.ColNode, raw []byte, r, d int) bool {
	p := rd.leafPlans[col.Col]
	if p == nil || rd.tape.Parse(raw) != nil {
		return false
	}
	v, ok := rd.conv(p, 0)
	switch {
	case !ok:
		return false
	case v == nil:
		b.Null(col, r, d)
		return true
	}
	return b.Value(col, v, r) == nil
}

// fastProbe is the number of records after which a file whose records
// the fast decoder mostly gives up on stops trying it.
const fastProbe = 512

// batchLine decodes one non-blank line (number rd.lineNo) into b, with
// the parse mode's handling of bad records; an error ends the read.
func (rd *reader) batchLine(line []byte, b *parquetio.ColumnBatch) error {
	if rd.fold != nil {
		return rd.foldLine(line, b)
	}
	return rd.batchRecord(line, b)
}

// batchRecord is batchLine without the one-pass inference's check.
func (rd *reader) batchRecord(line []byte, b *parquetio.ColumnBatch) error {
	m := b.Mark()
	if rd.fast != nil {
		rd.fastTries++
		if rd.fast.Decode(line, b) {
			rd.stats.RowsRead++
			return nil
		}
		b.Drop(m)
		// Records it gives up on are decoded twice: past fastProbe
		// records, a file where they are more than a quarter does without.
		if rd.fastMisses++; rd.fastTries >= fastProbe && 4*rd.fastMisses > rd.fastTries {
			rd.fast = nil
		}
	}
	before := b.Rows()
	perr := rd.decodeLineBatch(line, b)
	if rd.berr != nil {
		return rd.berr
	}
	if errors.Is(perr, jsontape.ErrNoValue) {
		return nil
	} else if perr != nil {
		b.Drop(m)
		rd.stats.CorruptRecords++
		switch {
		case rd.badHook != nil:
			rd.badHook(fileformat.BadRecord{Line: rd.lineNo, Record: validText(line), Reason: "malformed JSON record: " + perr.Error()})
			return nil
		case rd.mode == fileformat.FailFast:
			return fmt.Errorf("jsonfmt: %s line %d: %w: %v", rd.file, rd.lineNo, fileformat.ErrMalformedRecord, perr)
		case rd.mode == fileformat.DropMalformed:
			return nil
		}
		rd.corruptBatch(line, b)
		rd.stats.RowsRead++
		return nil
	}
	if rd.bad {
		rd.stats.CorruptRecords++
		switch {
		case rd.badHook != nil:
			rd.badHook(fileformat.BadRecord{Line: rd.lineNo, Record: validText(line), Reason: rd.badReason})
			b.Drop(m)
			return nil
		case rd.mode == fileformat.FailFast:
			b.Drop(m)
			return fmt.Errorf("jsonfmt: %s line %d: %w: %s", rd.file, rd.lineNo, fileformat.ErrMalformedRecord, rd.badReason)
		case rd.mode == fileformat.DropMalformed:
			b.Drop(m)
			return nil
		}
		if rd.corIdx >= 0 {
			b.SetField(m, rd.corIdx, []byte(validText(line)))
		}
	}
	rd.stats.RowsRead += int64(b.Rows() - before)
	return nil
}

// rebind points cp's column nodes at n's (another batch of the same
// schema).
func (rd *reader) rebind(cp *cplan, n *parquetio.ColNode) {
	if cp.n == n {
		return
	}
	cp.n = n
	for i, k := range cp.kids {
		rd.rebind(k, n.Children[i])
	}
}

// corruptBatch is corruptRow for a column batch.
func (rd *reader) corruptBatch(line []byte, b *parquetio.ColumnBatch) {
	root := b.Root()
	text := validText(line)
	for i, k := range root.Children {
		switch {
		case i == rd.corIdx:
			b.ByteArray(k, unsafe.Slice(unsafe.StringData(text), len(text)), 0)
		case i == rd.rescueIdx && rd.corIdx < 0:
			rd.rescue.Reset()
			rd.rescue.AddString([]string{rd.corrupt}, text)
			js, _ := rd.rescue.JSON(rd.file)
			b.ByteArray(k, []byte(js), 0)
			rd.stats.RowsRescued++
			b.Rescued++
		default:
			b.Null(k, 0, 0)
		}
	}
	if rd.corIdx < 0 && rd.rescueIdx < 0 {
		rd.stats.ValuesDropped++
	}
	b.EndRow()
}

// decodeLineBatch is decodeLine for a column batch: an error means the
// line is malformed and nothing was added.
func (rd *reader) decodeLineBatch(line []byte, b *parquetio.ColumnBatch) error {
	t := &rd.tape
	rd.bad, rd.badReason = false, ""
	if err := t.Parse(line); err != nil {
		return err
	}
	switch t.Nodes[0].Kind {
	case jsontape.KObject:
		rd.topBatch(0, b)
	case jsontape.KArray:
		for c := 1; c < int(t.Nodes[0].Next); c = int(t.Nodes[c].Next) {
			if t.Nodes[c].Kind != jsontape.KObject {
				return errors.New("top-level array element is not an object")
			}
		}
		for c := 1; c < int(t.Nodes[0].Next); c = int(t.Nodes[c].Next) {
			rd.topBatch(c, b)
		}
	default:
		return errors.New("record is not a JSON object")
	}
	return nil
}

// topBatch is topRow for a column batch.
func (rd *reader) topBatch(n int, b *parquetio.ColumnBatch) {
	rd.rescue.Reset()
	rd.path = rd.path[:0]
	rd.structBatch(rd.colRoot, n, 0, true, b)
	b.EndRow()
}

// structBatch is convStruct for a column batch: object node n is struct
// cp's value at repetition level r (non-null). ok is false when, inside a
// collection, something did not fit.
func (rd *reader) structBatch(cp *cplan, n, r int, top bool, b *parquetio.ColumnBatch) bool {
	t := &rd.tape
	p := cp.p
	cp.gen++
	if cp.gen == 0 {
		clear(cp.seen)
		cp.gen = 1
	}
	gen := cp.gen
	base := len(rd.lens)
	rd.lens = b.Lens(cp.n, rd.lens)
	ok := true
	for k, pos := n+1, 0; k < int(t.Nodes[n].Next); pos++ {
		v := k + 1
		idx, found, caseOnly := rd.field(p, k, pos)
		rd.path = append(rd.path, k)
		switch {
		case !found:
			if !rd.unknownField(v, caseOnly) {
				ok = false
			}
		default:
			kid := cp.kids[idx]
			if cp.seen[idx] == gen {
				// A repeated key keeps the last value: drop the first.
				lo := base + kid.n.Lo - cp.n.Lo
				b.Cut(kid.n, rd.lens[lo:lo+kid.n.Hi-kid.n.Lo])
			}
			cp.seen[idx] = gen
			if !rd.valBatch(kid, v, r, cp.n.Def, b) && !rd.mismatchedField(v, p.fields[idx].t) {
				ok = false
			}
		}
		rd.path = rd.path[:len(rd.path)-1]
		k = int(t.Nodes[v].Next)
	}
	rd.lens = rd.lens[:base]
	for i, kid := range cp.kids {
		if cp.seen[i] == gen {
			continue
		}
		if top && i == rd.rescueIdx {
			if js, has := rd.rescue.JSON(rd.file); has {
				b.ByteArray(kid.n, unsafe.Slice(unsafe.StringData(js), len(js)), 0)
				rd.stats.RowsRescued++
				b.Rescued++
				continue
			}
		}
		b.Null(kid.n, r, cp.n.Def)
	}
	return ok
}

// valBatch is conv for a column batch: it appends value node n of cp at
// repetition level r, whose parent is defined at level d. ok is false when
// it does not fit (a null was appended instead).
func (rd *reader) valBatch(cp *cplan, n, r, d int, b *parquetio.ColumnBatch) bool {
	t := &rd.tape
	nd := &t.Nodes[n]
	if nd.Kind == jsontape.KNull {
		b.Null(cp.n, r, d)
		return true
	}
	switch cp.n.Kind {
	case parquetio.ColStruct:
		if nd.Kind != jsontape.KObject {
			b.Null(cp.n, r, d)
			return false
		}
		base := len(rd.lens)
		rd.lens = b.Lens(cp.n, rd.lens)
		ok := rd.structBatch(cp, n, r, false, b)
		if !ok {
			b.Cut(cp.n, rd.lens[base:])
			b.Null(cp.n, r, d)
		}
		rd.lens = rd.lens[:base]
		return ok
	case parquetio.ColList:
		if nd.Kind != jsontape.KArray {
			b.Null(cp.n, r, d)
			return false
		}
		rd.inColl++
		rd.path = append(rd.path, segElement)
		base := len(rd.lens)
		rd.lens = b.Lens(cp.n, rd.lens)
		ok := true
		elem := cp.kids[0]
		i := 0
		for c := n + 1; c < int(nd.Next); c = int(t.Nodes[c].Next) {
			rr := r
			if i > 0 {
				rr = cp.n.ElemRep
			}
			i++
			if !rd.valBatch(elem, c, rr, cp.n.ElemDef, b) {
				rd.note(rd.seenM, &rd.stats.MismatchedFields)
				ok = false
				break
			}
		}
		rd.inColl--
		rd.path = rd.path[:len(rd.path)-1]
		switch {
		case !ok:
			b.Cut(cp.n, rd.lens[base:])
			b.Null(cp.n, r, d)
		case i == 0:
			b.Null(cp.n, r, cp.n.Def) // empty list
		}
		rd.lens = rd.lens[:base]
		return ok
	}
	switch cp.fast {
	case leafString:
		s := t.SourceText(n)
		b.ByteArray(cp.n, unsafe.Slice(unsafe.StringData(s), len(s)), r)
		return true
	case leafLong:
		if nd.Kind == jsontape.KNumber && t.IsIntegral(n) {
			if v, ok := jsonnum.ParseLong(t.Raw(n)); ok {
				b.Int64(cp.n, v, r)
				return true
			}
		}
	case leafDouble:
		if nd.Kind == jsontape.KNumber {
			b.Double(cp.n, jsonnum.Parse(string(t.Raw(n))), r)
			return true
		}
	case leafBool:
		switch nd.Kind {
		case jsontape.KTrue:
			b.Boolean(cp.n, true, r)
			return true
		case jsontape.KFalse:
			b.Boolean(cp.n, false, r)
			return true
		}
		b.Null(cp.n, r, d)
		return false
	}
	v, ok := rd.conv(cp.p, n)
	if !ok || v == nil {
		b.Null(cp.n, r, d)
		return ok
	}
	if err := b.Value(cp.n, v, r); err != nil && rd.berr == nil {
		rd.berr = fmt.Errorf("jsonfmt: %s line %d: %w", rd.file, rd.lineNo, err)
	}
	return true
}
