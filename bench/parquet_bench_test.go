package bench

import "testing"

// BenchmarkParquetToDelta ingests the ~100 MB NDJSON dataset converted to
// snappy Parquet (20 files, one schema, converted once under .cache/bench)
// into a fresh local Delta table per iteration, in one batch, through the
// CLI's adapters (cloudFiles.format parquet: footer schema, rows read one
// row group at a time, rewritten as the table's Parquet). MB/s counts the
// Parquet input bytes; rows/s is comparable with BenchmarkJSONToDelta.
func BenchmarkParquetToDelta(b *testing.B) {
	ds, err := EnsureParquet(cacheDir(b), ensure(b, mainSpec(false)))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("parquet", func(b *testing.B) {
		benchIngest(b, ingestCase{name: "parquet", ds: ds, format: "parquet", maxFiles: 1000, wantBatches: 1})
	})
}
