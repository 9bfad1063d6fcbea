package jsonfmt

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/formats/datetimefmt"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/anybox"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsonfast"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsoninfer"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsonlines"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsonnum"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsonopt"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsontape"
	"github.com/tributary-io/tributary/core/schema"
)

// plan is a schema type compiled for decoding.
type plan struct {
	t      schema.Type
	prim   schema.PrimitiveType // for primitives
	dec    schema.DecimalType   // for decimals
	isDec  bool
	fields []*plan        // struct
	names  []string       // struct: field names
	exact  map[string]int // struct: name -> field index
	// guess is, per member position, the field the last object decoded
	// with this plan had there (-1: none): records mostly repeat their
	// keys in the same order, and comparing one name is cheaper than a
	// map lookup.
	guess []int
	fold  map[string]int // struct: lower-cased name -> first field index
	elem  *plan          // array
	key   *plan          // map
	val   *plan          // map
}

func compile(t schema.Type, skip map[int]bool) *plan {
	p := &plan{t: t}
	switch tt := t.(type) {
	case schema.PrimitiveType:
		p.prim = tt
	case schema.DecimalType:
		p.dec, p.isDec = tt, true
	case *schema.StructType:
		p.exact = make(map[string]int, len(tt.Fields))
		p.fold = make(map[string]int, len(tt.Fields))
		p.fields = make([]*plan, len(tt.Fields))
		p.names = make([]string, len(tt.Fields))
		for i, f := range tt.Fields {
			p.fields[i] = compile(f.Type, nil)
			p.names[i] = f.Name
			if skip[i] {
				continue
			}
			if _, dup := p.exact[f.Name]; !dup {
				p.exact[f.Name] = i
			}
			if _, dup := p.fold[strings.ToLower(f.Name)]; !dup {
				p.fold[strings.ToLower(f.Name)] = i
			}
		}
	case *schema.ArrayType:
		p.elem = compile(tt.Element, nil)
	case *schema.MapType:
		p.key = compile(tt.Key, nil)
		p.val = compile(tt.Value, nil)
	}
	return p
}

// reusedPlan is what a closed reader leaves in ReadOptions.Reuse: its
// compiled plans, for the next reader of the same schema and rescued data
// column (a plan's guesses are hints, valid for any file); its parsed
// options, for the next reader of equal options whatever its schema; and
// its one-pass checker, for the next reader of the same schema that may
// take it over (jsoninfer.Checker.Reuses). The readers of a batch's files
// are given equal options and the same schema and inferrer: they pay for
// these once, not once per file (a few microseconds, as much as a file of
// 1 KB takes to decode).
type reusedPlan struct {
	opts      *jsonopt.Parsed
	fold      *jsoninfer.Checker
	foldSkip  bool // fold.Proves(schema, the rescued data column)
	schema    *schema.StructType
	rescueIdx int
	root      *plan
	// The column plan bound on the first batch (nil: not read in batches),
	// with the fast decoder made for it (nil: none) and the multiLine
	// setting it was made for.
	colRoot   *cplan
	leafPlans []*plan
	fast      *jsonfast.Decoder
	whole     bool
}

