// Package orcfmt is the cloudFiles.format "orc": Apache ORC input files,
// decoded by a compact hand-written reader (no Go ORC library is served by
// the module proxy this project builds from).
//
// What is decoded. The file tail (postscript, footer, stripe footers; the
// protobuf messages are read field by field with protowire), compression
// NONE, ZLIB, SNAPPY, ZSTD and LZ4 in ORC's chunk framing, and the column
// encodings: byte RLE, boolean RLE, integer RLE v1 and v2 (short repeat,
// direct, patched base, delta), DIRECT and DICTIONARY(_V2) strings, PRESENT
// streams, decimals (zigzag varints with a scale stream), timestamps
// (seconds since 2015-01-01 plus ORC's nanosecond encoding), floats and
// doubles, structs, lists and maps.
//
// Types, as Spark reads ORC: boolean, tinyint/smallint/int/bigint as
// byte/short/integer/long, float, double, string/varchar/char as string,
// binary, date, timestamp and timestamp with local time zone as timestamp,
// decimal(p,s), struct, list as array, map. A union type, LZO compression
// or an encrypted column is refused: the file is reported as corrupt
// (ErrUnsupported wraps ErrCorrupt) naming the file, never half-read.
//
// Schema and reading work as in parquetfmt (package columnar): the schema
// is the first sampled file's, or the merge of the sampled files' with
// mergeSchema=true; rows are conformed to the stream's schema with rescue.
// One stripe is decoded in memory at a time. A file that is not ORC or is
// damaged is reported by the first RowReader.Next wrapping ErrCorrupt.
package orcfmt

import (
	"context"
	"fmt"
	"io"

	"github.com/tributary-io/tributary/core/formats/columnar"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/parquetfmt"
	"github.com/tributary-io/tributary/core/schema"
)

// Format is the cloudFiles.format "orc". The zero value is ready to use.
type Format struct{}

var _ fileformat.RandomAccessFormat = Format{}

// Name returns "orc".
func (Format) Name() string { return "orc" }

// NewInferrer starts a schema inference over ORC footers (mergeSchema as
// for Parquet).
func (Format) NewInferrer(opts fileformat.InferOptions) fileformat.Inferrer {
	return columnar.NewInferrer(opts, footer, parquetfmt.MergeSchema(opts.Options))
}

func footer(f fileformat.File) (_ *schema.StructType, _ int64, err error) {
	defer recoverCorrupt(&err)
	t, err := readTail(f)
	if err != nil {
		return nil, 0, err
	}
	s, err := t.deltaType(0)
	if err != nil {
		return nil, 0, err
	}
	return s.(*schema.StructType), int64(t.rows), nil
}

func recoverCorrupt(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("%w: decoder panic: %v", ErrCorrupt, p)
	}
}

// Open reads an ORC file given as a stream: it is read whole into memory
// first. Engines use OpenFile.
func (Format) Open(ctx context.Context, r io.Reader, s *schema.StructType, opts fileformat.ReadOptions) (fileformat.RowReader, error) {
	f, err := fileformat.ReadAllFile(r)
	if err != nil {
		return columnar.NewReader(nil, nil, s, opts, err)
	}
	return Format{}.OpenFile(ctx, f, s, opts)
}

// OpenFile reads the ORC file f as rows of s, one stripe in memory at a
// time.
func (Format) OpenFile(_ context.Context, f fileformat.File, s *schema.StructType, opts fileformat.ReadOptions) (fileformat.RowReader, error) {
	src, fs, err := openSource(f)
	if err != nil {
		return columnar.NewReader(nil, nil, s, opts, err)
	}
	return columnar.NewReader(src, fs, s, opts, nil)
}

func openSource(f fileformat.File) (_ *source, _ *schema.StructType, err error) {
	defer recoverCorrupt(&err)
	t, err := readTail(f)
	if err != nil {
		return nil, nil, err
	}
	s, err := t.deltaType(0)
	if err != nil {
		return nil, nil, err
	}
	return &source{f: f, t: t}, s.(*schema.StructType), nil
}

// source yields a file's rows in its own schema, stripe by stripe.
type source struct {
	f      fileformat.File
	t      *tail
	next   int     // next stripe
	cols   [][]any // current stripe's top-level columns
	row, n int
	closed bool
}

// Next returns the next row, io.EOF after the last one.
func (s *source) Next() (_ []any, err error) {
	if s.closed {
		return nil, io.EOF
	}
	for s.row >= s.n {
		if s.next >= len(s.t.stripes) {
			return nil, io.EOF
		}
		if err := s.loadStripe(); err != nil {
			return nil, err
		}
	}
	row := make([]any, len(s.cols))
	for i, c := range s.cols {
		row[i] = c[s.row]
	}
	s.row++
	return row, nil
}

func (s *source) loadStripe() (err error) {
	defer recoverCorrupt(&err)
	si := s.t.stripes[s.next]
	s.next++
	if si.rows > maxValues {
		return corrupt("stripe %d claims %d rows", s.next-1, si.rows)
	}
	st, err := loadStripe(s.f, s.t, si)
	if err != nil {
		return fmt.Errorf("stripe %d: %w", s.next-1, err)
	}
	n := int(si.rows)
	root := s.t.types[0]
	s.cols = make([][]any, len(root.subtypes))
	for i, c := range root.subtypes {
		v, err := st.column(c, n)
		if err != nil {
			return fmt.Errorf("stripe %d: %w", s.next-1, err)
		}
		s.cols[i] = v
	}
	s.row, s.n = 0, n
	return nil
}

// Close releases the stripe held in memory.
func (s *source) Close() error {
	s.closed, s.cols = true, nil
	return nil
}
