package csvtok

import (
	"bufio"
	"errors"
	"io"
	"unicode/utf8"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// readBufSize is the read buffer of a source read with read(2).
const readBufSize = 64 << 10

// mapWindow is the bytes of a source read in place that the tokenizer
// maps at a time (more for a longer line): 1 MiB reads 100 MB with 100
// mappings and adds at most that to resident memory.
var mapWindow = 1 << 20 // a variable for the tests

// input is the tokenizer's read position in its source: a buffered reader
// (br), or for a source that can be read in place (fileformat.Mapper) a
// mapped window of it (win), whose bytes are then never copied into a
// buffer. Its methods are those of bufio.Reader the tokenizer uses, with
// the same meaning; in both modes a slice Peek returns stays valid until
// the next call that reads (Peek of more than is buffered, readRune,
// more, Read).
type input struct {
	br *bufio.Reader
	// m is the source read in place (nil: br is read); win[pos:] is the
	// unread part of the window mapped at the source's byte off; end says
	// the window reaches the source's end; size is the next window's size.
	m    fileformat.Mapper
	win  []byte
	pos  int
	off  int64
	size int
	end  bool
	// total is the source's length when it is known (fileformat.Sized),
	// else negative: the window reaching its end takes in a short rest
	// (fileformat.Window).
	total int64
	// err is a failed MapAt after the first, or a read error that more
	// met (readRune and Read return it at the end of the buffered bytes).
	err error
	// last is the size of the rune readRune read last (0: UnreadRune
	// fails).
	last int
}

// reset makes in read r: in place when r is a Mapper whose first window
// maps, through br otherwise.
func (in *input) reset(r io.Reader) {
	in.release()
	in.m, in.win, in.pos, in.off, in.end, in.err, in.last = nil, nil, 0, 0, false, nil, 0
	if m, ok := r.(fileformat.Mapper); ok {
		total := fileformat.SizeOf(m)
		n := fileformat.Window(total, 0, mapWindow)
		b, err := m.MapAt(0, n)
		if err == nil {
			in.m, in.win, in.size, in.total = m, b, mapWindow, total
			in.end = len(b) < n
			return
		}
		// Read from already: read it on.
	}
	if in.br == nil {
		in.br = bufio.NewReaderSize(r, readBufSize)
	} else {
		in.br.Reset(r)
	}
}

// release unmaps the window of a source read in place.
func (in *input) release() {
	if in.m != nil {
		in.m.Unmap()
		in.win, in.pos, in.end = nil, 0, true
	}
}

// mapped reports whether the source is read in place.
func (in *input) mapped() bool { return in.m != nil }

// more maps the next window from the read position (twice as large when
// the window began there already), or fills br; false when nothing more
// can be read.
func (in *input) more() bool {
	if in.m == nil {
		n := in.br.Buffered()
		if n == in.br.Size() {
			return false
		}
		b, err := in.br.Peek(in.br.Size())
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			// Peek hands a read error over once: keep it for the reads.
			in.err = err
		}
		return len(b) > n
	}
	if in.end || in.err != nil {
		return false
	}
	if in.pos == 0 {
		in.size *= 2
	}
	off := in.off + int64(in.pos)
	n := len(in.win) - in.pos
	want := fileformat.Window(in.total, off, in.size)
	b, err := in.m.MapAt(off, want)
	if err != nil {
		in.win, in.pos, in.err = nil, 0, err
		return false
	}
	in.win, in.pos, in.off, in.end = b, 0, off, len(b) < want
	in.last = 0
	return len(b) > n
}

// Buffered is the number of bytes that can be read without reading the
// source.
func (in *input) Buffered() int {
	if in.m == nil {
		return in.br.Buffered()
	}
	return len(in.win) - in.pos
}

// buffered returns the bytes that can be read without reading the source.
func (in *input) buffered() []byte {
	if in.m == nil {
		b, _ := in.br.Peek(in.br.Buffered())
		return b
	}
	return in.win[in.pos:]
}

// Peek returns the next n bytes (fewer at the end of the input) without
// consuming them.
func (in *input) Peek(n int) []byte {
	if in.m == nil {
		b, _ := in.br.Peek(n)
		return b
	}
	for len(in.win)-in.pos < n && in.more() {
	}
	in.last = 0
	return in.win[in.pos:min(len(in.win), in.pos+n)]
}

// Discard consumes n buffered bytes.
func (in *input) Discard(n int) {
	if in.m == nil {
		_, _ = in.br.Discard(n)
		return
	}
	in.pos += n
	in.last = 0
}

// readRune reads one rune (utf8.RuneError, size 1, for an invalid byte).
func (in *input) readRune() (rune, error) {
	if in.m == nil {
		r, _, err := in.br.ReadRune()
		if in.err != nil && errors.Is(err, io.EOF) {
			err = in.err
		}
		return r, err
	}
	for len(in.win)-in.pos < utf8.UTFMax && !utf8.FullRune(in.win[in.pos:]) && in.more() {
	}
	if in.pos >= len(in.win) {
		if in.err != nil {
			return 0, in.err
		}
		in.release()
		return 0, io.EOF
	}
	r, size := rune(in.win[in.pos]), 1
	if r >= utf8.RuneSelf {
		r, size = utf8.DecodeRune(in.win[in.pos:])
	}
	in.pos += size
	in.last = size
	return r, nil
}

// UnreadRune takes back the rune readRune read last, when nothing was
// read or consumed since.
func (in *input) UnreadRune() error {
	if in.m == nil {
		return in.br.UnreadRune()
	}
	if in.last == 0 {
		return bufio.ErrInvalidUnreadRune
	}
	in.pos -= in.last
	in.last = 0
	return nil
}

// Read reads what follows the read position into p (copying out of the
// window of a source read in place).
func (in *input) Read(p []byte) (int, error) {
	if in.m == nil {
		n, err := in.br.Read(p)
		if in.err != nil && errors.Is(err, io.EOF) {
			err = in.err
		}
		return n, err
	}
	if in.pos == len(in.win) && !in.more() {
		if in.err != nil {
			return 0, in.err
		}
		in.release()
		return 0, io.EOF
	}
	n := copy(p, in.win[in.pos:])
	in.pos += n
	in.last = 0
	return n, nil
}
