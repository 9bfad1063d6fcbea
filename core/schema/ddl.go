package schema

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrDDL is wrapped by ParseDDL and ParseDDLType when the text is not a valid
// SQL DDL column list or type.
var ErrDDL = errors.New("schema: invalid DDL")

// ddlMaxDepth bounds the nesting of ARRAY/MAP/STRUCT in a DDL type.
const ddlMaxDepth = 64

// HintField is one column of a SQL DDL column list, the syntax of
// cloudFiles.schemaHints: "user_id STRING, age INT, user_info.dob DATE".
type HintField struct {
	// Path is the column path, one element per dotted segment: user_info.dob
	// is ["user_info", "dob"]. When a hint is applied, a segment "element"
	// steps into an array's elements and "key"/"value" into a map's keys
	// and values (Databricks' hint syntax for nested collections).
	Path []string
	// Type is the column's type.
	Type Type
	// NotNull is true when the DDL says NOT NULL.
	NotNull bool
	// Comment is the DDL COMMENT, "" when absent.
	Comment string
}

// ParseDDL parses a comma-separated SQL DDL column list such as
//
//	user_id STRING, age INT, user_info.dob DATE, `odd name` DECIMAL(10,2),
//	tags ARRAY<STRING>, attrs MAP<STRING, INT>, s STRUCT<a: INT, b STRING>
//
// Keywords and type names are case-insensitive; names keep their case. A
// name is an identifier ([letters, digits, _]) or a backquoted name in which
// a doubled backquote stands for one. Each column may end with NOT NULL and/or
// COMMENT 'text'. Accepted types: STRING, VARCHAR(n), CHAR(n), BIGINT/LONG,
// INT/INTEGER, SMALLINT/SHORT, TINYINT/BYTE, DOUBLE, FLOAT/REAL, BOOLEAN,
// BINARY, DATE, TIMESTAMP/TIMESTAMP_LTZ, TIMESTAMP_NTZ,
// DECIMAL/DEC/NUMERIC[(p[,s])] (default (10,0)), ARRAY<t>, MAP<k,v>,
// STRUCT<name[:] t, ...>. An empty or blank string is an empty list.
// The same path given twice (compared case-insensitively) is an error.
func ParseDDL(s string) ([]HintField, error) {
	p := &ddlParser{s: s}
	p.space()
	if p.eof() {
		return nil, nil
	}
	var out []HintField
	seen := map[string]bool{}
	for {
		start := p.pos
		path, err := p.path()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.peek() == ':' {
			p.pos++
		}
		h := HintField{Path: path}
		if h.Type, err = p.typ(0); err != nil {
			return nil, err
		}
		if h.NotNull, h.Comment, err = p.modifiers(); err != nil {
			return nil, err
		}
		key := strings.ToLower(strings.Join(path, "\x00"))
		if seen[key] {
			return nil, p.errAt(start, "column %s is given twice", ddlPath(path))
		}
		seen[key] = true
		out = append(out, h)
		p.space()
		if p.eof() {
			return out, nil
		}
		if p.peek() != ',' {
			return nil, p.errf("expected ',' or end of input")
		}
		p.pos++
		p.space()
	}
}

// ParseDDLType parses a single SQL DDL type such as "ARRAY<DECIMAL(10,2)>".
func ParseDDLType(s string) (Type, error) {
	p := &ddlParser{s: s}
	p.space()
	t, err := p.typ(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if !p.eof() {
		return nil, p.errf("unexpected text after the type")
	}
	return t, nil
}

// String renders the hint in the DDL syntax ParseDDL reads.
func (h HintField) String() string {
	var b strings.Builder
	b.WriteString(ddlPath(h.Path))
	b.WriteByte(' ')
	b.WriteString(DDLType(h.Type))
	if h.NotNull {
		b.WriteString(" NOT NULL")
	}
	if h.Comment != "" {
		b.WriteString(" COMMENT ")
		b.WriteString(ddlQuoteString(h.Comment))
	}
	return b.String()
}

// FormatDDL renders hints as a DDL column list that ParseDDL reads back.
func FormatDDL(hints []HintField) string {
	parts := make([]string, len(hints))
	for i, h := range hints {
		parts[i] = h.String()
	}
	return strings.Join(parts, ", ")
}

// DDLType renders t in SQL DDL spelling: "BIGINT", "DECIMAL(10,2)",
// "ARRAY<INT>", "MAP<STRING, INT>", "STRUCT<a: INT, `b c`: STRING>".
func DDLType(t Type) string {
	switch t := t.(type) {
	case PrimitiveType:
		switch t {
		case String:
			return "STRING"
		case Long:
			return "BIGINT"
		case Integer:
			return "INT"
		case Short:
			return "SMALLINT"
		case Byte:
			return "TINYINT"
		case Double:
			return "DOUBLE"
		case Float:
			return "FLOAT"
		case Boolean:
			return "BOOLEAN"
		case Binary:
			return "BINARY"
		case DateType:
			return "DATE"
		case Timestamp:
			return "TIMESTAMP"
		case TimestampNTZ:
			return "TIMESTAMP_NTZ"
		}
		return strings.ToUpper(string(t))
	case DecimalType:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale)
	case *ArrayType:
		return "ARRAY<" + DDLType(t.Element) + ">"
	case *MapType:
		return "MAP<" + DDLType(t.Key) + ", " + DDLType(t.Value) + ">"
	case *StructType:
		var b strings.Builder
		b.WriteString("STRUCT<")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(ddlName(f.Name))
			b.WriteString(": ")
			b.WriteString(DDLType(f.Type))
			if !f.Nullable {
				b.WriteString(" NOT NULL")
			}
			if c, ok := f.Metadata["comment"].(string); ok && c != "" {
				b.WriteString(" COMMENT ")
				b.WriteString(ddlQuoteString(c))
			}
		}
		b.WriteByte('>')
		return b.String()
	}
	return fmt.Sprint(t)
}

