// Package jsontape parses one JSON record into a tape of nodes (Tape.Parse)
// for Tributary's JSON reader: RFC 8259 widened by Spark's allow* options
// (Syntax), with the helpers that decode a node's text and write a value
// back as standard JSON.
package jsontape

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsonlines"
)

// Kind is the Kind of a JSON value.
type Kind uint8

const (
	KNull Kind = iota + 1
	KFalse
	KTrue
	KNumber
	KString
	KObject
	KArray
)

// maxRecord is the largest record parsed: node offsets are int32 (a Java
// array, hence a Spark record, cannot be larger either).
const maxRecord = math.MaxInt32 - 1

// MaxDepth bounds nesting, like Jackson's default maximum nesting depth.
const MaxDepth = 1000

// Node is one value of a parsed record. The values of a record are stored in
// document order on a tape; a container's children follow it, and next is
// the index just after the container's last descendant (for a leaf,
// index+1). An object's children alternate key (a string Node) and value.
type Node struct {
	Kind       Kind
	Esc        bool  // string node contains a backslash escape (or is bare)
	Bare       bool  // an unquoted field name (allowUnquotedFieldNames)
	ascii      bool  // string node holds only ASCII bytes
	Start, End int32 // byte span in the record (strings include the quotes)
	Next       int32
}

// Tape is a reusable parser for one record.
type Tape struct {
	B     []byte
	Nodes []Node
	// Owned says b is never reused or modified: decoded strings without
	// escapes may then point into it instead of copying (a 64 MB string
	// value is not held twice).
	Owned bool
	// Syn is the accepted JSON syntax (Spark's allow* options).
	Syn Syntax
	// Odd is set when the record parsed used syntax beyond standard JSON
	// (see jsonText).
	Odd bool
	// First ignores what follows the First value (multiLine: Spark's
	// parser reads one value from a file).
	First bool
	// arena holds copies of short decoded strings: one allocation for
	// many (an arena block stays alive while one of its strings does).
	arena []byte
}

// Arena sizes: strings up to arenaMaxString bytes are copied into blocks
// of arenaBlock bytes.
const (
	arenaBlock     = 32 << 10
	arenaMaxString = 1 << 10
)

// Keep returns a copy of b as a string.
func (t *Tape) Keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > arenaMaxString {
		return string(b)
	}
	if cap(t.arena)-len(t.arena) < len(b) {
		// Blocks grow from 2 KiB so that a small file does not pay for a
		// large one.
		t.arena = make([]byte, 0, min(max(2*cap(t.arena), 2<<10), arenaBlock))
	}
	l := len(t.arena)
	t.arena = append(t.arena, b...)
	return unsafe.String(&t.arena[l], len(b)) // never written again
}

// KeepUnescaped is Keep of AppendUnescaped(nil, s) (s the inside of a
// validated JSON string with escapes), decoded straight into the arena.
func (t *Tape) KeepUnescaped(s []byte) string {
	// The text is at most 3 bytes per byte of s (an invalid byte becomes
	// U+FFFD); were it longer, append would move the block, which only
	// costs a copy.
	if 3*len(s) > arenaMaxString {
		out := AppendUnescaped(make([]byte, 0, len(s)), s)
		if len(out) == 0 {
			return ""
		}
		return unsafe.String(&out[0], len(out)) // out is not used again
	}
	if cap(t.arena)-len(t.arena) < 3*len(s) {
		t.arena = make([]byte, 0, min(max(2*cap(t.arena), 2<<10), arenaBlock))
	}
	l := len(t.arena)
	t.arena = AppendUnescaped(t.arena, s)
	if len(t.arena) == l {
		return ""
	}
	return unsafe.String(&t.arena[l], len(t.arena)-l) // never written again
}

// syntaxError is a malformed-JSON error at a byte offset of the record.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.off, e.msg) }

// Parse parses b as exactly one JSON value surrounded by optional whitespace.
// The nodes refer to b, which must stay unchanged while they are used.
// Beyond RFC 8259, the unquoted numbers NaN, Infinity, +Infinity and
// -Infinity are accepted unless allowNonNumericNumbers is false (Spark's
// default accepts them, and Python's json module writes them); t.syn
// widens the syntax as Spark's allow* options do. A record that holds
// only comments returns errNoValue (it is skipped like a blank line).
func (t *Tape) Parse(b []byte) error {
	t.B = b
	t.Nodes = t.Nodes[:0]
	t.Odd = false
	if len(b) > maxRecord {
		return &syntaxError{0, fmt.Sprintf("record of %d bytes is larger than %d (2 GiB)", len(b), maxRecord)}
	}
	i := t.ws(0)
	if i == len(b) {
		if t.Syn.comments && !jsonlines.IsBlank(b) {
			return ErrNoValue
		}
		return &syntaxError{i, "empty record"}
	}
	i, err := t.value(i, 0)
	if err != nil {
		return err
	}
	if i = t.ws(i); i != len(b) && !t.First {
		return &syntaxError{i, "unexpected data after the JSON value"}
	}
	return nil
}

