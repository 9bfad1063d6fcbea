package csvfmt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// benchCSV is about 8 MB of CSV with a header, quoted values (one with an
// escaped quote and a delimiter), numbers, booleans, dates, timestamps and
// an occasional value that does not fit its column.
func benchCSV() []byte {
	var b bytes.Buffer
	b.WriteString("id,user,age,score,active,day,ts,note\n")
	for i := 0; b.Len() < 8<<20; i++ {
		age := fmt.Sprint(20 + i%50)
		if i%100 == 0 {
			age = "unknown"
		}
		fmt.Fprintf(&b, "%d,user-%d,%s,%d.%d,%t,2024-03-%02d,2024-03-%02d 12:%02d:05,\"lorem ipsum, dolor \\\"sit\\\" amet é\"\n",
			i, i, age, i%1000, i%100, i%2 == 0, 1+i%28, 1+i%28, i%60)
	}
	return b.Bytes()
}

// BenchmarkRead reads benchCSV with the schema inferred from it
// (inferColumnTypes, the rescued data column): MB/s of CSV text.
func BenchmarkRead(b *testing.B) {
	data := benchCSV()
	opts := map[string]string{"header": "true"}
	inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, Options: opts, RescuedDataColumn: "_rescued_data"})
	if err := inf.Add(context.Background(), "b.csv", bytes.NewReader(data)); err != nil {
		b.Fatal(err)
	}
	s := inf.Schema()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rr, err := Format{}.Open(context.Background(), bytes.NewReader(data), s, fileformat.ReadOptions{Options: opts, RescuedDataColumn: "_rescued_data", FilePath: "b.csv"})
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

// BenchmarkInfer infers the schema of benchCSV (MB/s).
func BenchmarkInfer(b *testing.B) {
	data := benchCSV()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, Options: map[string]string{"header": "true"}})
		if err := inf.Add(context.Background(), "b.csv", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTokenize tokenizes the benchmark dataset's first CSV file
// (TRIBUTARY_BENCH_CACHE; skipped without it) or benchCSV: the tokenizer
// alone, MB/s of CSV text.
func BenchmarkTokenize(b *testing.B) {
	data := benchCSV()
	if dir := os.Getenv("TRIBUTARY_BENCH_CACHE"); dir != "" {
		if d, err := os.ReadFile(filepath.Join(dir, "csv-v1-20x5242880-seed20240301-csv", "part-00000.csv")); err == nil {
			data = d
		}
	}
	for _, m := range []map[string]string{nil, {"comment": "#"}} {
		o, err := ParseOptions(m)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprint(m), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				tk := newTokenizer(bytes.NewReader(data), &o, "")
				for tk.Next() == nil {
				}
			}
		})
	}
}

// BenchmarkInferFile infers the schema of the benchmark dataset's first
// CSV file (TRIBUTARY_BENCH_CACHE; benchCSV without it), as the converter
// samples it: MB/s of CSV text (with -cpu 2 and more, in blocks on
// workers).
func BenchmarkInferFile(b *testing.B) {
	data := benchCSV()
	if dir := os.Getenv("TRIBUTARY_BENCH_CACHE"); dir != "" {
		if d, err := os.ReadFile(filepath.Join(dir, "csv-v1-20x5242880-seed20240301-csv", "part-00000.csv")); err == nil {
			data = d
		}
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, Options: map[string]string{"header": "true"}})
		if err := inf.Add(context.Background(), "b.csv", bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
