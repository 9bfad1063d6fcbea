package xmlfmt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/tributary-io/tributary/core/formats/charset"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// xkind is an inferred type's kind.
type xkind int

const (
	xNull xkind = iota
	xLong
	xDecimal
	xDouble
	xBool
	xDate
	xTimestamp
	xString
	xStruct
	xArray
)

// xtype is an inferred type.
type xtype struct {
	kind   xkind
	dec    schema.DecimalType
	fields map[string]*xtype // struct
	elem   *xtype            // array
}

var nullType = &xtype{kind: xNull}

var dateRE = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)

// primitive infers a text value's type, in Spark's order. s is the value
// as read (trimmed with ignoreSurroundingSpaces, by value and attrValue);
// it is not trimmed again: without ignoreSurroundingSpaces, " 1 " is no
// number to Spark's inference (nor to the read), so it is a string.
func (in *inferrer) primitive(s string) *xtype {
	if s == "" || in.o.isNull(s) {
		return nullType
	}
	if !in.opts.InferColumnTypes {
		return &xtype{kind: xString}
	}
	t := s
	if inferLong(t) {
		return &xtype{kind: xLong}
	}
	if in.opts.PrefersDecimal {
		if d, ok := inferDecimal(t); ok {
			return &xtype{kind: xDecimal, dec: d}
		}
	}
	if inferDouble(t) {
		return &xtype{kind: xDouble}
	}
	if strings.EqualFold(t, "true") || strings.EqualFold(t, "false") {
		return &xtype{kind: xBool}
	}
	if in.o.dt.Date != nil || dateRE.MatchString(t) {
		if _, ok := in.o.dt.ParseDate(t); ok {
			return &xtype{kind: xDate}
		}
	}
	if _, ok := in.o.dt.ParseTimestamp(t, false); ok {
		return &xtype{kind: xTimestamp}
	}
	return &xtype{kind: xString}
}

// element infers the type of a child element.
func (in *inferrer) element(e *element) *xtype {
	if in.o.isLeaf(e) {
		v, _ := in.o.value(e)
		return in.primitive(v)
	}
	return in.structOf(e)
}

// structOf infers an element as a struct (rows always are).
func (in *inferrer) structOf(e *element) *xtype {
	st := &xtype{kind: xStruct, fields: map[string]*xtype{}}
	if !in.o.excludeAttribute {
		for _, a := range e.attrs {
			name := in.o.attributePrefix + a.name
			st.fields[name] = merge(st.fields[name], in.primitive(a.value))
		}
	}
	counts := map[string]int{}
	for _, c := range e.children {
		counts[c.name]++
	}
	for _, c := range e.children {
		t := in.element(c)
		if counts[c.name] > 1 {
			t = &xtype{kind: xArray, elem: t}
		}
		st.fields[c.name] = merge(st.fields[c.name], t)
	}
	if v, ok := in.o.value(e); ok {
		st.fields[in.o.valueTag] = merge(st.fields[in.o.valueTag], in.primitive(v))
	}
	return st
}

// merge is Spark XML's compatibleType.
func merge(a, b *xtype) *xtype {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.kind == xNull:
		return b
	case b.kind == xNull:
		return a
	}
	if a.kind == xArray || b.kind == xArray {
		ea, eb := a, b
		if a.kind == xArray {
			ea = a.elem
		}
		if b.kind == xArray {
			eb = b.elem
		}
		return &xtype{kind: xArray, elem: merge(ea, eb)}
	}
	if a.kind == xStruct && b.kind == xStruct {
		out := &xtype{kind: xStruct, fields: map[string]*xtype{}}
		for k, v := range a.fields {
			out.fields[k] = v
		}
		for k, v := range b.fields {
			out.fields[k] = merge(out.fields[k], v)
		}
		return out
	}
	if a.kind == xStruct || b.kind == xStruct {
		// A value meets a struct: the struct, with the value as valueTag
		// (the struct carries no valueTag name here: it is added by the
		// inferrer, which knows it).
		st, v := a, b
		if b.kind == xStruct {
			st, v = b, a
		}
		out := &xtype{kind: xStruct, fields: map[string]*xtype{}}
		for k, f := range st.fields {
			out.fields[k] = f
		}
		out.fields[valueTagMarker] = merge(out.fields[valueTagMarker], v)
		return out
	}
	if a.kind == b.kind {
		if a.kind == xDecimal {
			if t, ok := schema.WidenType(a.dec, b.dec); ok {
				return &xtype{kind: xDecimal, dec: t.(schema.DecimalType)}
			}
			return &xtype{kind: xDouble}
		}
		return a
	}
	lo, hi := a, b
	if lo.kind > hi.kind {
		lo, hi = hi, lo
	}
	switch {
	case lo.kind == xLong && hi.kind == xDecimal:
		if t, ok := schema.WidenType(schema.DecimalType{Precision: 20}, hi.dec); ok {
			return &xtype{kind: xDecimal, dec: t.(schema.DecimalType)}
		}
		return &xtype{kind: xDouble}
	case (lo.kind == xLong || lo.kind == xDecimal) && hi.kind == xDouble:
		return &xtype{kind: xDouble}
	case lo.kind == xDate && hi.kind == xTimestamp:
		return &xtype{kind: xTimestamp}
	}
	return &xtype{kind: xString}
}