// reader implements fileformat.RowReader for JSON lines.
type reader struct {
	ctx       context.Context
	file      string
	lr        *jsonlines.Reader
	width     int
	root      *plan
	rescueIdx int // -1: rescue disabled
	corrupt   string
	corIdx    int // -1: no corrupt-record column
	foldMatch bool
	mode      fileformat.ParseMode
	badHook   func(fileformat.BadRecord)
	// fold checks each record against a one-pass inference (nil: none);
	// foldSkip: not the records the fast decoder takes (fold.Proves).
	fold     *jsoninfer.Checker
	foldSkip bool

	// bad is set while decoding a record (rescue disabled) when a value
	// does not fit its column; badReason says which.
	bad       bool
	badReason string

	tape    jsontape.Tape
	dt      *datetimefmt.Parser // dateFormat, timestampFormat, timeZone, ...
	rescue  fileformat.Rescue
	path    []int // key node indices, or segElement/segKey/segValue
	inColl  int
	pending [][]any
	stats   fileformat.ReadStats
	seenU   map[string]bool
	seenM   map[string]bool
	done    bool
	// slab is where rows, structs and arrays are cut from: one allocation
	// for many of them (a slab stays alive while one of them does).
	slab []any
	box  anybox.Boxes

	// The columnar read (columnar.go).
	schema     *schema.StructType
	colDecided bool
	colOK      bool
	colRoot    *cplan
	lens       []int // stack of ColumnBatch.Lens results
	berr       error // a value the column batch refused
	lineNo     int64 // the line being decoded into a column batch
	opts       fileformat.ReadOptions
	po         *jsonopt.Parsed // opts' options parsed (left in opts.Reuse)
	par        *parBatch       // parallel columnar read (colpar.go), once started
	parDecided bool
	parWorkers int // 0: GOMAXPROCS (tests set it, and parChunk)
	parChunk   int // 0: jsoninfer.ChunkBytes
	// fast decodes the common record without the tape (nil: not used);
	// noFast turns it off (tests).
	fast                  *jsonfast.Decoder
	left                  bool // the plan was left in opts.Reuse (Close)
	noFast                bool
	fastTries, fastMisses int
	leafPlans             []*plan           // by leaf column, for fastOther
	fastDec               *jsonfast.Decoder // the fast decoder made, kept for Reuse when fast gives up
}

// slabSize is the number of values a slab holds.
const slabSize = 2048

// alloc returns n nil values cut from rd.slab.
func (rd *reader) alloc(n int) []any {
	if n > 64 {
		return make([]any, n)
	}
	if cap(rd.slab)-len(rd.slab) < n {
		// Slabs grow from 128 values so that a small file does not pay
		// for a large one.
		rd.slab = make([]any, 0, min(max(2*cap(rd.slab), 128), slabSize))
	}
	l := len(rd.slab)
	rd.slab = rd.slab[:l+n]
	return rd.slab[l : l+n : l+n]
}

func open(ctx context.Context, r io.Reader, s *schema.StructType, opts fileformat.ReadOptions) (*reader, error) {
	if s == nil {
		return nil, fmt.Errorf("jsonfmt: %s: %w: no schema", opts.FilePath, fileformat.ErrReadSchema)
	}
	mode, err := opts.Mode.Normalize()
	if err != nil {
		return nil, fmt.Errorf("jsonfmt: %w", err)
	}
	rd := &reader{
		ctx: ctx, file: opts.FilePath, width: len(s.Fields), schema: s, opts: opts,
		rescueIdx: -1, corIdx: -1, mode: mode, corrupt: opts.CorruptRecordColumn, badHook: opts.BadRecords,
		seenU: map[string]bool{}, seenM: map[string]bool{},
	}
	if rd.corrupt == "" {
		rd.corrupt = fileformat.DefaultCorruptRecordColumn
	}
	var skip map[int]bool // compile's: made only for a rescued data column
	if opts.RescuedDataColumn != "" {
		i := s.FieldIndex(opts.RescuedDataColumn)
		if i < 0 {
			return nil, fmt.Errorf("jsonfmt: %s: %w: rescued data column %q is not in the schema %s",
				opts.FilePath, fileformat.ErrReadSchema, opts.RescuedDataColumn, s)
		}
		if s.Fields[i].Type != schema.String {
			return nil, fmt.Errorf("jsonfmt: %s: %w: rescued data column %q is %s, want string",
				opts.FilePath, fileformat.ErrReadSchema, opts.RescuedDataColumn, s.Fields[i].Type)
		}
		rd.rescueIdx = i
		skip = map[int]bool{i: true}
	}
	if i := s.FieldIndex(rd.corrupt); i >= 0 && s.Fields[i].Type == schema.String && i != rd.rescueIdx {
		rd.corIdx = i
	}
	rd.foldMatch = opts.CaseInsensitive || rd.rescueIdx < 0
	left, _ := opts.Reuse.Take().(*reusedPlan)
	reused := left
	if reused != nil && (reused.schema != s || reused.rescueIdx != rd.rescueIdx) {
		reused = nil
	}
	if opts.Fold != nil {
		if reused != nil && reused.fold.Reuses(opts.Fold, opts.Text, opts.Options) {
			// Its types, the schema and the rescued data column (the
			// field at rescueIdx, named exactly) are the ones Proves
			// answered for.
			rd.fold, rd.foldSkip = reused.fold, reused.foldSkip
		} else {
			if rd.fold, err = jsoninfer.NewChecker(opts.Fold, opts.Text, opts.Options); err != nil {
				return nil, fmt.Errorf("jsonfmt: %s: %w", opts.FilePath, err)
			}
			rd.foldSkip = rd.fold.Proves(s, opts.RescuedDataColumn)
		}
	}
	if reused != nil {
		rd.root = reused.root
	} else {
		rd.root = compile(s, skip)
	}
	var prev *jsonopt.Parsed
	if left != nil {
		prev = left.opts
	}
	if rd.po, err = jsonopt.Parse(opts, prev); err != nil {
		return nil, fmt.Errorf("jsonfmt: %s: %w", opts.FilePath, err)
	}
	rd.tape.Syn, rd.dt = rd.po.Syntax, rd.po.Datetime
	if rd.lr, err = jsonlines.New(r, opts.Text); err != nil {
		return nil, fmt.Errorf("jsonfmt: %s: %w", opts.FilePath, err)
	}
	if rd.lr.Whole, err = rd.po.MultiLine, rd.po.MultiLineErr; err != nil {
		return nil, fmt.Errorf("jsonfmt: %s: %w", opts.FilePath, err)
	}
	rd.tape.First = rd.lr.Whole
	if reused != nil && reused.colRoot != nil && reused.whole == rd.lr.Whole {
		// The column plan too (bindTo rebinds it to the batch it is given).
		rd.colRoot, rd.leafPlans, rd.fastDec = reused.colRoot, reused.leafPlans, reused.fast
		if rd.fast = reused.fast; rd.fast != nil {
			rd.fast.Other = rd.fastOther
		}
	}
	return rd, nil
}

