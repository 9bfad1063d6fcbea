// Package predicate parses and evaluates the SQL boolean expressions users
// write in Delta's replaceWhere option: comparisons (=, ==, <>, !=, <, <=,
// >, >=, <=>), AND, OR, NOT, [NOT] IN, [NOT] BETWEEN, IS [NOT] NULL,
// parentheses, column names (plain or `quoted`) and literals (numbers,
// 'strings', DATE '…', TIMESTAMP '…', TRUE, FALSE, NULL).
//
// Evaluation follows Spark SQL: three-valued logic (NULL), a string literal
// compared with a typed column is cast to the column's type, a date
// compared with a timestamp is a timestamp at midnight UTC. Besides
// evaluating a row, a bound predicate tells from a data file's metadata
// (partition values, min/max/null-count statistics) which results its rows
// can have, so a caller can skip a file or drop it whole without reading it.
package predicate

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrSyntax reports a predicate that does not parse.
var ErrSyntax = errors.New("predicate: syntax error")

// ErrUnsupported reports SQL the predicate language does not cover
// (functions, arithmetic, nested fields, ...).
var ErrUnsupported = errors.New("predicate: unsupported")

// Expr is a parsed predicate, not yet bound to a table's columns.
type Expr struct {
	root node
	src  string
}

// Parse parses a predicate.
func Parse(s string) (*Expr, error) {
	p := &parser{src: s}
	if err := p.lex(); err != nil {
		return nil, err
	}
	if len(p.toks) == 1 { // only EOF
		return nil, fmt.Errorf("%w: empty predicate", ErrSyntax)
	}
	n, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.errAt(t, "unexpected %s", t.desc())
	}
	return &Expr{root: n, src: s}, nil
}

// String returns the predicate as the user wrote it.
func (e *Expr) String() string { return e.src }

// SQL returns the predicate in a canonical, fully parenthesised form
// (BETWEEN and IN are expanded into comparisons).
func (e *Expr) SQL() string { return e.root.sql() }

// Columns returns the column names the predicate references, as written,
// each once (case-insensitively), in order of appearance.
func (e *Expr) Columns() []string {
	var out []string
	seen := map[string]bool{}
	walk(e.root, func(n node) {
		if c, ok := n.(*colNode); ok && !seen[strings.ToLower(c.name)] {
			seen[strings.ToLower(c.name)] = true
			out = append(out, c.name)
		}
	})
	return out
}

// --- AST ---

type node interface{ sql() string }

type op int

const (
	opEq op = iota
	opNe
	opLt
	opLe
	opGt
	opGe
	opNullSafeEq
)

var opSQL = [...]string{opEq: "=", opNe: "<>", opLt: "<", opLe: "<=", opGt: ">", opGe: ">=", opNullSafeEq: "<=>"}

type (
	colNode struct {
		name string
		idx  int // bound column index
		k    kind
	}
	litNode struct {
		v   value
		str bool // an untyped string literal (cast to the other side's type)
	}
	cmpNode struct {
		op   op
		l, r node
	}
	andNode    struct{ l, r node }
	orNode     struct{ l, r node }
	notNode    struct{ x node }
	isNullNode struct {
		x   node
		neg bool
	}
)

func (c *colNode) sql() string { return "`" + strings.ReplaceAll(c.name, "`", "``") + "`" }
func (l *litNode) sql() string { return l.v.sql() }
func (c *cmpNode) sql() string { return "(" + c.l.sql() + " " + opSQL[c.op] + " " + c.r.sql() + ")" }
func (a *andNode) sql() string { return "(" + a.l.sql() + " AND " + a.r.sql() + ")" }
func (o *orNode) sql() string  { return "(" + o.l.sql() + " OR " + o.r.sql() + ")" }
func (n *notNode) sql() string { return "(NOT " + n.x.sql() + ")" }
func (n *isNullNode) sql() string {
	return "(" + n.x.sql() + map[bool]string{false: " IS NULL)", true: " IS NOT NULL)"}[n.neg]
}

func walk(n node, f func(node)) {
	f(n)
	switch x := n.(type) {
	case *cmpNode:
		walk(x.l, f)
		walk(x.r, f)
	case *andNode:
		walk(x.l, f)
		walk(x.r, f)
	case *orNode:
		walk(x.l, f)
		walk(x.r, f)
	case *notNode:
		walk(x.x, f)
	case *isNullNode:
		walk(x.x, f)
	}
}

// --- lexer ---

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tQuotedIdent
	tNumber
	tString
	tOp
	tLParen
	tRParen
	tComma
)

type token struct {
	kind tokKind
	text string // identifier, operator, number text or decoded string
	pos  int
}

