package xmlfmt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tributary-io/tributary/core/formats/datetimefmt"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

type reader struct {
	ctx       context.Context
	file      string
	o         *xmlOptions
	s         *schema.StructType
	sc        *scanner
	mode      fileformat.ParseMode
	badHook   func(fileformat.BadRecord)
	corrupt   string
	rescueIdx int
	corIdx    int
	caseSens  bool // with rescue: a field matching only by case is rescued
	rescue    fileformat.Rescue
	stats     fileformat.ReadStats
	seen      map[string]bool
	bad       bool
	badReason string
	done      bool
	n         int64
}

func open(ctx context.Context, r io.Reader, s *schema.StructType, opts fileformat.ReadOptions) (*reader, error) {
	o, err := parseOptions(opts.Options)
	if err != nil {
		return nil, err
	}
	mode, err := opts.Mode.Normalize()
	if err != nil {
		return nil, err
	}
	cs, err := textCharset(opts.Text)
	if err != nil {
		return nil, err
	}
	rd := &reader{ctx: ctx, file: opts.FilePath, o: o, s: s, mode: mode, badHook: opts.BadRecords,
		corrupt: opts.CorruptRecordColumn, rescueIdx: -1, corIdx: -1, seen: map[string]bool{},
		sc: newScanner(cs.NewReader(r), o.rowTag)}
	if rd.corrupt == "" {
		rd.corrupt = fileformat.DefaultCorruptRecordColumn
	}
	if rc := opts.RescuedDataColumn; rc != "" {
		i := s.FieldIndex(rc)
		if i < 0 || !schema.EqualType(s.Fields[i].Type, schema.String) {
			return nil, fmt.Errorf("%w: rescued data column %q is not a string column of the schema", fileformat.ErrReadSchema, rc)
		}
		rd.rescueIdx = i
	}
	if i := s.FieldIndex(rd.corrupt); i >= 0 && i != rd.rescueIdx && schema.EqualType(s.Fields[i].Type, schema.String) {
		rd.corIdx = i
	}
	rd.caseSens = rd.rescueIdx >= 0 && !opts.CaseInsensitive
	return rd, nil
}

func (rd *reader) Next() ([]any, error) {
	for {
		if rd.done {
			return nil, io.EOF
		}
		if rd.n%256 == 0 {
			if err := rd.ctx.Err(); err != nil {
				return nil, err
			}
		}
		rd.n++
		rec, line, err := rd.sc.next()
		if errors.Is(err, io.EOF) {
			rd.done = true
			return nil, io.EOF
		}
		var e *element
		if err == nil {
			e, err = parseRecord(rec, rd.o)
		} else if !errors.Is(err, errUnclosed) {
			rd.done = true
			return nil, err
		}
		if err != nil {
			rd.stats.CorruptRecords++
			text := strings.ToValidUTF8(string(rec), "\uFFFD")
			switch {
			case rd.badHook != nil:
				rd.badHook(fileformat.BadRecord{Line: line, Record: text, Reason: "malformed XML record: " + err.Error()})
				continue
			case rd.mode == fileformat.FailFast:
				rd.done = true
				return nil, fmt.Errorf("%s line %d: %w: %v", rd.file, line, fileformat.ErrMalformedRecord, err)
			case rd.mode == fileformat.DropMalformed:
				continue
			}
			row := make([]any, len(rd.s.Fields))
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
			rd.stats.RowsRead++
			return row, nil
		}
		rd.rescue.Reset()
		rd.bad, rd.badReason = false, ""
		row := rd.structRow(e, rd.s, nil, true)
		if rd.bad {
			rd.stats.CorruptRecords++
			text := strings.ToValidUTF8(string(rec), "\uFFFD")
			switch {
			case rd.badHook != nil:
				rd.badHook(fileformat.BadRecord{Line: line, Record: text, Reason: rd.badReason})
				continue
			case rd.mode == fileformat.FailFast:
				rd.done = true
				return nil, fmt.Errorf("%s line %d: %w: %s", rd.file, line, fileformat.ErrMalformedRecord, rd.badReason)
			case rd.mode == fileformat.DropMalformed:
				continue
			}
			if rd.corIdx >= 0 {
				row[rd.corIdx] = text
			}
		}
		if rd.rescueIdx >= 0 {
			if js, ok := rd.rescue.JSON(rd.file); ok {
				row[rd.rescueIdx] = js
				rd.stats.RowsRescued++
			}
		}
		rd.stats.RowsRead++
		return row, nil
	}
}

