package avrofmt

import (
	"encoding/binary"
	"fmt"
	"math"
)

// dec reads Avro's binary encoding from one decompressed block. Every
// length is checked against the bytes left before anything is allocated.
type dec struct {
	b   []byte
	pos int
	err error
}

func (d *dec) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
	}
}

func (d *dec) long() int64 {
	var u uint64
	for shift := uint(0); ; shift += 7 {
		if d.pos >= len(d.b) {
			d.fail("value truncated")
			return 0
		}
		if shift >= 64 {
			d.fail("varint too long")
			return 0
		}
		c := d.b[d.pos]
		d.pos++
		u |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			break
		}
	}
	return int64(u>>1) ^ -int64(u&1)
}

func (d *dec) int() int32 {
	v := d.long()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail("int out of range: %d", v)
		return 0
	}
	return int32(v)
}

func (d *dec) take(n int64) []byte {
	if n < 0 || n > int64(len(d.b)-d.pos) {
		d.fail("length %d beyond the block's %d remaining bytes", n, len(d.b)-d.pos)
		return nil
	}
	out := d.b[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return out
}

// bytes returns a length-prefixed byte string (a view of the block).
func (d *dec) bytes() []byte { return d.take(d.long()) }

func (d *dec) boolean() bool {
	b := d.take(1)
	if b == nil {
		return false
	}
	if b[0] > 1 {
		d.fail("boolean byte %d", b[0])
	}
	return b[0] == 1
}

func (d *dec) float() float32 {
	b := d.take(4)
	if b == nil {
		return 0
	}
	return math.Float32frombits(binary.LittleEndian.Uint32(b))
}

func (d *dec) double() float64 {
	b := d.take(8)
	if b == nil {
		return 0
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b))
}

// blockCount reads an array or map block header: the item count (0 ends
// the collection). A negative count is followed by the block's byte size.
// Each item takes at least minItem bytes, which bounds a lying count.
func (d *dec) blockCount(minItem int) int64 {
	n := d.long()
	if n < 0 {
		if n == math.MinInt64 {
			d.fail("block count out of range")
			return 0
		}
		n = -n
		d.long()
	}
	if minItem > 0 && n > int64(len(d.b)-d.pos)/int64(minItem) {
		d.fail("collection claims %d items in %d bytes", n, len(d.b)-d.pos)
		return 0
	}
	if minItem == 0 && n > 1<<24 {
		d.fail("collection of %d empty items", n)
		return 0
	}
	return n
}
