package jsonfmt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// benchData is about 8 MB of NDJSON with a realistic mix of types, nesting
// and an occasional rescued value.
func benchData() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 8<<20; i++ {
		age := fmt.Sprint(20 + i%50)
		if i%100 == 0 {
			age = `"unknown"`
		}
		fmt.Fprintf(&b, `{"id":%d,"user":"user-%d","age":%s,"score":%d.%d,"active":%t,"ts":"2024-03-%02dT12:%02d:05Z",`+
			`"tags":["a","b%d"],"geo":{"lat":59.9%d,"lon":10.7%d,"city":"Oslo"},"note":"lorem ipsum dolor sit amet \"quoted\" \u00e9"}`+"\n",
			i, i, age, i%1000, i%100, i%2 == 0, 1+i%28, i%60, i%10, i%97, i%89)
	}
	return b.Bytes()
}

func benchRead(b *testing.B, s *schema.StructType, opts fileformat.ReadOptions) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rr, err := Format{}.Open(context.Background(), bytes.NewReader(data), s, opts)
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
	}
}

// BenchmarkReadTyped decodes into a typed schema with rescue on.
func BenchmarkReadTyped(b *testing.B) {
	s := mustDDL(b, "active BOOLEAN, age BIGINT, geo STRUCT<city: STRING, lat: DOUBLE, lon: DOUBLE>, id BIGINT, "+
		"note STRING, score DOUBLE, tags ARRAY<STRING>, ts TIMESTAMP, user STRING, _rescued_data STRING")
	benchRead(b, s, fileformat.ReadOptions{RescuedDataColumn: "_rescued_data", FilePath: "bench.json"})
}

// BenchmarkReadStrings decodes with the default all-string schema.
func BenchmarkReadStrings(b *testing.B) {
	s := mustDDL(b, "active STRING, age STRING, geo STRING, id STRING, note STRING, score STRING, tags STRING, ts STRING, user STRING, _rescued_data STRING")
	benchRead(b, s, fileformat.ReadOptions{RescuedDataColumn: "_rescued_data", FilePath: "bench.json"})
}

// BenchmarkInfer runs typed schema inference.
func BenchmarkInfer(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true})
		if err := inf.Add(context.Background(), "bench.json", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodingJSONBaseline decodes the same data into map[string]any
// with encoding/json and UseNumber, for comparison.
func BenchmarkEncodingJSONBaseline(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		for {
			var m map[string]any
			if err := dec.Decode(&m); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
