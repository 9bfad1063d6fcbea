package csvpar

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// InPlace cuts a text read in place (a file mapped in shared windows,
// fileformat.SharedMapper) into the blocks a Cutter reading it with whole
// reads cuts it into, each a slice of a mapped window instead of a copy:
// the reading goroutine only looks for line ends, and the bytes are read
// once, by the worker that decodes them. A block holds its window mapped
// until its release is called.
type InPlace struct {
	mapShared func(off int64, n int) ([]byte, func(), error)
	size      int
	window    int    // bytes mapped at a time (at least 8 blocks')
	win       []byte // the window, mapped from the text's byte woff
	woff      int64
	pos       int                      // the next block's start in win
	end       bool                     // win reaches the end of the text
	held      *fileformat.SharedWindow // the holds on win (nil: none)
	done      bool
}

// inPlaceWindow is the bytes InPlace maps at a time (or 8 blocks', the
// most a block may need, if more).
const inPlaceWindow = 1 << 20

// NewInPlace returns a cutter of the text from byte off of the file that
// mapShared maps (fileformat.SharedMapper's MapShared), in blocks of about
// size bytes.
func NewInPlace(mapShared func(off int64, n int) ([]byte, func(), error), off int64, size int) *InPlace {
	return &InPlace{mapShared: mapShared, woff: off, size: size, window: max(inPlaceWindow, 8*size)}
}

// Next returns the next block as Cutter.Next does (whole lines, about
// size bytes, then on to the next "\n"; the text's last block, last,
// holds all that is left; stop when no "\n" is met within 8 blocks'
// bytes, with no block: the caller reads the text from Offset on itself)
// and release, which the caller calls once when done with the block. err
// is a failed mapping (as stop).
func (c *InPlace) Next() (block []byte, release func(), last, stop bool, err error) {
	if c.done {
		return nil, func() {}, true, false, nil
	}
	for k := 1; ; k++ {
		lim := c.pos + k*c.size
		if lim > len(c.win) && !c.end {
			if err := c.remap(k * c.size); err != nil {
				return nil, nil, false, true, err
			}
			lim = c.pos + k*c.size
		}
		text := c.win[c.pos:min(lim, len(c.win))]
		if k == 1 && lim > len(c.win) {
			// Fewer than size bytes are left: Cutter read to the end.
			return c.cut(len(text), true)
		}
		if i := bytes.LastIndexByte(text, '\n'); i >= 0 {
			return c.cut(i+1, false)
		}
		if k == 8 && lim <= len(c.win) {
			return nil, nil, false, true, nil
		}
		if lim >= len(c.win) && c.end {
			// Cutter read to the end.
			return c.cut(len(text), true)
		}
	}
}

// cut returns the next n bytes as a block.
func (c *InPlace) cut(n int, last bool) ([]byte, func(), bool, bool, error) {
	b := c.win[c.pos : c.pos+n : c.pos+n]
	c.pos += n
	c.done = last
	held := c.held
	if held == nil {
		return b, func() {}, last, false, nil
	}
	held.Hold()
	var once atomic.Bool
	release := func() {
		if once.CompareAndSwap(false, true) {
			held.Release()
		}
	}
	if last {
		c.Close()
	}
	return b, release, last, false, nil
}

// remap maps a window from the next block's start holding at least n
// bytes (fewer at the text's end).
func (c *InPlace) remap(n int) error {
	off := c.woff + int64(c.pos)
	b, unmap, err := c.mapShared(off, max(c.window, n))
	if err != nil {
		return err
	}
	c.Close()
	c.done = false
	if unmap != nil && len(b) > 0 {
		c.held = fileformat.NewSharedWindow(unmap)
	} else if unmap != nil {
		unmap()
	}
	c.win, c.woff, c.pos, c.end = b, off, 0, len(b) < max(c.window, n)
	return nil
}

// Rest returns the text after a stop (or err, Next's mapping error):
// r, the mapped file, read from Offset on (with Read: the reader returned
// is not a mapper).
func (c *InPlace) Rest(r io.ReadSeeker, err error) io.Reader {
	c.Close()
	if err != nil {
		return errReader{err}
	}
	if _, err := r.Seek(c.Offset(), io.SeekStart); err != nil {
		return errReader{fmt.Errorf("csvpar: seek to the rest: %w", err)}
	}
	return struct{ io.Reader }{r}
}

// Offset is the byte of the file where the next block starts (after
// stop: where the caller reads on).
func (c *InPlace) Offset() int64 { return c.woff + int64(c.pos) }

// Close drops the cutter's hold on its window (the blocks not released
// keep it mapped).
func (c *InPlace) Close() {
	if c.held != nil {
		c.held.Release()
		c.held = nil
	}
	c.done = true
}

// Chunks cuts the rest of a file into the blocks of lines a parallel read
// hands to its workers: in place (InPlace) when the file is read so and
// maps shared windows, else copied by a Cutter into buffers that Done
// gives back for the next blocks.
type Chunks struct {
	cut  *Cutter
	in   *InPlace
	file io.ReadSeeker
	bufs [][]byte
}

// NewChunks cuts rest, the text after the header, in blocks of about size
// bytes; with m (not nil: the file read in place) it cuts m's bytes from
// off on in place instead.
func NewChunks(rest io.Reader, m fileformat.SharedMapper, off int64, size int) *Chunks {
	if m != nil {
		return &Chunks{in: NewInPlace(m.MapShared, off, size), file: m}
	}
	return &Chunks{cut: NewCutter(rest, size)}
}

// Next returns the next block as Cutter.Next does, and release (nil for
// a copied block: give it to Done instead).
func (c *Chunks) Next() (block []byte, release func(), last, stop bool, err error) {
	if c.in != nil {
		return c.in.Next()
	}
	var buf []byte
	if n := len(c.bufs); n > 0 {
		buf, c.bufs = c.bufs[n-1], c.bufs[:n-1]
	}
	block, last, stop, err = c.cut.Next(buf)
	return block, nil, last, stop, err
}

// Rest is the text from a stop on (block and err: Next's).
func (c *Chunks) Rest(block []byte, err error) io.Reader {
	if c.in != nil {
		return c.in.Rest(c.file, err)
	}
	return c.cut.Rest(block, err)
}

// Done is called once a block and its values are no longer used: its
// window is released, or its buffer kept for a next block (release nil:
// a copy, or a block given back by Decoded already).
func (c *Chunks) Done(block []byte, release func()) {
	if release != nil {
		release()
	} else if c.cut != nil {
		c.bufs = append(c.bufs, block[:0])
	}
}

// Decoded is called by a worker once it decoded a block (release: Next's)
// with error err: a block decoded without one (or io.EOF) is not read
// again and its window is released at once, on the worker, which returns
// nil; a block that failed is decoded again where its lines are numbered,
// and release is returned for Done. The munmap then costs the workers,
// not the goroutine that cuts the blocks and hands out the chunks.
func Decoded(release func(), err error) func() {
	if release != nil && (err == nil || errors.Is(err, io.EOF)) {
		release()
		return nil
	}
	return release
}

// Close gives back the window the cutter holds (blocks not done keep
// theirs).
func (c *Chunks) Close() {
	if c.in != nil {
		c.in.Close()
	}
}
