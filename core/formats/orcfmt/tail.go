package orcfmt

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// ErrCorrupt is wrapped by every error about a file that is not a readable
// ORC file (bad magic, truncated or inconsistent metadata, undecodable
// stream): the engine judges such a file corrupt (ignoreCorruptFiles).
var ErrCorrupt = errors.New("corrupt ORC file")

// ErrUnsupported is wrapped by the error about an ORC file using a feature
// this reader does not decode (union types, LZO compression, encrypted
// columns); it wraps ErrCorrupt too, so that such a file is reported or
// skipped like a corrupt one, never half-read.
var ErrUnsupported = fmt.Errorf("%w: unsupported ORC feature", ErrCorrupt)

// Limits on metadata sizes, so that a corrupt length never allocates
// unbounded memory.
const (
	maxTail   = 64 << 20  // postscript + footer + metadata
	maxStripe = 512 << 20 // one stripe's streams
	maxChunk  = 16 << 20  // one decompressed compression chunk
)

type codec int

const (
	codecNone codec = iota
	codecZlib
	codecSnappy
	codecLZO
	codecLZ4
	codecZstd
)

// ORC type kinds (orc_proto.Type.Kind).
const (
	kBoolean = iota
	kByte
	kShort
	kInt
	kLong
	kFloat
	kDouble
	kString
	kBinary
	kTimestamp
	kList
	kMap
	kStruct
	kUnion
	kDecimal
	kDate
	kVarchar
	kChar
	kTimestampInstant
)

type orcType struct {
	kind      int
	subtypes  []int
	names     []string
	precision int
	scale     int
}

type stripeInfo struct {
	offset, indexLen, dataLen, footerLen, rows uint64
}

type tail struct {
	codec     codec
	blockSize uint64
	rows      uint64
	stripes   []stripeInfo
	types     []orcType
}

// stream kinds (orc_proto.Stream.Kind).
const (
	sPresent        = 0
	sData           = 1
	sLength         = 2
	sDictionaryData = 3
	sSecondary      = 5
)

type streamInfo struct {
	kind, column, length uint64
}

type stripeFooter struct {
	streams   []streamInfo
	encodings []uint64 // per column: 0 DIRECT, 1 DICTIONARY, 2 DIRECT_V2, 3 DICTIONARY_V2
	dictSizes []uint64
	tz        string
}

func corrupt(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, a...))
}