// Stats reports what was read so far.
func (rd *reader) Stats() fileformat.ReadStats {
	return rd.stats.Clone()
}

// Close ends the read; it does not close the source reader.
func (rd *reader) Close() error {
	if rd.root != nil && !rd.left {
		rd.left = true // once: a plan is handed to one reader
		rp := &reusedPlan{opts: rd.po, fold: rd.fold, foldSkip: rd.foldSkip, schema: rd.schema, rescueIdx: rd.rescueIdx, root: rd.root}
		if rd.colRoot != nil && rd.lr != nil && !rd.noFast {
			rp.colRoot, rp.leafPlans, rp.fast, rp.whole = rd.colRoot, rd.leafPlans, rd.fastDec, rd.lr.Whole
			if rp.fast != nil {
				// Its hook points at this reader: the plan must not keep
				// the reader (tape, buffers) alive while it waits in
				// Reuse. The next reader sets its own (open).
				rp.fast.Other = nil
			}
		}
		rd.opts.Reuse.Leave(rp)
	}
	rd.done = true
	if rd.par != nil {
		rd.par.stop()
	}
	rd.pending = nil
	if rd.lr != nil {
		rd.lr.Release()
	}
	return nil
}

// Next returns the next row, or io.EOF.
func (rd *reader) Next() ([]any, error) {
	if rd.fold != nil {
		return rd.foldNext()
	}
	return rd.next()
}

