package jsoninfer

import (
	"context"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsontape"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/tributary-io/tributary/core/formats/datetimefmt"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/internal/jsonlex"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsonlines"
	"github.com/tributary-io/tributary/core/schema"
)

// ikind is a type of the inference lattice (Spark's JsonInferSchema).
type ikind uint8

const (
	iNull ikind = iota // only nulls seen so far
	iBool
	iLong
	iDecimal
	iDouble
	iString
	iTimestamp // inferTimestamp
	iStruct
	iArray
)

// itype is an inferred type, widened in place as records are added.
type itype struct {
	kind        ikind
	prec, scale int            // iDecimal
	fields      []ifield       // iStruct, in first-seen order
	index       map[string]int // lower-cased name -> field
	exact       map[string]int // name as seen -> field
	elem        *itype         // iArray
	// guess is, per member position, the field the last object had
	// there (see plan.guess).
	guess []int
}

type ifield struct {
	name string
	t    *itype
	// plain: name holds no quote, backslash or control character, so
	// that its JSON text is itself (the type scanner matches it so).
	plain bool
	// key0 and key1 are the name's JSON text with its quotes ("name"),
	// when plain and at most 16 bytes long, as two little-endian words
	// (the bytes of mask0 and mask1; mask0 is 0 otherwise): the scanner
	// compares it with two loads (see jsonlex.KeyWords).
	key0, key1, mask0, mask1 uint64
	// hint is the hint trie below this field when the struct's trie is
	// hintFrom (the scanner's cache of hintFrom.child(name)).
	hintFrom, hint *hintTrie
}

// child returns h.child(f.name), cached (inlined: without hints, the
// common case, it costs no call).
func (f *ifield) child(h *hintTrie) *hintTrie {
	if h == nil {
		return nil
	}
	return f.childOf(h)
}

// childOf is child for a non-nil h (not inlined, which keeps child small).
//
//go:noinline
func (f *ifield) childOf(h *hintTrie) *hintTrie {
	if f.hintFrom != h {
		f.hintFrom, f.hint = h, h.child(f.name)
	}
	return f.hint
}

// field returns the field named name (matched case-insensitively: the
// first-seen spelling wins), adding it when new.
func (it *itype) field(name string) *itype {
	key := strings.ToLower(name)
	if i, ok := it.index[key]; ok {
		return it.fields[i].t
	}
	if it.index == nil {
		it.index = map[string]int{}
		it.exact = map[string]int{}
	}
	it.index[key] = len(it.fields)
	it.exact[name] = len(it.fields)
	f := &itype{}
	fl := ifield{name: name, t: f, plain: jsontape.RawName(name)}
	if fl.plain {
		fl.key0, fl.key1, fl.mask0, fl.mask1 = jsonlex.KeyWords(name)
	}
	it.fields = append(it.fields, fl)
	return f
}

func (it *itype) toString() {
	*it = itype{kind: iString}
}

// hintTrie holds the schema-hint paths, lower-cased, so that inference in
// string mode keeps structs (and arrays) along them.
type hintTrie struct {
	children map[string]*hintTrie
}

// newHintTrie builds the trie of the hint paths; nil when there are no
// hints, so that addObject's fast path for already-seen names runs.
func newHintTrie(hints []schema.HintField) *hintTrie {
	if len(hints) == 0 {
		return nil
	}
	root := &hintTrie{}
	for _, h := range hints {
		n := root
		for _, seg := range h.Path {
			key := strings.ToLower(seg)
			if n.children == nil {
				n.children = map[string]*hintTrie{}
			}
			c := n.children[key]
			if c == nil {
				c = &hintTrie{}
				n.children[key] = c
			}
			n = c
		}
	}
	return root
}

// child returns the trie below segment seg, nil when no hint continues there.
func (h *hintTrie) child(seg string) *hintTrie {
	if h == nil || h.children == nil {
		return nil
	}
	c := h.children[strings.ToLower(seg)]
	if c == nil || len(c.children) == 0 {
		return nil
	}
	return c
}

