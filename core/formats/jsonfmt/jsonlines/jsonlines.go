// Package jsonlines splits a text stream into the records of Spark's
// line-based readers (JSON Lines): lines ending at "\n", "\r\n" or "\r",
// or at the lineSep option's string, decoded from the encoding option's
// charset first.
package jsonlines

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/tributary-io/tributary/core/formats/charset"
	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// Buffer sizes of the line reader.
const (
	// readBufSize is the read buffer: a line that fits is returned as a
	// slice of it, without a copy.
	readBufSize = 64 << 10
	// maxPartSize bounds the parts a longer line is gathered in.
	maxPartSize = 4 << 20
	// hugeLine is the size from which the parts of a line are collected
	// (runtime.GC) as soon as the line is assembled.
	hugeLine = 16 << 20
)

// readBufs recycles read buffers of readBufSize across files: a small file
// would otherwise pay for allocating and zeroing 64 KiB. It holds only
// spare memory, no state.
var readBufs = sync.Pool{New: func() any { return new([readBufSize]byte) }}

// Reader splits a text stream into records, Spark's lines: by default a
// line ends at "\n", "\r\n" or "\r" (Hadoop's LineReader); with lineSep at
// that string. The stream is decoded to UTF-8 from the encoding option
// first, and a UTF-8 byte order mark opening line 1 is dropped.
//
// Memory: a line longer than the read buffer is gathered in parts, then
// copied once into a buffer of its exact size, which is the caller's to
// keep (owned): the reader never reuses it, so strings may point into it.
// A huge line (hugeLine or more) therefore costs about twice its size
// while it is read and once afterwards; the garbage around it is
// collected right away (see gather and finish), so that encoding its row
// does not find the heap already doubled.
type Reader struct {
	src      io.Reader
	sep      []byte // lineSep in UTF-8; nil: "\n", "\r\n" or "\r"
	buf      []byte // read buffer: unread input is buf[pos:end]
	pos, end int
	from     int   // buf index where the search for the line end resumes
	err      error // read error; io.EOF once the input is exhausted
	skipLF   bool  // the last line ended at "\r": a "\n" next belongs to it
	// crAt is the index in buf of the first "\r" at or after from when
	// crOK (end when buf[from:end] has none): find searches buf for "\r"
	// once rather than once per line. Anything that moves or refills buf
	// clears crOK.
	crAt   int
	crOK   bool
	parts  [][]byte
	partN  int                // bytes gathered in parts
	line   int64              // number of the line last returned, from 1; -1: unknown (CountLater)
	owned  bool               // the line last returned is a fresh buffer (see above)
	pooled *[readBufSize]byte // buf's array when it came from readBufs
	// uncounted: Block and BlockShared leave their blocks' lines uncounted
	// (CountLater).
	uncounted bool
	// mapper is the source read in place (fileformat.Mapper), until the
	// first Block or a failed first MapAt; buf is then a window of it
	// (mapped) starting at the source's byte mapOff, mapWin bytes long
	// unless it reaches the end of the source.
	mapper fileformat.Mapper
	mapped bool
	mapOff int64
	mapWin int
	// mapSize is the source's length when it is known (fileformat.Sized),
	// else negative: the window reaching its end takes in a short rest
	// (fileformat.Window).
	mapSize int64
	// sharer is mapper when it maps shared windows; shared: windows are
	// mapped with its MapShared (BlockShared was called); win is the one
	// buf is, which the blocks cut from it hold too.
	sharer fileformat.SharedMapper
	shared bool
	win    *fileformat.SharedWindow
	// Whole makes the stream one record (multiLine): Next returns all of
	// it once.
	Whole bool
}

// New reads r with the text options; an unknown encoding wraps
// fileformat.ErrBadOption.
func New(r io.Reader, opts fileformat.TextOptions) (*Reader, error) {
	cs := charset.UTF8
	if opts.Encoding != "" {
		c, err := charset.Lookup(opts.Encoding)
		if err != nil {
			return nil, fmt.Errorf("%w: encoding: %v", fileformat.ErrBadOption, err)
		}
		cs = c
	}
	l := &Reader{src: cs.NewReader(r)}
	size := readBufSize
	if opts.LineSep != "" {
		l.sep = []byte(opts.LineSep)
		size = max(size, 4*len(l.sep))
	}
	if m, ok := l.src.(fileformat.Mapper); ok && size == readBufSize {
		// Read in place (fill maps the first window); no read buffer.
		l.mapper, l.mapWin, l.mapSize = m, mapWindow, fileformat.SizeOf(m)
		l.sharer, _ = m.(fileformat.SharedMapper)
		return l, nil
	}
	if size == readBufSize {
		l.pooled = readBufs.Get().(*[readBufSize]byte)
		l.buf = l.pooled[:]
	} else {
		l.buf = make([]byte, size)
	}
	return l, nil
}