// valueTagMarker stands for the valueTag field in a merge that does not
// know its name; toSchema renames it.
const valueTagMarker = "\x00value"

// toSchema converts an inferred type to a Delta type: null-only is
// string, struct fields sorted by name.
func (in *inferrer) toSchema(t *xtype) schema.Type {
	switch t.kind {
	case xLong:
		return schema.Long
	case xDecimal:
		return t.dec
	case xDouble:
		return schema.Double
	case xBool:
		return schema.Boolean
	case xDate:
		return schema.DateType
	case xTimestamp:
		return schema.Timestamp
	case xStruct:
		return in.structSchema(t)
	case xArray:
		return &schema.ArrayType{Element: in.toSchema(t.elem), ContainsNull: true}
	}
	return schema.String
}

func (in *inferrer) structSchema(t *xtype) *schema.StructType {
	fields := map[string]*xtype{}
	for k, v := range t.fields {
		if k == valueTagMarker {
			k = in.o.valueTag
		}
		fields[k] = merge(fields[k], v)
	}
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	slices.Sort(names)
	st := &schema.StructType{}
	for _, k := range names {
		st.Fields = append(st.Fields, schema.Field{Name: k, Type: in.toSchema(fields[k]), Nullable: true})
	}
	return st
}

type inferrer struct {
	opts    fileformat.InferOptions
	o       *xmlOptions
	err     error
	root    *xtype
	corrupt bool
	sample  fileformat.Sample
}

func newInferrer(opts fileformat.InferOptions) *inferrer {
	in := &inferrer{opts: opts}
	in.o, in.err = parseOptions(opts.Options)
	return in
}

func (in *inferrer) max() int64 {
	if in.opts.MaxBytes > 0 {
		return in.opts.MaxBytes
	}
	return fileformat.DefaultSampleBytes
}

func (in *inferrer) Full() bool                 { return in.sample.Bytes >= in.max() }
func (in *inferrer) Sampled() fileformat.Sample { return in.sample }

// Add samples one file: every record is parsed and merged.
func (in *inferrer) Add(ctx context.Context, path string, r io.Reader) error {
	if in.err != nil {
		return in.err
	}
	if in.Full() {
		return fileformat.ErrSampleFull
	}
	cs, err := textCharset(in.opts.Text)
	if err != nil {
		return err
	}
	mode, err := in.opts.Mode.Normalize()
	if err != nil {
		return err
	}
	in.sample.Files++
	cr := fileformat.CountBytes(r)
	defer func() { in.sample.Bytes += cr.Count() }()
	sc := newScanner(cs.NewReader(cr), in.o.rowTag)
	for n := 0; ; n++ {
		if n%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		rec, line, err := sc.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var e *element
		if err == nil {
			e, err = parseRecord(rec, in.o)
		} else if !errors.Is(err, errUnclosed) {
			return fmt.Errorf("%s: %w", path, err)
		}
		in.sample.Records++
		if err != nil {
			switch mode {
			case fileformat.FailFast:
				return fmt.Errorf("%s line %d: %w: %v", path, line, fileformat.ErrMalformedRecord, err)
			case fileformat.Permissive:
				in.corrupt = true
			}
			continue
		}
		in.root = merge(in.root, in.structOf(e))
	}
}

// Schema returns the inferred schema with hints, the corrupt-record
// column (a malformed record was sampled in PERMISSIVE mode) and the
// rescued data column.
func (in *inferrer) Schema() *schema.StructType {
	st := &schema.StructType{}
	if in.root != nil && in.o != nil {
		st = in.structSchema(in.root)
	}
	if in.corrupt {
		name := in.opts.CorruptRecordColumn
		if name == "" {
			name = fileformat.DefaultCorruptRecordColumn
		}
		if st.FieldIndexFold(name) < 0 {
			st.Fields = append(st.Fields, schema.Field{Name: name, Type: schema.String, Nullable: true})
		}
	}
	st = schema.ApplyHints(st, in.opts.Hints)
	if rc := in.opts.RescuedDataColumn; rc != "" {
		st.Fields = slices.DeleteFunc(st.Fields, func(f schema.Field) bool { return strings.EqualFold(f.Name, rc) })
		st.Fields = append(st.Fields, schema.Field{Name: rc, Type: schema.String, Nullable: true})
	}
	return st
}

// textCharset resolves the encoding option.
func textCharset(t fileformat.TextOptions) (*charset.Charset, error) {
	if t.Encoding == "" {
		return charset.UTF8, nil
	}
	c, err := charset.Lookup(t.Encoding)
	if err != nil {
		return nil, fmt.Errorf("%w: encoding: %v", fileformat.ErrBadOption, err)
	}
	return c, nil
}
