package orcfmt

// byteReader is a cursor over one decompressed stream.
type byteReader struct {
	b   []byte
	pos int
	err error
}

func (r *byteReader) byte() byte {
	if r.pos >= len(r.b) {
		if r.err == nil {
			r.err = corrupt("stream ended early")
		}
		return 0
	}
	c := r.b[r.pos]
	r.pos++
	return c
}

func (r *byteReader) bytes(n int) []byte {
	if n < 0 || n > len(r.b)-r.pos {
		if r.err == nil {
			r.err = corrupt("stream ended early")
		}
		r.pos = len(r.b)
		return nil
	}
	out := r.b[r.pos : r.pos+n]
	r.pos += n
	return out
}

func (r *byteReader) uvarint() uint64 {
	var x uint64
	for s := uint(0); ; s += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		if s >= 64 {
			r.err = corrupt("varint overflows 64 bits")
			return 0
		}
		x |= uint64(c&0x7f) << s
		if c < 0x80 {
			return x
		}
	}
}

func (r *byteReader) svarint() int64 { return unzigzag(r.uvarint()) }

func unzigzag(x uint64) int64 { return int64(x>>1) ^ -int64(x&1) }

// byteRLE decodes n values of ORC's byte run-length encoding.
func byteRLE(r *byteReader, n int) []byte {
	out := make([]byte, 0, n)
	for len(out) < n && r.err == nil {
		h := r.byte()
		if h < 128 {
			v := r.byte()
			for i := 0; i < int(h)+3; i++ {
				out = append(out, v)
			}
		} else {
			out = append(out, r.bytes(256-int(h))...)
		}
	}
	if r.err == nil && len(out) < n {
		r.err = corrupt("byte run ended early")
	}
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// boolRLE decodes n bits (most significant first) over byte RLE.
func boolRLE(r *byteReader, n int) []bool {
	bs := byteRLE(r, (n+7)/8)
	out := make([]bool, n)
	if r.err != nil {
		return out
	}
	for i := range out {
		out[i] = bs[i/8]&(0x80>>(i%8)) != 0
	}
	return out
}

// intRLE decodes n integers with RLE v1 (v2 false) or v2.
func intRLE(r *byteReader, n int, signed, v2 bool) []int64 {
	out := make([]int64, 0, n)
	for len(out) < n && r.err == nil {
		if v2 {
			out = rleV2(r, out, signed)
		} else {
			out = rleV1(r, out, signed)
		}
		if len(out) > n+512 {
			break
		}
	}
	if r.err == nil && len(out) < n {
		r.err = corrupt("integer run ended early")
	}
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func (r *byteReader) varint(signed bool) int64 {
	if signed {
		return r.svarint()
	}
	return int64(r.uvarint())
}

func rleV1(r *byteReader, out []int64, signed bool) []int64 {
	h := r.byte()
	if h < 128 {
		delta := int64(int8(r.byte()))
		v := r.varint(signed)
		for i := 0; i < int(h)+3; i++ {
			out = append(out, v+int64(i)*delta)
		}
		return out
	}
	for i := 0; i < 256-int(h) && r.err == nil; i++ {
		out = append(out, r.varint(signed))
	}
	return out
}

var widths = [32]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 26, 28, 30, 32, 40, 48, 56, 64}

func closestFixedBits(n int) int {
	for _, w := range widths {
		if w >= n {
			return w
		}
	}
	return 64
}

// bitUnpack reads n big-endian packed values of w bits.
func bitUnpack(r *byteReader, n, w int) []uint64 {
	if w == 0 || n == 0 {
		return make([]uint64, n)
	}
	total := (n*w + 7) / 8
	b := r.bytes(total)
	out := make([]uint64, n)
	if b == nil {
		return out
	}
	bit := 0
	for i := range out {
		var v uint64
		for k := 0; k < w; {
			byteIdx, off := bit/8, bit%8
			take := 8 - off
			if take > w-k {
				take = w - k
			}
			bits := (uint64(b[byteIdx]) >> (8 - off - take)) & (1<<take - 1)
			v = v<<take | bits
			k += take
			bit += take
		}
		out[i] = v
	}
	return out
}

func rleV2(r *byteReader, out []int64, signed bool) []int64 {
	h := r.byte()
	switch h >> 6 {
	case 0: // SHORT_REPEAT
		w := int(h>>3&7) + 1
		cnt := int(h&7) + 3
		var x uint64
		for _, c := range r.bytes(w) {
			x = x<<8 | uint64(c)
		}
		v := int64(x)
		if signed {
			v = unzigzag(x)
		}
		for i := 0; i < cnt; i++ {
			out = append(out, v)
		}
	case 1: // DIRECT
		w := widths[h>>1&0x1f]
		cnt := (int(h&1)<<8 | int(r.byte())) + 1
		for _, x := range bitUnpack(r, cnt, w) {
			if signed {
				out = append(out, unzigzag(x))
			} else {
				out = append(out, int64(x))
			}
		}
	case 2: // PATCHED_BASE
		w := widths[h>>1&0x1f]
		cnt := (int(h&1)<<8 | int(r.byte())) + 1
		b3, b4 := r.byte(), r.byte()
		bw := int(b3>>5&7) + 1
		pw := widths[b3&0x1f]
		pgw := int(b4>>5&7) + 1
		pll := int(b4 & 0x1f)
		var x uint64
		for _, c := range r.bytes(bw) {
			x = x<<8 | uint64(c)
		}
		signBit := uint64(1) << (uint(bw)*8 - 1)
		base := int64(x &^ signBit)
		if x&signBit != 0 {
			base = -base
		}
		lits := bitUnpack(r, cnt, w)
		patches := bitUnpack(r, pll, closestFixedBits(pgw+pw))
		if r.err != nil {
			return out
		}
		pos := 0
		for _, p := range patches {
			pos += int(p >> uint(pw))
			if pos >= cnt {
				r.err = corrupt("patch position %d past %d values", pos, cnt)
				return out
			}
			lits[pos] |= (p & (1<<uint(pw) - 1)) << uint(w)
		}
		for _, l := range lits {
			out = append(out, base+int64(l))
		}
	case 3: // DELTA
		code := h >> 1 & 0x1f
		w := 0
		if code != 0 {
			w = widths[code]
		}
		cnt := (int(h&1)<<8 | int(r.byte())) + 1
		base := r.varint(signed)
		delta := r.svarint()
		out = append(out, base)
		if cnt == 1 {
			return out
		}
		if w == 0 {
			for i := 1; i < cnt; i++ {
				out = append(out, base+int64(i)*delta)
			}
			return out
		}
		cur := base + delta
		out = append(out, cur)
		for _, d := range bitUnpack(r, cnt-2, w) {
			if delta < 0 {
				cur -= int64(d)
			} else {
				cur += int64(d)
			}
			out = append(out, cur)
		}
	}
	return out
}