func (rd *reader) note(kind, p string) {
	key := kind + p
	list := &rd.stats.UnknownFields
	if kind == "m" {
		list = &rd.stats.MismatchedFields
	}
	if rd.seen[key] || len(*list) >= fileformat.MaxReportedPaths {
		return
	}
	rd.seen[key] = true
	*list = append(*list, p)
}

// lost records a value not stored: rescued (raw JSON) or dropped.
func (rd *reader) lost(path []string, raw []byte, reason string) {
	if rd.rescueIdx >= 0 {
		rd.rescue.AddJSON(path, raw)
		return
	}
	rd.stats.ValuesDropped++
	if !rd.bad {
		rd.bad, rd.badReason = true, reason
	}
}

// lookup finds a column by name: exactly, else case-insensitively (then
// rescued instead when case-sensitive with rescue).
func (rd *reader) lookup(st *schema.StructType, name string, top bool) (int, bool) {
	for i, f := range st.Fields {
		if f.Name == name {
			if top && (i == rd.rescueIdx || i == rd.corIdx) {
				return -1, false
			}
			return i, false
		}
	}
	i := st.FieldIndexFold(name)
	if i < 0 || (top && (i == rd.rescueIdx || i == rd.corIdx)) {
		return -1, false
	}
	return i, rd.caseSens
}

// structRow fills a row of st from an element's attributes, children and
// text.
func (rd *reader) structRow(e *element, st *schema.StructType, path []string, top bool) []any {
	row := make([]any, len(st.Fields))
	sub := func(name string) []string { return append(path[:len(path):len(path)], name) }
	if !rd.o.excludeAttribute {
		for _, a := range e.attrs {
			name := rd.o.attributePrefix + a.name
			rd.field(row, st, name, sub(name), top, func(t schema.Type, p []string) any { return rd.text(a.value, t, p) },
				func() []byte { return fileformat.AppendJSONString(nil, a.value) })
		}
	}
	groups := map[string][]*element{}
	var order []string
	for _, c := range e.children {
		if groups[c.name] == nil {
			order = append(order, c.name)
		}
		groups[c.name] = append(groups[c.name], c)
	}
	for _, name := range order {
		els := groups[name]
		rd.field(row, st, name, sub(name), top, func(t schema.Type, p []string) any { return rd.elements(els, t, p) },
			func() []byte { return rd.jsonGroup(els) })
	}
	if v, ok := rd.o.value(e); ok {
		rd.field(row, st, rd.o.valueTag, sub(rd.o.valueTag), top, func(t schema.Type, p []string) any { return rd.text(v, t, p) },
			func() []byte { return fileformat.AppendJSONString(nil, v) })
	}
	return row
}

// field stores one named member in row, or reports and rescues it.
func (rd *reader) field(row []any, st *schema.StructType, name string, p []string, top bool, conv func(schema.Type, []string) any, raw func() []byte) {
	j, rescueCase := rd.lookup(st, name, top)
	switch {
	case j < 0:
		rd.note("u", strings.Join(p, "."))
		rd.lost(p, raw(), "unknown field "+strings.Join(p, "."))
	case rescueCase:
		rd.lost(p, raw(), "field "+strings.Join(p, ".")+" differs from its column by case")
	default:
		row[j] = conv(st.Fields[j].Type, p)
	}
}

// elements converts the same-named children of one parent to t.
func (rd *reader) elements(els []*element, t schema.Type, p []string) any {
	if at, ok := t.(*schema.ArrayType); ok {
		out := make([]any, len(els))
		for i, e := range els {
			out[i] = rd.element(e, at.Element, p)
		}
		return out
	}
	if len(els) > 1 {
		return rd.mismatch(p, rd.jsonGroup(els), t)
	}
	return rd.element(els[0], t, p)
}