// inferrer implements fileformat.Inferrer for JSON lines.
type inferrer struct {
	opts    fileformat.InferOptions
	optErr  error
	mode    fileformat.ParseMode
	corrupt string
	hints   *hintTrie
	root    itype
	sample  fileformat.Sample
	max     int64
	tape    jsontape.Tape
	// dt parses timestamps for inferTimestamp (nil: not inferred).
	dt *datetimefmt.Parser
	// sampler is samplingRatio (nil: every record).
	sampler *fileformat.Sampler
	// chunk overrides parChunkBytes (tests): > 0 its size, < 0 serial.
	chunk int
	// sc is the type scanner's state (scan.go).
	sc scanState

	// parFree are parallel inference's chunk buffers, kept from one
	// file to the next (inferpar.go).
	parFree []*inferChunk
	// spare are merged forks, reused by Fork (fork.go).
	spare []*inferrer
	// forked: in is a fork; it drops large scratch after each file.
	forked bool
}

func newInferrer(opts fileformat.InferOptions) *inferrer {
	mode, err := opts.Mode.Normalize()
	if err != nil {
		err = fmt.Errorf("jsonfmt: %w", err)
	}
	if opts.MaxBytes < 0 {
		err = fmt.Errorf("jsonfmt: %w: cloudFiles.schemaInference.sampleSize.numBytes %d is negative", fileformat.ErrBadOption, opts.MaxBytes)
	}
	in := &inferrer{
		optErr:  err,
		opts:    opts,
		mode:    mode,
		corrupt: opts.CorruptRecordColumn,
		hints:   newHintTrie(opts.Hints),
		root:    itype{kind: iStruct},
		max:     opts.MaxBytes,
	}
	if in.corrupt == "" {
		in.corrupt = fileformat.DefaultCorruptRecordColumn
	}
	if in.max == 0 {
		in.max = fileformat.DefaultSampleBytes
	}
	syn, serr := jsontape.ParseSyntax(opts.Options)
	if serr != nil && in.optErr == nil {
		in.optErr = fmt.Errorf("jsonfmt: %w", serr)
	}
	in.tape.Syn = syn
	if sm, serr := fileformat.NewSampler(opts.Options); serr != nil && in.optErr == nil {
		in.optErr = fmt.Errorf("jsonfmt: %w", serr)
	} else {
		in.sampler = sm
	}
	if v, ok := jsontape.Lookup(opts.Options, "inferTimestamp"); ok && strings.EqualFold(strings.TrimSpace(v), "true") && opts.InferColumnTypes {
		dt, derr := datetimefmt.FromOptions(opts.Options)
		if derr != nil && in.optErr == nil {
			in.optErr = fmt.Errorf("jsonfmt: %w", derr)
		}
		in.dt = dt
	}
	return in
}

// Full reports whether the byte budget is used up.
func (in *inferrer) Full() bool { return in.sample.Bytes >= in.max }

// Sampled reports what was sampled so far.
func (in *inferrer) Sampled() fileformat.Sample { return in.sample }

// Add samples one file.
func (in *inferrer) Add(ctx context.Context, path string, r io.Reader) error {
	if in.optErr != nil {
		return in.optErr
	}
	if in.Full() {
		return fmt.Errorf("jsonfmt: %s: %w (%d bytes)", path, fileformat.ErrSampleFull, in.max)
	}
	cr := fileformat.CountBytes(r)
	lr, err := jsonlines.New(cr, in.opts.Text)
	if err != nil {
		return fmt.Errorf("jsonfmt: %s: %w", path, err)
	}
	if lr.Whole, err = jsontape.MultiLine(in.opts.Options); err != nil {
		return fmt.Errorf("jsonfmt: %s: %w", path, err)
	}
	in.tape.First = lr.Whole
	defer func() { in.sample.Bytes += cr.Count() }()
	if in.forked {
		defer in.dropScratch()
	}
	defer lr.Release()
	in.sample.Files++
	in.sc.lines, in.sc.bails = 0, 0
	var par *parInfer
	if in.parallel() && !lr.Whole {
		par = newParInfer(in, path)
		defer par.stop()
		if lr.Blocks() {
			return par.addBlocks(ctx, lr)
		}
	}
	for {
		in.tape.B = nil // the last line may be huge: do not hold it while reading the next
		line, err := lr.Next()
		if errors.Is(err, io.EOF) {
			if par != nil {
				return par.finish()
			}
			return nil
		}
		if err != nil {
			if par != nil {
				if perr := par.finish(); perr != nil {
					return perr
				}
			}
			return fmt.Errorf("jsonfmt: read %s: %w", path, err)
		}
		if lr.Line()%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if jsonlines.IsBlank(line) || !in.sampler.Take() {
			continue
		}
		if par != nil {
			if err := par.add(line, lr.Line()); err != nil {
				return err
			}
			continue
		}
		if err := in.line(line); err != nil {
			return fmt.Errorf("jsonfmt: %s line %d: %w: %v", path, lr.Line(), fileformat.ErrMalformedRecord, err)
		}
	}
}

