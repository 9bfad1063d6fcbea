package pqread

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"

	"github.com/tributary-io/tributary/core/parquetio/internal/ptree"
	"github.com/tributary-io/tributary/core/schema"
)

// FileReader streams the rows of a Parquet file, one row group at a time:
// memory holds the footer and the pages of the current row group, never the
// whole file. It decodes what ReadFile decodes, into the same row
// representation.
type FileReader struct {
	f      *parquet.File
	tree   *ptree.Node
	a      *assembler
	groups []parquet.RowGroup
	g      int          // next row group to open
	rows   parquet.Rows // rows of the current row group, nil between groups
	buf    []parquet.Row
	n, i   int   // rows in buf, next one to return
	tail   error // failure to report once buf is consumed
	done   error // sticky end (io.EOF) or failure
}

// OpenReader opens the Parquet file r of size bytes for streaming reads. A
// file that is not Parquet (bad magic, truncated or inconsistent footer)
// gives an error wrapping ErrCorrupt; a schema Tributary cannot map to
// Delta types one wrapping ErrUnsupportedSchema.
func OpenReader(r io.ReaderAt, size int64) (*FileReader, error) {
	f, err := openFile(r, size)
	if err != nil {
		return nil, err
	}
	if err := checkCounts(f); err != nil {
		return nil, err
	}
	tree, err := ptree.BuildTree(f.Schema())
	if err != nil {
		return nil, err
	}
	return &FileReader{f: f, tree: tree, groups: f.RowGroups(),
		a: &assembler{tree: tree, cols: make([][]parquet.Value, len(tree.Leaves))}}, nil
}

// FileSchema reads only the footer of the Parquet file r of size bytes and
// returns its schema as Delta types (Spark's mapping, as in ReadFile).
func FileSchema(r io.ReaderAt, size int64) (*schema.StructType, error) {
	fr, err := OpenReader(r, size)
	if err != nil {
		return nil, err
	}
	return fr.Schema(), nil
}

// Schema returns the file's schema as Delta types.
func (fr *FileReader) Schema() *schema.StructType {
	st, _ := fr.tree.Type.(*schema.StructType)
	return st
}

// NumRows returns the row count the footer records.
func (fr *FileReader) NumRows() int64 { return fr.f.NumRows() }

// Next returns the next row of the file's schema, io.EOF after the last
// one. A decoding failure wraps ErrCorrupt; the rows returned before it
// are valid.
func (fr *FileReader) Next() ([]any, error) {
	for fr.done == nil {
		if fr.i < fr.n {
			row, err := fr.a.assembleRow(fr.buf[fr.i])
			fr.i++
			if err != nil {
				fr.fail(err)
				return nil, err
			}
			return row, nil
		}
		if fr.tail != nil {
			fr.fail(fr.tail)
			break
		}
		if fr.rows == nil {
			if fr.g >= len(fr.groups) {
				fr.done = io.EOF
				break
			}
			rr, err := openRows(fr.groups[fr.g])
			fr.g++
			if err != nil {
				fr.fail(err)
				break
			}
			fr.rows = rr
			if fr.buf == nil {
				fr.buf = make([]parquet.Row, 128)
			}
		}
		n, err := readRows(fr.rows, fr.buf)
		fr.n, fr.i = n, 0
		switch {
		case errors.Is(err, io.EOF):
			closeRows(fr.rows)
			fr.rows = nil
		case err != nil:
			if !errors.Is(err, ptree.ErrCorrupt) {
				err = fmt.Errorf("%w: reading rows: %w", ptree.ErrCorrupt, err)
			}
			fr.tail = err // after the rows read before the failure
		case n == 0:
			fr.tail = fmt.Errorf("%w: reader made no progress", ptree.ErrCorrupt)
		}
	}
	return nil, fr.done
}

func (fr *FileReader) fail(err error) {
	if fr.rows != nil {
		closeRows(fr.rows)
		fr.rows = nil
	}
	fr.done = err
}

// Close releases the current row group's pages. It does not close r.
func (fr *FileReader) Close() error {
	if fr.done == nil {
		fr.fail(io.EOF)
	}
	return nil
}
