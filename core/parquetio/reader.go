package parquetio

import (
	"io"

	"github.com/tributary-io/tributary/core/parquetio/internal/pqread"
	"github.com/tributary-io/tributary/core/schema"
)

// NumRows returns the number of rows recorded in the footer of the Parquet
// file r of size bytes.
func NumRows(r io.ReaderAt, size int64) (int64, error) { return pqread.NumRows(r, size) }

// ReadFile decodes the whole Parquet file r of size bytes into its Delta
// schema and rows in the row representation of package schema. It reads
// what Spark and other writers produce: 2- and 3-level lists, maps, INT96
// and milli/micro/nanosecond timestamps (as UTC time.Time), unsigned
// integers (widened as Spark does), decimals of every physical type.
//
// A corrupt file yields an error wrapping ErrCorrupt. Corrupt page headers
// can still make parquet-go allocate what they claim (up to about 2 GB)
// before the error; check NumRows and the file size first for untrusted
// input.
func ReadFile(r io.ReaderAt, size int64) (*schema.StructType, [][]any, error) {
	return pqread.ReadFile(r, size)
}

// FileReader streams the rows of a Parquet file, one row group at a time:
// memory holds the footer and the pages of the current row group, never the
// whole file. It decodes what ReadFile decodes, into the same row
// representation.
type FileReader = pqread.FileReader

// OpenReader opens the Parquet file r of size bytes for streaming reads. A
// file that is not Parquet (bad magic, truncated or inconsistent footer)
// gives an error wrapping ErrCorrupt; a schema Tributary cannot map to
// Delta types one wrapping ErrUnsupportedSchema.
func OpenReader(r io.ReaderAt, size int64) (*FileReader, error) { return pqread.OpenReader(r, size) }

// FileSchema reads only the footer of the Parquet file r of size bytes and
// returns its schema as Delta types (Spark's mapping, as in ReadFile).
func FileSchema(r io.ReaderAt, size int64) (*schema.StructType, error) {
	return pqread.FileSchema(r, size)
}