func (t token) desc() string {
	switch t.kind {
	case tEOF:
		return "end of predicate"
	case tString:
		return fmt.Sprintf("string '%s'", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

func (t token) is(kw string) bool { return t.kind == tIdent && strings.EqualFold(t.text, kw) }

type parser struct {
	src   string
	toks  []token
	i     int
	depth int
}

// maxDepth bounds nesting (parentheses, NOT) so hostile input cannot
// exhaust the stack.
const maxDepth = 200

func (p *parser) errAt(t token, format string, args ...any) error {
	return fmt.Errorf("%w at position %d: %s", ErrSyntax, t.pos+1, fmt.Sprintf(format, args...))
}

func (p *parser) lex() error {
	s := p.src
	i := 0
	for i < len(s) {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r):
			i += w
		case r == '(':
			p.toks = append(p.toks, token{tLParen, "(", i})
			i++
		case r == ')':
			p.toks = append(p.toks, token{tRParen, ")", i})
			i++
		case r == ',':
			p.toks = append(p.toks, token{tComma, ",", i})
			i++
		case r == '=' || r == '<' || r == '>' || r == '!':
			j := i + 1
			for j < len(s) && j < i+3 && strings.ContainsRune("=<>", rune(s[j])) {
				j++
			}
			text := s[i:j]
			for len(text) > 0 && !validOp(text) {
				text = text[:len(text)-1]
			}
			if text == "" && r == '!' {
				text = "!"
			}
			if text == "" {
				return fmt.Errorf("%w at position %d: unexpected %q", ErrSyntax, i+1, string(r))
			}
			p.toks = append(p.toks, token{tOp, text, i})
			i += len(text)
		case r == '-' || r == '+' || r == '*' || r == '/' || r == '%' || r == '|' || r == '&':
			if r == '-' && i+1 < len(s) && s[i+1] == '-' {
				return fmt.Errorf("%w at position %d: SQL comments are not supported", ErrUnsupported, i+1)
			}
			p.toks = append(p.toks, token{tOp, string(r), i})
			i++
		case r == '\'' || r == '"':
			text, n, err := lexString(s[i:])
			if err != nil {
				return fmt.Errorf("%w at position %d: %v", ErrSyntax, i+1, err)
			}
			p.toks = append(p.toks, token{tString, text, i})
			i += n
		case r == '`':
			var b strings.Builder
			j := i + 1
			for {
				k := strings.IndexByte(s[j:], '`')
				if k < 0 {
					return fmt.Errorf("%w at position %d: unterminated `quoted` name", ErrSyntax, i+1)
				}
				b.WriteString(s[j : j+k])
				j += k + 1
				if j < len(s) && s[j] == '`' { // `` is a literal backquote
					b.WriteByte('`')
					j++
					continue
				}
				break
			}
			if b.Len() == 0 {
				return fmt.Errorf("%w at position %d: empty `quoted` name", ErrSyntax, i+1)
			}
			p.toks = append(p.toks, token{tQuotedIdent, b.String(), i})
			i = j
		case r >= '0' && r <= '9' || r == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
				k := j + 1
				if k < len(s) && (s[k] == '+' || s[k] == '-') {
					k++
				}
				if k < len(s) && s[k] >= '0' && s[k] <= '9' {
					for k < len(s) && s[k] >= '0' && s[k] <= '9' {
						k++
					}
					j = k
				}
			}
			// Spark's literal suffixes: 10L, 1S, 1Y, 1.5D, 1.5F, 1.5BD.
			for _, suf := range []string{"BD", "L", "S", "Y", "D", "F"} {
				if len(s)-j >= len(suf) && strings.EqualFold(s[j:j+len(suf)], suf) && !identAt(s, j+len(suf)) {
					j += len(suf)
					break
				}
			}
			if identAt(s, j) {
				return fmt.Errorf("%w at position %d: bad number %q", ErrSyntax, i+1, s[i:j+1])
			}
			p.toks = append(p.toks, token{tNumber, s[i:j], i})
			i = j
		case r == '_' || unicode.IsLetter(r):
			j := i
			for j < len(s) {
				r2, w2 := utf8.DecodeRuneInString(s[j:])
				if r2 != '_' && !unicode.IsLetter(r2) && !unicode.IsDigit(r2) {
					break
				}
				j += w2
			}
			p.toks = append(p.toks, token{tIdent, s[i:j], i})
			i = j
		case r == '.':
			return fmt.Errorf("%w at position %d: qualified or nested names (only top-level columns, `quoted` when they hold a dot)", ErrUnsupported, i+1)
		default:
			if r == utf8.RuneError && w == 1 {
				return fmt.Errorf("%w at position %d: invalid UTF-8", ErrSyntax, i+1)
			}
			return fmt.Errorf("%w at position %d: unexpected %q", ErrSyntax, i+1, string(r))
		}
	}
	p.toks = append(p.toks, token{tEOF, "", len(s)})
	return nil
}

