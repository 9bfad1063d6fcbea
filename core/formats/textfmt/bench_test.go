package textfmt

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// BenchmarkRead splits 8 MB of 80-byte lines; MB/s of file bytes.
func BenchmarkRead(b *testing.B) {
	data := []byte(strings.Repeat(strings.Repeat("x", 79)+"\n", 100000))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		rr, err := Format{}.Open(context.Background(), bytes.NewReader(data), Format{}.Schema(), fileformat.ReadOptions{})
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
}