// element converts one element to t.
func (rd *reader) element(e *element, t schema.Type, p []string) any {
	switch tt := t.(type) {
	case *schema.StructType:
		if rd.o.isLeaf(e) {
			v, ok := rd.o.value(e)
			if !ok || rd.o.isNull(v) {
				return nil
			}
		}
		return rd.structRow(e, tt, p, false)
	case *schema.ArrayType:
		return []any{rd.element(e, tt.Element, p)}
	case *schema.MapType:
		return rd.mismatch(p, rd.jsonElement(e), t)
	}
	if len(e.children) > 0 {
		return rd.mismatch(p, rd.jsonElement(e), t)
	}
	v, ok := rd.o.value(e)
	if !ok {
		return nil
	}
	return rd.text(v, t, p)
}

func (rd *reader) mismatch(p []string, raw []byte, t schema.Type) any {
	rd.note("m", strings.Join(p, "."))
	rd.lost(p, raw, fmt.Sprintf("value of column %s does not fit %s", strings.Join(p, "."), schema.DDLType(t)))
	return nil
}

// text parses a text value as t (null for nullValue).
func (rd *reader) text(v string, t schema.Type, p []string) any {
	if rd.o.isNull(v) {
		return nil
	}
	if x, ok := parseValue(v, t, rd.o.dt); ok {
		return x
	}
	return rd.mismatch(p, fileformat.AppendJSONString(nil, v), t)
}

// parseValue reads a text value as a primitive or decimal type (numbers
// and booleans as numbers.go describes), dates and timestamps with dt.
func parseValue(v string, t schema.Type, dt *datetimefmt.Parser) (any, bool) {
	switch tt := t.(type) {
	case schema.DecimalType:
		return xmlDecimal(v, tt)
	case schema.PrimitiveType:
		switch tt {
		case schema.String:
			return v, true
		case schema.Long, schema.Integer, schema.Short, schema.Byte:
			return xmlIntegral(tt, v)
		case schema.Double:
			return xmlDouble(v)
		case schema.Float:
			return xmlFloat(v)
		case schema.Boolean:
			return xmlBool(v)
		case schema.Binary:
			return []byte(v), true
		case schema.DateType:
			d, ok := dt.ParseDate(strings.TrimSpace(v))
			return d, ok
		case schema.Timestamp, schema.TimestampNTZ:
			ts, ok := dt.ParseTimestamp(strings.TrimSpace(v), tt == schema.TimestampNTZ)
			return ts, ok
		}
	}
	return nil, false
}

// jsonElement renders an element for the rescued data column: its text as
// a string when it is a value, else an object of attributes, children
// (repeated names as arrays) and valueTag.
func (rd *reader) jsonElement(e *element) []byte {
	if rd.o.isLeaf(e) {
		v, ok := rd.o.value(e)
		if !ok {
			return []byte("null")
		}
		return fileformat.AppendJSONString(nil, v)
	}
	b := []byte{'{'}
	n := 0
	add := func(k string, raw []byte) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = fileformat.AppendJSONString(b, k)
		b = append(b, ':')
		b = append(b, raw...)
	}
	if !rd.o.excludeAttribute {
		for _, a := range e.attrs {
			add(rd.o.attributePrefix+a.name, fileformat.AppendJSONString(nil, a.value))
		}
	}
	groups := map[string][]*element{}
	var order []string
	for _, c := range e.children {
		if groups[c.name] == nil {
			order = append(order, c.name)
		}
		groups[c.name] = append(groups[c.name], c)
	}
	for _, name := range order {
		add(name, rd.jsonGroup(groups[name]))
	}
	if v, ok := rd.o.value(e); ok {
		add(rd.o.valueTag, fileformat.AppendJSONString(nil, v))
	}
	return append(b, '}')
}

func (rd *reader) jsonGroup(els []*element) []byte {
	if len(els) == 1 {
		return rd.jsonElement(els[0])
	}
	b := []byte{'['}
	for i, e := range els {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, rd.jsonElement(e)...)
	}
	return append(b, ']')
}

func (rd *reader) Stats() fileformat.ReadStats { return rd.stats.Clone() }

func (rd *reader) Close() error {
	rd.done = true
	return nil
}
