// Package dv decodes Delta Lake deletion vectors (PROTOCOL.md "Deletion
// Vector Format"): the Z85 text of inline vectors and relative file names,
// the RoaringBitmapArray serialisation (a magic number and a portable
// 64-bit Roaring bitmap) and the deletion vector file layout (a version
// byte, then per vector a big-endian size, the bitmap and its CRC-32).
// It also encodes bitmaps, for writers and tests.
package dv

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"slices"
	"strings"
)

// ErrInvalid is wrapped when a deletion vector cannot be decoded: bad Z85,
// a wrong magic number, a truncated or inconsistent bitmap, a checksum
// mismatch.
var ErrInvalid = errors.New("delta: invalid deletion vector")

// magic is the magic number of the RoaringBitmapArray format (portable
// 64-bit Roaring serialisation), little endian.
const magic = 1681511377

// z85Alphabet is the ZeroMQ Base85 (Z85) alphabet.
const z85Alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"

// Z85Decode decodes Z85 text (a multiple of 5 characters) into bytes.
func Z85Decode(s string) ([]byte, error) {
	if len(s)%5 != 0 {
		return nil, fmt.Errorf("%w: Z85 text of %d characters is not a multiple of 5", ErrInvalid, len(s))
	}
	out := make([]byte, 0, len(s)/5*4)
	for i := 0; i < len(s); i += 5 {
		var v uint64
		for j := 0; j < 5; j++ {
			d := strings.IndexByte(z85Alphabet, s[i+j])
			if d < 0 {
				return nil, fmt.Errorf("%w: %q is not a Z85 character", ErrInvalid, s[i+j])
			}
			v = v*85 + uint64(d)
		}
		if v > 0xFFFFFFFF {
			return nil, fmt.Errorf("%w: Z85 block %q overflows", ErrInvalid, s[i:i+5])
		}
		out = binary.BigEndian.AppendUint32(out, uint32(v))
	}
	return out, nil
}

// Z85Encode encodes bytes (a multiple of 4) as Z85 text.
func Z85Encode(b []byte) string {
	var sb strings.Builder
	for i := 0; i+4 <= len(b); i += 4 {
		v := binary.BigEndian.Uint32(b[i:])
		var blk [5]byte
		for j := 4; j >= 0; j-- {
			blk[j] = z85Alphabet[v%85]
			v /= 85
		}
		sb.Write(blk[:])
	}
	return sb.String()
}

// DVFileKey returns the store key of the file holding an on-disk deletion
// vector relative to the table root (storage type "u":
// <prefix>/deletion_vector_<uuid>.bin) or, for storage type "p", the key
// that the absolute path names under root (the table's location URI, e.g.
// "s3://bucket/table" or "file:///data/table"; "" when unknown). Inline

