package xmlfmt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// BenchmarkRead reads 5,000 book records (attributes, six children, a
// repeated element) with inferred types; MB/s of file bytes.
func BenchmarkRead(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("<catalog>\n")
	for i := range 5000 {
		fmt.Fprintf(&sb, `<book id="bk%d" lang="en"><author>Author %d</author><title>Title %d</title><price currency="USD">%d.95</price><publish_date>2000-10-01</publish_date><tags><tag>a</tag><tag>b</tag></tags></book>`+"\n", i, i, i, i%100)
	}
	sb.WriteString("</catalog>\n")
	data := sb.String()
	opts := map[string]string{"rowTag": "book"}
	s, err := infer(b, data, fileformat.InferOptions{InferColumnTypes: true, Options: opts, RescuedDataColumn: "_rescued_data"})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		rr, err := open(context.Background(), strings.NewReader(data), s, fileformat.ReadOptions{Options: opts, RescuedDataColumn: "_rescued_data"})
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