// next is Next without the one-pass inference's check of what was read.
func (rd *reader) next() ([]any, error) {
	for {
		if len(rd.pending) > 0 {
			row := rd.pending[0]
			rd.pending = rd.pending[1:]
			rd.stats.RowsRead++
			return row, nil
		}
		if rd.done {
			return nil, io.EOF
		}
		rd.tape.B = nil // the last line may be huge: do not hold it while reading the next
		line, err := rd.lr.Next()
		rd.tape.Owned = rd.lr.Owned()
		if errors.Is(err, io.EOF) {
			rd.done = true
			return nil, io.EOF
		}
		if err != nil {
			return nil, fmt.Errorf("jsonfmt: read %s: %w", rd.file, err)
		}
		if rd.lr.Line()%1024 == 0 {
			if err := rd.ctx.Err(); err != nil {
				return nil, err
			}
		}
		if jsonlines.IsBlank(line) {
			continue
		}
		if rd.lineNo = rd.lr.Line(); rd.fold != nil {
			if err := rd.keeps(line); err != nil {
				return nil, err
			}
		}
		if perr := rd.decodeLine(line); errors.Is(perr, jsontape.ErrNoValue) {
			continue
		} else if perr != nil {
			rd.stats.CorruptRecords++
			switch {
			case rd.badHook != nil:
				rd.badHook(fileformat.BadRecord{Line: rd.lr.Line(), Record: validText(line), Reason: "malformed JSON record: " + perr.Error()})
				continue
			case rd.mode == fileformat.FailFast:
				return nil, fmt.Errorf("jsonfmt: %s line %d: %w: %v", rd.file, rd.lr.Line(), fileformat.ErrMalformedRecord, perr)
			case rd.mode == fileformat.DropMalformed:
				continue
			}
			rd.pending = append(rd.pending[:0], rd.corruptRow(line))
			continue
		}
		if rd.bad {
			// Rescue is disabled and a value did not fit its column: a bad
			// record for Spark (with rescue, the value was rescued).
			rd.stats.CorruptRecords++
			switch {
			case rd.badHook != nil:
				rd.badHook(fileformat.BadRecord{Line: rd.lr.Line(), Record: validText(line), Reason: rd.badReason})
				rd.pending = rd.pending[:0]
				continue
			case rd.mode == fileformat.FailFast:
				rd.pending = rd.pending[:0]
				return nil, fmt.Errorf("jsonfmt: %s line %d: %w: %s", rd.file, rd.lr.Line(), fileformat.ErrMalformedRecord, rd.badReason)
			case rd.mode == fileformat.DropMalformed:
				rd.pending = rd.pending[:0]
				continue
			}
			if rd.corIdx >= 0 {
				for _, row := range rd.pending {
					row[rd.corIdx] = validText(line)
				}
			}
		}
	}
}

// validText is a record's text with invalid UTF-8 replaced.
func validText(line []byte) string { return strings.ToValidUTF8(string(line), "\uFFFD") }

// maxReasonValue bounds how much of a value a bad record's reason quotes.
const maxReasonValue = 64

// noteBad marks the record being decoded as bad (rescue disabled): the
// value node n at rd.path does not fit type t. The first reason is kept.
func (rd *reader) noteBad(n int, t schema.Type) {
	if rd.bad {
		return
	}
	rd.bad = true
	v := validText(rd.tape.Raw(n))
	if len(v) > maxReasonValue {
		v = strings.ToValidUTF8(v[:maxReasonValue], "") + "..."
	}
	rd.badReason = fmt.Sprintf("value %s of column %s does not fit %s", v, strings.Join(rd.pathStrings(), "."), schema.DDLType(t))
}

// corruptRow is PERMISSIVE mode's row for a malformed line.
func (rd *reader) corruptRow(line []byte) []any {
	row := make([]any, rd.width)
	text := validText(line)
	switch {
	case rd.corIdx >= 0:
		row[rd.corIdx] = text
	case rd.rescueIdx >= 0:
		rd.rescue.Reset()
		rd.rescue.AddString([]string{rd.corrupt}, text)
		row[rd.rescueIdx], _ = rd.rescue.JSON(rd.file)
		rd.stats.RowsRescued++
	default:
		rd.stats.ValuesDropped++
	}
	return row
}

// decodeLine parses one line into rd.pending; an error means the line is
// malformed and nothing was queued.
func (rd *reader) decodeLine(line []byte) error {
	t := &rd.tape
	rd.bad, rd.badReason = false, ""
	if err := t.Parse(line); err != nil {
		return err
	}
	rd.pending = rd.pending[:0]
	switch t.Nodes[0].Kind {
	case jsontape.KObject:
		rd.pending = append(rd.pending, rd.topRow(0))
	case jsontape.KArray:
		for c := 1; c < int(t.Nodes[0].Next); c = int(t.Nodes[c].Next) {
			if t.Nodes[c].Kind != jsontape.KObject {
				return errors.New("top-level array element is not an object")
			}
		}
		for c := 1; c < int(t.Nodes[0].Next); c = int(t.Nodes[c].Next) {
			rd.pending = append(rd.pending, rd.topRow(c))
		}
	default:
		return errors.New("record is not a JSON object")
	}
	return nil
}

