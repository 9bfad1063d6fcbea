package jsonfmt

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// smallFiles cuts benchData into files of about size bytes at line ends.
func smallFiles(size int) [][]byte {
	data := benchData()
	var files [][]byte
	for len(data) > 0 {
		n := min(size, len(data))
		if i := bytes.IndexByte(data[n-1:], '\n'); i >= 0 {
			n += i
		} else {
			n = len(data)
		}
		files = append(files, data[:n])
		data = data[n:]
	}
	return files
}

// BenchmarkReadSmallFiles decodes benchData cut into ~1 KB files, one
// reader per file: the per-file fixed cost (buffers, set-up).
func BenchmarkReadSmallFiles(b *testing.B) {
	s := mustDDL(b, "active BOOLEAN, age BIGINT, geo STRUCT<city: STRING, lat: DOUBLE, lon: DOUBLE>, id BIGINT, "+
		"note STRING, score DOUBLE, tags ARRAY<STRING>, ts TIMESTAMP, user STRING, _rescued_data STRING")
	files := smallFiles(1 << 10)
	b.SetBytes(int64(len(benchData())))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, f := range files {
			rr, err := Format{}.Open(context.Background(), bytes.NewReader(f), s,
				fileformat.ReadOptions{RescuedDataColumn: "_rescued_data", FilePath: "small.json"})
			if err != nil {
				b.Fatal(err)
			}
			for {
				_, err := rr.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			rr.Close()
		}
	}
}

// BenchmarkInferSmallFiles infers over benchData cut into ~1 KB files.
func BenchmarkInferSmallFiles(b *testing.B) {
	files := smallFiles(1 << 10)
	b.SetBytes(int64(len(benchData())))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, MaxBytes: 1 << 40})
		for _, f := range files {
			if err := inf.Add(context.Background(), "small.json", bytes.NewReader(f)); err != nil {
				b.Fatal(err)
			}
		}
	}
}
