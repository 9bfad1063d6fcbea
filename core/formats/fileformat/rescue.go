package fileformat

import (
	"slices"
	"unicode/utf8"
)

// Rescue accumulates, for one row, the values that go to the rescued data
// column, and renders them as Auto Loader does: a JSON object of the rescued
// columns plus "_file_path", e.g. {"age":25,"id":2147483648,"_file_path":"s3://b/f.json"}.
//
// Keys are sorted (byte order) at every level and "_file_path" comes last
// (seed 002 lists {"age": 25, "id": 2147483648}; Databricks' docs show the
// path last). A value inside a struct column is nested under its parents:
// {"user":{"dob":"x"}}. Values are kept as their JSON text with
// insignificant whitespace removed. The zero Rescue is empty and ready.
type Rescue struct {
	root rescueNode
	n    int
}

type rescueNode struct {
	entries map[string]*rescueEntry
}

type rescueEntry struct {
	raw   []byte // a JSON value; nil when child is set
	child *rescueNode
}

// Reset empties r for the next row.
func (r *Rescue) Reset() {
	r.root.entries = nil
	r.n = 0
}

// Empty reports whether nothing was rescued.
func (r *Rescue) Empty() bool { return r.n == 0 }

// AddJSON records raw, the text of one complete JSON value, at path (one
// element per nesting level, at least one). A later value at the same path
// replaces the earlier one. raw is copied.
func (r *Rescue) AddJSON(path []string, raw []byte) {
	r.add(path, CompactJSON(nil, raw))
}

// AddString records the string s at path (see AddJSON).
func (r *Rescue) AddString(path []string, s string) {
	r.add(path, AppendJSONString(nil, s))
}

func (r *Rescue) add(path []string, raw []byte) {
	if len(path) == 0 {
		return
	}
	r.n++
	node := &r.root
	for i, seg := range path {
		if node.entries == nil {
			node.entries = map[string]*rescueEntry{}
		}
		e := node.entries[seg]
		if e == nil {
			e = &rescueEntry{}
			node.entries[seg] = e
		}
		if i == len(path)-1 {
			e.raw, e.child = raw, nil
			return
		}
		if e.child == nil {
			e.raw, e.child = nil, &rescueNode{}
		}
		node = e.child
	}
}

// JSON renders the rescued values with filePath under "_file_path" (left out
// when filePath is ""). ok is false, and the string empty, when nothing was
// rescued: the column is then null.
func (r *Rescue) JSON(filePath string) (string, bool) {
	if r.n == 0 {
		return "", false
	}
	b := make([]byte, 0, 64)
	b = r.root.appendTo(b, filePath, true)
	return string(b), true
}

func (n *rescueNode) appendTo(b []byte, filePath string, top bool) []byte {
	keys := make([]string, 0, len(n.entries))
	for k := range n.entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, k)
		b = append(b, ':')
		e := n.entries[k]
		if e.child != nil {
			b = e.child.appendTo(b, "", false)
		} else {
			b = append(b, e.raw...)
		}
	}
	if top && filePath != "" {
		if len(keys) > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, FilePathKey)
		b = append(b, ':')
		b = AppendJSONString(b, filePath)
	}
	return append(b, '}')
}

// CompactJSON appends the JSON text raw to dst without insignificant
// whitespace. raw must be syntactically valid JSON, except that the
// non-standard numbers NaN, Infinity, +Infinity and -Infinity may appear as
// values: they are written as strings ("NaN"), as Jackson does by default,
// so that the result is standard JSON.
func CompactJSON(dst, raw []byte) []byte {
	inStr, esc := false, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == 'N' || c == 'I' || ((c == '+' || c == '-') && i+1 < len(raw) && raw[i+1] == 'I'):
			j := i + 1
			for j < len(raw) && (raw[j] >= 'a' && raw[j] <= 'z' || raw[j] >= 'A' && raw[j] <= 'Z') {
				j++
			}
			dst = append(dst, '"')
			dst = append(dst, raw[i:j]...)
			dst = append(dst, '"')
			i = j - 1
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string literal: quotes, backslashes
// and control characters are escaped, invalid UTF-8 becomes U+FFFD, other
// characters (HTML and non-ASCII included) are kept as they are.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\ufffd"...)
			i++
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
