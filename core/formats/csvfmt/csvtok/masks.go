package csvtok

import (
	"math/bits"
	"unicode/utf8"
)

// blockMasks are the bitmaps of a line that splitMasked reads: bit i of
// word k is byte 64k+i of the line, set in sep when the byte is the
// delimiter, in quote when it is the quote character, in special when it
// is "\r" or an escape byte and in high when it is not ASCII. Each slice
// ends with a sentinel word (bit 0 set) after the line's last block, so
// that nextBit always stops.
type blockMasks struct {
	sep, quote, special, high []uint64
}

// maxMaskedLine is the longest line splitLine reads through bitmaps
// (longer ones take splitFields): 64 blocks, 2 KiB of masks.
const maxMaskedLine = 64 * 64

// lineMasks fills m with line's bitmaps, esc being the escape bytes
// repeated eight times ("\r" for none). b is the buffered input that line
// begins (line is b[:len(line)]): whole blocks are read from b past the
// line's end when it holds them, the bits past the end then dropped. It
// reports the offset of the first non-ASCII byte (len(line) when none)
// and whether the line has a "\r" or an escape byte.
func (m *blockMasks) lineMasks(line, b []byte, sep, quote byte, esc [2]uint64) (firstHigh int, special bool) {
	n := len(line)
	nb := (n + 63) >> 6
	if cap(m.sep) < nb+1 {
		k := max(nb+1, 8)
		m.sep, m.quote, m.special, m.high = make([]uint64, k), make([]uint64, k), make([]uint64, k), make([]uint64, k)
	}
	m.sep, m.quote, m.special, m.high = m.sep[:nb+1], m.quote[:nb+1], m.special[:nb+1], m.high[:nb+1]
	sw, qw := lows*uint64(sep), lows*uint64(quote)
	if len(b) >= nb*64 {
		maskBlocks(b[:nb*64], sw, qw, esc[0], esc[1], m.sep, m.quote, m.special, m.high)
	} else {
		full := n &^ 63
		maskBlocks(b[:full], sw, qw, esc[0], esc[1], m.sep, m.quote, m.special, m.high)
		var tail [64]byte
		copy(tail[:], line[full:])
		k := full >> 6
		maskBlocks(tail[:], sw, qw, esc[0], esc[1], m.sep[k:], m.quote[k:], m.special[k:], m.high[k:])
	}
	if r := n & 63; r != 0 {
		keep := uint64(1)<<r - 1
		m.sep[nb-1] &= keep
		m.quote[nb-1] &= keep
		m.special[nb-1] &= keep
		m.high[nb-1] &= keep
	}
	m.sep[nb], m.quote[nb], m.special[nb], m.high[nb] = 1, 1, 1, 1
	return min(nextBit(m.high, 0), n), nextBit(m.special, 0) < n
}

// nextBit is the index of the first bit set in ms at or after from (ms
// ends with a word that has one: from must not be past it).
func nextBit(ms []uint64, from int) int {
	w := from >> 6
	if x := ms[w] >> (from & 63); x != 0 {
		return from + bits.TrailingZeros64(x)
	}
	for {
		w++
		if x := ms[w]; x != 0 {
			return w<<6 + bits.TrailingZeros64(x)
		}
	}
}

// maskBlocksGo is maskBlocks in Go, eight bytes at a time: the portable
// version and the oracle of the assembly one.
func maskBlocksGo(src []byte, sepw, quotew, esc1w, esc2w uint64, sep, quote, special, high []uint64) {
	const crw = lows * '\r'
	for k := 0; k+64 <= len(src); k += 64 {
		var s, q, sp, h uint64
		for j := 0; j < 64; j += 8 {
			w := uint64(src[k+j]) | uint64(src[k+j+1])<<8 | uint64(src[k+j+2])<<16 | uint64(src[k+j+3])<<24 |
				uint64(src[k+j+4])<<32 | uint64(src[k+j+5])<<40 | uint64(src[k+j+6])<<48 | uint64(src[k+j+7])<<56
			s |= gather(zeroBytes(w^sepw)) << j
			q |= gather(zeroBytes(w^quotew)) << j
			sp |= gather(zeroBytes(w^crw)|zeroBytes(w^esc1w)|zeroBytes(w^esc2w)) << j
			h |= gather(w&highs) << j
		}
		sep[k>>6], quote[k>>6], special[k>>6], high[k>>6] = s, q, sp, h
	}
}

// zeroBytes has the high bit of each zero byte of x set, and no other
// bit (exact, unlike sepFrom's test).
func zeroBytes(x uint64) uint64 {
	const l7 = 0x7f7f7f7f7f7f7f7f
	return ^((x&l7 + l7) | x | l7)
}

// gather moves the high bits of x's eight bytes to its low eight bits
// (byte i's to bit i); x has no other bit set.
func gather(x uint64) uint64 {
	return (x >> 7) * 0x0102040810204080 >> 56
}

// validRuns reports whether line is valid UTF-8, given its non-ASCII
// bytes (high, a line bitmap of lineMasks): it is when each run of
// non-ASCII bytes is (a multi-byte sequence is all non-ASCII bytes, and
// an ASCII byte is a rune), which utf8.Valid checks run by run, the ASCII
// between them skipped.
func validRuns(line []byte, high []uint64) bool {
	n := len(line)
	for i := min(nextBit(high, 0), n); i < n; i = min(nextBit(high, i), n) {
		j := i + 1
		for j < n && line[j] >= utf8.RuneSelf {
			j++
		}
		if !utf8.Valid(line[i:j]) {
			return false
		}
		i = j
	}
	return true
}