func ddlPath(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = ddlName(p)
	}
	return strings.Join(parts, ".")
}

// ddlName backquotes a name unless it is a plain identifier.
func ddlName(n string) string {
	plain := n != ""
	for _, r := range n {
		if !ddlIdentRune(r) {
			plain = false
			break
		}
	}
	if plain {
		return n
	}
	return "`" + strings.ReplaceAll(n, "`", "``") + "`"
}

func ddlQuoteString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\'':
			b.WriteString(`\'`)
		case '\\':
			b.WriteString(`\\`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

func ddlIdentRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

type ddlParser struct {
	s   string
	pos int
}

func (p *ddlParser) eof() bool { return p.pos >= len(p.s) }

func (p *ddlParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.pos]
}

func (p *ddlParser) space() {
	for !p.eof() {
		r, n := utf8.DecodeRuneInString(p.s[p.pos:])
		if !unicode.IsSpace(r) {
			return
		}
		p.pos += n
	}
}

func (p *ddlParser) errAt(pos int, format string, args ...any) error {
	near := p.s[min(pos, len(p.s)):]
	if len(near) > 20 {
		near = near[:20] + "…"
	}
	where := "at end of input"
	if near != "" {
		where = fmt.Sprintf("at offset %d near %q", pos, near)
	}
	return fmt.Errorf("%w %s: %s", ErrDDL, where, fmt.Sprintf(format, args...))
}

func (p *ddlParser) errf(format string, args ...any) error {
	return p.errAt(p.pos, format, args...)
}

// word reads an unquoted identifier (possibly empty).
func (p *ddlParser) word() string {
	start := p.pos
	for !p.eof() {
		r, n := utf8.DecodeRuneInString(p.s[p.pos:])
		if !ddlIdentRune(r) {
			break
		}
		p.pos += n
	}
	return p.s[start:p.pos]
}

// name reads an identifier or a backquoted name.
func (p *ddlParser) name() (string, error) {
	if p.peek() == '`' {
		start := p.pos
		p.pos++
		var b strings.Builder
		for {
			if p.eof() {
				return "", p.errAt(start, "unterminated backquoted name")
			}
			c := p.s[p.pos]
			p.pos++
			if c == '`' {
				if p.peek() == '`' {
					p.pos++
					b.WriteByte('`')
					continue
				}
				break
			}
			b.WriteByte(c)
		}
		if b.Len() == 0 {
			return "", p.errAt(start, "empty column name")
		}
		if !utf8.ValidString(b.String()) {
			return "", p.errAt(start, "column name is not valid UTF-8")
		}
		return b.String(), nil
	}
	w := p.word()
	if w == "" {
		return "", p.errf("expected a column name")
	}
	return w, nil
}

func (p *ddlParser) path() ([]string, error) {
	var path []string
	for {
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		path = append(path, n)
		if p.peek() != '.' {
			return path, nil
		}
		p.pos++
	}
}

func (p *ddlParser) expect(c byte) error {
	p.space()
	if p.peek() != c {
		return p.errf("expected %q", c)
	}
	p.pos++
	return nil
}

// int reads an unsigned decimal integer.
func (p *ddlParser) int() (int, error) {
	p.space()
	start := p.pos
	for !p.eof() && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	if start == p.pos {
		return 0, p.errf("expected a number")
	}
	n, err := strconv.Atoi(p.s[start:p.pos])
	if err != nil {
		return 0, p.errAt(start, "number out of range")
	}
	return n, nil
}

