// Package arrowtest reads Parquet files with apache/arrow-go's pqarrow, a
// reader independent of parquet-go, for the tests that prove Tributary's
// Parquet files round-trip through another implementation.
package arrowtest

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ReadTable reads the whole Parquet file data into an arrow table, failing
// tb if arrow-go cannot read it. The caller releases the table.
func ReadTable(tb testing.TB, data []byte) arrow.Table {
	tb.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		tb.Fatalf("arrow NewParquetReader: %v", err)
	}
	defer pf.Close()
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1024}, memory.DefaultAllocator)
	if err != nil {
		tb.Fatalf("pqarrow.NewFileReader: %v", err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		tb.Fatalf("pqarrow ReadTable: %v", err)
	}
	return tbl
}