func identAt(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

func validOp(s string) bool {
	switch s {
	case "=", "==", "<>", "!=", "<", "<=", ">", ">=", "<=>":
		return true
	}
	return false
}

// lexString decodes a quoted string literal with Spark's backslash escapes;
// it returns the text and the bytes consumed.
func lexString(s string) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q:
			return b.String(), i + 1, nil
		case c == '\\':
			if i+1 >= len(s) {
				return "", 0, errors.New("unterminated string")
			}
			i++
			switch e := s[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case '0':
				b.WriteByte(0)
			case 'Z':
				b.WriteByte(26)
			case '%', '_':
				b.WriteByte('\\')
				b.WriteByte(e)
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, errors.New("unterminated string")
}

// --- parser ---

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errAt(p.peek(), "nested too deeply")
	}
	return nil
}

func (p *parser) parseOr() (node, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer func() { p.depth-- }()
	l, err := p.parseAnd()
	if err != nil {
		return nil, err
	}
	for p.peek().is("OR") {
		p.next()
		r, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		l = &orNode{l, r}
	}
	return l, nil
}

func (p *parser) parseAnd() (node, error) {
	l, err := p.parseNot()
	if err != nil {
		return nil, err
	}
	for p.peek().is("AND") {
		p.next()
		r, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		l = &andNode{l, r}
	}
	return l, nil
}

func (p *parser) parseNot() (node, error) {
	if p.peek().is("NOT") || p.peek().kind == tOp && p.peek().text == "!" {
		p.next()
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer func() { p.depth-- }()
		x, err := p.parseNot()
		if err != nil {
			return nil, err
		}
		return &notNode{x}, nil
	}
	return p.parsePredicate()
}

func (p *parser) parsePredicate() (node, error) {
	l, err := p.parseOperand()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	switch {
	case t.kind == tOp && validOp(t.text):
		p.next()
		r, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		var o op
		switch t.text {
		case "=", "==":
			o = opEq
		case "<>", "!=":
			o = opNe
		case "<":
			o = opLt
		case "<=":
			o = opLe
		case ">":
			o = opGt
		case ">=":
			o = opGe
		case "<=>":
			o = opNullSafeEq
		}
		if n := p.peek(); n.kind == tOp && validOp(n.text) {
			return nil, p.errAt(n, "comparisons cannot be chained (write a < b AND b < c)")
		}
		return &cmpNode{o, l, r}, nil
	case t.is("IS"):
		p.next()
		neg := false
		if p.peek().is("NOT") {
			p.next()
			neg = true
		}
		if n := p.next(); !n.is("NULL") {
			return nil, p.errAt(n, "want NULL after IS%s, got %s", map[bool]string{true: " NOT"}[neg], n.desc())
		}
		return &isNullNode{l, neg}, nil
	case t.is("NOT") || t.is("IN") || t.is("BETWEEN"):
		neg := false
		if t.is("NOT") {
			p.next()
			neg = true
			if n := p.peek(); !n.is("IN") && !n.is("BETWEEN") {
				return nil, p.errAt(n, "want IN or BETWEEN after NOT, got %s", n.desc())
			}
		}
		var n node
		var err error
		if p.next().is("IN") {
			n, err = p.parseIn(l)
		} else {
			n, err = p.parseBetween(l)
		}
		if err != nil {
			return nil, err
		}
		if neg {
			n = &notNode{n}
		}
		return n, nil
	case t.is("LIKE") || t.is("RLIKE") || t.is("ILIKE") || t.is("REGEXP"):
		return nil, fmt.Errorf("%w at position %d: %s (use comparisons, IN, BETWEEN, IS NULL)", ErrUnsupported, t.pos+1, strings.ToUpper(t.text))
	case t.kind == tOp:
		return nil, fmt.Errorf("%w at position %d: operator %s (arithmetic is not supported)", ErrUnsupported, t.pos+1, t.text)
	}
	return l, nil
}

func (p *parser) parseIn(x node) (node, error) {
	if t := p.next(); t.kind != tLParen {
		return nil, p.errAt(t, "want ( after IN, got %s", t.desc())
	}
	var out node
	for {
		v, err := p.parseOperand()
		if err != nil {
			return nil, err
		}
		var eq node = &cmpNode{opEq, x, v}
		if out == nil {
			out = eq
		} else {
			out = &orNode{out, eq}
		}
		t := p.next()
		if t.kind == tRParen {
			return out, nil
		}
		if t.kind != tComma {
			return nil, p.errAt(t, "want , or ) in the IN list, got %s", t.desc())
		}
	}
}

