package parquetio

import (
	"bytes"
	"errors"
	"os"
	"testing"
)

// FuzzReadFile feeds garbage and damaged files to ReadFile and NumRows: they
// must return an error or rows, never panic or hang.
func FuzzReadFile(f *testing.F) {
	good, _ := writeFile(f, nestedSchema(), nestedRows(), WriterOptions{})
	prim, _ := writeFile(f, primitiveSchema(), primitiveRows(), WriterOptions{Compression: "uncompressed"})
	decs, _ := writeFile(f, decimalSchema(), decimalRows(), WriterOptions{Compression: "zstd"})
	spark, err := os.ReadFile("testdata/spark-all-types/data.snappy.parquet")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{good, prim, decs, spark, good[:len(good)/2], {}, []byte("PAR1"), []byte("PAR1PAR1"), []byte("PAR1\x00\x00\x00\x00PAR1")} {
		f.Add(seed)
	}
	// Flip bytes in the footer region of a valid file.
	for _, off := range []int{8, 16, 64} {
		b := bytes.Clone(good)
		b[len(b)-off] ^= 0xff
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A tiny file may legitimately hold millions of RLE-encoded nulls;
		// callers bound such files with NumRows first, and so does the
		// fuzzer, to spend its time on decoding rather than on allocation.
		if n, err := NumRows(bytes.NewReader(data), int64(len(data))); err == nil && n > 100_000 {
			return
		}
		s, rows, err := ReadFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			if s != nil || rows != nil {
				t.Fatalf("ReadFile returned data with error %v", err)
			}
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupportedSchema) && !errors.Is(err, ErrUnsupportedCodec) {
				t.Fatalf("ReadFile error %v is neither ErrCorrupt, ErrUnsupportedSchema nor ErrUnsupportedCodec", err)
			}
		} else if s == nil {
			t.Fatal("ReadFile returned no schema and no error")
		}
	})
}
