package jsonlines

import (
	"bytes"
	"errors"
	"io"
	"slices"
)

// Blocks of lines. A parallel reader hands whole runs of lines to its
// workers; Block reads such a run straight from the stream into the
// caller's buffer, so the lines are neither searched for nor copied one by
// one on the reading goroutine: the workers split a block with Cut, which
// ends lines exactly as Next does. Line numbers stay exact: Block counts
// the lines of each block it returns (two vectorized passes, bytes.Count
// and bytes.IndexByte, unless the block holds a "\r"), unless its caller
// counts them instead (CountLater).

// Blocks reports whether the reader may be read with Block: the default
// line ends ("\n", "\r\n", "\r") and not one whole record (multiLine).
func (l *Reader) Blocks() bool { return l.sep == nil && !l.Whole }

// maxCarry bounds the partial line kept after a block's last line end,
// for the next block; a longer partial line is read on into this block.
const maxCarry = 64 << 10

// Block appends to dst the next run of whole lines, with their line ends:
// the stream's next bytes up to the last "\n" once at least size of them
// are read (up to the last lone "\r" when there is no "\n" to cut after;
// or up to the end of the stream), a UTF-8 byte order mark
// opening the stream dropped. It returns the extended buffer and the
// number of the line before the block's first; the block's lines are Cut
// from dst[len(dst) on entry:]. At the end of the stream it returns dst
// unchanged and io.EOF; a read error is returned with the bytes read before
// it not returned (as Next returns the error before a partial line). The
// reader must satisfy Blocks, and Next and Block may alternate. dst grows
// (a copy) when it lacks room; give it cap(dst)-len(dst) > size to avoid
// that.
func (l *Reader) Block(dst []byte, size int) ([]byte, int64, error) {
	l.leaveMapped()
	start := len(dst)
	first := l.line
	// Input read ahead by Next (or the partial line a Block left).
	dst = append(dst, l.buf[l.pos:l.end]...)
	l.pos, l.end, l.from, l.crOK = 0, 0, 0, false
	var cut int                                              // the block is dst[start:cut]
	lastLF := start + bytes.LastIndexByte(dst[start:], '\n') // of dst[:searched]
	searched := len(dst)
	// lastCR is the last lone "\r" line end found past lastLF (of
	// dst[:crSearched]): looked for only when there is no "\n" to cut
	// after, so that lines ended by "\r" alone are cut into blocks too.
	lastCR, crSearched := -1, start
	for {
		if l.skipLF && len(dst) > start {
			if dst[start] == '\n' {
				dst = append(dst[:start], dst[start+1:]...)
				lastLF, searched = start+bytes.LastIndexByte(dst[start:], '\n'), len(dst)
				lastCR, crSearched = -1, start
			}
			l.skipLF = false
		}
		if l.err != nil {
			if errors.Is(l.err, io.EOF) {
				cut = len(dst)
			} else {
				// Next returns the lines that end before a read error.
				cut = start + max(bytes.LastIndexByte(dst[start:], '\n'), bytes.LastIndexByte(dst[start:], '\r')) + 1
				if cut == start {
					return dst[:start], first, l.err
				}
				dst = dst[:cut]
			}
			break
		}
		if i := bytes.LastIndexByte(dst[searched:], '\n'); i >= 0 {
			lastLF = searched + i
		}
		searched = len(dst)
		if len(dst)-start >= size {
			carry := min(maxCarry, len(l.buf))
			if lastLF >= start && len(dst)-(lastLF+1) <= carry {
				cut = lastLF + 1
				break
			}
			// A "\r" with a byte after it that is not "\n" (that would be
			// lastLF) ends a line: the block may end after it.
			if from := max(crSearched, lastLF+1); from < len(dst)-1 {
				if i := bytes.LastIndexByte(dst[from:len(dst)-1], '\r'); i >= 0 {
					lastCR = from + i
				}
				crSearched = len(dst) - 1
			}
			if lastCR > lastLF && len(dst)-(lastCR+1) <= carry {
				cut = lastCR + 1
				break
			}
		}
		if len(dst) == cap(dst) {
			// Double a small buffer; past 16 KiB the stream is not small:
			// grow to a whole block at once.
			more := max(4<<10, len(dst)-start)
			if len(dst)-start >= 16<<10 {
				more = max(more, start+size+size/4-len(dst))
			}
			dst = slices.Grow(dst, more)
		}
		// Read little past size: the partial line after the cut is
		// copied to buf and back.
		to := min(cap(dst), max(start+size, len(dst)+4<<10))
		var n int
		var err error
		for range 100 {
			if n, err = l.src.Read(dst[len(dst):to]); n > 0 || err != nil {
				break
			}
		}
		dst = dst[:len(dst)+n]
		if err == nil && n == 0 {
			err = io.ErrNoProgress
		}
		l.err = err
	}
	// The partial line after the cut waits in buf for the next call.
	l.end = copy(l.buf, dst[cut:])
	dst = dst[:cut]
	if len(dst) == start {
		l.Release()
		return dst, first, io.EOF
	}
	// A block ends after "\n", after a "\r" followed by another byte, or
	// at the end of the stream (or before a read error): never between
	// the "\r" and "\n" of one line end.
	l.count(dst[start:])
	if first == 0 && bytes.HasPrefix(dst[start:], bom) {
		dst = append(dst[:start], dst[start+3:]...)
		if len(dst) == start {
			// The stream was the mark alone: one empty line, as Next
			// returns it.
			dst = append(dst, '\n')
		}
	}
	return dst, first, nil
}

