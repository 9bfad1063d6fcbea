package jsoninfer

import (
	"math"
	"strings"

	"github.com/tributary-io/tributary/core/formats/jsonfmt/internal/jsonlex"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsontape"
)

// The type scanner: inference straight from a record's bytes, without a
// tape. It walks the record once, validating it as jsontape.Tape.Parse
// does, and widens the inferred types as it goes, exactly as record,
// addObject, add and addArray do from the tape's nodes: no node is
// written, no string copied (a field name is looked up by its bytes; only
// a new name, one with escapes, or one a hint or inferTimestamp must read
// is decoded, by jsontape's own decoder).
//
// It only accepts standard JSON (RFC 8259): at anything else (comments,
// single quotes, unquoted names, NaN, leading zeros, control characters,
// unusual escapes, a record that is not an object or an array of objects,
// any syntax error) it gives up on the record: what it changed is undone
// from its undo log and the record goes to the tape path, which decides
// (accepted under the allow* options, or malformed with its error). So
// the scanner never judges a record: it only infers records the tape path
// accepts, with the same result.

// undo is one change to an inferred type, recorded to be undone when the
// scanner gives up on a record.
type undo struct {
	it *itype
	// added: a field named name was appended to it; else old is *it as
	// it was.
	added bool
	name  string
	old   itype
}

// scanState is the type scanner's state, part of the inferrer.
type scanState struct {
	b   []byte
	log []undo
	// dec decodes the strings that must be read (jsontape's decoder).
	dec jsontape.Tape
	// off disables the scanner (tests: the tape path alone).
	off bool
	// lines and bails count the records scanned and given up in the
	// current file: a file whose records keep going to the tape path is
	// left to it (the result is the same; only the time differs).
	lines, bails int
	// scanned counts the lines the scanner inferred (tests).
	scanned int
}

// maxScan is the largest record scanned (the tape's limit is a bit
// larger: it decides about records near it).
const maxScan = math.MaxInt32 / 2

// scan infers one record with the type scanner. False means it gave up:
// nothing was changed, and the tape path must infer the record.
func (in *inferrer) scan(b []byte) bool {
	s := &in.sc
	if s.off || len(b) > maxScan || (s.bails > 64 && s.bails > s.lines/4) {
		return false
	}
	s.lines++
	records := in.sample.Records
	s.b = b
	ok := in.scanTop()
	s.b = nil
	if ok {
		s.scanned++
	} else {
		s.bails++
		in.rollback()
		in.sample.Records = records
	}
	for i := range s.log {
		s.log[i] = undo{}
	}
	s.log = s.log[:0]
	return ok
}

// scanTop scans a record: an object, or an array of objects.
func (in *inferrer) scanTop() bool {
	b := in.sc.b
	i := jsonlex.Space(b, 0)
	if i >= len(b) {
		return false
	}
	var ok bool
	switch b[i] {
	case '{':
		in.sample.Records++
		if i, ok = in.scanObject(i, 0, &in.root, in.hints); !ok {
			return false
		}
	case '[':
		if i = jsonlex.Space(b, i+1); i < len(b) && b[i] == ']' {
			i++
			break
		}
		for {
			if i >= len(b) || b[i] != '{' {
				return false
			}
			in.sample.Records++
			if i, ok = in.scanObject(i, 1, &in.root, in.hints); !ok {
				return false
			}
			if i = jsonlex.Space(b, i); i >= len(b) {
				return false
			}
			if b[i] == ']' {
				i++
				break
			}
			if b[i] != ',' {
				return false
			}
			i = jsonlex.Space(b, i+1)
		}
	default:
		return false
	}
	return in.tape.First || jsonlex.Space(b, i) == len(b)
}

