// Package binaryfmt reads files for Tributary the way Databricks Auto Loader
// reads cloudFiles.format "binaryFile" (Spark's binary file source): every
// file is one row of Spark's fixed schema
//
//	path             STRING    NOT NULL  the file's full path (s3://bucket/key, or the local path)
//	modificationTime TIMESTAMP NOT NULL  the file's last modification time
//	length           LONG      NOT NULL  the file's size in bytes
//	content          BINARY              the file's bytes
//
// The bytes are read as stored: a file named x.gz is not decompressed
// (RawContent), as in Spark. pathGlobFilter selects the files, as in Spark
// ("*.png").
//
// Size: a row holds its file whole, so a file longer than MaxLength
// (2147483647 bytes, Spark's default spark.sql.sources.binaryFile.maxLength
// and the most one Parquet BINARY value can hold) is not read: it fails
// with ErrTooLarge naming the file and its length, which the engine treats
// as an unreadable file (the batch fails, or with ignoreCorruptFiles the
// file is skipped and recorded SKIPPED). Memory: the engine holds a file's
// content while its row is written, so files of a batch are best kept well
// below the function's memory (cloudFiles.maxBytesPerTrigger bounds a
// batch's input).
package binaryfmt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// MaxLength is the longest file binaryFile reads (Spark's default
// spark.sql.sources.binaryFile.maxLength, Integer.MAX_VALUE).
const MaxLength = 1<<31 - 1

// ErrTooLarge is wrapped by Next for a file longer than MaxLength.
var ErrTooLarge = errors.New("binary file too large")

// Column names of the binaryFile schema.
const (
	PathColumn             = "path"
	ModificationTimeColumn = "modificationTime"
	LengthColumn           = "length"
	ContentColumn          = "content"
)

// Format is the cloudFiles.format "binaryFile". The zero value is ready to
// use; MaxLength 0 means the package's MaxLength (tests set less).
type Format struct {
	MaxLength int64
}

// Name returns "binaryFile".
func (Format) Name() string { return "binaryFile" }

// Raw reports true: files are read as stored, not decompressed.
func (Format) Raw() bool { return true }

// Schema returns Spark's binaryFile schema.
func (Format) Schema() *schema.StructType {
	return &schema.StructType{Fields: []schema.Field{
		{Name: PathColumn, Type: schema.String},
		{Name: ModificationTimeColumn, Type: schema.Timestamp},
		{Name: LengthColumn, Type: schema.Long},
		{Name: ContentColumn, Type: schema.Binary, Nullable: true},
	}}
}

// NewInferrer returns an inferrer that reads nothing: the schema is fixed.
func (f Format) NewInferrer(fileformat.InferOptions) fileformat.Inferrer {
	return &inferrer{s: f.Schema()}
}

type inferrer struct {
	s      *schema.StructType
	sample fileformat.Sample
}

func (i *inferrer) Add(ctx context.Context, path string, r io.Reader) error {
	i.sample.Files++
	return ctx.Err()
}
func (i *inferrer) Schema() *schema.StructType { return i.s }
func (i *inferrer) Sampled() fileformat.Sample { return i.sample }
func (i *inferrer) Full() bool                 { return false }

// Open reads one file as a row of s: each of s's fields named as a
// binaryFile column (case-insensitively) gets its value, other fields are
// null. A field of a binaryFile column name with another type wraps
// fileformat.ErrReadSchema.
func (f Format) Open(ctx context.Context, r io.Reader, s *schema.StructType, opts fileformat.ReadOptions) (fileformat.RowReader, error) {
	rr := &reader{ctx: ctx, r: r, n: len(s.Fields), opts: opts, max: f.MaxLength, cols: [4]int{-1, -1, -1, -1}}
	if rr.max <= 0 {
		rr.max = MaxLength
	}
	for i, fld := range f.Schema().Fields {
		j := s.FieldIndexFold(fld.Name)
		if j < 0 {
			continue
		}
		if !schema.EqualType(s.Fields[j].Type, fld.Type) {
			return nil, fmt.Errorf("%w: binaryFile column %s is %s, want %s", fileformat.ErrReadSchema, fld.Name, s.Fields[j].Type, fld.Type)
		}
		rr.cols[i] = j
	}
	return rr, nil
}

type reader struct {
	ctx   context.Context
	r     io.Reader
	n     int
	cols  [4]int // schema index of path, modificationTime, length, content
	opts  fileformat.ReadOptions
	max   int64
	done  bool
	stats fileformat.ReadStats
}

func (r *reader) Next() ([]any, error) {
	if r.done {
		return nil, io.EOF
	}
	r.done = true
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	n, err := io.Copy(&buf, io.LimitReader(r.r, r.max+1))
	if err != nil {
		return nil, err
	}
	if n > r.max {
		return nil, fmt.Errorf("%s: %w: longer than %d bytes (Spark's spark.sql.sources.binaryFile.maxLength)", r.opts.FilePath, ErrTooLarge, r.max)
	}
	row := make([]any, r.n)
	set := func(c int, v any) {
		if r.cols[c] >= 0 {
			row[r.cols[c]] = v
		}
	}
	set(0, r.opts.FilePath)
	set(1, r.opts.ModTime.UTC())
	set(2, n)
	content := buf.Bytes()
	if content == nil {
		content = []byte{}
	}
	set(3, content)
	r.stats.RowsRead++
	return row, nil
}

func (r *reader) Stats() fileformat.ReadStats { return r.stats }

func (r *reader) Close() error {
	r.done = true
	return nil
}
