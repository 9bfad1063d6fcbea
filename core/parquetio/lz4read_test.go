package parquetio

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/tributary-io/tributary/core/schema"
)

// TestLZ4RawRefusedOnRead: a file with LZ4_RAW pages that compress less
// than 3:1 (random doubles) is read right by arrow-go, but parquet-go
// v0.32's reader decodes such pages from a stale buffer; ReadFile refuses
// the file with ErrUnsupportedCodec instead of returning wrong values.
func TestLZ4RawRefusedOnRead(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{{Name: "x", Type: schema.Double, Nullable: true}, {Name: "id", Type: schema.Long, Nullable: true}}}
	r := rand.New(rand.NewPCG(1, 2))
	rows := make([][]any, 5000)
	for i := range rows {
		rows[i] = []any{r.Float64() * 1e6, r.Int64()}
	}
	for _, codec := range []string{"lz4", "snappy"} {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, s, WriterOptions{Compression: codec, PageBytes: 4096})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Close(); err != nil {
			t.Fatal(err)
		}
		_, got := readArrow(t, buf.Bytes(), s)
		compareRows(t, "pqarrow "+codec, s, rows, got)
		_, read, err := ReadFile(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if codec == "lz4" {
			if !errors.Is(err, ErrUnsupportedCodec) || read != nil {
				t.Errorf("lz4: ReadFile %d rows, %v; want ErrUnsupportedCodec", len(read), err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		compareRows(t, "ReadFile "+codec, s, rows, read)
	}
}