// release returns the read buffer to readBufs once the stream is done with:
// at io.EOF and when the reader is closed. A line returned before must not
// be used after release unless it was owned.
func (l *Reader) Release() {
	if l.mapper != nil {
		l.mapper.Unmap()
		l.dropWin()
		l.mapper, l.mapped, l.buf = nil, false, nil
		l.pos, l.end, l.from, l.crOK = 0, 0, 0, false
		if l.err == nil {
			l.err = io.EOF
		}
		return
	}
	if l.pooled == nil {
		return
	}
	readBufs.Put(l.pooled)
	l.pooled, l.buf = nil, nil
	l.pos, l.end, l.from, l.crOK = 0, 0, 0, false
	if l.err == nil {
		l.err = io.EOF
	}
}

// next returns the next line without its end. A line that fits the read
// buffer is valid until the next call; an owned one stays valid. It returns
// io.EOF when the stream is exhausted.
func (l *Reader) Next() ([]byte, error) {
	l.owned = false
	if l.Whole {
		return l.all()
	}
	for {
		if l.skipLF && l.pos < l.end {
			if l.buf[l.pos] == '\n' {
				l.pos++
			}
			l.skipLF = false
		}
		l.from = max(l.from, l.pos)
		if i, n := l.find(); i >= 0 {
			line := l.buf[l.pos:i]
			l.pos = i + n
			l.from = l.pos
			return l.finish(line), nil
		}
		if l.err != nil {
			if !errors.Is(l.err, io.EOF) {
				return nil, l.err
			}
			if l.pos == l.end && l.partN == 0 {
				l.Release()
				return nil, io.EOF
			}
			line := l.buf[l.pos:l.end]
			l.pos, l.from = l.end, l.end
			return l.finish(line), nil
		}
		l.fill()
	}
}

// find returns the index in buf of the end of the line starting at pos and
// the length of that end, or -1.
func (l *Reader) find() (int, int) {
	data := l.buf[l.from:l.end]
	if l.sep != nil {
		if i := bytes.Index(data, l.sep); i >= 0 {
			return l.from + i, len(l.sep)
		}
		return -1, 0
	}
	stop := l.end // the line's "\n", or the end of the input read
	lf := bytes.IndexByte(data, '\n')
	if lf >= 0 {
		stop = l.from + lf
	}
	if !l.crOK || l.crAt < l.from {
		l.crAt, l.crOK = l.end, true
		if cr := bytes.IndexByte(data, '\r'); cr >= 0 {
			l.crAt = l.from + cr
		}
	}
	if l.crAt < stop {
		l.skipLF = true
		return l.crAt, 1
	}
	if lf >= 0 {
		return stop, 1
	}
	return -1, 0
}

