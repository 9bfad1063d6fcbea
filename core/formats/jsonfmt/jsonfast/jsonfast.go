// Package jsonfast decodes the common JSON-lines record straight into a
// parquetio.ColumnBatch for a known schema, in one pass over its bytes and
// without a tape: a top-level object in standard JSON whose keys each name
// a field exactly, once, with values that fit their columns as they are
// (strings, longs, doubles, booleans, nulls, structs and arrays of them).
// Anything else (an unknown or repeated key, a value of another type, a
// column type it does not decode, invalid UTF-8, syntax beyond RFC 8259, a
// malformed record) makes Decode return false, and the caller drops what was
// appended and decodes the record with its general (tape) path, which
// handles every rule. What Decode appends is what that path appends for the
// same record.
package jsonfast

import (
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/tributary-io/tributary/core/formats/jsonfmt/internal/jsonlex"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsontape"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// kind is how a node's values are decoded.
type kind uint8

const (
	kOther kind = iota // through Decoder.Other
	kString
	kLong
	kDouble
	kBool
	kStruct
	kList
)

// maxGuess bounds the member positions whose field is remembered.
const maxGuess = 64

// node is a schema node compiled for decoding.
type node struct {
	kind kind
	col  *parquetio.ColNode
	kids []*node // struct: fields; list: [element]
	// Struct: field names; exact maps a name to its field (the first of
	// equal names; skipped fields are absent).
	names []string
	// words are the names of up to 8 bytes as little-endian integers,
	// with the mask of their bytes (0: longer or empty), compared with
	// one load.
	words []nameWord
	exact map[string]int
	// guess is, per member position, the field the last object had there
	// (-1: none); guessable says a field's name can be compared raw
	// (no quote, backslash or control character in it).
	guess     []int
	guessable []bool
	// seen[i] == gen when field i was set in the object being decoded.
	seen []uint32
	gen  uint32
}

// Decoder decodes records of one schema into column batches.
type Decoder struct {
	root  *node
	bound *parquetio.ColNode
	// Other, if set, decodes a non-null scalar of a leaf of another type
	// than string, long, double and boolean: raw is its standard JSON text
	// (a string with its quotes, a number, true or false), to be appended
	// to leaf col of b at repetition level r (its parent defined at level
	// d). It returns false when the value does not fit (nothing appended).
	// Without it, such values fall back.
	Other func(b *parquetio.ColumnBatch, col *parquetio.ColNode, raw []byte, r, d int) bool
	// unesc holds the text of the last string with escapes decoded (the
	// batch copies what ByteArray appends).
	unesc []byte
}

// New compiles a decoder for rows of schema s into batches whose root is
// root (NewColumnBatch(s).Root()). Top-level field skip (>= 0) is never
// matched by a key (the rescued data column): such a key falls back.
// ok is false when the schema holds a map, which Decode does not cover.
func New(s *schema.StructType, root *parquetio.ColNode, skip int) (*Decoder, bool) {
	n, ok := compile(s, root, skip)
	if !ok {
		return nil, false
	}
	return &Decoder{root: n, bound: root}, true
}

func compile(t schema.Type, c *parquetio.ColNode, skip int) (*node, bool) {
	n := &node{col: c}
	switch c.Kind {
	case parquetio.ColStruct:
		st, ok := t.(*schema.StructType)
		if !ok || len(st.Fields) != len(c.Children) {
			return nil, false
		}
		n.kind = kStruct
		n.exact = make(map[string]int, len(st.Fields))
		for i, f := range st.Fields {
			k, ok := compile(f.Type, c.Children[i], -1)
			if !ok {
				return nil, false
			}
			n.kids = append(n.kids, k)
			n.names = append(n.names, f.Name)
			w, mask := jsontape.NameWord(f.Name)
			n.words = append(n.words, nameWord{w: w, mask: mask})
			n.guessable = append(n.guessable, jsontape.RawName(f.Name))
			if _, dup := n.exact[f.Name]; !dup && i != skip {
				n.exact[f.Name] = i
			}
		}
		n.seen = make([]uint32, len(st.Fields))
	case parquetio.ColList:
		at, ok := t.(*schema.ArrayType)
		if !ok || len(c.Children) != 1 {
			return nil, false
		}
		k, ok := compile(at.Element, c.Children[0], -1)
		if !ok {
			return nil, false
		}
		n.kind, n.kids = kList, []*node{k}
	case parquetio.ColLeaf:
		switch t {
		case schema.String:
			n.kind = kString
		case schema.Long:
			n.kind = kLong
		case schema.Double:
			n.kind = kDouble
		case schema.Boolean:
			n.kind = kBool
		}
	default:
		return nil, false
	}
	return n, true
}

// nameWord is a name of 1 to 8 bytes as a little-endian integer w, its
// bytes those of mask (mask 0: another length); see jsontape.NameWord.
type nameWord struct{ w, mask uint64 }

// rebind points the decoder's column nodes at root's (another batch of
// the same schema).
func (d *Decoder) rebind(root *parquetio.ColNode) {
	var walk func(n *node, c *parquetio.ColNode)
	walk = func(n *node, c *parquetio.ColNode) {
		n.col = c
		for i, k := range n.kids {
			walk(k, c.Children[i])
		}
	}
	walk(d.root, root)
	d.bound = root
}

// state is one Decode call's input.
type state struct {
	b     *parquetio.ColumnBatch
	line  []byte
	d     *Decoder
	other func(b *parquetio.ColumnBatch, col *parquetio.ColNode, raw []byte, r, d int) bool
}

// Decode appends line's record to b as one row (EndRow included) and
// returns true; false means the record is not one it decodes, and b may
// hold part of it: the caller drops the row being built (b.Drop to a Mark
// taken before) and decodes the line otherwise. The batch copies the
// strings it is given (ColumnBatch.ByteArray), so line may be reused
// afterwards.
func (d *Decoder) Decode(line []byte, b *parquetio.ColumnBatch) bool {
	if r := b.Root(); r != d.bound {
		d.rebind(r)
	}
	s := state{b: b, line: line, d: d, other: d.Other}
	i := jsonlex.Space(line, 0)
	if i >= len(line) || line[i] != '{' {
		return false
	}
	i, ok := s.object(d.root, i, 0)
	if !ok || jsonlex.Space(line, i) != len(line) {
		return false
	}
	b.EndRow()
	return true
}

// object decodes the object at line[i] ('{') as struct n's value at
// repetition level r and returns the offset after it.
func (s *state) object(n *node, i, r int) (int, bool) {
	line := s.line
	n.gen++
	if n.gen == 0 {
		clear(n.seen)
		n.gen = 1
	}
	gen := n.gen
	if i = jsonlex.Space(line, i+1); i < len(line) && line[i] == '}' {
		i++
	} else {
		for pos := 0; ; pos++ {
			if i >= len(line) || line[i] != '"' {
				return i, false
			}
			idx := -1
			if pos < len(n.guess) {
				if g := n.guess[pos]; g >= 0 {
					name := n.names[g]
					if e := i + 1 + len(name); e < len(line) && line[e] == '"' {
						var same bool
						if w := n.words[g]; w.mask != 0 && i+9 <= len(line) {
							same = binary.LittleEndian.Uint64(line[i+1:])&w.mask == w.w
						} else {
							same = string(line[i+1:e]) == name
						}
						if same {
							idx, i = g, e+1
						}
					}
				}
			}
			if idx < 0 {
				j, esc, _, ok := str(line, i)
				if !ok || esc {
					return i, false
				}
				f, found := n.exact[string(line[i+1:j-1])]
				if !found {
					return i, false
				}
				if pos < maxGuess && n.guessable[f] {
					for len(n.guess) <= pos {
						n.guess = append(n.guess, -1)
					}
					n.guess[pos] = f
				}
				idx, i = f, j
			}
			if i = jsonlex.Space(line, i); i >= len(line) || line[i] != ':' {
				return i, false
			}
			if n.seen[idx] == gen {
				return i, false // a repeated key
			}
			n.seen[idx] = gen
			var ok bool
			if i, ok = s.value(n.kids[idx], jsonlex.Space(line, i+1), r, n.col.Def); !ok {
				return i, false
			}
			if i = jsonlex.Space(line, i); i >= len(line) {
				return i, false
			}
			if line[i] == '}' {
				i++
				break
			}
			if line[i] != ',' {
				return i, false
			}
			i = jsonlex.Space(line, i+1)
		}
	}
	for k, kid := range n.kids {
		if n.seen[k] != gen {
			s.b.Null(kid.col, r, n.col.Def)
		}
	}
	return i, true
}

// value decodes the value at line[i] as node n's at repetition level r,
// whose parent is defined at level d, and returns the offset after it.
func (s *state) value(n *node, i, r, d int) (int, bool) {
	line := s.line
	if i >= len(line) {
		return i, false
	}
	c := line[i]
	if c == 'n' {
		if !lit(line, i, "null") {
			return i, false
		}
		s.b.Null(n.col, r, d)
		return i + 4, true
	}
	switch n.kind {
	case kStruct:
		if c != '{' {
			return i, false
		}
		return s.object(n, i, r)
	case kList:
		if c != '[' {
			return i, false
		}
		if i = jsonlex.Space(line, i+1); i < len(line) && line[i] == ']' {
			s.b.Null(n.col, r, n.col.Def) // empty list
			return i + 1, true
		}
		elem := n.kids[0]
		for rr := r; ; rr = n.col.ElemRep {
			var ok bool
			if i, ok = s.value(elem, i, rr, n.col.ElemDef); !ok {
				return i, false
			}
			if i = jsonlex.Space(line, i); i >= len(line) {
				return i, false
			}
			if line[i] == ']' {
				return i + 1, true
			}
			if line[i] != ',' {
				return i, false
			}
			i = jsonlex.Space(line, i+1)
		}
	case kString:
		switch {
		case c == '"':
			j, esc, ascii, ok := str(line, i)
			if !ok {
				return i, false
			}
			raw := line[i+1 : j-1]
			switch {
			case esc:
				s.d.unesc = jsontape.AppendUnescaped(s.d.unesc[:0], raw)
				s.b.ByteArray(n.col, s.d.unesc, r)
			case !ascii && !utf8.Valid(raw):
				return i, false
			default:
				s.b.ByteArray(n.col, raw, r)
			}
			return j, true
		case c == 't' || c == 'f':
			w := "true"
			if c == 'f' {
				w = "false"
			}
			if !lit(line, i, w) {
				return i, false
			}
			s.b.ByteArray(n.col, unsafe.Slice(unsafe.StringData(w), len(w)), r)
			return i + len(w), true
		case c == '-' || c >= '0' && c <= '9':
			j, _, ok := jsonlex.Number(line, i)
			if !ok {
				return i, false
			}
			s.b.ByteArray(n.col, line[i:j], r)
			return j, true
		}
	case kLong:
		if c == '-' || c >= '0' && c <= '9' {
			j, nm, ok := numberDigits(line, i)
			if !ok || nm.frac > 0 || nm.exp || nm.digits > 18 {
				return i, false // not an integer, or one parseLong refuses
			}
			v := int64(nm.m)
			if c == '-' {
				v = -v
			}
			s.b.Int64(n.col, v, r)
			return j, true
		}
	case kDouble:
		if c == '-' || c >= '0' && c <= '9' {
			j, nm, ok := numberDigits(line, i)
			if !ok {
				return i, false
			}
			var f float64
			if !nm.exp && nm.m < 1<<52 && nm.frac < len(pow10) {
				f = float64(nm.m) / pow10[nm.frac] // exactFloat's result
				if c == '-' {
					f = -f
				}
			} else {
				raw := line[i:j]
				f, _ = strconv.ParseFloat(unsafe.String(&raw[0], len(raw)), 64) // range errors give ±Inf or 0, as the tape path reads them
			}
			s.b.Double(n.col, f, r)
			return j, true
		}
	case kOther:
		if s.other == nil {
			return i, false
		}
		j, ok := i, false
		switch {
		case c == '"':
			j, _, _, ok = str(line, i)
		case c == '-' || c >= '0' && c <= '9':
			j, _, ok = jsonlex.Number(line, i)
		case c == 't':
			j, ok = i+4, lit(line, i, "true")
		case c == 'f':
			j, ok = i+5, lit(line, i, "false")
		}
		if !ok || !s.other(s.b, n.col, line[i:j], r, d) {
			return i, false
		}
		return j, true
	case kBool:
		switch {
		case c == 't' && lit(line, i, "true"):
			s.b.Boolean(n.col, true, r)
			return i + 4, true
		case c == 'f' && lit(line, i, "false"):
			s.b.Boolean(n.col, false, r)
			return i + 5, true
		}
	}
	return i, false
}

// lit reports whether line[i:] starts with w.
func lit(line []byte, i int, w string) bool {
	return len(line)-i >= len(w) && string(line[i:i+len(w)]) == w
}

// digitsOf is what numberDigits reads of a number token.
type digitsOf struct {
	// m is the token's digits (integer and fraction parts) read as one
	// integer: exact below 2^60, at least 2^60 otherwise (it stops
	// growing there).
	m uint64
	// digits counts the integer part's digits, frac the fraction's.
	digits, frac int
	exp          bool // an exponent follows
}

// numberDigits scans the JSON number at b[i] as jsonlex.Number does (the
// offset after it; not ok for anything RFC 8259 does not write as a
// number), but for a leading zero: it takes the "0" alone and leaves the
// digit after it to its caller, which refuses it as it refuses any byte
// but white space, ',', '}' or ']' after a value (one test less on every
// number starting with 0). It also reads the digits, in the same pass: an
// integral token of up to 18 digits is m (parseLong's value), and one
// without an exponent, m below 2^52 and frac below len(pow10) converts
// as float64(m)/pow10[frac] (exactFloat's condition and result).
func numberDigits(b []byte, i int) (end int, nm digitsOf, ok bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
		nm.digits = 1
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		d := i
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if nm.m < 1<<60 {
				nm.m = nm.m*10 + uint64(b[i]-'0')
			}
		}
		nm.digits = i - d
	default:
		return i, nm, false
	}
	if i < len(b) && b[i] == '.' {
		d := i + 1
		for i = d; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if nm.m < 1<<60 {
				nm.m = nm.m*10 + uint64(b[i]-'0')
			}
		}
		if i == d {
			return i, nm, false
		}
		nm.frac = i - d
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		nm.exp = true
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
		if i == d {
			return i, nm, false
		}
	}
	return i, nm, true
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// SWAR constants: each byte 0x01 and 0x80.
const (
	lsb8 = 0x0101010101010101
	msb8 = 0x8080808080808080
)

