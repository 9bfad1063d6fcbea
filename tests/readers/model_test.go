package readers

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
)

// The input model: a JSON value is nil, bool, string, num (a number by its
// text), obj (an object in key order) or []any.
type (
	num string
	kv  struct {
		k string
		v any
	}
	obj []kv
)

// render appends v as compact JSON, keys in the order given.
func render(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case num:
		b.WriteString(string(x))
	case string:
		b.WriteString(quote(x))
	case obj:
		b.WriteByte('{')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quote(e.k))
			b.WriteByte(':')
			render(b, e.v)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			render(b, e)
		}
		b.WriteByte(']')
	default:
		panic(fmt.Sprintf("render: %T", v))
	}
}

func text(v any) string {
	var b strings.Builder
	render(&b, v)
	return b.String()
}

// quote is JSON string quoting without HTML escaping.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// dtype is an expected Delta column type.
type dtype struct {
	prim   string // long, double, boolean, string, decimal(30,0)
	fields []dfield
	elem   *dtype
}

type dfield struct {
	name string
	t    *dtype
}

func prim(p string) *dtype            { return &dtype{prim: p} }
func arrayOf(e *dtype) *dtype         { return &dtype{elem: e} }
func structOf(fs ...dfield) *dtype    { return &dtype{fields: fs} }
func field(n string, t *dtype) dfield { return dfield{n, t} }
func (t *dtype) isStruct() bool       { return t.fields != nil }
func (t *dtype) isArray() bool        { return t.elem != nil }
func (t *dtype) isDecimal() bool      { return strings.HasPrefix(t.prim, "decimal") }
func (t *dtype) fieldType(n string) *dtype {
	for _, f := range t.fields {
		if f.name == n {
			return f.t
		}
	}
	return nil
}

// String is Delta's simple-string form, as read_delta.py renders schemas.
func (t *dtype) String() string {
	switch {
	case t.isStruct():
		parts := make([]string, len(t.fields))
		for i, f := range t.fields {
			parts[i] = f.name + ":" + f.t.String()
		}
		return "struct<" + strings.Join(parts, ",") + ">"
	case t.isArray():
		return "array<" + t.elem.String() + ">"
	}
	return t.prim
}

// ratOf parses a number's text exactly.
func ratOf(s string) (*big.Rat, bool) {
	return new(big.Rat).SetString(s)
}

// doubleRat is the exact decimal of the shortest text of the float64 nearest s.
func doubleRat(s string) (*big.Rat, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, false
	}
	return ratOf(strconv.FormatFloat(f, 'g', -1, 64))
}

func isIntegral(s string) bool {
	return !strings.ContainsAny(s, ".eE")
}

// convert is what a column of type t holds for the input value v (ok false:
// the value does not fit and is rescued). strict false is the
// inferColumnTypes=false reading, where a string column takes any value as
// its JSON text.
func convert(v any, t *dtype) (any, bool) {
	if v == nil {
		return nil, true
	}
	switch {
	case t.isStruct():
		o, isObj := v.(obj)
		if !isObj {
			return nil, false
		}
		m := make(map[string]any, len(t.fields))
		for _, f := range t.fields {
			m[f.name] = nil
		}
		for _, e := range o {
			ft := t.fieldType(e.k)
			if ft == nil {
				panic("generator wrote a nested unknown field " + e.k)
			}
			c, ok := convert(e.v, ft)
			if !ok {
				return nil, false
			}
			m[e.k] = c
		}
		return m, true
	case t.isArray():
		a, isArr := v.([]any)
		if !isArr {
			return nil, false
		}
		out := make([]any, len(a))
		for i, e := range a {
			c, ok := convert(e, t.elem)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	}
	switch t.prim {
	case "string":
		if s, isStr := v.(string); isStr {
			return s, true
		}
		return text(v), true
	case "boolean":
		b, isBool := v.(bool)
		return b, isBool
	case "long":
		n, isNum := v.(num)
		if !isNum || !isIntegral(string(n)) {
			return nil, false
		}
		if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
			return nil, false
		}
		r, _ := ratOf(string(n))
		return r, true
	case "double":
		n, isNum := v.(num)
		if !isNum {
			return nil, false
		}
		return doubleRat(string(n))
	}
	if t.isDecimal() {
		var p, s int
		fmt.Sscanf(t.prim, "decimal(%d,%d)", &p, &s)
		n, isNum := v.(num)
		if !isNum || !isIntegral(string(n)) || s != 0 {
			return nil, false
		}
		d := strings.TrimLeft(strings.TrimPrefix(string(n), "-"), "0")
		if len(d) > p {
			return nil, false
		}
		r, _ := ratOf(string(n))
		return r, true
	}
	panic("convert: type " + t.String())
}

// expectRow computes the table row for one input record: columns in schema
// order, unfit and unknown values rescued as Auto Loader renders them.
func expectRow(rec obj, schema []dfield, file string) map[string]any {
	row := map[string]any{}
	rescued := map[string]string{}
	for _, f := range schema {
		row[f.name] = nil
	}
	for _, e := range rec {
		var ft *dtype
		for _, f := range schema {
			if f.name == e.k {
				ft = f.t
			}
		}
		if ft == nil {
			if e.v != nil {
				rescued[e.k] = text(e.v)
			}
			continue
		}
		c, ok := convert(e.v, ft)
		if !ok {
			rescued[e.k] = text(e.v)
			continue
		}
		row[e.k] = c
	}
	row[rescuedColumn] = nil
	if len(rescued) > 0 {
		keys := make([]string, 0, len(rescued))
		for k := range rescued {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteByte('{')
		for _, k := range keys {
			b.WriteString(quote(k) + ":" + rescued[k] + ",")
		}
		b.WriteString(quote(filePathKey) + ":" + quote(file) + "}")
		row[rescuedColumn] = b.String()
	}
	return row
}

const (
	rescuedColumn = "_rescued_data"
	filePathKey   = "_file_path"
	// statsPrefix is delta-spark's dataSkippingStringPrefixLength (UTF-16 units).
	statsPrefix = 32
)

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }
