package convert

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/objstore"
)

// Source is a stream's source files and how they are read.
type Source struct {
	// Store is rooted at the source location.
	Store objstore.Store
	// Format is the cloudFiles.format reader.
	Format formats.Format
	// TempDir holds spilled source files ("" = os.TempDir()).
	TempDir string
	// URI is the source location as users name it (s3://bucket/prefix or
	// an absolute directory; "" names files by their keys).
	URI string
}

// Name names a source key as the user knows it (URI/key).
func (s Source) Name(key string) string {
	if s.URI == "" {
		return key
	}
	return strings.TrimSuffix(s.URI, "/") + "/" + key
}

// Open opens a source file, decompressed. A file deleted since its
// discovery gives a *FileError (FaultMissing), a compression that cannot
// be opened one with FaultCorrupt; other errors are I/O errors that fail
// the batch (the next run tries again).
func (s Source) Open(ctx context.Context, path string) (io.ReadCloser, error) {
	r, _, err := s.open(ctx, path, -1)
	return r, err
}

// open is Open of a file listed with size bytes (< 0: unknown); local
// reports that the store served a local file (one with Stat, or read by
// an objstore.WholeReader), which gains nothing from being opened ahead or
// in order. A small local file of a known size is read whole when opened:
// by the store itself when it is a WholeReader (readWholeFrom), else by
// one read of the file Get returned (readWhole).
func (s Source) open(ctx context.Context, path string, size int64) (r io.ReadCloser, local bool, err error) {
	if wr, ok := s.Store.(objstore.WholeReader); ok && size >= 0 && size <= wholeRead && !s.raw() {
		rc, err := readWholeFrom(ctx, wr, path, size)
		if err != nil {
			return nil, false, openError(path, err)
		}
		r, err = s.decompress(path, s.inPlaceIf(rc))
		return r, true, err
	}
	rc, err := s.Store.Get(ctx, path)
	if err != nil {
		return nil, false, openError(path, err)
	}
	_, local = rc.(interface{ Stat() (os.FileInfo, error) })
	if s.raw() {
		return rc, local, nil // binaryFile: the stored bytes, as Spark reads them
	}
	r, err = s.decompress(path, s.inPlaceIf(readWhole(rc, size)))
	return r, local, err
}

// openError is the error of a source file that could not be opened: a
// *FileError (FaultMissing) when it no longer exists.
func openError(path string, err error) error {
	if errors.Is(err, objstore.ErrNotFound) {
		return &FileError{Path: path, Fault: FaultMissing, Err: err}
	}
	return fmt.Errorf("opening source file %s: %w", path, err)
}

// decompress wraps a source file's body in its decompressor (by the
// path's extension).
func (s Source) decompress(path string, rc io.ReadCloser) (io.ReadCloser, error) {
	r, err := formats.Decompress(path, rc)
	if err != nil {
		rc.Close()
		return nil, &FileError{Path: path, Fault: FaultCorrupt, Err: err}
	}
	if m, ok := r.(fileformat.SharedMapper); ok {
		// A plain local file: the format may read it in place, in
		// shared windows too (parallel readers).
		return &sharedMappedSource{mappedSource{Mapper: m, sourceReader: sourceReader{ReadCloser: r, body: rc}}, m}, nil
	}
	if m, ok := r.(fileformat.Mapper); ok {
		// A plain local file: the format may read it in place.
		return &mappedSource{Mapper: m, sourceReader: sourceReader{ReadCloser: r, body: rc}}, nil
	}
	return &sourceReader{ReadCloser: r, body: rc}, nil
}

// wholeRead is the largest listed size of a local file that readWhole
// reads in one read(2).
const wholeRead = 64 << 10

