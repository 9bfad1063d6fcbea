package avrofmt

import (
	"bytes"
	"compress/bzip2"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
)

// ErrCorrupt is wrapped by every error about a file's bytes: a bad header,
// block, codec payload or value.
var ErrCorrupt = errors.New("corrupt Avro file")

// Limits that keep a corrupt length from allocating memory the file does
// not hold (lengths are checked against the bytes present before anything
// is allocated).
const (
	// maxBlockBytes bounds one block, compressed or not (Avro writers use
	// blocks of 16 KiB to a few MiB).
	maxBlockBytes = 1 << 30
	// maxMetaBytes bounds the header's metadata map.
	maxMetaBytes = 64 << 20
)

var magic = []byte{'O', 'b', 'j', 1}

// container reads an Avro object container file: the header (schema,
// codec, sync marker), then blocks of records.
type container struct {
	r      io.Reader
	schema string
	codec  string
	sync   [16]byte
	zstd   *zstd.Decoder
	raw    []byte // reused compressed-block buffer
	nbytes int64  // bytes read from r
}

// readFull reads exactly n bytes into a buffer grown as the data arrives, so
// that a length larger than the file costs only the bytes the file has.
func (c *container) readFull(dst []byte, n int64, what string) ([]byte, error) {
	dst = dst[:0]
	if n < 0 || n > maxBlockBytes {
		return nil, fmt.Errorf("%w: %s length %d", ErrCorrupt, what, n)
	}
	if int64(cap(dst)) >= n {
		dst = dst[:n]
		k, err := io.ReadFull(c.r, dst)
		c.nbytes += int64(k)
		if err != nil {
			return nil, fmt.Errorf("%w: %s truncated: %v", ErrCorrupt, what, err)
		}
		return dst, nil
	}
	buf := bytes.NewBuffer(dst)
	k, err := io.CopyN(buf, c.r, n)
	c.nbytes += k
	if err != nil {
		return nil, fmt.Errorf("%w: %s truncated: %v", ErrCorrupt, what, err)
	}
	return buf.Bytes(), nil
}

// varint reads one zig-zag varint long from the stream.
func (c *container) varint(what string) (int64, error) {
	var u uint64
	var b [1]byte
	for shift := uint(0); ; shift += 7 {
		if shift >= 64 {
			return 0, fmt.Errorf("%w: %s: varint too long", ErrCorrupt, what)
		}
		if _, err := io.ReadFull(c.r, b[:]); err != nil {
			if errors.Is(err, io.EOF) && shift == 0 {
				return 0, io.EOF
			}
			return 0, fmt.Errorf("%w: %s truncated", ErrCorrupt, what)
		}
		c.nbytes++
		u |= uint64(b[0]&0x7f) << shift
		if b[0]&0x80 == 0 {
			break
		}
	}
	return int64(u>>1) ^ -int64(u&1), nil
}

// field reads a varint where the stream may not end.
func (c *container) field(what string) (int64, error) {
	v, err := c.varint(what)
	if errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("%w: %s truncated", ErrCorrupt, what)
	}
	return v, err
}

// openContainer reads the header of an Avro object container file.
func openContainer(r io.Reader) (*container, error) {
	c := &container{r: r}
	head, err := c.readFull(nil, 4, "header")
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(head, magic) {
		return nil, fmt.Errorf("%w: not an Avro object container file (no Obj\\x01 magic)", ErrCorrupt)
	}
	meta := map[string][]byte{}
	var total int64
	for {
		n, err := c.field("header metadata")
		if err != nil {
			return nil, fmt.Errorf("%w: header metadata truncated", ErrCorrupt)
		}
		if n == 0 {
			break
		}
		if n < 0 {
			n = -n
			if _, err := c.field("header metadata block size"); err != nil {
				return nil, err
			}
		}
		for range n {
			kl, err := c.field("metadata key")
			if err != nil {
				return nil, err
			}
			total += kl
			if kl < 0 || total > maxMetaBytes {
				return nil, fmt.Errorf("%w: header metadata too large", ErrCorrupt)
			}
			k, err := c.readFull(nil, kl, "metadata key")
			if err != nil {
				return nil, err
			}
			vl, err := c.field("metadata value")
			if err != nil {
				return nil, err
			}
			total += vl
			if vl < 0 || total > maxMetaBytes {
				return nil, fmt.Errorf("%w: header metadata too large", ErrCorrupt)
			}
			v, err := c.readFull(nil, vl, "metadata value")
			if err != nil {
				return nil, err
			}
			meta[string(k)] = v
		}
	}
	s, err := c.readFull(nil, 16, "sync marker")
	if err != nil {
		return nil, err
	}
	copy(c.sync[:], s)
	c.schema = string(meta["avro.schema"])
	if c.schema == "" {
		return nil, fmt.Errorf("%w: header has no avro.schema", ErrCorrupt)
	}
	c.codec = string(meta["avro.codec"])
	switch c.codec {
	case "", "null", "deflate", "snappy", "zstandard", "bzip2":
	default:
		return nil, fmt.Errorf("%w: codec %q is not supported (null, deflate, snappy, zstandard and bzip2 are)", ErrCorrupt, c.codec)
	}
	return c, nil
}