// topRow converts object node n into a table row.
func (rd *reader) topRow(n int) []any {
	rd.rescue.Reset()
	rd.path = rd.path[:0]
	row, _ := rd.convStruct(rd.root, n)
	if rd.rescueIdx >= 0 {
		if js, ok := rd.rescue.JSON(rd.file); ok {
			row[rd.rescueIdx] = js
			rd.stats.RowsRescued++
		}
	}
	return row
}

// Path segments that are not object keys.
const (
	segElement = -1 - iota
	segKey
	segValue
)

// pathStrings materialises rd.path.
func (rd *reader) pathStrings() []string {
	out := make([]string, len(rd.path))
	for i, seg := range rd.path {
		switch seg {
		case segElement:
			out[i] = "element"
		case segKey:
			out[i] = "key"
		case segValue:
			out[i] = "value"
		default:
			out[i] = rd.tape.Text(seg)
		}
	}
	return out
}

func (rd *reader) note(seen map[string]bool, list *[]string) {
	if len(*list) >= fileformat.MaxReportedPaths {
		return // before building the path
	}
	fileformat.NotePath(seen, list, strings.Join(rd.pathStrings(), "."))
}

// convStruct converts object node n to a struct value. ok is false when,
// inside a collection, something did not fit (the collection then fails as
// a whole).
func (rd *reader) convStruct(p *plan, n int) ([]any, bool) {
	t := &rd.tape
	row := rd.alloc(len(p.fields))
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
			val, good := rd.conv(p.fields[idx], v)
			if !good && !rd.mismatchedField(v, p.fields[idx].t) {
				ok = false
			}
			row[idx] = val
		}
		rd.path = rd.path[:len(rd.path)-1]
		k = int(t.Nodes[v].Next)
	}
	return row, ok
}

// field finds the field of p that object key node k, the record's pos-th
// key, names: the field the previous record had at pos first, then an
// exact match, then one differing in case only, which is a match with
// foldMatch and otherwise reported as caseOnly (not found).
func (rd *reader) field(p *plan, k, pos int) (idx int, found, caseOnly bool) {
	t := &rd.tape
	if kn := &t.Nodes[k]; !kn.Esc {
		name := t.B[kn.Start+1 : kn.End-1]
		if pos < len(p.guess) {
			if g := p.guess[pos]; g >= 0 && p.names[g] == string(name) {
				return g, true, false
			}
		}
		idx, found = p.exact[string(name)] // no allocation
		if pos < 64 {
			for len(p.guess) <= pos {
				p.guess = append(p.guess, -1)
			}
			if found {
				p.guess[pos] = idx
			}
		}
	} else {
		idx, found = p.exact[t.Text(k)]
	}
	if found {
		return idx, true, false
	}
	if i, f := p.fold[strings.ToLower(t.Text(k))]; f {
		if rd.foldMatch {
			return i, true, false
		}
		return 0, false, true
	}
	return 0, false, false
}

// unknownField handles value node v of a key that names no field (at
// rd.path): the path is reported unless the key differs in case only, and
// a non-null value is rescued, or dropped without a rescued data column.
// It returns false when the value is inside a collection, which then does
// not fit as a whole.
func (rd *reader) unknownField(v int, caseOnly bool) bool {
	if !caseOnly {
		rd.note(rd.seenU, &rd.stats.UnknownFields)
	}
	switch {
	case rd.tape.Nodes[v].Kind == jsontape.KNull:
	case rd.rescueIdx < 0:
		rd.stats.ValuesDropped++
	case rd.inColl > 0:
		return false
	default:
		rd.rescue.AddJSON(rd.pathStrings(), rd.tape.ValueJSON(v))
	}
	return true
}