// readTail reads and decodes the postscript and the footer of f.
func readTail(f fileformat.File) (*tail, error) {
	size := f.Size()
	if size < 4 {
		return nil, corrupt("%d bytes is too short", size)
	}
	n := int64(256)
	if n > size {
		n = size
	}
	end := make([]byte, n)
	if _, err := f.ReadAt(end, size-n); err != nil && !errors.Is(err, io.EOF) {
		return nil, corrupt("reading tail: %v", err)
	}
	psLen := int64(end[n-1])
	if psLen+1 > n || psLen == 0 {
		return nil, corrupt("postscript length %d exceeds file size %d", psLen, size)
	}
	ps := end[n-1-psLen : n-1]
	t := &tail{}
	var footerLen, metaLen uint64
	var magic []byte
	err := fields(ps, func(num protowire.Number, typ protowire.Type, v uint64, b []byte) error {
		switch num {
		case 1:
			footerLen = v
		case 2:
			t.codec = codec(v)
		case 3:
			t.blockSize = v
		case 5:
			metaLen = v
		case 8000:
			magic = b
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if string(magic) != "ORC" {
		return nil, corrupt("missing ORC magic in the postscript")
	}
	switch t.codec {
	case codecNone, codecZlib, codecSnappy, codecZstd, codecLZ4:
	default:
		return nil, fmt.Errorf("%w: compression kind %d (LZO and unknown kinds are not decoded)", ErrUnsupported, t.codec)
	}
	if t.codec != codecNone && (t.blockSize == 0 || t.blockSize > maxChunk) {
		return nil, corrupt("compression block size %d", t.blockSize)
	}
	if footerLen+metaLen > maxTail || int64(footerLen+metaLen)+psLen+1 > size {
		return nil, corrupt("footer length %d exceeds file size %d", footerLen, size)
	}
	raw := make([]byte, footerLen)
	if _, err := f.ReadAt(raw, size-1-psLen-int64(footerLen)); err != nil && !errors.Is(err, io.EOF) {
		return nil, corrupt("reading footer: %v", err)
	}
	foot, err := t.decompress(raw, maxTail)
	if err != nil {
		return nil, err
	}
	err = fields(foot, func(num protowire.Number, typ protowire.Type, v uint64, b []byte) error {
		switch num {
		case 3:
			var s stripeInfo
			if err := fields(b, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				switch num {
				case 1:
					s.offset = v
				case 2:
					s.indexLen = v
				case 3:
					s.dataLen = v
				case 4:
					s.footerLen = v
				case 5:
					s.rows = v
				case 6, 7:
					return fmt.Errorf("%w: encrypted stripes", ErrUnsupported)
				}
				return nil
			}); err != nil {
				return err
			}
			t.stripes = append(t.stripes, s)
		case 4:
			var ot orcType
			if err := fields(b, func(num protowire.Number, typ protowire.Type, v uint64, b []byte) error {
				switch num {
				case 1:
					ot.kind = int(v)
				case 2:
					if typ == protowire.BytesType {
						for len(b) > 0 {
							x, n := protowire.ConsumeVarint(b)
							if n < 0 {
								return corrupt("bad subtype list")
							}
							ot.subtypes = append(ot.subtypes, int(x))
							b = b[n:]
						}
					} else {
						ot.subtypes = append(ot.subtypes, int(v))
					}
				case 3:
					ot.names = append(ot.names, string(b))
				case 5:
					ot.precision = int(v)
				case 6:
					ot.scale = int(v)
				}
				return nil
			}); err != nil {
				return err
			}
			t.types = append(t.types, ot)
		case 6:
			t.rows = v
		case 10:
			return fmt.Errorf("%w: encrypted columns", ErrUnsupported)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(t.types) == 0 || t.types[0].kind != kStruct {
		return nil, corrupt("the root type is not a struct")
	}
	var sum uint64
	for i, s := range t.stripes {
		if s.offset+s.indexLen+s.dataLen+s.footerLen > uint64(size) || s.indexLen+s.dataLen+s.footerLen > maxStripe {
			return nil, corrupt("stripe %d lies outside the file", i)
		}
		sum += s.rows
	}
	if sum != t.rows {
		return nil, corrupt("stripes hold %d rows, footer claims %d", sum, t.rows)
	}
	for i, ot := range t.types {
		for _, c := range ot.subtypes {
			if c <= i || c >= len(t.types) {
				return nil, corrupt("type %d has bad subtype %d", i, c)
			}
		}
		if ot.kind == kStruct && len(ot.names) != len(ot.subtypes) {
			return nil, corrupt("struct type %d has %d names for %d fields", i, len(ot.names), len(ot.subtypes))
		}
	}
	return t, nil
}

// fields calls fn for each protobuf field of b: v is a varint's value (or
// a fixed one's), b a length-delimited field's bytes.
func fields(b []byte, fn func(num protowire.Number, typ protowire.Type, v uint64, b []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return corrupt("bad protobuf tag")
		}
		b = b[n:]
		var v uint64
		var val []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			val, n = protowire.ConsumeBytes(b)
		case protowire.Fixed32Type:
			var x uint32
			x, n = protowire.ConsumeFixed32(b)
			v = uint64(x)
		case protowire.Fixed64Type:
			v, n = protowire.ConsumeFixed64(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return corrupt("bad protobuf field %d", num)
		}
		b = b[n:]
		if err := fn(num, typ, v, val); err != nil {
			return err
		}
	}
	return nil
}

// decompress undoes ORC's compression framing: chunks with a 3-byte
// little-endian header (length<<1 | isOriginal).
func (t *tail) decompress(b []byte, limit int) ([]byte, error) {
	if t.codec == codecNone {
		return b, nil
	}
	var out []byte
	for len(b) > 0 {
		if len(b) < 3 {
			return nil, corrupt("truncated compression chunk header")
		}
		h := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
		n := int(h >> 1)
		b = b[3:]
		if n > len(b) {
			return nil, corrupt("compression chunk of %d bytes, %d left", n, len(b))
		}
		chunk := b[:n]
		b = b[n:]
		if h&1 == 1 {
			out = append(out, chunk...)
		} else {
			d, err := t.inflate(chunk)
			if err != nil {
				return nil, corrupt("decompressing: %v", err)
			}
			out = append(out, d...)
		}
		if len(out) > limit {
			return nil, corrupt("decompressed stream exceeds %d bytes", limit)
		}
	}
	return out, nil
}

func (t *tail) inflate(c []byte) ([]byte, error) {
	max := int(t.blockSize)
	switch t.codec {
	case codecZlib:
		r := flate.NewReader(bytes.NewReader(c))
		defer r.Close()
		d, err := io.ReadAll(io.LimitReader(r, int64(max)+1))
		if err != nil {
			return nil, err
		}
		if len(d) > max {
			return nil, fmt.Errorf("chunk inflates past the block size %d", max)
		}
		return d, nil
	case codecSnappy:
		n, err := snappy.DecodedLen(c)
		if err != nil {
			return nil, err
		}
		if n > max {
			return nil, fmt.Errorf("chunk inflates past the block size %d", max)
		}
		return snappy.Decode(nil, c)
	case codecZstd:
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(uint64(max)+1))
		if err != nil {
			return nil, err
		}
		defer dec.Close()
		d, err := dec.DecodeAll(c, nil)
		if err != nil {
			return nil, err
		}
		if len(d) > max {
			return nil, fmt.Errorf("chunk inflates past the block size %d", max)
		}
		return d, nil
	case codecLZ4:
		d := make([]byte, max)
		n, err := lz4.UncompressBlock(c, d)
		if err != nil {
			return nil, err
		}
		return d[:n], nil
	}
	return nil, fmt.Errorf("compression kind %d", t.codec)
}

// readStripeFooter decodes stripe s's footer.
func (t *tail) readStripeFooter(f fileformat.File, s stripeInfo) (*stripeFooter, error) {
	raw := make([]byte, s.footerLen)
	if _, err := f.ReadAt(raw, int64(s.offset+s.indexLen+s.dataLen)); err != nil && !errors.Is(err, io.EOF) {
		return nil, corrupt("reading stripe footer: %v", err)
	}
	b, err := t.decompress(raw, maxTail)
	if err != nil {
		return nil, err
	}
	sf := &stripeFooter{}
	err = fields(b, func(num protowire.Number, _ protowire.Type, _ uint64, b []byte) error {
		switch num {
		case 1:
			var si streamInfo
			if err := fields(b, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				switch num {
				case 1:
					si.kind = v
				case 2:
					si.column = v
				case 3:
					si.length = v
				}
				return nil
			}); err != nil {
				return err
			}
			sf.streams = append(sf.streams, si)
		case 2:
			var kind, size uint64
			if err := fields(b, func(num protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				switch num {
				case 1:
					kind = v
				case 2:
					size = v
				}
				return nil
			}); err != nil {
				return err
			}
			sf.encodings = append(sf.encodings, kind)
			sf.dictSizes = append(sf.dictSizes, size)
		case 3:
			sf.tz = string(b)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return sf, nil
}
