// Package jsonlex holds the JSON lexical scans of jsoninfer's type
// scanner: white space, numbers and strings as RFC 8259 writes them, and
// the 8-bytes-at-a-time (SWAR) loads and tests they use. They validate
// and measure; they decode nothing. jsonfast's decoder takes the numbers
// it keeps as text (a string or variant column's) with Number too.
package jsonlex

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// Space skips JSON white space.
func Space(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// Load64 returns the 8 bytes of b from offset i as a little-endian word,
// without a bounds check: the caller has checked that i >= 0 and
// i+8 <= len(b).
func Load64(b []byte, i int) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i))[:])
}

// Load32 is Load64 for 4 bytes (i+4 <= len(b)).
func Load32(b []byte, i int) uint32 {
	return binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i))[:])
}

// KeyWords returns the JSON text of the plain name ("name", with its
// quotes) as two little-endian words and their masks (the bytes the text
// takes); all zero when the text is longer than 16 bytes or name is
// empty.
func KeyWords(name string) (k0, k1, m0, m1 uint64) {
	if len(name) == 0 || len(name) > 14 {
		return 0, 0, 0, 0
	}
	q := `"` + name + `"`
	for j := len(q) - 1; j >= 0; j-- {
		if j >= 8 {
			k1 = k1<<8 | uint64(q[j])
		} else {
			k0 = k0<<8 | uint64(q[j])
		}
	}
	m0 = ^uint64(0)
	if len(q) < 8 {
		m0 = 1<<(8*len(q)) - 1
	}
	switch {
	case len(q) == 16:
		m1 = ^uint64(0)
	case len(q) > 8:
		m1 = 1<<(8*(len(q)-8)) - 1
	}
	return k0, k1, m0, m1
}

// QuoteAt returns the offset in the 8 bytes of x (little-endian) of the
// first double quote when no backslash or control character comes before
// it; -1 otherwise, with plain true when none of the 8 bytes is a quote,
// a backslash or a control character. A string whose text starts with x
// ends there, as String finds.
func QuoteAt(x uint64) (q int, plain bool) {
	m := Special8(x)
	// The lowest flag is bit 7 of the first special byte.
	k := bits.TrailingZeros64(m)
	if m == 0 || byte(x>>(k-7)) != '"' {
		return -1, m == 0
	}
	return k >> 3, false
}

// Number scans the standard JSON number at b[i]: the offset after it,
// and whether it is written as an integer. Leading zeros, a '+' and the
// non-numeric numbers are not accepted (the tape path decides on them).
func Number(b []byte, i int) (int, bool, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		if i++; i < len(b) && b[i] >= '0' && b[i] <= '9' {
			return i, false, false
		}
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = Digits(b, i+1)
	default:
		return i, false, false
	}
	integral := true
	if i < len(b) && b[i] == '.' {
		integral = false
		d := i + 1
		if i = Digits(b, d); i == d {
			return i, false, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		integral = false
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		if i = Digits(b, d); i == d {
			return i, false, false
		}
	}
	return i, integral, true
}

// Digits returns the offset of the first byte from b[i] on that is not a
// decimal digit.
func Digits(b []byte, i int) int {
	for i+8 <= len(b) {
		x := Load64(b, i)
		// A byte is flagged when below '0' (the subtraction sets its
		// top bit), above '9' (the addition does) or not ASCII; the
		// lowest flag is exact.
		if m := ((x - lsb8*'0') | (x + lsb8*(0x7f-'9')) | x) & msb8; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// String scans the double-quoted string at b[i]: the offset after its
// closing quote, and whether it holds an escape. Only the escapes of RFC
// 8259 are accepted, and no control character.
func String(b []byte, i int) (int, bool, bool) {
	return StringRest(b, i+1)
}

// StringRest is String from offset i inside the string, all bytes
// before it plain (no quote, backslash or control character).
func StringRest(b []byte, i int) (int, bool, bool) {
	esc := false
	for {
		// Skip 8 bytes at a time up to the first quote, backslash or
		// control character.
		for i+8 <= len(b) {
			if m := Special8(Load64(b, i)); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(b) {
			return i, false, false
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc, true
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return i, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex4(b[i+2:i+6]) {
					return i, false, false
				}
				i += 6
			default:
				return i, false, false
			}
		case c < 0x20:
			return i, false, false
		default:
			i++
		}
	}
}

// SWAR constants: each byte 0x01 and 0x80; the literals null and true as
// little-endian words.
const (
	lsb8     = 0x0101010101010101
	msb8     = 0x8080808080808080
	NullWord = 'n' | 'u'<<8 | 'l'<<16 | 'l'<<24
	TrueWord = 't' | 'r'<<8 | 'u'<<16 | 'e'<<24
)

// Special8 flags the bytes of x that are a double quote, a backslash or a
// control character (< 0x20): the lowest flag (0x80 in its byte) is exact,
// higher ones may be false (Hacker's Delight's haszero and hasless, as the
// tape's plain8).
func Special8(x uint64) uint64 {
	q := x ^ (lsb8 * '"')
	bs := x ^ (lsb8 * '\\')
	return ((q-lsb8)&^q | (bs-lsb8)&^bs | (x-lsb8*0x20)&^x) & msb8
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}