// line adds one non-blank line: a malformed one per the parse mode. The
// error is FAILFAST's: the line is malformed.
func (in *inferrer) line(line []byte) error {
	if in.scan(line) {
		return nil
	}
	if err := in.record(line); err != nil && !errors.Is(err, jsontape.ErrNoValue) {
		switch in.mode {
		case fileformat.FailFast:
			return err
		case fileformat.DropMalformed:
			return nil
		}
		in.root.field(in.corrupt).merge(&itype{kind: iString})
	}
	return nil
}

// record adds one line to the inferred root struct. An error means the line
// is malformed (nothing was added).
func (in *inferrer) record(line []byte) error {
	t := &in.tape
	if err := t.Parse(line); err != nil {
		return err
	}
	switch t.Nodes[0].Kind {
	case jsontape.KObject:
	case jsontape.KArray:
		// A top-level array holds records: each element must be an object.
		for c := 1; c < int(t.Nodes[0].Next); c = int(t.Nodes[c].Next) {
			if t.Nodes[c].Kind != jsontape.KObject {
				return errors.New("top-level array element is not an object")
			}
		}
	default:
		return errors.New("record is not a JSON object")
	}
	if t.Nodes[0].Kind == jsontape.KObject {
		in.sample.Records++
		in.addObject(&in.root, 0, in.hints)
		return nil
	}
	for c := 1; c < int(t.Nodes[0].Next); c = int(t.Nodes[c].Next) {
		in.sample.Records++
		in.addObject(&in.root, c, in.hints)
	}
	return nil
}

// addObject merges the members of object node n into struct it.
func (in *inferrer) addObject(it *itype, n int, h *hintTrie) {
	t := &in.tape
	for k, pos := n+1, 0; k < int(t.Nodes[n].Next); pos++ {
		v := k + 1
		if kn := &t.Nodes[k]; !kn.Esc && kn.End-kn.Start > 2 && h == nil {
			// Fast path: a field seen before under this exact spelling,
			// most often at the same position as in the last object.
			name := t.B[kn.Start+1 : kn.End-1]
			if pos < len(it.guess) {
				if g := it.guess[pos]; g >= 0 && g < len(it.fields) && it.fields[g].name == string(name) {
					in.add(it.fields[g].t, v, nil)
					k = int(t.Nodes[v].Next)
					continue
				}
			}
			if i, ok := it.exact[string(name)]; ok {
				if pos < 64 {
					for len(it.guess) <= pos {
						it.guess = append(it.guess, -1)
					}
					it.guess[pos] = i
				}
				in.add(it.fields[i].t, v, nil)
				k = int(t.Nodes[v].Next)
				continue
			}
		}
		name := t.Text(k)
		if name != "" { // Spark drops fields with an empty name
			in.add(it.field(name), v, h.child(name))
		}
		k = int(t.Nodes[v].Next)
	}
}