// next returns the next block's record count and decompressed bytes, or
// io.EOF after the last block. dst is reused when large enough.
func (c *container) next(dst []byte) (int64, []byte, error) {
	count, err := c.varint("block count")
	if err != nil {
		return 0, nil, err // io.EOF: no more blocks
	}
	size, err := c.field("block size")
	if err != nil {
		return 0, nil, err
	}
	if count < 0 {
		return 0, nil, fmt.Errorf("%w: negative block count %d", ErrCorrupt, count)
	}
	raw, err := c.readFull(c.raw, size, "block")
	if err != nil {
		return 0, nil, err
	}
	c.raw = raw
	sync, err := c.readFull(nil, 16, "block sync marker")
	if err != nil {
		return 0, nil, err
	}
	if !bytes.Equal(sync, c.sync[:]) {
		return 0, nil, fmt.Errorf("%w: block sync marker does not match the header's", ErrCorrupt)
	}
	data, err := c.decode(dst, raw)
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %s block: %v", ErrCorrupt, c.codec, err)
	}
	return count, data, nil
}

// decode decompresses one block with the file's codec.
func (c *container) decode(dst, raw []byte) ([]byte, error) {
	switch c.codec {
	case "", "null":
		return raw, nil
	case "deflate":
		return readLimited(dst, flate.NewReader(bytes.NewReader(raw)))
	case "bzip2":
		return readLimited(dst, bzip2.NewReader(bytes.NewReader(raw)))
	case "snappy":
		if len(raw) < 4 {
			return nil, errors.New("snappy block shorter than its checksum")
		}
		body, sum := raw[:len(raw)-4], binary.BigEndian.Uint32(raw[len(raw)-4:])
		n, err := snappy.DecodedLen(body)
		if err != nil {
			return nil, err
		}
		// A snappy copy of 3 bytes yields at most 64: a larger claimed
		// length is a lie, not worth allocating.
		if n > maxBlockBytes || n > 22*len(body)+64 {
			return nil, fmt.Errorf("decoded length %d too large for %d bytes", n, len(body))
		}
		out, err := snappy.Decode(dst[:cap(dst)], body)
		if err != nil {
			return nil, err
		}
		if crc32.ChecksumIEEE(out) != sum {
			return nil, errors.New("snappy block checksum mismatch")
		}
		return out, nil
	case "zstandard":
		if c.zstd == nil {
			d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxBlockBytes))
			if err != nil {
				return nil, err
			}
			c.zstd = d
		}
		return c.zstd.DecodeAll(raw, dst[:0])
	}
	return nil, fmt.Errorf("codec %q", c.codec)
}

// readLimited reads r whole into dst, failing past maxBlockBytes.
func readLimited(dst []byte, r io.Reader) ([]byte, error) {
	buf := bytes.NewBuffer(dst[:0])
	n, err := io.Copy(buf, io.LimitReader(r, maxBlockBytes+1))
	if err != nil {
		return nil, err
	}
	if n > maxBlockBytes {
		return nil, errors.New("decompressed block too large")
	}
	return buf.Bytes(), nil
}

// close releases the codec.
func (c *container) close() {
	if c.zstd != nil {
		c.zstd.Close()
		c.zstd = nil
	}
}
