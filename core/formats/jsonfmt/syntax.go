package jsonfmt

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// errNoValue is returned by tape.parse for a record that holds only
// comments (allowComments): it is skipped like a blank line, as Spark's
// parser finds no token in it.
var errNoValue = errors.New("record holds only comments")

// syntax is the JSON syntax a tape accepts beyond RFC 8259: Spark's
// allow* JSON options (Jackson's parser features of the same meaning).
type syntax struct {
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
	set  func(s *syntax, v bool)
}{
	{"allowComments", false, func(s *syntax, v bool) { s.comments = v }},
	{"allowUnquotedFieldNames", false, func(s *syntax, v bool) { s.unquotedNames = v }},
	{"allowSingleQuotes", true, func(s *syntax, v bool) { s.singleQuotes = v }},
	{"allowNumericLeadingZeros", false, func(s *syntax, v bool) { s.leadingZeros = v }},
	{"allowBackslashEscapingAnyCharacter", false, func(s *syntax, v bool) { s.anyEscape = v }},
	{"allowUnquotedControlChars", false, func(s *syntax, v bool) { s.controlChars = v }},
	{"allowNonNumericNumbers", true, func(s *syntax, v bool) { s.noNonNumeric = !v }},
}

// parseSyntax reads the allow* options from a format's options (names
// compared case-insensitively, values "true"/"false"; a missing option
// has Spark's default).
func parseSyntax(opts map[string]string) (syntax, error) {
	var s syntax
	for _, o := range syntaxOptions {
		v, ok := lookup(opts, o.name)
		b := o.def
		if ok {
			var err error
			if b, err = strconv.ParseBool(strings.TrimSpace(v)); err != nil {
				return syntax{}, fmt.Errorf("%w: %s=%q: want true or false", fileformat.ErrBadOption, o.name, v)
			}
		}
		o.set(&s, b)
	}
	return s, nil
}

// lookup finds an option by name, case-insensitively.
func lookup(opts map[string]string, name string) (string, bool) {
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
func (t *tape) ws(i int) int {
	i = skipWS(t.b, i)
	if !t.syn.comments {
		return i
	}
	b := t.b
	for i+1 < len(b) && b[i] == '/' {
		switch b[i+1] {
		case '/':
			j := i + 2
			for j < len(b) && b[j] != '\n' && b[j] != '\r' {
				j++
			}
			i, t.odd = j, true
		case '*':
			end := strings.Index(string(b[i+2:]), "*/")
			if end < 0 {
				return i // unterminated: the parser reports the '/'
			}
			i, t.odd = i+2+end+2, true
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
func (t *tape) bareName(i int) int {
	start := i
	for i < len(t.b) && isNameByte(t.b[i]) {
		i++
	}
	n := t.push(kString, start)
	t.nodes[n].end = int32(i)
	t.nodes[n].esc, t.nodes[n].bare = true, true // never sliced as a quoted string
	t.odd = true
	t.nodes[n].next = int32(n + 1)
	return i
}

// jsonText is node n as compact standard JSON: its raw text when the
// record used standard syntax only, else written anew (quoted names, double-quoted
// strings, no comments or leading zeros), as Spark re-serialises what
// Jackson parsed. NaN and the infinities become strings, as in
// fileformat.CompactJSON.
func (t *tape) jsonText(dst []byte, n int) []byte {
	if !t.odd {
		return fileformat.CompactJSON(dst, t.raw(n))
	}
	nd := &t.nodes[n]
	switch nd.kind {
	case kString:
		return fileformat.AppendJSONString(dst, t.text(n))
	case kNumber:
		return fileformat.CompactJSON(dst, trimLeadingZeros(t.raw(n)))
	case kObject, kArray:
		open, closer := byte('{'), byte('}')
		if nd.kind == kArray {
			open, closer = '[', ']'
		}
		dst = append(dst, open)
		for c, first := n+1, true; c < int(nd.next); first = false {
			if !first {
				dst = append(dst, ',')
			}
			if nd.kind == kObject {
				dst = fileformat.AppendJSONString(dst, t.text(c))
				dst = append(dst, ':')
				c = int(t.nodes[c].next)
			}
			dst = t.jsonText(dst, c)
			c = int(t.nodes[c].next)
		}
		return append(dst, closer)
	default:
		return append(dst, t.raw(n)...)
	}
}

// trimLeadingZeros drops a number's leading zeros (007 is 7, -00.5 is
// -0.5), as Jackson does with allowNumericLeadingZeros.
func trimLeadingZeros(raw []byte) []byte {
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

// valueJSON is node n's text for the rescued data column: its raw text
// (compacted by the rescue) unless the record used non-standard syntax.
func (t *tape) valueJSON(n int) []byte {
	if t.odd {
		return t.jsonText(nil, n)
	}
	return t.raw(n)
}

// multiLine reads the multiLine option: true makes a file one JSON value
// (an object, or an array of objects) instead of one per line.
func multiLine(opts map[string]string) (bool, error) {
	v, ok := lookup(opts, "multiLine")
	if !ok {
		return false, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, fmt.Errorf("%w: multiLine=%q: want true or false", fileformat.ErrBadOption, v)
	}
	return b, nil
}