// mismatchedField handles value node v that does not fit its field's type
// typ (at rd.path): the path is reported and the value rescued, or dropped
// and noted as a bad record without a rescued data column. It returns
// false when the value is inside a collection, which then does not fit as
// a whole.
func (rd *reader) mismatchedField(v int, typ schema.Type) bool {
	rd.note(rd.seenM, &rd.stats.MismatchedFields)
	switch {
	case rd.inColl > 0:
		return false
	case rd.rescueIdx >= 0:
		rd.rescue.AddJSON(rd.pathStrings(), rd.tape.ValueJSON(v))
	default:
		rd.stats.ValuesDropped++
		rd.noteBad(v, typ)
	}
	return true
}

// conv converts value node n to p's type; ok is false when it does not fit
// (the value is then nil).
func (rd *reader) conv(p *plan, n int) (any, bool) {
	t := &rd.tape
	nd := &t.Nodes[n]
	if nd.Kind == jsontape.KNull {
		return nil, true
	}
	switch tt := p.t.(type) {
	case *schema.StructType:
		if nd.Kind != jsontape.KObject {
			return nil, false
		}
		v, ok := rd.convStruct(p, n)
		if !ok {
			return nil, false
		}
		return v, true
	case *schema.ArrayType:
		if nd.Kind != jsontape.KArray {
			return nil, false
		}
		rd.inColl++
		rd.path = append(rd.path, segElement)
		count := 0
		for c := n + 1; c < int(nd.Next); c = int(t.Nodes[c].Next) {
			count++
		}
		out := rd.alloc(count)[:0]
		ok := true
		for c := n + 1; c < int(nd.Next); c = int(t.Nodes[c].Next) {
			v, good := rd.conv(p.elem, c)
			if !good {
				rd.note(rd.seenM, &rd.stats.MismatchedFields)
				ok = false
				break
			}
			out = append(out, v)
		}
		rd.inColl--
		rd.path = rd.path[:len(rd.path)-1]
		if !ok {
			return nil, false
		}
		return out, true
	case *schema.MapType:
		if nd.Kind != jsontape.KObject {
			return nil, false
		}
		rd.inColl++
		out, ok := rd.convMap(p, n)
		rd.inColl--
		if !ok {
			return nil, false
		}
		if out == nil {
			out = []schema.MapEntry{}
		}
		return out, true
	case schema.DecimalType:
		switch nd.Kind {
		case jsontape.KNumber:
			if !t.IsIntegral(n) && !jsonnum.IsFinite(t.Raw(n)) {
				return nil, false
			}
			d, ok := fileformat.ParseDecimal(string(t.Raw(n)), tt)
			return decimalOrNil(d, ok)
		case jsontape.KString:
			d, ok := fileformat.ParseDecimal(t.Text(n), tt)
			return decimalOrNil(d, ok)
		}
		return nil, false
	case schema.PrimitiveType:
		return rd.prim(tt, n)
	}
	return nil, false
}

// convMap converts the members of object node n to map entries.
func (rd *reader) convMap(p *plan, n int) ([]schema.MapEntry, bool) {
	t := &rd.tape
	var out []schema.MapEntry
	pos := map[any]int{}
	for k := n + 1; k < int(t.Nodes[n].Next); {
		v := k + 1
		key, ok := convKey(p.key, t.Text(k), rd.dt)
		if !ok {
			rd.path = append(rd.path, segKey)
			rd.note(rd.seenM, &rd.stats.MismatchedFields)
			rd.path = rd.path[:len(rd.path)-1]
			return nil, false
		}
		rd.path = append(rd.path, segValue)
		val, ok := rd.conv(p.val, v)
		if !ok {
			rd.note(rd.seenM, &rd.stats.MismatchedFields)
		}
		rd.path = rd.path[:len(rd.path)-1]
		if !ok {
			return nil, false
		}
		mk := mapKey(key)
		if i, dup := pos[mk]; dup {
			out[i].Value = val // last wins
		} else {
			pos[mk] = len(out)
			out = append(out, schema.MapEntry{Key: key, Value: val})
		}
		k = int(t.Nodes[v].Next)
	}
	return out, true
}

func decimalOrNil(d schema.Decimal, ok bool) (any, bool) {
	if !ok {
		return nil, false
	}
	return d, true
}

// mapKey makes a comparable key for duplicate detection.
func mapKey(k any) any {
	switch v := k.(type) {
	case schema.Decimal:
		return v.Unscaled.String()
	case []byte:
		return string(v)
	}
	return k
}