// UUIDFileName returns the file name of a deletion vector stored with
// storage type "u": pathOrInlineDv is an optional random prefix followed by
// the Z85-encoded UUID (20 characters); the file is
// <prefix>/deletion_vector_<uuid>.bin relative to the table root.
func UUIDFileName(pathOrInlineDv string) (string, error) {
	p := pathOrInlineDv
	if len(p) < 20 {
		return "", fmt.Errorf("%w: relative path %q is shorter than a Z85 UUID", ErrInvalid, p)
	}
	prefix, enc := p[:len(p)-20], p[len(p)-20:]
	u, err := Z85Decode(enc)
	if err != nil {
		return "", err
	}
	name := fmt.Sprintf("deletion_vector_%x-%x-%x-%x-%x.bin", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
	if prefix != "" {
		name = prefix + "/" + name
	}
	return name, nil
}

// rows a deletion vector removes.
type RowSet []uint64

// Decode decodes Delta's RoaringBitmapArray format (magic number then a
// portable 64-bit Roaring bitmap) into ascending row indexes. It refuses a
// bitmap holding more than limit values, so that a few hostile bytes cannot
// make it allocate without bound.
func Decode(b []byte, limit uint64) (RowSet, error) {
	r := &byteReader{b: b}
	m, ok := r.u32()
	if !ok || m != magic {
		return nil, fmt.Errorf("%w: magic number %d, want %d (RoaringBitmapArray)", ErrInvalid, m, magic)
	}
	n, ok := r.u64()
	if !ok {
		return nil, fmt.Errorf("%w: truncated bucket count", ErrInvalid)
	}
	if n > uint64(len(b)) {
		return nil, fmt.Errorf("%w: %d buckets in %d bytes", ErrInvalid, n, len(b))
	}
	var out RowSet
	prevKey := int64(-1)
	for i := uint64(0); i < n; i++ {
		key, ok := r.u32()
		if !ok {
			return nil, fmt.Errorf("%w: truncated bucket %d", ErrInvalid, i)
		}
		if int64(key) <= prevKey || key&0x80000000 != 0 {
			return nil, fmt.Errorf("%w: bucket key %d out of order or negative", ErrInvalid, key)
		}
		prevKey = int64(key)
		var err error
		if out, err = decodeRoaring32(r, uint64(key)<<32, out, limit); err != nil {
			return nil, fmt.Errorf("bucket %d: %w", key, err)
		}
	}
	if r.off != len(b) {
		return nil, fmt.Errorf("%w: %d trailing bytes after the bitmap", ErrInvalid, len(b)-r.off)
	}
	return out, nil
}

// Roaring serialisation constants (RoaringFormatSpec).
const (
	roaringCookieNoRun = 12346
	roaringCookie      = 12347
	roaringNoOffsetMax = 4 // fewer containers than this: no offset header (run format)
	roaringArrayMax    = 4096
)

// decodeRoaring32 appends the values of one 32-bit Roaring bitmap, each
// ORed with high, to out.
func decodeRoaring32(r *byteReader, high uint64, out RowSet, limit uint64) (RowSet, error) {
	bad := func(format string, args ...any) (RowSet, error) {
		return nil, fmt.Errorf("%w: roaring bitmap: "+format, append([]any{ErrInvalid}, args...)...)
	}
	cookie, ok := r.u32()
	if !ok {
		return bad("truncated cookie")
	}
	var size int
	var runFlags []byte
	hasOffsets := false
	switch {
	case cookie&0xFFFF == roaringCookie:
		size = int(cookie>>16) + 1
		if runFlags, ok = r.bytes((size + 7) / 8); !ok {
			return bad("truncated run flags")
		}
		hasOffsets = size >= roaringNoOffsetMax
	case cookie == roaringCookieNoRun:
		n, ok := r.u32()
		if !ok || n > 1<<16 {
			return bad("container count %d", n)
		}
		size = int(n)
		hasOffsets = true
	default:
		return bad("unknown cookie %d", cookie)
	}
	type hdr struct{ key, card int }
	hdrs := make([]hdr, size)
	prev := -1
	for i := range hdrs {
		k, ok1 := r.u16()
		c, ok2 := r.u16()
		if !ok1 || !ok2 {
			return bad("truncated container header")
		}
		if int(k) <= prev {
			return bad("container keys out of order")
		}
		prev = int(k)
		hdrs[i] = hdr{int(k), int(c) + 1}
	}
	if hasOffsets {
		if _, ok := r.bytes(4 * size); !ok {
			return bad("truncated offset header")
		}
	}
	for i, h := range hdrs {
		base := high | uint64(h.key)<<16
		isRun := runFlags != nil && runFlags[i/8]&(1<<(i%8)) != 0
		switch {
		case isRun:
			nruns, ok := r.u16()
			if !ok {
				return bad("truncated run container")
			}
			last := -1
			for j := 0; j < int(nruns); j++ {
				start, ok1 := r.u16()
				length, ok2 := r.u16()
				if !ok1 || !ok2 || int(start) <= last || int(start)+int(length) > 0xFFFF {
					return bad("malformed run")
				}
				last = int(start) + int(length)
				if uint64(len(out))+uint64(length)+1 > limit {
					return bad("more values than the cardinality %d", limit)
				}
				for v := int(start); v <= last; v++ {
					out = append(out, base|uint64(v))
				}
			}
		case h.card <= roaringArrayMax:
			if uint64(len(out))+uint64(h.card) > limit {
				return bad("more values than the cardinality %d", limit)
			}
			last := -1
			for j := 0; j < h.card; j++ {
				v, ok := r.u16()
				if !ok || int(v) <= last {
					return bad("malformed array container")
				}
				last = int(v)
				out = append(out, base|uint64(v))
			}
		default:
			words, ok := r.bytes(8192)
			if !ok {
				return bad("truncated bitmap container")
			}
			if uint64(len(out))+uint64(h.card) > limit {
				return bad("more values than the cardinality %d", limit)
			}
			n := 0
			for w := 0; w < 1024; w++ {
				word := binary.LittleEndian.Uint64(words[w*8:])
				for word != 0 {
					bit := bits.TrailingZeros64(word)
					word &= word - 1
					if n++; n > h.card {
						return bad("bitmap container holds more than its cardinality %d", h.card)
					}
					out = append(out, base|uint64(w*64+bit))
				}
			}
			if n != h.card {
				return bad("bitmap container holds %d values, header says %d", n, h.card)
			}
		}
	}
	return out, nil
}

type byteReader struct {
	b   []byte
	off int
}

func (r *byteReader) bytes(n int) ([]byte, bool) {
	if n < 0 || len(r.b)-r.off < n {
		return nil, false
	}
	s := r.b[r.off : r.off+n]
	r.off += n
	return s, true
}

func (r *byteReader) u16() (uint16, bool) {
	s, ok := r.bytes(2)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint16(s), true
}

func (r *byteReader) u32() (uint32, bool) {
	s, ok := r.bytes(4)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint32(s), true
}

func (r *byteReader) u64() (uint64, bool) {
	s, ok := r.bytes(8)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint64(s), true
}

// maxDVBytes bounds a serialised deletion vector (a file row index set of

// ReadStored reads the vector at offset (sizeInBytes size) from a deletion
// vector file streamed from its start: byte 0 is the format version (1);
// at offset come a big-endian size, the bitmap and its big-endian CRC-32,
// all checked. It returns the bitmap bytes (for Decode).
func ReadStored(r io.Reader, offset, size int64) ([]byte, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
	}
	var version [1]byte
	if _, err := io.ReadFull(r, version[:]); err != nil {
		return nil, bad("no version byte: %v", err)
	}
	if version[0] != 1 {
		return nil, bad("format version %d, want 1", version[0])
	}
	if offset < 1 {
		return nil, bad("offset %d points into the header", offset)
	}
	if size < 0 || size > MaxBytes {
		return nil, bad("size %d", size)
	}
	if _, err := io.CopyN(io.Discard, r, offset-1); err != nil {
		return nil, bad("offset %d beyond the end: %v", offset, err)
	}
	buf := make([]byte, 4+size+4)
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, bad("truncated vector at offset %d: %v", offset, err)
	}
	if n := binary.BigEndian.Uint32(buf); int64(n) != size {
		return nil, bad("vector at offset %d has %d bytes, sizeInBytes is %d", offset, n, size)
	}
	data := buf[4 : 4+size]
	if want, got := binary.BigEndian.Uint32(buf[4+size:]), crc32.ChecksumIEEE(data); want != got {
		return nil, bad("checksum %08x, want %08x", got, want)
	}
	return data, nil
}

