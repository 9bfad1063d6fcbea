package fileformat

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/snappy"
	"github.com/pierrec/lz4/v4"
)

// maxHadoopBlock bounds one block of Hadoop's block framing (Hadoop's
// codecs use buffers of 64 to 256 KiB; a larger claimed length is corrupt
// data, not a reason to allocate).
const maxHadoopBlock = 64 << 20

// snappyStreamMagic opens the snappy framing format (snzip, python-snappy's
// stream format); lz4FrameMagic the LZ4 frame format (the lz4 tool).
var (
	snappyStreamMagic = []byte{0xff, 0x06, 0x00, 0x00, 's', 'N', 'a', 'P', 'p', 'Y'}
	lz4FrameMagic     = []byte{0x04, 0x22, 0x4d, 0x18}
)

// newBlockCodecReader reads a .snappy or .lz4 file: Hadoop's block framing
// (what Spark's SnappyCodec and Lz4Codec write: blocks of a 4-byte
// big-endian uncompressed length, then chunks of a 4-byte big-endian
// compressed length and a raw snappy or LZ4 block, until the block's
// length is reached), or, recognised by its magic number, the codec's own
// stream format (snappy framing, LZ4 frame).
func newBlockCodecReader(r io.Reader, codec string) io.Reader {
	br := bufio.NewReader(r)
	magic := lz4FrameMagic
	if codec == "snappy" {
		magic = snappyStreamMagic
	}
	if head, _ := br.Peek(len(magic)); bytes.Equal(head, magic) {
		if codec == "snappy" {
			return snappy.NewReader(br)
		}
		return lz4.NewReader(br)
	}
	return &hadoopReader{r: br, codec: codec}
}

// hadoopReader decodes Hadoop's BlockCompressorStream framing.
type hadoopReader struct {
	r     io.Reader
	codec string
	left  int64  // uncompressed bytes of the current block still to come
	out   []byte // decoded bytes not yet returned
	chunk []byte
	dec   []byte
	err   error
}

func (h *hadoopReader) Read(p []byte) (int, error) {
	for len(h.out) == 0 {
		if h.err != nil {
			return 0, h.err
		}
		h.err = h.fill()
	}
	n := copy(p, h.out)
	h.out = h.out[n:]
	return n, nil
}

// be32 reads a 4-byte big-endian length; at a clean end of the stream it
// returns io.EOF.
func (h *hadoopReader) be32(what string, eofOK bool) (int64, error) {
	var b [4]byte
	n, err := io.ReadFull(h.r, b[:])
	if err != nil {
		if eofOK && n == 0 && errors.Is(err, io.EOF) {
			return 0, io.EOF
		}
		return 0, fmt.Errorf("%s block framing: %s truncated", h.codec, what)
	}
	v := int64(binary.BigEndian.Uint32(b[:]))
	if v > maxHadoopBlock {
		return 0, fmt.Errorf("%s block framing: %s %d is larger than %d bytes", h.codec, what, v, maxHadoopBlock)
	}
	return v, nil
}

// fill decodes the next chunk into h.out.
func (h *hadoopReader) fill() error {
	for h.left == 0 {
		n, err := h.be32("block length", true)
		if err != nil {
			return err
		}
		h.left = n
	}
	clen, err := h.be32("chunk length", false)
	if err != nil {
		return err
	}
	buf := bytes.NewBuffer(h.chunk[:0])
	if k, err := io.CopyN(buf, h.r, clen); err != nil || k != clen {
		return fmt.Errorf("%s block framing: chunk truncated", h.codec)
	}
	h.chunk = buf.Bytes()
	switch h.codec {
	case "snappy":
		n, err := snappy.DecodedLen(h.chunk)
		if err != nil || int64(n) > h.left {
			return fmt.Errorf("snappy block framing: corrupt chunk (decoded length %d, %d left in the block): %v", n, h.left, err)
		}
		h.dec, err = snappy.Decode(h.dec[:cap(h.dec)], h.chunk)
		if err != nil {
			return fmt.Errorf("snappy block framing: %w", err)
		}
	default:
		if int64(cap(h.dec)) < h.left {
			h.dec = make([]byte, h.left)
		}
		n, err := lz4.UncompressBlock(h.chunk, h.dec[:h.left])
		if err != nil {
			return fmt.Errorf("lz4 block framing: %w", err)
		}
		h.dec = h.dec[:n]
	}
	if len(h.dec) == 0 && clen > 0 {
		return fmt.Errorf("%s block framing: empty chunk", h.codec)
	}
	h.left -= int64(len(h.dec))
	h.out = h.dec
	return nil
}