// prim converts value node n to primitive type pt.
func (rd *reader) prim(pt schema.PrimitiveType, n int) (any, bool) {
	t := &rd.tape
	nd := &t.Nodes[n]
	switch pt {
	case schema.String:
		if nd.Kind == jsontape.KString {
			return rd.box.String(t.Text(n)), true
		}
		return t.SourceText(n), true
	case schema.Long, schema.Integer, schema.Short, schema.Byte:
		if nd.Kind != jsontape.KNumber || !t.IsIntegral(n) {
			return nil, false
		}
		if pt == schema.Long {
			if v, ok := jsonnum.ParseLong(t.Raw(n)); ok {
				return rd.box.Long(v), true
			}
		}
		return fileformat.ParseIntegral(pt, string(t.Raw(n)))
	case schema.Double, schema.Float:
		var f float64
		switch nd.Kind {
		case jsontape.KNumber:
			if pt == schema.Float {
				return jsonnum.Parse32(string(t.Raw(n))), true
			}
			f = jsonnum.Parse(string(t.Raw(n)))
		case jsontape.KString:
			var ok bool
			if f, ok = jsonnum.Special(t.Text(n)); !ok {
				return nil, false
			}
		default:
			return nil, false
		}
		if pt == schema.Float {
			return float32(f), true
		}
		return rd.box.Double(f), true
	case schema.Boolean:
		switch nd.Kind {
		case jsontape.KTrue:
			return true, true
		case jsontape.KFalse:
			return false, true
		}
		return nil, false
	case schema.Binary:
		if nd.Kind != jsontape.KString {
			return nil, false
		}
		s := t.Text(n)
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			if b, err = base64.RawStdEncoding.DecodeString(s); err != nil {
				return nil, false
			}
		}
		return b, true
	case schema.DateType:
		if nd.Kind != jsontape.KString {
			return nil, false
		}
		d, ok := rd.dt.ParseDate(t.Text(n))
		if !ok {
			return nil, false
		}
		return d, true
	case schema.Timestamp, schema.TimestampNTZ:
		switch nd.Kind {
		case jsontape.KString:
			ts, ok := rd.dt.ParseTimestamp(t.Text(n), pt == schema.TimestampNTZ)
			if !ok {
				return nil, false
			}
			return ts, true
		case jsontape.KNumber:
			// Spark reads an integer as seconds since the epoch (timestamp only).
			if pt != schema.Timestamp || !t.IsIntegral(n) {
				return nil, false
			}
			sec, err := strconv.ParseInt(string(t.Raw(n)), 10, 64)
			if err != nil || sec > math.MaxInt64/1_000_000 || sec < math.MinInt64/1_000_000 {
				return nil, false
			}
			return time.Unix(sec, 0).UTC(), true
		}
		return nil, false
	}
	return nil, false
}

// convKey converts a JSON object key to a map key type.
func convKey(p *plan, s string, dt *datetimefmt.Parser) (any, bool) {
	if p.isDec {
		d, ok := fileformat.ParseDecimal(s, p.dec)
		if !ok {
			return nil, false
		}
		return d, true
	}
	switch p.prim {
	case schema.String:
		return s, true
	case schema.Long, schema.Integer, schema.Short, schema.Byte:
		return fileformat.ParseIntegral(p.prim, s)
	case schema.Double, schema.Float:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			var ok bool
			if f, ok = jsonnum.Special(s); !ok {
				return nil, false
			}
		} else if p.prim == schema.Float {
			// Rounded once to a float32 (beyond its range: ±Inf).
			f, _ = strconv.ParseFloat(s, 32)
		}
		if p.prim == schema.Float {
			return float32(f), true
		}
		return f, true
	case schema.Boolean:
		switch s {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	case schema.DateType:
		if d, ok := dt.ParseDate(s); ok {
			return d, true
		}
	case schema.Timestamp, schema.TimestampNTZ:
		if ts, ok := dt.ParseTimestamp(s, p.prim == schema.TimestampNTZ); ok {
			return ts, true
		}
	}
	return nil, false
}
