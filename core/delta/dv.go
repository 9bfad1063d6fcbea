package delta

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"
	"strings"

	"github.com/tributary-io/tributary/core/objstore"
)

// ErrInvalidDeletionVector is wrapped when a deletion vector cannot be
// decoded: bad Z85, a wrong magic number, a truncated or inconsistent
// bitmap, a checksum mismatch, or a cardinality other than the descriptor's.
var ErrInvalidDeletionVector = errors.New("delta: invalid deletion vector")

// Deletion vector storage types (DeletionVector.StorageType).
const (
	DVStorageInline   = "i" // the bitmap is Z85-encoded in pathOrInlineDv
	DVStorageRelative = "u" // <random prefix><Z85 UUID>, a file under the table root
	DVStorageAbsolute = "p" // an absolute path, like add.path
)

// dvMagic is the magic number of the RoaringBitmapArray format (portable
// 64-bit Roaring serialisation), little endian.
const dvMagic = 1681511377

// z85Alphabet is the ZeroMQ Base85 (Z85) alphabet.
const z85Alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"

var z85Index = func() [256]int8 {
	var t [256]int8
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(z85Alphabet); i++ {
		t[z85Alphabet[i]] = int8(i)
	}
	return t
}()

// z85Decode decodes Z85 text (a multiple of 5 characters) into bytes.
func z85Decode(s string) ([]byte, error) {
	if len(s)%5 != 0 {
		return nil, fmt.Errorf("%w: Z85 text of %d characters is not a multiple of 5", ErrInvalidDeletionVector, len(s))
	}
	out := make([]byte, 0, len(s)/5*4)
	for i := 0; i < len(s); i += 5 {
		var v uint64
		for j := 0; j < 5; j++ {
			d := z85Index[s[i+j]]
			if d < 0 {
				return nil, fmt.Errorf("%w: %q is not a Z85 character", ErrInvalidDeletionVector, s[i+j])
			}
			v = v*85 + uint64(d)
		}
		if v > 0xFFFFFFFF {
			return nil, fmt.Errorf("%w: Z85 block %q overflows", ErrInvalidDeletionVector, s[i:i+5])
		}
		out = binary.BigEndian.AppendUint32(out, uint32(v))
	}
	return out, nil
}

