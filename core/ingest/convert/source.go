package convert

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/ingest/convert/wholeread"
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
// in order. A small local file of a known size is read whole when opened
// (wholeread): by the store itself when it is a WholeReader, else by one
// read of the file Get returned.
func (s Source) open(ctx context.Context, path string, size int64) (r io.ReadCloser, local bool, err error) {
	if wr, ok := s.Store.(objstore.WholeReader); ok && size >= 0 && size <= wholeread.MaxSize && !s.raw() {
		rc, err := wholeread.FromStore(ctx, wr, path, size)
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
	r, err = s.decompress(path, s.inPlaceIf(wholeread.FromFile(rc, size)))
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

// inPlace reports whether the format reads a small file read whole in
// place (wholeread.InPlace; formats.SmallInPlace: CSV, whose tokenizer
// allocated a 64 KiB read buffer for every file it read with Read; the
// JSON line reader pools its buffers and gained nothing).
func (s Source) inPlace() bool {
	ip, ok := s.Format.(formats.SmallInPlace)
	return ok && ip.ReadsSmallInPlace()
}

// inPlaceIf is rc read in place (wholeread.InPlace) when the format reads
// small files so.
func (s Source) inPlaceIf(rc io.ReadCloser) io.ReadCloser {
	if s.inPlace() {
		return wholeread.InPlace(rc)
	}
	return rc
}

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

// Size is the file's length when its store knows it (fileformat.Sized;
// -1 otherwise).
func (s *mappedSource) Size() int64 { return fileformat.SizeOf(s.Mapper) }

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
