package fileformat

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/tributary-io/tributary/core/schema"
)

// File is random access to the raw bytes of one input file. Columnar
// formats (Parquet, ORC) need it: they read the footer at the end of the
// file first, then only the column chunks of one row group (stripe) at a
// time, so memory stays bounded by a row group, not by the file.
type File interface {
	io.ReaderAt
	// Size is the file's length in bytes.
	Size() int64
}

// RandomAccessFormat is implemented by formats that read a file through
// File rather than a stream (Parquet, ORC). The engine hands such a format
// the file's raw bytes, never decompressed by extension (these formats
// compress inside the file): the local file itself, or the object spilled
// to a temporary file. Format.Open still works for them, but holds the
// whole file in memory.
type RandomAccessFormat interface {
	Format
	// OpenFile reads the file f as rows of s, as Format.Open does. An
	// unreadable file (not of the format, truncated) is reported by the
	// first RowReader.Next, so that callers judge it as a corrupt file.
	OpenFile(ctx context.Context, f File, s *schema.StructType, opts ReadOptions) (RowReader, error)
}

// RandomAccessInferrer is implemented by the inferrers of a
// RandomAccessFormat: AddFile samples one file through File, as
// Inferrer.Add samples a stream. The file's size counts against the byte
// budget.
type RandomAccessInferrer interface {
	Inferrer
	AddFile(ctx context.Context, path string, f File) error
}

// MaxInMemoryFile bounds what ReadAllFile holds in memory (1 GiB).
const MaxInMemoryFile = 1 << 30

// ReadAllFile reads r whole into memory as a File: the fallback of
// Format.Open and Inferrer.Add for random-access formats, when the caller
// has only a stream. A stream longer than MaxInMemoryFile is an error.
func ReadAllFile(r io.Reader) (File, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxInMemoryFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxInMemoryFile {
		return nil, fmt.Errorf("file larger than %d bytes cannot be read from a stream; read it as a File", MaxInMemoryFile)
	}
	return bytesFile{bytes.NewReader(b)}, nil
}

type bytesFile struct{ *bytes.Reader }

func (b bytesFile) Size() int64 { return b.Reader.Size() }