// MaxBytes bounds a serialised deletion vector.
const MaxBytes = 1 << 30

// Contains reports whether row i is in the set (binary search).
func (s RowSet) Contains(i uint64) bool {
	_, ok := slices.BinarySearch(s, i)
	return ok
}

// Encode serialises ascending, distinct row indexes in the
// RoaringBitmapArray format (array containers up to 4096 values, bitmap
// containers above; no run containers).
func Encode(rows []uint64) []byte {
	out := binary.LittleEndian.AppendUint32(nil, magic)
	var keys []uint32
	buckets := map[uint32][]uint32{}
	for _, r := range rows {
		k := uint32(r >> 32)
		if _, ok := buckets[k]; !ok {
			keys = append(keys, k)
		}
		buckets[k] = append(buckets[k], uint32(r))
	}
	out = binary.LittleEndian.AppendUint64(out, uint64(len(keys)))
	for _, k := range keys {
		out = binary.LittleEndian.AppendUint32(out, k)
		out = encode32(out, buckets[k])
	}
	return out
}

func encode32(out []byte, vals []uint32) []byte {
	var keys []uint16
	conts := map[uint16][]uint16{}
	for _, v := range vals {
		k := uint16(v >> 16)
		if _, ok := conts[k]; !ok {
			keys = append(keys, k)
		}
		conts[k] = append(conts[k], uint16(v))
	}
	n := len(keys)
	out = binary.LittleEndian.AppendUint32(out, roaringCookieNoRun)
	out = binary.LittleEndian.AppendUint32(out, uint32(n))
	for _, k := range keys {
		out = binary.LittleEndian.AppendUint16(out, k)
		out = binary.LittleEndian.AppendUint16(out, uint16(len(conts[k])-1))
	}
	off := uint32(8 + 4*n + 4*n) // cookie, count, headers, offsets
	for _, k := range keys {
		out = binary.LittleEndian.AppendUint32(out, off)
		if c := len(conts[k]); c > roaringArrayMax {
			off += 8192
		} else {
			off += uint32(2 * c)
		}
	}
	for _, k := range keys {
		c := conts[k]
		if len(c) > roaringArrayMax {
			words := make([]uint64, 1024)
			for _, v := range c {
				words[v/64] |= 1 << (v % 64)
			}
			for _, w := range words {
				out = binary.LittleEndian.AppendUint64(out, w)
			}
			continue
		}
		for _, v := range c {
			out = binary.LittleEndian.AppendUint16(out, v)
		}
	}
	return out
}