// scanObject scans the object at b[i] (at nesting depth) into struct it
// (nil: only validated), as addObject adds its members.
func (in *inferrer) scanObject(i, depth int, it *itype, h *hintTrie) (int, bool) {
	if depth >= jsontape.MaxDepth {
		return i, false
	}
	b := in.sc.b
	if i = jsonlex.Space(b, i+1); i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	// White space is skipped where a token is expected and not found:
	// most records have none.
	for pos := 0; ; pos++ {
		if i >= len(b) || b[i] != '"' {
			if i = jsonlex.Space(b, i); i >= len(b) || b[i] != '"' {
				return i, false
			}
		}
		var ft *itype
		var fh *hintTrie
		end := -1
		if it != nil && pos < len(it.guess) {
			// Fast path: the name of the field the last object had at
			// this position, as plain text.
			if g := it.guess[pos]; uint(g) < uint(len(it.fields)) {
				f := &it.fields[g]
				n := len(f.name)
				var same bool
				if f.mask0 != 0 && i+16 <= len(b) {
					// A name of up to 14 bytes: its quoted text in
					// two masked loads.
					same = (jsonlex.Load64(b, i)&f.mask0^f.key0)|(jsonlex.Load64(b, i+8)&f.mask1^f.key1) == 0
				} else {
					same = f.plain && i+n+1 < len(b) && b[i+n+1] == '"' && string(b[i+1:i+n+1]) == f.name
				}
				if same {
					end, ft, fh = i+n+2, f.t, f.child(h)
				}
			}
		}
		if end < 0 {
			start := i
			var esc, ok bool
			if end, esc, ok = jsonlex.String(b, i); !ok {
				return end, false
			}
			if it != nil {
				ft, fh = in.scanField(it, pos, start, end, esc, h)
			}
		}
		if i = end; i >= len(b) || b[i] != ':' {
			if i = jsonlex.Space(b, i); i >= len(b) || b[i] != ':' {
				return i, false
			}
		}
		if i++; i >= len(b) {
			return i, false
		}
		c := b[i]
		if c <= ' ' {
			if i = jsonlex.Space(b, i); i >= len(b) {
				return i, false
			}
			c = b[i]
		}
		var ok bool
		switch {
		case c == '"':
			// A string, the most common value: scanned here rather
			// than in scanValue, and a short one without a call.
			var esc bool
			q, from := -1, i+1
			if i+9 <= len(b) {
				var plain bool
				if q, plain = jsonlex.QuoteAt(jsonlex.Load64(b, i+1)); plain {
					from = i + 9
				}
			}
			if q >= 0 {
				end = i + 2 + q
			} else if end, esc, ok = jsonlex.StringRest(b, from); !ok {
				return end, false
			}
			if ft != nil && ft.kind != iString && (end-i > 2 || !in.opts.InferColumnTypes) {
				in.scanText(ft, fh, i, end, esc)
			}
			i = end
		case c == '-' || c-'0' <= 9:
			// A number: likewise.
			var integral bool
			if end, integral, ok = jsonlex.Number(b, i); !ok {
				return end, false
			}
			if ft != nil && !(in.typedNum() && (ft.kind == iDouble || ft.kind == iLong && integral && end-i <= 18)) {
				in.scanNum(ft, fh, b[i:end], integral)
			}
			i = end
		case c == 'n' && i+4 <= len(b) && jsonlex.Load32(b, i) == jsonlex.NullWord:
			// null leaves every type as it is.
			i += 4
		case c == 't' && i+4 <= len(b) && jsonlex.Load32(b, i) == jsonlex.TrueWord && (ft == nil || ft.kind == iBool && !in.opts.PrimitivesAsString):
			// true in a boolean column (or one only validated).
			i += 4
		default:
			if i, ok = in.scanValue(i, depth+1, ft, fh); !ok {
				return i, false
			}
		}
		if i >= len(b) {
			return i, false
		}
		if c = b[i]; c <= ' ' {
			if i = jsonlex.Space(b, i); i >= len(b) {
				return i, false
			}
			c = b[i]
		}
		switch c {
		case ',':
			i++
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// scanField returns the type (and hint trie) of the member whose quoted
// name is b[start:end] at position pos of an object merged into it; nil
// when the member is dropped (an empty name). Mirrors addObject.
func (in *inferrer) scanField(it *itype, pos, start, end int, esc bool, h *hintTrie) (*itype, *hintTrie) {
	if !esc && end-start > 2 {
		// A name as seen before: the field the tape path finds by the
		// decoded name (the same bytes: stored names are valid UTF-8).
		name := in.sc.b[start+1 : end-1]
		if pos < len(it.guess) {
			if g := it.guess[pos]; g >= 0 && g < len(it.fields) && it.fields[g].name == string(name) {
				return it.fields[g].t, it.fields[g].child(h)
			}
		}
		if i, ok := it.exact[string(name)]; ok {
			if pos < 64 {
				for len(it.guess) <= pos {
					it.guess = append(it.guess, -1)
				}
				it.guess[pos] = i
			}
			return it.fields[i].t, it.fields[i].child(h)
		}
	}
	name := in.text(start, end, esc)
	if name == "" { // Spark drops fields with an empty name
		return nil, nil
	}
	n := len(it.fields)
	f := it.field(name)
	if len(it.fields) > n {
		in.sc.log = append(in.sc.log, undo{it: it, added: true, name: name})
	}
	return f, h.child(name)
}

// text decodes the quoted string b[start:end] as Tape.Text does.
func (in *inferrer) text(start, end int, esc bool) string {
	d := &in.sc.dec
	d.B = in.sc.b
	d.Nodes = append(d.Nodes[:0], jsontape.Node{Kind: jsontape.KString, Esc: esc, Start: int32(start), End: int32(end), Next: 1})
	s := d.Text(0)
	d.B = nil
	return s
}

// save records it as it is, before a change.
func (in *inferrer) save(it *itype) {
	in.sc.log = append(in.sc.log, undo{it: it, old: *it})
}

// rollback undoes the changes in the log, newest first.
func (in *inferrer) rollback() {
	log := in.sc.log
	for j := len(log) - 1; j >= 0; j-- {
		u := &log[j]
		if !u.added {
			*u.it = u.old
			continue
		}
		it := u.it
		delete(it.index, strings.ToLower(u.name))
		delete(it.exact, u.name)
		it.fields = it.fields[:len(it.fields)-1]
		it.guess = nil
	}
}

// Value kinds the scanner tells apart, as the tape's node kinds.
const (
	vObject = iota
	vArray
	vScalar
	vNull
)

// enter decides what becomes of type it (nil: nothing) for a value of
// kind k, as add does before it looks at a scalar: it returns the type
// the value's contents widen (nil: the value is only validated) and, for
// an array, the element's hint trie. For a scalar, a non-nil result means
// the scalar's type must be merged into it (typed inference).
func (in *inferrer) enter(it *itype, k int, h *hintTrie) (*itype, *hintTrie) {
	if it == nil || k == vNull || it.kind == iString {
		return nil, nil
	}
	if h != nil && ((it.kind == iStruct && k != vObject) || (it.kind == iArray && k != vArray)) {
		return nil, nil
	}
	if !in.opts.InferColumnTypes {
		switch {
		case h != nil && k == vObject && (it.kind == iNull || it.kind == iStruct):
			in.setKind(it, iStruct)
			return it, h
		case h != nil && k == vArray && h.child("element") != nil && (it.kind == iNull || it.kind == iArray):
			return in.arrayElem(it), h.child("element")
		}
		in.save(it)
		it.toString()
		return nil, nil
	}
	switch k {
	case vObject:
		if it.kind != iNull && it.kind != iStruct {
			in.save(it)
			it.toString()
			return nil, nil
		}
		in.setKind(it, iStruct)
		return it, h
	case vArray:
		if it.kind != iNull && it.kind != iArray {
			in.save(it)
			it.toString()
			return nil, nil
		}
		return in.arrayElem(it), h.child("element")
	}
	return it, nil
}

// setKind makes it a container of kind k (from null, or already k).
func (in *inferrer) setKind(it *itype, k ikind) {
	if it.kind != k {
		in.save(it)
		it.kind = k
	}
}

// arrayElem makes it an array, as addArray does, and returns its element.
func (in *inferrer) arrayElem(it *itype) *itype {
	if it.kind != iArray || it.elem == nil {
		in.save(it)
		it.kind = iArray
		if it.elem == nil {
			it.elem = &itype{}
		}
	}
	return it.elem
}

// widen merges the scalar type (kind, prec, scale) into it, as add does
// with scalarType.
func (in *inferrer) widen(it *itype, kind ikind, prec, scale int) {
	if kind == iNull || it.kind == iString || (it.kind == kind && kind != iDecimal) {
		return
	}
	in.save(it)
	it.merge(&itype{kind: kind, prec: prec, scale: scale})
}

// scanValue scans the value at b[i] into it (nil: only validated), as add
// adds a value node.
func (in *inferrer) scanValue(i, depth int, it *itype, h *hintTrie) (int, bool) {
	b := in.sc.b
	if i >= len(b) {
		return i, false
	}
	switch c := b[i]; c {
	case '{':
		t, th := in.enter(it, vObject, h)
		return in.scanObject(i, depth, t, th)
	case '[':
		t, th := in.enter(it, vArray, h)
		return in.scanArray(i, depth, t, th)
	case '"':
		end, esc, ok := jsonlex.String(b, i)
		if !ok {
			return end, false
		}
		if it != nil && it.kind != iString && (end-i > 2 || !in.opts.InferColumnTypes) {
			in.scanText(it, h, i, end, esc)
		}
		return end, true
	case 't', 'f':
		lit := "true"
		if c == 'f' {
			lit = "false"
		}
		if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
			return i, false
		}
		if it != nil && (it.kind != iBool || in.opts.PrimitivesAsString) {
			if t, _ := in.enter(it, vScalar, h); t != nil {
				if in.opts.PrimitivesAsString {
					in.widen(t, iString, 0, 0)
				} else {
					in.widen(t, iBool, 0, 0)
				}
			}
		}
		return i + len(lit), true
	case 'n':
		if len(b)-i < 4 || string(b[i:i+4]) != "null" {
			return i, false
		}
		return i + 4, true
	}
	end, integral, ok := jsonlex.Number(b, i)
	if !ok {
		return end, false
	}
	if it != nil && !(in.typedNum() && (it.kind == iDouble || it.kind == iLong && integral && end-i <= 18)) {
		in.scanNum(it, h, b[i:end], integral)
	}
	return end, true
}

// typedNum reports whether numbers are typed (inferColumnTypes without
// primitivesAsString): then a double, or an integer of up to 18
// characters, leaves a double or long column as it is.
func (in *inferrer) typedNum() bool {
	return in.opts.InferColumnTypes && !in.opts.PrimitivesAsString
}

// scanNum merges the standard JSON number raw into it, as add does (the
// callers skip it when the number cannot change it).
func (in *inferrer) scanNum(it *itype, h *hintTrie, raw []byte, integral bool) {
	if t, _ := in.enter(it, vScalar, h); t != nil {
		in.widenNumber(t, raw, integral)
	}
}

// scanText merges the string b[start:end] into it, as add does.
func (in *inferrer) scanText(it *itype, h *hintTrie, start, end int, esc bool) {
	t, _ := in.enter(it, vScalar, h)
	switch {
	case t == nil:
	case end-start == 2: // an empty string is like null
	case in.dt != nil:
		// inferTimestamp: a string the timestampFormat (or Spark's
		// default timestamp parsing) reads is a timestamp.
		if _, ok := in.dt.ParseTimestamp(in.text(start, end, esc), false); ok {
			in.widen(t, iTimestamp, 0, 0)
		} else {
			in.widen(t, iString, 0, 0)
		}
	default:
		in.widen(t, iString, 0, 0)
	}
}

// widenNumber merges the type of the standard JSON number raw into it, as
// add does with scalarType.
func (in *inferrer) widenNumber(it *itype, raw []byte, integral bool) {
	switch {
	case in.opts.PrimitivesAsString:
		in.widen(it, iString, 0, 0)
	case integral && fitsInt64(raw):
		in.widen(it, iLong, 0, 0)
	case integral || in.opts.PrefersDecimal:
		o := decimalOrDouble(string(raw))
		in.widen(it, o.kind, o.prec, o.scale)
	default:
		in.widen(it, iDouble, 0, 0)
	}
}

// scanArray scans the array at b[i], each element into elem (nil: only
// validated), as addArray adds them.
func (in *inferrer) scanArray(i, depth int, elem *itype, h *hintTrie) (int, bool) {
	if depth >= jsontape.MaxDepth {
		return i, false
	}
	b := in.sc.b
	if i = jsonlex.Space(b, i+1); i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = in.scanValue(i, depth+1, elem, h); !ok {
			return i, false
		}
		if i = jsonlex.Space(b, i); i >= len(b) {
			return i, false
		}
		switch b[i] {
		case ']':
			return i + 1, true
		case ',':
			i = jsonlex.Space(b, i+1)
		default:
			return i, false
		}
	}
}