// CountLater makes Block and BlockShared leave the lines of the blocks
// they return uncounted: their caller counts them as it cuts them (the
// workers of a parallel reader do, each its own blocks) and numbers them
// in order afterwards, which saves a pass over every byte on the reading
// goroutine. The next block's first is still the number of the line
// before it; once a block is returned uncounted, line numbers are unknown:
// the first of later blocks and Line are -1 (Next's lines too).
func (l *Reader) CountLater() { l.uncounted = true }

// Lines numbers in order the blocks a parallel reader reads uncounted
// (CountLater) and its workers count. The zero value is ready.
type Lines struct {
	started            bool
	line, lines, bytes int64
}

// Start stops l counting its blocks' lines (once): the next block follows
// line l.Line().
func (n *Lines) Start(l *Reader) {
	if !n.started {
		n.started, n.line = true, l.Line()
		l.CountLater()
	}
}

// Line is the number of the line before the next block.
func (n *Lines) Line() int64 { return n.line }

// Next takes the next block, of size bytes and lines lines, and returns
// the number of the line before it.
func (n *Lines) Next(size, lines int64) int64 {
	first := n.line
	n.line += lines
	n.lines += lines
	n.bytes += size
	return first
}

// Guess is about how many lines block b holds, a little more (from the
// lines per byte of the blocks taken so far; counted before any).
func (n *Lines) Guess(b []byte) int {
	if n.bytes == 0 {
		return int(CountLines(b))
	}
	k := int64(len(b)) * n.lines / n.bytes
	return int(k + k/8 + 16)
}

// count adds the lines of block b, just returned, to the line number
// (CountLater: makes it unknown).
func (l *Reader) count(b []byte) {
	if l.uncounted || l.line < 0 {
		l.line = -1
		return
	}
	l.line += CountLines(b)
}

// Exhausted reports whether the stream is read to its end: the next Block
// returns io.EOF.
func (l *Reader) Exhausted() bool {
	return errors.Is(l.err, io.EOF) && l.pos == l.end && l.partN == 0
}

// bom is the UTF-8 byte order mark.
var bom = []byte{0xEF, 0xBB, 0xBF}

// Cut returns the first line of b without its end, and the bytes after
// that end: a line ends at "\n", "\r\n" or "\r", as Next ends it. The last
// line of b may have no end (rest is then empty).
func Cut(b []byte) (line, rest []byte) {
	lf := bytes.IndexByte(b, '\n')
	upto := b
	if lf >= 0 {
		upto = b[:lf]
	}
	if cr := bytes.IndexByte(upto, '\r'); cr >= 0 {
		if cr+1 < len(b) && b[cr+1] == '\n' {
			return b[:cr], b[cr+2:]
		}
		return b[:cr], b[cr+1:]
	}
	if lf >= 0 {
		return b[:lf], b[lf+1:]
	}
	return b, b[len(b):]
}

// Cutter returns the function that cuts the lines of block b as Cut does:
// Cut itself when b holds a "\r", else one that looks for "\n" alone
// (Cut searches each line twice). Use it on b and its rests only.
func Cutter(b []byte) func([]byte) (line, rest []byte) {
	if bytes.IndexByte(b, '\r') >= 0 {
		return Cut
	}
	return cutLF
}

// cutLF is Cut for input without "\r".
func cutLF(b []byte) (line, rest []byte) {
	if lf := bytes.IndexByte(b, '\n'); lf >= 0 {
		return b[:lf], b[lf+1:]
	}
	return b, b[len(b):]
}

// CountLines returns how many lines Cut finds in b.
func CountLines(b []byte) int64 {
	if len(b) == 0 {
		return 0
	}
	if bytes.IndexByte(b, '\r') < 0 {
		n := int64(bytes.Count(b, []byte{'\n'}))
		if b[len(b)-1] != '\n' {
			n++
		}
		return n
	}
	var n int64
	for len(b) > 0 {
		_, b = Cut(b)
		n++
	}
	return n
}