// add widens it with value node n; h is the hint trie at this path.
func (in *inferrer) add(it *itype, n int, h *hintTrie) {
	t := &in.tape
	nd := &t.Nodes[n]
	if nd.Kind == jsontape.KNull {
		return
	}
	if it.kind == iString {
		return
	}
	if h != nil && ((it.kind == iStruct && nd.Kind != jsontape.KObject) || (it.kind == iArray && nd.Kind != jsontape.KArray)) {
		// A schema hint reaches into this struct (array): its shape is
		// decided by the hint, and a conflicting value will be rescued
		// when read rather than turn the column into a string.
		return
	}
	if !in.opts.InferColumnTypes {
		// String mode: everything is a string, except structs and arrays
		// that a schema hint reaches into.
		switch {
		case h != nil && nd.Kind == jsontape.KObject && (it.kind == iNull || it.kind == iStruct):
			it.kind = iStruct
			in.addObject(it, n, h)
		case h != nil && nd.Kind == jsontape.KArray && h.child("element") != nil && (it.kind == iNull || it.kind == iArray):
			in.addArray(it, n, h.child("element"))
		default:
			it.toString()
		}
		return
	}
	switch nd.Kind {
	case jsontape.KObject:
		if it.kind != iNull && it.kind != iStruct {
			it.toString()
			return
		}
		it.kind = iStruct
		in.addObject(it, n, h)
	case jsontape.KArray:
		if it.kind != iNull && it.kind != iArray {
			it.toString()
			return
		}
		in.addArray(it, n, h.child("element"))
	default:
		o := in.scalarType(n)
		it.merge(&o)
	}
}

func (in *inferrer) addArray(it *itype, n int, h *hintTrie) {
	t := &in.tape
	it.kind = iArray
	if it.elem == nil {
		it.elem = &itype{}
	}
	for c := n + 1; c < int(t.Nodes[n].Next); c = int(t.Nodes[c].Next) {
		in.add(it.elem, c, h)
	}
}

// scalarType infers a JSON scalar as Spark does: integers are long (decimal
// beyond long, double beyond decimal(38)), other numbers double (or decimal
// with PrefersDecimal), an empty string is like null.
func (in *inferrer) scalarType(n int) itype {
	t := &in.tape
	switch t.Nodes[n].Kind {
	case jsontape.KTrue, jsontape.KFalse:
		if in.opts.PrimitivesAsString {
			return itype{kind: iString}
		}
		return itype{kind: iBool}
	case jsontape.KString:
		if t.Nodes[n].End-t.Nodes[n].Start == 2 {
			return itype{kind: iNull}
		}
		if in.dt != nil {
			// inferTimestamp: a string the timestampFormat (or Spark's
			// default timestamp parsing) reads is a timestamp.
			if _, ok := in.dt.ParseTimestamp(t.Text(n), false); ok {
				return itype{kind: iTimestamp}
			}
		}
		return itype{kind: iString}
	case jsontape.KNumber:
		if in.opts.PrimitivesAsString {
			return itype{kind: iString}
		}
		raw := t.Raw(n)
		if t.IsIntegral(n) {
			if fitsInt64(raw) {
				return itype{kind: iLong}
			}
			return decimalOrDouble(string(raw))
		}
		if in.opts.PrefersDecimal && raw[0] != 'N' && raw[0] != 'I' && raw[len(raw)-1] != 'y' {
			return decimalOrDouble(string(raw))
		}
		return itype{kind: iDouble}
	}
	return itype{kind: iNull}
}

// fitsInt64 reports whether the integer literal raw fits a long. Up to 18
// digits always fit, without a conversion; longer ones are parsed.
func fitsInt64(raw []byte) bool {
	digits := len(raw)
	if digits > 0 && (raw[0] == '-' || raw[0] == '+') {
		digits--
	}
	if digits > 0 && digits <= 18 {
		return true
	}
	_, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil
}

// decimalOrDouble gives a number Java BigDecimal's precision and scale, as
// Spark does: decimal(max(p,s), s) when that fits 38 digits and the scale is
// not negative, else double.
func decimalOrDouble(raw string) itype {
	s := strings.TrimLeft(raw, "-+")
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e < -1000 || e > 1000 {
			return itype{kind: iDouble}
		}
		exp, s = e, s[:i]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i+1:]
	}
	scale := len(frac) - exp
	digits := strings.TrimLeft(intPart+frac, "0")
	prec := max(len(digits), 1)
	if scale < 0 {
		return itype{kind: iDouble}
	}
	if p := max(prec, scale); p <= 38 {
		return itype{kind: iDecimal, prec: p, scale: scale}
	}
	return itype{kind: iDouble}
}