// fill reads more input, first making room: unread input moves to the
// front of the buffer, and a full buffer is set aside in parts (but for a
// tail that may begin lineSep).
func (l *Reader) fill() {
	l.crOK = false
	// The search resumes where a separator could still start.
	l.from = max(l.pos, l.end-max(len(l.sep)-1, 0))
	if l.mapper != nil {
		l.fillMapped()
		return
	}
	if l.pos > 0 {
		n := copy(l.buf, l.buf[l.pos:l.end])
		l.from -= l.pos
		l.pos, l.end = 0, n
	}
	if l.end == len(l.buf) {
		keep := l.from // bytes that cannot begin the line end
		l.gather(l.buf[:keep])
		n := copy(l.buf, l.buf[keep:l.end])
		l.end, l.from = n, 0
	}
	for range 100 {
		n, err := l.src.Read(l.buf[l.end:])
		l.end += n
		if err != nil {
			l.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	l.err = io.ErrNoProgress
}

// mapWindow is the bytes of the source a reader in place maps at a time
// (more for a longer line): 1 MiB reads 100 MB with 100 mappings, and
// adds at most that to resident memory.
var mapWindow = 1 << 20 // a variable for the tests

// fillMapped maps the next window of a source read in place: from the
// first unread byte, so that the line being searched stays whole in it
// (doubled when that line fills the window already). The window reaching
// the source's end sets io.EOF. A first mapping that fails (the source
// was read from already) falls back to reading with a buffer.
func (l *Reader) fillMapped() {
	off := l.mapOff + int64(l.pos)
	if l.mapped && l.pos == 0 {
		l.mapWin *= 2 // the line fills the window
	}
	n := fileformat.Window(l.mapSize, off, l.mapWin)
	var b []byte
	var err error
	if l.shared {
		var unmap func()
		if b, unmap, err = l.sharer.MapShared(off, n); err == nil {
			l.dropWin()
			l.win = fileformat.NewSharedWindow(unmap)
		}
	} else {
		b, err = l.mapper.MapAt(off, n)
	}
	if err != nil {
		if !l.mapped {
			l.leaveMapped()
			l.fill()
			return
		}
		l.err = err
		return
	}
	l.from -= l.pos
	l.buf, l.mapped, l.mapOff, l.pos, l.end = b, true, off, 0, len(b)
	if len(b) < n {
		l.err = io.EOF
	}
}

// leaveMapped goes on reading a source read in place with Read and a read
// buffer, from its first unread byte (Block, multiLine).
func (l *Reader) leaveMapped() {
	m := l.mapper
	if m == nil {
		return
	}
	l.mapper = nil
	if l.mapped {
		off := l.mapOff + int64(l.pos)
		m.Unmap()
		l.dropWin()
		l.mapped = false
		if errors.Is(l.err, io.EOF) {
			l.err = nil // Read finds the end again
		}
		if _, err := m.Seek(off, io.SeekStart); err != nil && l.err == nil {
			l.err = err
		}
	}
	l.pooled = readBufs.Get().(*[readBufSize]byte)
	l.buf = l.pooled[:]
	l.pos, l.end, l.from, l.crOK = 0, 0, 0, false
}

// gather appends b to the parts of a long line.
func (l *Reader) gather(b []byte) {
	if l.partN < hugeLine && l.partN+len(b) >= hugeLine {
		// A huge line begins. The buffers that encoded the last huge value
		// may still sit in sync.Pools, which let go of them only at the
		// second collection: free them before this line takes as much.
		runtime.GC()
		runtime.GC()
	}
	for len(b) > 0 {
		k := len(l.parts) - 1
		if k < 0 || len(l.parts[k]) == cap(l.parts[k]) {
			size := min(max(readBufSize, l.partN), maxPartSize)
			l.parts = append(l.parts, make([]byte, 0, size))
			k++
		}
		p := &l.parts[k]
		n := min(len(b), cap(*p)-len(*p))
		*p = append(*p, b[:n]...)
		b = b[n:]
		l.partN += n
	}
}

// finish completes a line whose last bytes are tail.
func (l *Reader) finish(tail []byte) []byte {
	if l.line >= 0 {
		l.line++
	}
	line := tail
	if l.partN > 0 {
		line = make([]byte, l.partN+len(tail))
		n := 0
		for i, p := range l.parts {
			n += copy(line[n:], p)
			l.parts[i] = nil
		}
		copy(line[n:], tail)
		huge := l.partN >= hugeLine
		l.parts, l.partN, l.owned = l.parts[:0], 0, true
		if huge {
			// The parts are as large as the line and garbage now: collect
			// them before the line's row is encoded (which allocates a few
			// more times its size) rather than when the heap has doubled.
			debug.FreeOSMemory()
		}
	}
	if l.line == 1 && len(line) >= 3 && line[0] == 0xEF && line[1] == 0xBB && line[2] == 0xBF {
		line = line[3:]
	}
	return line
}

func IsBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// all returns the whole decoded stream as one owned record (without a
// UTF-8 byte order mark), then io.EOF: multiLine JSON, the one case where
// a file is held whole.
func (l *Reader) all() ([]byte, error) {
	l.leaveMapped()
	if l.line > 0 {
		l.Release()
		return nil, io.EOF
	}
	b, err := io.ReadAll(l.src)
	if err != nil {
		return nil, err
	}
	l.line = 1
	l.owned = true
	return bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")), nil
}

// Line is the number of the line last returned, from 1; -1 once a block
// was returned uncounted (CountLater).
func (l *Reader) Line() int64 { return l.line }

// Owned reports whether the line last returned is a fresh buffer that the
// reader never reuses (strings may point into it).
func (l *Reader) Owned() bool { return l.owned }