func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// leaf appends a finished leaf node.
func (t *Tape) leaf(k Kind, start, end int, esc, ascii bool) {
	n := int32(len(t.Nodes))
	t.Nodes = append(t.Nodes, Node{Kind: k, Esc: esc, ascii: ascii, Start: int32(start), End: int32(end), Next: n + 1})
}

func (t *Tape) push(k Kind, start int) int {
	t.Nodes = append(t.Nodes, Node{Kind: k, Start: int32(start)})
	return len(t.Nodes) - 1
}

// value parses the value at b[i] (no leading whitespace) and returns the
// offset after it.
func (t *Tape) value(i, depth int) (int, error) {
	b := t.B
	if i >= len(b) {
		return i, &syntaxError{i, "unexpected end of record"}
	}
	switch c := b[i]; {
	case c == '{':
		return t.container(i, depth, KObject)
	case c == '[':
		return t.container(i, depth, KArray)
	case c == '"':
		return t.str(i)
	case c == '\'' && t.Syn.singleQuotes:
		t.Odd = true
		return t.str(i)
	case c == 't':
		return t.literal(i, "true", KTrue)
	case c == 'f':
		return t.literal(i, "false", KFalse)
	case c == 'n':
		return t.literal(i, "null", KNull)
	case (c == 'N' || c == 'I' || c == '+' || (c == '-' && i+1 < len(b) && b[i+1] == 'I')) && t.Syn.noNonNumeric:
		return i, &syntaxError{i, "non-numeric number (allowNonNumericNumbers is false)"}
	case c == 'N':
		return t.literal(i, "NaN", KNumber)
	case c == 'I':
		return t.literal(i, "Infinity", KNumber)
	case c == '+':
		return t.literal(i, "+Infinity", KNumber)
	case c == '-' && i+1 < len(b) && b[i+1] == 'I':
		return t.literal(i, "-Infinity", KNumber)
	case c == '-' || (c >= '0' && c <= '9'):
		return t.number(i)
	default:
		return i, &syntaxError{i, fmt.Sprintf("invalid character %q looking for a value", c)}
	}
}

func (t *Tape) literal(i int, lit string, k Kind) (int, error) {
	if len(t.B)-i < len(lit) || string(t.B[i:i+len(lit)]) != lit {
		return i, &syntaxError{i, "invalid literal, want " + strconv.Quote(lit)}
	}
	t.leaf(k, i, i+len(lit), false, false)
	return i + len(lit), nil
}

func (t *Tape) number(i int) (int, error) {
	b, start := t.B, i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
		if t.Syn.leadingZeros && i < len(b) && b[i] >= '0' && b[i] <= '9' {
			t.Odd = true
			for i < len(b) && b[i] >= '0' && b[i] <= '9' {
				i++
			}
		}
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return i, &syntaxError{i, "invalid number"}
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return i, &syntaxError{i, "invalid number: no digits after the decimal point"}
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return i, &syntaxError{i, "invalid number: no digits in the exponent"}
		}
	}
	t.leaf(KNumber, start, i, false, false)
	return i, nil
}

func (t *Tape) str(i int) (int, error) {
	b, start := t.B, i
	quote := b[i]
	i++
	esc := false
	var hi uint64 // the bytes seen, or-ed: bit 7 set when one is not ASCII
	for {
		// Skip 8 plain bytes at a time (no quote, backslash or control
		// character among them).
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			if !plain8(x, quote) {
				break
			}
			hi |= x
			i += 8
		}
		if i >= len(b) {
			return i, &syntaxError{start, "unterminated string"}
		}
		c := b[i]
		switch {
		case c == quote:
			t.leaf(KString, start, i+1, esc, hi&msb8 == 0)
			return i + 1, nil
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return i, &syntaxError{i, "unterminated escape"}
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex4(b[i+2:i+6]) {
					return i, &syntaxError{i, `invalid \u escape`}
				}
				i += 6
			default:
				if !t.Syn.anyEscape && !(b[i+1] == '\'' && t.Syn.singleQuotes) {
					return i, &syntaxError{i, fmt.Sprintf("invalid escape %q", b[i+1])}
				}
				t.Odd = true
				i += 2
			}
		case c < 0x20:
			if !t.Syn.controlChars {
				return i, &syntaxError{i, "control character in string"}
			}
			t.Odd = true
			i++
		default:
			hi |= uint64(c)
			i++
		}
	}
}

// SWAR constants: each byte 0x01 and 0x80.
const (
	lsb8 = 0x0101010101010101
	msb8 = 0x8080808080808080
)