// z85Encode encodes bytes (a multiple of 4) as Z85 text.
func z85Encode(b []byte) string {
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
// vectors have no file.
func (d *DeletionVector) DVFileKey(root string) (string, error) {
	switch d.StorageType {
	case DVStorageRelative:
		p := d.PathOrInlineDv
		if len(p) < 20 {
			return "", fmt.Errorf("%w: relative path %q is shorter than a Z85 UUID", ErrInvalidDeletionVector, p)
		}
		prefix, enc := p[:len(p)-20], p[len(p)-20:]
		u, err := z85Decode(enc)
		if err != nil {
			return "", err
		}
		name := fmt.Sprintf("deletion_vector_%x-%x-%x-%x-%x.bin", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
		if prefix != "" {
			name = prefix + "/" + name
		}
		return name, nil
	case DVStorageAbsolute:
		return absoluteKey(d.PathOrInlineDv, root)
	case DVStorageInline:
		return "", fmt.Errorf("%w: an inline deletion vector has no file", ErrInvalidDeletionVector)
	}
	return "", fmt.Errorf("%w: unknown storage type %q", ErrInvalidDeletionVector, d.StorageType)
}

// absoluteKey maps an absolute file URI under root to a key of the table's
// store.
func absoluteKey(path, root string) (string, error) {
	if root != "" {
		r := strings.TrimSuffix(canonicalPath(root), "/") + "/"
		if rest, ok := strings.CutPrefix(canonicalPath(path), r); ok {
			return ObjectKey(rest)
		}
	}
	return "", fmt.Errorf("%w: %q is not under the table location %q", ErrAbsolutePath, path, root)
}

// RowSet is a set of row indexes in a data file, in ascending order: the
// rows a deletion vector removes.
type RowSet []uint64

// decodeRoaringArray decodes Delta's RoaringBitmapArray format (magic number
// then a portable 64-bit Roaring bitmap). It refuses a bitmap holding more
// than limit values.
func decodeRoaringArray(b []byte, limit uint64) (RowSet, error) {
	r := &byteReader{b: b}
	magic, ok := r.u32()
	if !ok || magic != dvMagic {
		return nil, fmt.Errorf("%w: magic number %d, want %d (RoaringBitmapArray)", ErrInvalidDeletionVector, magic, dvMagic)
	}
	n, ok := r.u64()
	if !ok {
		return nil, fmt.Errorf("%w: truncated bucket count", ErrInvalidDeletionVector)
	}
	if n > uint64(len(b)) {
		return nil, fmt.Errorf("%w: %d buckets in %d bytes", ErrInvalidDeletionVector, n, len(b))
	}
	var out RowSet
	prevKey := int64(-1)
	for i := uint64(0); i < n; i++ {
		key, ok := r.u32()
		if !ok {
			return nil, fmt.Errorf("%w: truncated bucket %d", ErrInvalidDeletionVector, i)
		}
		if int64(key) <= prevKey || key&0x80000000 != 0 {
			return nil, fmt.Errorf("%w: bucket key %d out of order or negative", ErrInvalidDeletionVector, key)
		}
		prevKey = int64(key)
		var err error
		if out, err = decodeRoaring32(r, uint64(key)<<32, out, limit); err != nil {
			return nil, fmt.Errorf("bucket %d: %w", key, err)
		}
	}
	if r.off != len(b) {
		return nil, fmt.Errorf("%w: %d trailing bytes after the bitmap", ErrInvalidDeletionVector, len(b)-r.off)
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
		return nil, fmt.Errorf("%w: roaring bitmap: "+format, append([]any{ErrInvalidDeletionVector}, args...)...)
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
// 2^31 rows as a bitmap is far smaller).
const maxDVBytes = 1 << 30

// LoadDeletionVector reads the rows a deletion vector removes: decoded
// inline, or read from its file in the table's store (the file's version
// byte, the vector's size and CRC-32 checksum are checked). The decoded
// count must equal the descriptor's cardinality.
func (t *Table) LoadDeletionVector(ctx context.Context, d *DeletionVector) (RowSet, error) {
	if d == nil {
		return nil, nil
	}
	if d.Cardinality < 0 || d.SizeInBytes < 0 || d.SizeInBytes > maxDVBytes {
		return nil, fmt.Errorf("%w: cardinality %d, sizeInBytes %d", ErrInvalidDeletionVector, d.Cardinality, d.SizeInBytes)
	}
	var data []byte
	var where string
	switch d.StorageType {
	case DVStorageInline:
		b, err := z85Decode(d.PathOrInlineDv)
		if err != nil {
			return nil, err
		}
		if int(d.SizeInBytes) > len(b) {
			return nil, fmt.Errorf("%w: inline vector decodes to %d bytes, sizeInBytes is %d", ErrInvalidDeletionVector, len(b), d.SizeInBytes)
		}
		data, where = b[:d.SizeInBytes], "inline"
	default:
		key, err := d.DVFileKey(t.rootURI)
		if err != nil {
			return nil, err
		}
		offset := int64(0)
		if d.Offset != nil {
			offset = int64(*d.Offset)
		}
		if data, err = t.readDVFile(ctx, key, offset, int64(d.SizeInBytes)); err != nil {
			return nil, err
		}
		where = key
	}
	rows, err := decodeRoaringArray(data, uint64(d.Cardinality))
	if err != nil {
		return nil, fmt.Errorf("deletion vector %s: %w", where, err)
	}
	if int64(len(rows)) != d.Cardinality {
		return nil, fmt.Errorf("deletion vector %s: %w: holds %d rows, cardinality says %d", where, ErrInvalidDeletionVector, len(rows), d.Cardinality)
	}
	return rows, nil
}

// readDVFile reads one vector from a deletion vector file: byte 0 is the
// format version (1); at offset, a big-endian size, the bitmap and its
// big-endian CRC-32.
func (t *Table) readDVFile(ctx context.Context, key string, offset, size int64) ([]byte, error) {
	rc, err := t.store.Get(ctx, key)
	if err != nil {
		if errors.Is(err, objstore.ErrNotFound) {
			return nil, fmt.Errorf("delta: deletion vector file %s: %w", key, err)
		}
		return nil, fmt.Errorf("delta: read deletion vector file %s: %w", key, err)
	}
	defer rc.Close()
	bad := func(format string, args ...any) error {
		return fmt.Errorf("deletion vector file %s: %w: "+format, append([]any{key, ErrInvalidDeletionVector}, args...)...)
	}
	var version [1]byte
	if _, err := io.ReadFull(rc, version[:]); err != nil {
		return nil, bad("no version byte: %v", err)
	}
	if version[0] != 1 {
		return nil, bad("format version %d, want 1", version[0])
	}
	if offset < 1 {
		return nil, bad("offset %d points into the header", offset)
	}
	if _, err := io.CopyN(io.Discard, rc, offset-1); err != nil {
		return nil, bad("offset %d beyond the end: %v", offset, err)
	}
	buf := make([]byte, 4+size+4)
	if _, err := io.ReadFull(rc, buf); err != nil {
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

// Contains reports whether row i is in the set (binary search).
func (s RowSet) Contains(i uint64) bool {
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s[m] < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(s) && s[lo] == i
}