// readWhole returns a local file (*os.File: localfs's Get of a regular
// file below its mapping size) listed with size bytes, at most wholeRead,
// read whole by one read(2) of size+1 bytes and closed: a read of a
// regular file returns fewer bytes than asked for only at its end, so a
// read that returns the listed size has seen the end, where a reader
// streaming the file needs a second read(2) to see it. A read that returns
// another count (the file changed since it was listed) gives those bytes
// and then the rest of the file as streamed, or the read's error. Any
// other body (or size) is returned as it is.
func readWhole(rc io.ReadCloser, size int64) io.ReadCloser {
	f, ok := rc.(*os.File)
	if !ok || size < 0 || size > wholeRead {
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

// readWholeFrom is readWhole of a store that reads small files itself
// (objstore.WholeReader, a local directory: open, read and close, three
// system calls): size (at most wholeRead) is the file's listed size.
func readWholeFrom(ctx context.Context, wr objstore.WholeReader, path string, size int64) (io.ReadCloser, error) {
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

// wholeBufs are readWhole's buffers, back from closed wholeFiles.
var wholeBufs = sync.Pool{New: func() any { return new([]byte) }}

// wholeFile is a file readWhole read whole; Close returns its buffer to
// wholeBufs (the bytes are only ever copied out by Read) and the file's
// close error.
type wholeFile struct {
	bytes.Reader
	buf    *[]byte
	data   []byte // the file's bytes (in buf)
	mapped bool   // MapAt was called
	err    error
}

// newWholeFile is the file read whole into buf: its bytes data, and the
// close's error err.
func newWholeFile(buf *[]byte, data []byte, err error) *wholeFile {
	w := &wholeFile{buf: buf, data: data, err: err}
	w.Reset(data)
	return w
}

// errReadAlready is MapAt's error once the file was read with Read.
var errReadAlready = errors.New("convert: the file was read from already")

// inPlaceWhole is a file read whole that is also a fileformat.Mapper
// whose windows are its buffer: the format reads the bytes in place (as
// it reads a large local file mapped) rather than copying them into a
// read buffer of its own. For CSV (inPlace), whose tokenizer allocated a
// 64 KiB read buffer for every file; the JSON line reader pools its
// buffers and gained nothing.
type inPlaceWhole struct{ *wholeFile }

// inPlace reports whether the format reads a small file read whole in
// place (inPlaceWhole).
func (s Source) inPlace() bool { return s.Format != nil && s.Format.Name() == "csv" }

// inPlaceIf is rc as an inPlaceWhole when it is a file read whole and
// the format reads such files in place.
func (s Source) inPlaceIf(rc io.ReadCloser) io.ReadCloser {
	if w, ok := rc.(*wholeFile); ok && s.inPlace() {
		return inPlaceWhole{w}
	}
	return rc
}

// MapAt returns the file's bytes [off, off+n) (fewer at its end), which
// stay valid until Close (fileformat.Mapper). The first MapAt fails once
// Read has read from the file.
func (w inPlaceWhole) MapAt(off int64, n int) ([]byte, error) {
	if !w.mapped {
		if int64(w.Len()) != w.Size() {
			return nil, errReadAlready
		}
		w.mapped = true
	}
	end := int64(len(w.data))
	lo, hi := min(max(off, 0), end), min(max(off, 0)+int64(max(n, 0)), end)
	return w.data[lo:hi:hi], nil
}

// Unmap does nothing: the bytes stay until Close (fileformat.Mapper).
func (w inPlaceWhole) Unmap() {}

// Close releases the buffer; later reads see the end.
func (w *wholeFile) Close() error {
	if w.buf != nil {
		w.Reset(nil)
		w.data = nil
		wholeBufs.Put(w.buf)
		w.buf = nil
	}
	return w.err
}

// headRead is a file readWhole read part of: the bytes read, then the
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

func (s Source) raw() bool {
	raw, ok := s.Format.(formats.RawContent)
	return ok && raw.Raw()
}

// sourceReader closes the decompressor and the object body under it.
type sourceReader struct {
	io.ReadCloser
	body io.Closer
}

func (s *sourceReader) Close() error {
	return errors.Join(s.ReadCloser.Close(), s.body.Close())
}

// mappedSource is the sourceReader of a plain file that can be read in
// place (fileformat.Mapper).
type mappedSource struct {
	fileformat.Mapper
	sourceReader
}

// Read reads the file.
func (s *mappedSource) Read(p []byte) (int, error) { return s.Mapper.Read(p) }

// Close closes the file.
func (s *mappedSource) Close() error { return s.sourceReader.Close() }

// sharedMappedSource is the mappedSource of a file that also maps shared
// windows (fileformat.SharedMapper).
type sharedMappedSource struct {
	mappedSource
	shared fileformat.SharedMapper
}

// MapShared maps a window of the file of its own.
func (s *sharedMappedSource) MapShared(off int64, n int) ([]byte, func(), error) {
	return s.shared.MapShared(off, n)
}

// File is a source file opened for random access (columnar formats):
// the local file itself when the store serves one, else the object
// spilled to a temporary file. Memory use does not grow with the file; the
// readers hold one row group at a time.
type File struct {
	r     io.ReaderAt
	size  int64
	close func() error
}

// ReadAt reads len(p) bytes at off.
func (f *File) ReadAt(p []byte, off int64) (int, error) { return f.r.ReadAt(p, off) }

// Size is the file's length.
func (f *File) Size() int64 { return f.size }

// Close releases the file (and removes a spill).
func (f *File) Close() error { return f.close() }

// localFile is what a local store's Get returns: a file with random access.
type localFile interface {
	io.ReaderAt
	Stat() (os.FileInfo, error)
}

// OpenFile opens a source file for a random-access format, raw (its
// codec is inside the file: no decompression by extension). Errors are
// classified as Open classifies them.
func (s Source) OpenFile(ctx context.Context, path string) (*File, error) {
	rc, err := s.Store.Get(ctx, path)
	if errors.Is(err, objstore.ErrNotFound) {
		return nil, &FileError{Path: path, Fault: FaultMissing, Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("opening source file %s: %w", path, err)
	}
	if lf, ok := rc.(localFile); ok {
		if fi, err := lf.Stat(); err == nil && fi.Mode().IsRegular() {
			return &File{r: lf, size: fi.Size(), close: rc.Close}, nil
		}
	}
	defer rc.Close()
	tmp, err := os.CreateTemp(s.TempDir, "tributary-source-*")
	if err != nil {
		return nil, fmt.Errorf("spilling source file %s: %w", path, err)
	}
	drop := func() error { return errors.Join(tmp.Close(), os.Remove(tmp.Name())) }
	n, err := io.Copy(tmp, rc)
	if err != nil {
		drop()
		return nil, fmt.Errorf("spilling source file %s: %w", path, err)
	}
	return &File{r: tmp, size: n, close: drop}, nil
}

// RandomAccess returns the format as a random-access format, if it is one.
func (s Source) RandomAccess() (formats.RandomAccessFormat, bool) {
	ra, ok := s.Format.(formats.RandomAccessFormat)
	return ra, ok
}

// withModTime adds to opts, for formats that read files' stored bytes
// (binaryFile), the file's modification time from the source store. A
// file deleted since its discovery gives a *FileError (FaultMissing).
func (s Source) withModTime(ctx context.Context, path string, opts formats.ReadOptions) (formats.ReadOptions, error) {
	if !s.raw() {
		return opts, nil
	}
	info, err := s.Store.Head(ctx, path)
	if errors.Is(err, objstore.ErrNotFound) {
		return opts, &FileError{Path: path, Fault: FaultMissing, Err: err}
	}
	if err != nil {
		return opts, fmt.Errorf("reading the metadata of source file %s: %w", path, err)
	}
	opts.ModTime = info.ModTime
	return opts, nil
}