// plain8 reports whether none of the 8 bytes of x is quote, a backslash or
// a control character (< 0x20).
func plain8(x uint64, quote byte) bool {
	q := x ^ (lsb8 * uint64(quote))
	bs := x ^ (lsb8 * '\\')
	// Each term is non-zero exactly when some byte of q (of bs) is zero,
	// or some byte of x is below 0x20 (Hacker's Delight's haszero and
	// hasless).
	z := (q-lsb8)&^q | (bs-lsb8)&^bs | (x-lsb8*0x20)&^x
	return z&msb8 == 0
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func (t *Tape) container(i, depth int, k Kind) (int, error) {
	if depth >= MaxDepth {
		return i, &syntaxError{i, fmt.Sprintf("nesting deeper than %d", MaxDepth)}
	}
	b := t.B
	n := t.push(k, i)
	closer := byte('}')
	if k == KArray {
		closer = ']'
	}
	if i++; i >= len(b) || b[i] <= ' ' || b[i] == '/' {
		i = t.ws(i)
	}
	if i < len(b) && b[i] == closer {
		t.Nodes[n].End = int32(i + 1)
		t.Nodes[n].Next = int32(len(t.Nodes))
		return i + 1, nil
	}
	for {
		var err error
		if k == KObject {
			switch {
			case i < len(b) && (b[i] == '"' || b[i] == '\'' && t.Syn.singleQuotes):
				t.Odd = t.Odd || b[i] == '\''
				if i, err = t.str(i); err != nil {
					return i, err
				}
			case i < len(b) && t.Syn.unquotedNames && isNameByte(b[i]):
				i = t.bareName(i)
			default:
				return i, &syntaxError{i, "expected a string object key"}
			}
			if i >= len(b) || b[i] <= ' ' || b[i] == '/' { // not the common compact case
				i = t.ws(i)
			}
			if i >= len(b) || b[i] != ':' {
				return i, &syntaxError{i, "expected ':' after object key"}
			}
			if i++; i >= len(b) || b[i] <= ' ' || b[i] == '/' {
				i = t.ws(i)
			}
		}
		if i, err = t.value(i, depth+1); err != nil {
			return i, err
		}
		if i >= len(b) || b[i] <= ' ' || b[i] == '/' { // not the common compact case
			i = t.ws(i)
		}
		if i >= len(b) {
			return i, &syntaxError{i, "unexpected end of record"}
		}
		if b[i] == closer {
			t.Nodes[n].End = int32(i + 1)
			t.Nodes[n].Next = int32(len(t.Nodes))
			return i + 1, nil
		}
		if b[i] != ',' {
			return i, &syntaxError{i, fmt.Sprintf("expected ',' or %q", closer)}
		}
		if i++; i >= len(b) || b[i] <= ' ' || b[i] == '/' {
			i = t.ws(i)
		}
	}
}

// Raw is the JSON text of node n.
func (t *Tape) Raw(n int) []byte { return t.B[t.Nodes[n].Start:t.Nodes[n].End] }

// Text returns the decoded value of string node n. Invalid UTF-8 and
// unpaired surrogates become U+FFFD, as encoding/json does.
func (t *Tape) Text(n int) string {
	nd := &t.Nodes[n]
	if nd.Bare {
		return string(t.B[nd.Start:nd.End])
	}
	s := t.B[nd.Start+1 : nd.End-1]
	if !nd.Esc {
		if nd.ascii || utf8.Valid(s) {
			if t.Owned && len(s) > 0 {
				return unsafe.String(&s[0], len(s))
			}
			return t.Keep(s)
		}
		return string([]rune(string(s))) // replaces invalid bytes with U+FFFD
	}
	out := AppendUnescaped(make([]byte, 0, len(s)), s)
	if len(out) == 0 {
		return ""
	}
	return unsafe.String(&out[0], len(out)) // out is not used again
}

// AppendUnescaped appends the decoded text of s, the inside of a
// validated JSON string with escapes, to out: invalid UTF-8 and unpaired
// surrogates become U+FFFD, as encoding/json does.
func AppendUnescaped(out, s []byte) []byte {
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			// The text up to the next backslash: as it is when valid
			// UTF-8 (what decoding it rune by rune gives), else rune by
			// rune (no multi-byte character holds a backslash byte).
			j := bytes.IndexByte(s[i:], '\\')
			if j < 0 {
				j = len(s)
			} else {
				j += i
			}
			if run := s[i:j]; utf8.Valid(run) {
				out = append(out, run...)
				i = j
				continue
			}
			for i < j {
				if c := s[i]; c < utf8.RuneSelf {
					out = append(out, c)
					i++
					continue
				}
				r, size := utf8.DecodeRune(s[i:j])
				out = utf8.AppendRune(out, r)
				i += size
			}
			continue
		}
		switch s[i+1] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(s[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2 = hex4(s[i+2 : i+6])
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					i += 6
					r = dec
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // '"', '\\', '/', and any character with allowBackslashEscapingAnyCharacter
			if s[i+1] >= utf8.RuneSelf {
				i++ // the escaped character is multi-byte: keep it whole
				continue
			}
			out = append(out, s[i+1])
		}
		i += 2
	}
	return out
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		default:
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// IsIntegral reports whether number node n is written as an integer.
func (t *Tape) IsIntegral(n int) bool {
	for _, c := range t.Raw(n) {
		if c == '.' || c == 'e' || c == 'E' || c == 'N' || c == 'I' {
			return false
		}
	}
	return true
}