// merge widens it (a scalar or null type, or any type when o is null) with
// scalar type o, following Spark's compatibleType for JSON.
func (it *itype) merge(o *itype) {
	switch {
	case o.kind == iNull || it.kind == iString:
		return
	case it.kind == iNull:
		*it = *o
		return
	case it.kind == o.kind && it.kind != iDecimal:
		return
	}
	numeric := func(k ikind) bool { return k == iLong || k == iDecimal || k == iDouble }
	if !numeric(it.kind) || !numeric(o.kind) {
		it.toString()
		return
	}
	if it.kind == iDouble || o.kind == iDouble {
		*it = itype{kind: iDouble}
		return
	}
	// long and decimals: long counts as decimal(20,0).
	ap, as := it.prec, it.scale
	if it.kind == iLong {
		ap, as = 20, 0
	}
	bp, bs := o.prec, o.scale
	if o.kind == iLong {
		bp, bs = 20, 0
	}
	scale := max(as, bs)
	digits := max(ap-as, bp-bs)
	if digits+scale > 38 {
		*it = itype{kind: iDouble}
		return
	}
	*it = itype{kind: iDecimal, prec: digits + scale, scale: scale}
}

// Schema returns the inferred schema: fields sorted by name at every level
// (as Spark's JSON inference does), null-only columns as string, empty
// structs dropped; then the hints applied and the rescued data column
// appended.
func (in *inferrer) Schema() *schema.StructType {
	st := &schema.StructType{Fields: structFields(&in.root, in.opts.DropFieldIfAllNull)}
	if in.opts.RescuedDataColumn != "" {
		st.Fields = slices.DeleteFunc(st.Fields, func(f schema.Field) bool {
			return strings.EqualFold(f.Name, in.opts.RescuedDataColumn)
		})
	}
	st = schema.ApplyHints(st, in.opts.Hints)
	if in.opts.RescuedDataColumn != "" {
		st.Fields = slices.DeleteFunc(st.Fields, func(f schema.Field) bool {
			return strings.EqualFold(f.Name, in.opts.RescuedDataColumn)
		})
		st.Fields = append(st.Fields, schema.Field{Name: in.opts.RescuedDataColumn, Type: schema.String, Nullable: true})
	}
	return st
}

// structFields converts an inferred struct's fields, sorted by name;
// dropNull leaves out null-only fields (dropFieldIfAllNull).
func structFields(it *itype, dropNull bool) []schema.Field {
	var out []schema.Field
	for _, f := range it.fields {
		if t := toSchemaType(f.t, dropNull); t != nil {
			out = append(out, schema.Field{Name: f.name, Type: t, Nullable: true})
		}
	}
	slices.SortStableFunc(out, func(a, b schema.Field) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// toSchemaType converts an inferred type (Spark's canonicalizeType): nil
// when the type is dropped (an empty struct, or an array of one; with
// dropNull also a null-only type, or an array of one, or an empty array).
func toSchemaType(it *itype, dropNull bool) schema.Type {
	switch it.kind {
	case iNull:
		if dropNull {
			return nil
		}
	case iBool:
		return schema.Boolean
	case iLong:
		return schema.Long
	case iDouble:
		return schema.Double
	case iTimestamp:
		return schema.Timestamp
	case iDecimal:
		return schema.DecimalType{Precision: it.prec, Scale: it.scale}
	case iArray:
		el := schema.Type(schema.String)
		switch {
		case it.elem != nil:
			el = toSchemaType(it.elem, dropNull)
		case dropNull:
			el = nil // only empty arrays: their element type is null
		}
		if el == nil {
			return nil
		}
		return &schema.ArrayType{Element: el, ContainsNull: true}
	case iStruct:
		fields := structFields(it, dropNull)
		if len(fields) == 0 {
			return nil
		}
		return &schema.StructType{Fields: fields}
	}
	return schema.String // null-only and string
}
