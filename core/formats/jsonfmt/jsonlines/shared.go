package jsonlines

import (
	"bytes"
	"errors"
	"io"
)

// Blocks read in place. A parallel reader of a file that can be mapped
// (fileformat.SharedMapper) hands its workers blocks that are slices of
// shared windows (MapShared) instead of copies: the bytes are neither
// copied by read(2) nor held twice. A window is unmapped when the reader
// has moved past it and every block cut from it is released, so resident
// memory grows by the windows the blocks in flight hold (a 1 MiB window
// holds eight 128 KiB blocks), not by the file. The next window starts at
// the first byte not cut into a block (a line crossing the end of a window
// comes whole from the next one), and blocks end where Block may end
// them: after a "\n", after a "\r" followed by another byte, or at the end
// of the stream.

// dropWin drops the reader's hold on the window buf is.
func (l *Reader) dropWin() {
	if l.win != nil {
		l.win.Release()
		l.win = nil
	}
}

// BlockShared is Block for a source read in place: it returns the next run
// of whole lines (at least size bytes of them unless the stream ends
// first; a UTF-8 byte order mark opening the stream dropped) as a slice of
// a mapped window, and release, which the caller calls once when done with
// the block (from any goroutine): the block stays valid until then, across
// later calls and Release. The block's lines are Cut from it as from
// Block's, numbered from first+1. A source that is not read in place is
// read with Block into dst instead, and release is nil. At the end of the
// stream it returns io.EOF; a mapping error is returned as is. Next, Block
// and BlockShared may alternate.
func (l *Reader) BlockShared(dst []byte, size int) (b []byte, first int64, release func(), err error) {
	if l.mapper == nil || l.sharer == nil || !l.Blocks() {
		b, first, err = l.Block(dst, size)
		return b, first, nil, err
	}
	size = max(size, 1)
	if !l.shared {
		l.shared = true
		if l.mapped {
			// Remap what is unread as a shared window.
			l.fill()
			if l.win == nil {
				return nil, l.line, nil, l.err // the mapping failed
			}
			l.mapper.Unmap() // the MapAt window
		}
	}
	first = l.line
	var cut int
	for {
		if l.skipLF && l.pos < l.end {
			if l.buf[l.pos] == '\n' {
				l.pos++
			}
			l.skipLF = false
		}
		if l.end-l.pos >= size {
			s := l.pos + size - 1
			if i := bytes.IndexByte(l.buf[s:l.end], '\n'); i >= 0 {
				cut = s + i + 1
				break
			}
			// A "\r" with a byte after it (not "\n": there is none) ends
			// a line.
			if i := bytes.IndexByte(l.buf[s:l.end-1], '\r'); i >= 0 {
				cut = s + i + 1
				break
			}
		}
		if l.err != nil {
			if !errors.Is(l.err, io.EOF) {
				return nil, first, nil, l.err
			}
			cut = l.end
			break
		}
		l.fill()
		if l.mapper == nil {
			// The first mapping failed: read on with Block.
			b, first, err = l.Block(dst, size)
			return b, first, nil, err
		}
	}
	if cut == l.pos {
		l.Release()
		return nil, first, nil, io.EOF
	}
	b = l.buf[l.pos:cut:cut]
	l.pos, l.from, l.crOK = cut, cut, false
	l.count(b)
	if first == 0 && bytes.HasPrefix(b, bom) {
		b = b[3:]
		if len(b) == 0 {
			// The stream was the mark alone: one empty line, as Next
			// returns it.
			b = []byte{'\n'}
		}
	}
	w := l.win
	w.Hold()
	return b, first, w.Release, nil
}