func (p *ddlParser) typ(depth int) (Type, error) {
	if depth > ddlMaxDepth {
		return nil, p.errf("types nested deeper than %d", ddlMaxDepth)
	}
	p.space()
	start := p.pos
	w := strings.ToUpper(p.word())
	switch w {
	case "":
		return nil, p.errf("expected a type")
	case "STRING":
		return String, nil
	case "VARCHAR", "CHAR":
		if err := p.expect('('); err != nil {
			return nil, err
		}
		if _, err := p.int(); err != nil {
			return nil, err
		}
		if err := p.expect(')'); err != nil {
			return nil, err
		}
		return String, nil
	case "BIGINT", "LONG":
		return Long, nil
	case "INT", "INTEGER":
		return Integer, nil
	case "SMALLINT", "SHORT":
		return Short, nil
	case "TINYINT", "BYTE":
		return Byte, nil
	case "DOUBLE":
		return Double, nil
	case "FLOAT", "REAL":
		return Float, nil
	case "BOOLEAN":
		return Boolean, nil
	case "BINARY":
		return Binary, nil
	case "DATE":
		return DateType, nil
	case "TIMESTAMP", "TIMESTAMP_LTZ":
		return Timestamp, nil
	case "TIMESTAMP_NTZ":
		return TimestampNTZ, nil
	case "DECIMAL", "DEC", "NUMERIC":
		return p.decimal(start)
	case "ARRAY":
		if err := p.expect('<'); err != nil {
			return nil, err
		}
		el, err := p.typ(depth + 1)
		if err != nil {
			return nil, err
		}
		if err := p.expect('>'); err != nil {
			return nil, err
		}
		return &ArrayType{Element: el, ContainsNull: true}, nil
	case "MAP":
		if err := p.expect('<'); err != nil {
			return nil, err
		}
		k, err := p.typ(depth + 1)
		if err != nil {
			return nil, err
		}
		if err := p.expect(','); err != nil {
			return nil, err
		}
		v, err := p.typ(depth + 1)
		if err != nil {
			return nil, err
		}
		if err := p.expect('>'); err != nil {
			return nil, err
		}
		return &MapType{Key: k, Value: v, ValueContainsNull: true}, nil
	case "STRUCT":
		return p.structType(depth)
	}
	return nil, p.errAt(start, "unknown type %q", w)
}

func (p *ddlParser) decimal(start int) (Type, error) {
	d := DecimalType{Precision: 10}
	p.space()
	if p.peek() == '(' {
		p.pos++
		var err error
		if d.Precision, err = p.int(); err != nil {
			return nil, err
		}
		d.Scale = 0
		p.space()
		if p.peek() == ',' {
			p.pos++
			if d.Scale, err = p.int(); err != nil {
				return nil, err
			}
		}
		if err := p.expect(')'); err != nil {
			return nil, err
		}
	}
	if d.Precision < 1 || d.Precision > 38 || d.Scale > d.Precision {
		return nil, p.errAt(start, "invalid %s: precision must be 1..38 and scale 0..precision", d)
	}
	return d, nil
}

func (p *ddlParser) structType(depth int) (Type, error) {
	if err := p.expect('<'); err != nil {
		return nil, err
	}
	st := &StructType{}
	p.space()
	if p.peek() == '>' {
		p.pos++
		return st, nil
	}
	seen := map[string]bool{}
	for {
		p.space()
		start := p.pos
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		if seen[strings.ToLower(n)] {
			return nil, p.errAt(start, "struct field %s is given twice", ddlName(n))
		}
		seen[strings.ToLower(n)] = true
		p.space()
		if p.peek() == ':' {
			p.pos++
		}
		t, err := p.typ(depth + 1)
		if err != nil {
			return nil, err
		}
		notNull, comment, err := p.modifiers()
		if err != nil {
			return nil, err
		}
		f := Field{Name: n, Type: t, Nullable: !notNull}
		if comment != "" {
			f.Metadata = map[string]any{"comment": comment}
		}
		st.Fields = append(st.Fields, f)
		p.space()
		switch p.peek() {
		case ',':
			p.pos++
		case '>':
			p.pos++
			return st, nil
		default:
			return nil, p.errf("expected ',' or '>' in STRUCT")
		}
	}
}

// modifiers reads optional NOT NULL and COMMENT 'text', in any order.
func (p *ddlParser) modifiers() (notNull bool, comment string, err error) {
	haveComment := false
	for {
		p.space()
		save := p.pos
		switch strings.ToUpper(p.word()) {
		case "NOT":
			if notNull {
				return false, "", p.errAt(save, "NOT NULL given twice")
			}
			p.space()
			if strings.ToUpper(p.word()) != "NULL" {
				return false, "", p.errAt(save, "expected NOT NULL")
			}
			notNull = true
		case "COMMENT":
			if haveComment {
				return false, "", p.errAt(save, "COMMENT given twice")
			}
			p.space()
			if comment, err = p.stringLit(); err != nil {
				return false, "", err
			}
			haveComment = true
		default:
			p.pos = save
			return notNull, comment, nil
		}
	}
}

// stringLit reads a '…' or "…" literal; a backslash escapes the next
// character and a doubled quote stands for one quote.
func (p *ddlParser) stringLit() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", p.errf("expected a quoted string")
	}
	start := p.pos
	p.pos++
	var b strings.Builder
	for {
		if p.eof() {
			return "", p.errAt(start, "unterminated string")
		}
		c := p.s[p.pos]
		p.pos++
		switch {
		case c == '\\':
			if p.eof() {
				return "", p.errAt(start, "unterminated string")
			}
			b.WriteByte(p.s[p.pos])
			p.pos++
		case c == q:
			if p.peek() == q {
				p.pos++
				b.WriteByte(q)
				continue
			}
			s := b.String()
			if !utf8.ValidString(s) {
				return "", p.errAt(start, "string is not valid UTF-8")
			}
			return s, nil
		default:
			b.WriteByte(c)
		}
	}
}