// str scans the double-quoted string at b[i] and returns the offset after
// its closing quote, whether it holds an escape, and whether it is all
// ASCII. ok is false for anything standard JSON does not allow in a string.
func str(b []byte, i int) (end int, esc, ascii, ok bool) {
	i++
	var hi uint64
	for {
		// 8 bytes at a time while none is a quote, a backslash or a
		// control character.
		for i+8 <= len(b) {
			x := binary.LittleEndian.Uint64(b[i:])
			q := x ^ (lsb8 * '"')
			bs := x ^ (lsb8 * '\\')
			if m := ((q-lsb8)&^q | (bs-lsb8)&^bs | (x-lsb8*0x20)&^x) & msb8; m != 0 {
				// The lowest flag is exact (a borrow only moves up): the
				// k bytes below it are plain; go to the flagged one.
				k := bits.TrailingZeros64(m) >> 3
				hi |= x & (1<<(8*k) - 1)
				i += k
				break
			}
			hi |= x
			i += 8
		}
		if i >= len(b) {
			return i, false, false, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc, hi&msb8 == 0, true
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return i, false, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !hex4(b[i+2:i+6]) {
					return i, false, false, false
				}
				i += 6
			default:
				return i, false, false, false
			}
		case c < 0x20:
			return i, false, false, false
		default:
			hi |= uint64(c)
			i++
		}
	}
}

func hex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
