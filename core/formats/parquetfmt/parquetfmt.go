// Package parquetfmt is the cloudFiles.format "parquet": Parquet input
// files, decoded by package parquetio (github.com/parquet-go/parquet-go
// underneath) one row group at a time.
//
// Schema. Each file's schema comes from its footer with Spark's type
// mapping (INT96 and timestamps adjusted to UTC are timestamp, the others
// timestamp_ntz; unsigned integers widen as Spark does; 2- and 3-level
// lists, maps, decimals of every physical type). Without the reader option
// mergeSchema the stream's schema is the first sampled file's, as Spark
// takes one footer; with mergeSchema=true the sampled files' schemas are
// merged (see columnar.Inferrer). Schema hints and the rescued data column
// apply as for every format.
//
// Reading. Rows are conformed to the stream's schema as columnar.Reader
// describes: columns by name, widenings applied, type mismatches and
// unknown columns rescued as JSON, unknown columns reported for schema
// evolution. A file that is not Parquet (bad magic, truncated or
// inconsistent footer, undecodable page) is reported by the first
// RowReader.Next wrapping parquetio.ErrCorrupt: a corrupt file
// (ignoreCorruptFiles), never a panic.
package parquetfmt

import (
	"context"
	"io"
	"strings"

	"github.com/tributary-io/tributary/core/formats/columnar"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// MergeSchemaOption is the reader option (in InferOptions.Options) that
// merges the sampled files' schemas.
const MergeSchemaOption = "mergeSchema"

// Format is the cloudFiles.format "parquet". The zero value is ready to use.
type Format struct{}

var _ fileformat.RandomAccessFormat = Format{}

// Name returns "parquet".
func (Format) Name() string { return "parquet" }

// NewInferrer starts a schema inference over Parquet footers.
func (Format) NewInferrer(opts fileformat.InferOptions) fileformat.Inferrer {
	return columnar.NewInferrer(opts, footer, MergeSchema(opts.Options))
}

// MergeSchema reports whether the options ask for mergeSchema=true (the
// name is case-insensitive).
func MergeSchema(opts map[string]string) bool {
	for k, v := range opts {
		if strings.EqualFold(k, MergeSchemaOption) {
			return strings.EqualFold(strings.TrimSpace(v), "true")
		}
	}
	return false
}

func footer(f fileformat.File) (*schema.StructType, int64, error) {
	fr, err := parquetio.OpenReader(f, f.Size())
	if err != nil {
		return nil, 0, err
	}
	return fr.Schema(), fr.NumRows(), nil
}

// Open reads a Parquet file given as a stream: it is read whole into
// memory first. Engines use OpenFile.
func (Format) Open(ctx context.Context, r io.Reader, s *schema.StructType, opts fileformat.ReadOptions) (fileformat.RowReader, error) {
	f, err := fileformat.ReadAllFile(r)
	if err != nil {
		return columnar.NewReader(nil, nil, s, opts, err)
	}
	return Format{}.OpenFile(ctx, f, s, opts)
}

// OpenFile reads the Parquet file f as rows of s, one row group in memory
// at a time.
func (Format) OpenFile(_ context.Context, f fileformat.File, s *schema.StructType, opts fileformat.ReadOptions) (fileformat.RowReader, error) {
	fr, err := parquetio.OpenReader(f, f.Size())
	if err != nil {
		return columnar.NewReader(nil, nil, s, opts, err)
	}
	return columnar.NewReader(source{fr}, fr.Schema(), s, opts, nil)
}

type source struct{ fr *parquetio.FileReader }

func (s source) Next() ([]any, error) { return s.fr.Next() }
func (s source) Close() error         { return s.fr.Close() }