func (p *parser) parseBetween(x node) (node, error) {
	lo, err := p.parseOperand()
	if err != nil {
		return nil, err
	}
	if t := p.next(); !t.is("AND") {
		return nil, p.errAt(t, "want AND in BETWEEN, got %s", t.desc())
	}
	hi, err := p.parseOperand()
	if err != nil {
		return nil, err
	}
	return &andNode{&cmpNode{opGe, x, lo}, &cmpNode{opLe, x, hi}}, nil
}

// parseOperand parses a column, a literal or a parenthesised predicate.
func (p *parser) parseOperand() (node, error) {
	t := p.next()
	switch t.kind {
	case tLParen:
		n, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tRParen {
			return nil, p.errAt(c, "want ), got %s", c.desc())
		}
		return n, nil
	case tNumber:
		v, err := parseNumber(t.text, false)
		if err != nil {
			return nil, p.errAt(t, "%v", err)
		}
		return &litNode{v: v}, nil
	case tString:
		return &litNode{v: value{k: kStr, s: t.text}, str: true}, nil
	case tOp:
		if t.text == "-" || t.text == "+" {
			n := p.next()
			if n.kind != tNumber {
				return nil, fmt.Errorf("%w at position %d: unary %s on %s (only on a number literal)", ErrUnsupported, t.pos+1, t.text, n.desc())
			}
			v, err := parseNumber(n.text, t.text == "-")
			if err != nil {
				return nil, p.errAt(n, "%v", err)
			}
			return &litNode{v: v}, nil
		}
		return nil, p.errAt(t, "unexpected %s", t.desc())
	case tQuotedIdent:
		return p.column(t)
	case tIdent:
		switch {
		case t.is("NULL"):
			return &litNode{v: value{k: kNull}}, nil
		case t.is("TRUE"), t.is("FALSE"):
			return &litNode{v: value{k: kBool, b: t.is("TRUE")}}, nil
		case t.is("DATE"), t.is("TIMESTAMP"), t.is("TIMESTAMP_LTZ"), t.is("TIMESTAMP_NTZ"):
			if s := p.peek(); s.kind == tString {
				p.next()
				k := kTS
				if t.is("DATE") {
					k = kDate
				}
				v, err := castString(s.text, k)
				if err != nil {
					return nil, p.errAt(s, "%v", err)
				}
				return &litNode{v: v}, nil
			}
		case t.is("AND"), t.is("OR"), t.is("NOT"), t.is("IN"), t.is("IS"), t.is("BETWEEN"):
			return nil, p.errAt(t, "unexpected %s", strings.ToUpper(t.text))
		}
		if n := p.peek(); n.kind == tLParen {
			return nil, fmt.Errorf("%w at position %d: function %s() (functions are not supported)", ErrUnsupported, t.pos+1, t.text)
		}
		return p.column(t)
	}
	return nil, p.errAt(t, "unexpected %s", t.desc())
}

func (p *parser) column(t token) (node, error) {
	return &colNode{name: t.text, idx: -1}, nil
}

// parseNumber types a numeric literal as Spark does: an integer, a decimal
// (1.5, 1.5BD) or a double (1e3, 1.5D, 1.5F).
func parseNumber(text string, neg bool) (value, error) {
	body := text
	upper := strings.ToUpper(text)
	isFloat := strings.ContainsAny(upper, "E")
	switch {
	case strings.HasSuffix(upper, "BD"):
		body, isFloat = text[:len(text)-2], false
	case strings.HasSuffix(upper, "D"), strings.HasSuffix(upper, "F"):
		body, isFloat = text[:len(text)-1], true
	case strings.HasSuffix(upper, "L"), strings.HasSuffix(upper, "S"), strings.HasSuffix(upper, "Y"):
		body = text[:len(text)-1]
		if strings.ContainsAny(body, ".") {
			return value{}, fmt.Errorf("bad integer literal %s", text)
		}
	}
	if strings.Count(body, ".") > 1 || body == "." || body == "" {
		return value{}, fmt.Errorf("bad number %s", text)
	}
	if neg {
		body = "-" + body
	}
	if isFloat {
		var f big.Float
		if _, ok := f.SetString(body); !ok {
			return value{}, fmt.Errorf("bad number %s", text)
		}
		x, _ := f.Float64()
		if math.IsInf(x, 0) {
			return value{}, fmt.Errorf("numeric literal %s does not fit in the range of a double", text)
		}
		return value{k: kNum, float: true, f: x}, nil
	}
	r, ok := new(big.Rat).SetString(body)
	if !ok {
		return value{}, fmt.Errorf("bad number %s", text)
	}
	return value{k: kNum, n: r}, nil
}
