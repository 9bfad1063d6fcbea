package jsonfmt

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// benchFile is one file of the end-to-end benchmark's dataset (make bench
// generates it under .cache/bench); the benchmarks below skip without it.
func benchFile(b *testing.B) []byte {
	dir := os.Getenv("TRIBUTARY_BENCH_CACHE")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", ".cache", "bench")
	}
	data, err := os.ReadFile(filepath.Join(dir, "ndjson-v1-20x5242880-seed20240301-json", "part-00000.json"))
	if err != nil {
		b.Skipf("no benchmark dataset (run make bench once): %v", err)
	}
	return data
}

// BenchmarkDatasetInfer infers one ~5 MB file of the end-to-end dataset.
func BenchmarkDatasetInfer(b *testing.B) {
	data := benchFile(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true})
		if err := inf.Add(context.Background(), "bench.json", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDatasetRead reads one ~5 MB file of the end-to-end dataset with
// its inferred schema.
func BenchmarkDatasetRead(b *testing.B) {
	data := benchFile(b)
	inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, RescuedDataColumn: "_rescued_data"})
	if err := inf.Add(context.Background(), "bench.json", bytes.NewReader(data)); err != nil {
		b.Fatal(err)
	}
	s := inf.Schema()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rr, err := Format{}.Open(context.Background(), bytes.NewReader(data), s, fileformat.ReadOptions{RescuedDataColumn: "_rescued_data", FilePath: "bench.json"})
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := rr.Next(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
		rr.Close()
	}
}
