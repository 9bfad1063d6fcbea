package jsonfmt

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/parquetio"
)

// BenchmarkDatasetToParquet converts one ~5 MB file of the end-to-end
// dataset to Parquet (schema inferred once, outside the loop) through the
// row path (Next, Writer.Write) and the columnar path (ReadBatch,
// Writer.WriteBatch).
func BenchmarkDatasetToParquet(b *testing.B) {
	data := benchFile(b)
	inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, RescuedDataColumn: "_rescued_data"})
	if err := inf.Add(context.Background(), "bench.json", bytes.NewReader(data)); err != nil {
		b.Fatal(err)
	}
	s := inf.Schema()
	opts := fileformat.ReadOptions{RescuedDataColumn: "_rescued_data", FilePath: "bench.json"}
	b.Run("rows", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			rr, err := Format{}.Open(context.Background(), bytes.NewReader(data), s, opts)
			if err != nil {
				b.Fatal(err)
			}
			w, err := parquetio.NewWriter(io.Discard, s, parquetio.WriterOptions{})
			if err != nil {
				b.Fatal(err)
			}
			rows := make([][]any, 0, 512)
			for {
				row, err := rr.Next()
				if errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					b.Fatal(err)
				}
				if rows = append(rows, row); len(rows) == cap(rows) {
					if err := w.Write(rows); err != nil {
						b.Fatal(err)
					}
					rows = make([][]any, 0, 512)
				}
			}
			if err := w.Write(rows); err != nil {
				b.Fatal(err)
			}
			if _, err := w.Close(); err != nil {
				b.Fatal(err)
			}
			rr.Close()
		}
	})
	b.Run("columns", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			rr, err := Format{}.Open(context.Background(), bytes.NewReader(data), s, opts)
			if err != nil {
				b.Fatal(err)
			}
			w, err := parquetio.NewWriter(io.Discard, s, parquetio.WriterOptions{})
			if err != nil {
				b.Fatal(err)
			}
			cb, err := parquetio.NewColumnBatch(s)
			if err != nil {
				b.Fatal(err)
			}
			br := rr.(parquetio.BatchReader)
			if !br.BatchReadable() {
				b.Fatal("not batch readable")
			}
			for {
				rerr := br.ReadBatch(cb, 512, 4<<20)
				if err := w.WriteBatch(cb, 0, cb.Rows()); err != nil {
					b.Fatal(err)
				}
				cb.Reset()
				if errors.Is(rerr, io.EOF) {
					break
				} else if rerr != nil {
					b.Fatal(rerr)
				}
			}
			if _, err := w.Close(); err != nil {
				b.Fatal(err)
			}
			rr.Close()
		}
	})
}
