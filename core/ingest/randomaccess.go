package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/objstore"
)

// sourceFile is a source file opened for random access (columnar formats):
// the local file itself when the store serves one, else the object
// spilled to a temporary file. Memory use does not grow with the file; the
// readers hold one row group at a time.
type sourceFile struct {
	r     io.ReaderAt
	size  int64
	close func() error
}

func (f *sourceFile) ReadAt(p []byte, off int64) (int, error) { return f.r.ReadAt(p, off) }

// Size is the file's length.
func (f *sourceFile) Size() int64 { return f.size }

// Close releases the file (and removes a spill).
func (f *sourceFile) Close() error { return f.close() }

// localFile is what a local store's Get returns: a file with random access.
type localFile interface {
	io.ReaderAt
	Stat() (os.FileInfo, error)
}

// openSourceFile opens a source file for a random-access format, raw (its
// codec is inside the file: no decompression by extension). Errors are
// classified as openSource classifies them.
func (e *Engine) openSourceFile(ctx context.Context, path string) (*sourceFile, error) {
	rc, err := e.Source.Get(ctx, path)
	if errors.Is(err, objstore.ErrNotFound) {
		return nil, &fileError{path: path, fault: faultMissing, err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("opening source file %s: %w", path, err)
	}
	if lf, ok := rc.(localFile); ok {
		if fi, err := lf.Stat(); err == nil && fi.Mode().IsRegular() {
			return &sourceFile{r: lf, size: fi.Size(), close: rc.Close}, nil
		}
	}
	defer rc.Close()
	tmp, err := os.CreateTemp(e.TempDir, "tributary-source-*")
	if err != nil {
		return nil, fmt.Errorf("spilling source file %s: %w", path, err)
	}
	drop := func() error { return errors.Join(tmp.Close(), os.Remove(tmp.Name())) }
	n, err := io.Copy(tmp, rc)
	if err != nil {
		drop()
		return nil, fmt.Errorf("spilling source file %s: %w", path, err)
	}
	return &sourceFile{r: tmp, size: n, close: drop}, nil
}

// randomAccess returns the engine's format as a random-access format, if
// it is one.
func (e *Engine) randomAccess() (formats.RandomAccessFormat, bool) {
	ra, ok := e.Config.Format.(formats.RandomAccessFormat)
	return ra, ok
}
