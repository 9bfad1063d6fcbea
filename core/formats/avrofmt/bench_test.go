package avrofmt

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// BenchmarkRead reads 20,000 records (a long, a string, a nullable int, a
// double, a timestamp) in blocks of 4,000 (null and deflate codecs); MB/s of file bytes.
func BenchmarkRead(b *testing.B) {
	const s = `{"type":"record","name":"r","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"},{"name":"age","type":["null","int"]},{"name":"score","type":"double"},{"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}}]}`
	var recs []any
	for i := range 20000 {
		recs = append(recs, map[string]any{"id": int64(i), "name": "name of someone", "age": map[string]any{"int": i % 90}, "score": float64(i) / 3, "ts": int64(i) * 1e6})
	}
	for _, codec := range []string{"null", "deflate"} {
		data := writeOCFBlocks(b, s, codec, 4000, recs)
		inf := Format{}.NewInferrer(fileformat.InferOptions{RescuedDataColumn: "_rescued_data"})
		if err := inf.Add(context.Background(), "f", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		sch := inf.Schema()
		b.Run(codec, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				rr, err := Format{}.Open(context.Background(), bytes.NewReader(data), sch, fileformat.ReadOptions{RescuedDataColumn: "_rescued_data"})
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
			}
		})
	}
}
