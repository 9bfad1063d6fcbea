// Package wholeread reads a small local source file of a known (listed)
// size whole, in one read(2) of size+1 bytes into a pooled buffer: the
// decoders' and the schema sample's reads of many small files
// (convert.Source). A read that returns the listed size has seen the
// file's end; any other count streams the rest of the file.
package wholeread

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/objstore"
)

// MaxSize is the largest listed size of a local file read whole in one
// read(2).
const MaxSize = 64 << 10

// FromFile returns a local file (*os.File: localfs's Get of a regular
// file below its mapping size) listed with size bytes, at most MaxSize,
// read whole by one read(2) of size+1 bytes and closed: a read of a
// regular file returns fewer bytes than asked for only at its end, so a
// read that returns the listed size has seen the end, where a reader
// streaming the file needs a second read(2) to see it. A read that returns
// another count (the file changed since it was listed) gives those bytes
// and then the rest of the file as streamed, or the read's error. Any
// other body (or size) is returned as it is.
func FromFile(rc io.ReadCloser, size int64) io.ReadCloser {
	f, ok := rc.(*os.File)
	if !ok || size < 0 || size > MaxSize {
		return rc
	}
	buf, b := wholeBuf(size)
	n, err := f.Read(b)
	if int64(n) == size && (err == nil || errors.Is(err, io.EOF)) {
		return newWholeFile(buf, b[:n], f.Close())
	}
	head := slices.Clone(b[:n])
	wholeBufs.Put(buf)
	return &headRead{head: head, err: err, f: f}
}

// FromStore is FromFile of a store that reads small files itself
// (objstore.WholeReader, a local directory: open, read and close, three
// system calls): size (at most MaxSize) is the file's listed size.
func FromStore(ctx context.Context, wr objstore.WholeReader, path string, size int64) (io.ReadCloser, error) {
	buf, b := wholeBuf(size)
	n, body, err := wr.ReadWhole(ctx, path, size, b)
	if err != nil {
		wholeBufs.Put(buf)
		return nil, err
	}
	if body != nil {
		head := slices.Clone(b[:n])
		wholeBufs.Put(buf)
		return &headRead{head: head, f: body}, nil
	}
	return newWholeFile(buf, b[:n], nil), nil
}

// wholeBuf takes a buffer from wholeBufs for a read of size+1 bytes: b.
func wholeBuf(size int64) (buf *[]byte, b []byte) {
	buf = wholeBufs.Get().(*[]byte)
	if int64(cap(*buf)) < size+1 {
		*buf = make([]byte, size+1)
	}
	return buf, (*buf)[:size+1]
}

// wholeBufs are the buffers of files read whole, back from closed wholeFiles.
var wholeBufs = sync.Pool{New: func() any { return new([]byte) }}

// wholeFile is a file read whole: its bytes (in buf, a wholeBufs
// buffer) held by mem, whose reader is the embedded one (one read
// position; reset through mem, never through it), so that the file is a
// plain reader, not a fileformat.Mapper unless InPlace makes it one, and
// the file's close error. Close returns buf to wholeBufs (the
// bytes are only ever copied out by Read, or read in place until Close).
type wholeFile struct {
	*bytes.Reader // &mem.Reader
	mem           fileformat.BytesMapper
	buf           *[]byte
	err           error
}

// newWholeFile is the file read whole into buf: its bytes data, and the
// close's error err.
func newWholeFile(buf *[]byte, data []byte, err error) *wholeFile {
	w := &wholeFile{buf: buf, err: err}
	w.mem.Reset(data)
	w.Reader = &w.mem.Reader
	return w
}

// inPlaceWhole is a file read whole that is also a fileformat.Mapper:
// its fileformat.BytesMapper, whose windows are its buffer (InPlace).
type inPlaceWhole struct{ *wholeFile }

// InPlace returns rc, when it is a file read whole (FromFile, FromStore),
// as a fileformat.Mapper whose windows are its buffer: a format reads the
// bytes in place (as it reads a large local file mapped) rather than
// copying them into a read buffer of its own. Any other rc is returned as
// it is.
func InPlace(rc io.ReadCloser) io.ReadCloser {
	if w, ok := rc.(*wholeFile); ok {
		return inPlaceWhole{w}
	}
	return rc
}

// MapAt is fileformat.BytesMapper's: the file's bytes [off, off+n)
// (fewer at its end), valid until Close; the first MapAt fails once Read
// has read from the file.
func (w inPlaceWhole) MapAt(off int64, n int) ([]byte, error) { return w.mem.MapAt(off, n) }

// Unmap is fileformat.BytesMapper's: nothing, the bytes stay until Close.
func (w inPlaceWhole) Unmap() { w.mem.Unmap() }

// Close releases the buffer; later reads see the end.
func (w *wholeFile) Close() error {
	if w.buf != nil {
		w.mem.Reset(nil)
		wholeBufs.Put(w.buf)
		w.buf = nil
	}
	return w.err
}

// headRead is a file FromFile or FromStore read part of: the bytes read, then the
// read's error (io.EOF included) or the rest of the file.
type headRead struct {
	head []byte
	err  error
	f    io.ReadCloser
}

// Read reads the head, then the error or the file.
func (h *headRead) Read(p []byte) (int, error) {
	if len(h.head) > 0 {
		n := copy(p, h.head)
		h.head = h.head[n:]
		return n, nil
	}
	if h.err != nil {
		return 0, h.err
	}
	return h.f.Read(p)
}

// Close closes the file.
func (h *headRead) Close() error { return h.f.Close() }
