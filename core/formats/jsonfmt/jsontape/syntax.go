package jsontape

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// ErrNoValue is returned by tape.parse for a record that holds only
// comments (allowComments): it is skipped like a blank line, as Spark's
// parser finds no token in it.
var ErrNoValue = errors.New("record holds only comments")

// Syntax is the JSON Syntax a tape accepts beyond RFC 8259: Spark's
// allow* JSON options (Jackson's parser features of the same meaning).
type Syntax struct {
	comments      bool // allowComments: /* */ and // comments
	unquotedNames bool // allowUnquotedFieldNames: {a: 1}
	singleQuotes  bool // allowSingleQuotes: {'a': 'x'}
	leadingZeros  bool // allowNumericLeadingZeros: 007
	anyEscape     bool // allowBackslashEscapingAnyCharacter: "\q" is q
	controlChars  bool // allowUnquotedControlChars: raw tabs and newlines in strings
	noNonNumeric  bool // allowNonNumericNumbers=false: NaN, Infinity refused
}

// syntaxOptions are the JSON parser options by documented name, with
// Spark's defaults.
var syntaxOptions = []struct {
	name string
	def  bool
	set  func(s *Syntax, v bool)
}{
	{"allowComments", false, func(s *Syntax, v bool) { s.comments = v }},
	{"allowUnquotedFieldNames", false, func(s *Syntax, v bool) { s.unquotedNames = v }},
	{"allowSingleQuotes", true, func(s *Syntax, v bool) { s.singleQuotes = v }},
	{"allowNumericLeadingZeros", false, func(s *Syntax, v bool) { s.leadingZeros = v }},
	{"allowBackslashEscapingAnyCharacter", false, func(s *Syntax, v bool) { s.anyEscape = v }},
	{"allowUnquotedControlChars", false, func(s *Syntax, v bool) { s.controlChars = v }},
	{"allowNonNumericNumbers", true, func(s *Syntax, v bool) { s.noNonNumeric = !v }},
}

// ParseSyntax reads the allow* options from a format's options (names
// compared case-insensitively, values "true"/"false"; a missing option
// has Spark's default).
func ParseSyntax(opts map[string]string) (Syntax, error) {
	var s Syntax
	for _, o := range syntaxOptions {
		v, ok := Lookup(opts, o.name)
		b := o.def
		if ok {
			var err error
			if b, err = strconv.ParseBool(strings.TrimSpace(v)); err != nil {
				return Syntax{}, fmt.Errorf("%w: %s=%q: want true or false", fileformat.ErrBadOption, o.name, v)
			}
		}
		o.set(&s, b)
	}
	return s, nil
}

// Lookup finds an option by name, case-insensitively.
func Lookup(opts map[string]string, name string) (string, bool) {
	if v, ok := opts[name]; ok {
		return v, true
	}
	for k, v := range opts {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// ws skips white space and, with allowComments, comments.
func (t *Tape) ws(i int) int {
	i = skipWS(t.B, i)
	if !t.Syn.comments {
		return i
	}
	b := t.B
	for i+1 < len(b) && b[i] == '/' {
		switch b[i+1] {
		case '/':
			j := i + 2
			for j < len(b) && b[j] != '\n' && b[j] != '\r' {
				j++
			}
			i, t.Odd = j, true
		case '*':
			end := strings.Index(string(b[i+2:]), "*/")
			if end < 0 {
				return i // unterminated: the parser reports the '/'
			}
			i, t.Odd = i+2+end+2, true
		default:
			return i
		}
		i = skipWS(b, i)
	}
	return i
}

// isNameByte reports whether c may appear in an unquoted field name
// (Jackson: letters, digits, '_', '$' and any non-ASCII character).
func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c >= 0x80
}

// bareName records the unquoted field name at b[i] and returns the offset
// after it.
func (t *Tape) bareName(i int) int {
	start := i
	for i < len(t.B) && isNameByte(t.B[i]) {
		i++
	}
	n := t.push(KString, start)
	t.Nodes[n].End = int32(i)
	t.Nodes[n].Esc, t.Nodes[n].Bare = true, true // never sliced as a quoted string
	t.Odd = true
	t.Nodes[n].Next = int32(n + 1)
	return i
}

// JSONText is node n as compact standard JSON: its raw text when the
// record used standard syntax only, else written anew (quoted names, double-quoted
// strings, no comments or leading zeros), as Spark re-serialises what
// Jackson parsed. NaN and the infinities become strings, as in
// fileformat.CompactJSON.
func (t *Tape) JSONText(dst []byte, n int) []byte {
	if !t.Odd {
		return fileformat.CompactJSON(dst, t.Raw(n))
	}
	nd := &t.Nodes[n]
	switch nd.Kind {
	case KString:
		return fileformat.AppendJSONString(dst, t.Text(n))
	case KNumber:
		return fileformat.CompactJSON(dst, TrimLeadingZeros(t.Raw(n)))
	case KObject, KArray:
		open, closer := byte('{'), byte('}')
		if nd.Kind == KArray {
			open, closer = '[', ']'
		}
		dst = append(dst, open)
		for c, first := n+1, true; c < int(nd.Next); first = false {
			if !first {
				dst = append(dst, ',')
			}
			if nd.Kind == KObject {
				dst = fileformat.AppendJSONString(dst, t.Text(c))
				dst = append(dst, ':')
				c = int(t.Nodes[c].Next)
			}
			dst = t.JSONText(dst, c)
			c = int(t.Nodes[c].Next)
		}
		return append(dst, closer)
	default:
		return append(dst, t.Raw(n)...)
	}
}

// TrimLeadingZeros drops a number's leading zeros (007 is 7, -00.5 is
// -0.5), as Jackson does with allowNumericLeadingZeros.
func TrimLeadingZeros(raw []byte) []byte {
	neg := len(raw) > 0 && raw[0] == '-'
	digits := raw
	if neg {
		digits = raw[1:]
	}
	i := 0
	for i+1 < len(digits) && digits[i] == '0' && digits[i+1] >= '0' && digits[i+1] <= '9' {
		i++
	}
	if i == 0 {
		return raw
	}
	if neg {
		return append([]byte{'-'}, digits[i:]...)
	}
	return digits[i:]
}

// SourceText is node n as a string column reads it: a string's decoded
// text (Text), anything else (a number, an object, an array, true or false)
// exactly as the record wrote it, white space, comments, quotes and leading
// zeros included, as Spark 4 does (spark.sql.json.enableExactStringParsing,
// on by default). Invalid UTF-8 becomes U+FFFD, as in Text.
func (t *Tape) SourceText(n int) string {
	if t.Nodes[n].Kind == KString {
		return t.Text(n)
	}
	raw := t.Raw(n)
	if !utf8.Valid(raw) {
		return strings.ToValidUTF8(string(raw), "\uFFFD")
	}
	return t.Keep(raw)
}

// ValueJSON is node n's text for the rescued data column: its raw text
// (compacted by the rescue) unless the record used non-standard syntax.
func (t *Tape) ValueJSON(n int) []byte {
	if t.Odd {
		return t.JSONText(nil, n)
	}
	return t.Raw(n)
}

// MultiLine reads the MultiLine option: true makes a file one JSON value
// (an object, or an array of objects) instead of one per line.
func MultiLine(opts map[string]string) (bool, error) {
	v, ok := Lookup(opts, "multiLine")
	if !ok {
		return false, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, fmt.Errorf("%w: multiLine=%q: want true or false", fileformat.ErrBadOption, v)
	}
	return b, nil
}
