package csvfmt

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/parquetio"
)

// TestReaderRecyclesTokenizer: a batch's reader hands its tokenizer on to
// the next reader of the same options when it is closed, which then reads
// its own file; a reader whose input went on in parallel chunks keeps
// its tokenizer to itself.
func TestReaderRecyclesTokenizer(t *testing.T) {
	s := strSchema("code", "name")
	var big strings.Builder
	big.WriteString("code,name\n")
	for i := range 20000 {
		fmt.Fprintf(&big, "%d,n%d\n", i, i)
	}
	tests := []struct {
		name     string
		first    string
		workers  int
		recycled bool
	}{
		{"serial", "code,name\n1,a\n", 1, true},
		{"parallel", big.String(), 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := fileformat.ReadOptions{Options: map[string]string{"header": "true"}, FilePath: "a.csv", Reuse: &fileformat.Reuse{}, Workers: tt.workers}
			rr, err := Format{}.Open(context.Background(), strings.NewReader(tt.first), s, opts)
			if err != nil {
				t.Fatal(err)
			}
			rr.(*reader).col.anySize = true // a column batch however small the file
			b, err := parquetio.NewColumnBatch(s)
			if err != nil {
				t.Fatal(err)
			}
			rows := 0
			for err == nil {
				err = rr.(*reader).ReadBatch(b, 512, 1<<20)
				rows += b.Rows()
				b.Reset()
			}
			if want := strings.Count(tt.first, "\n") - 1; rows != want {
				t.Fatalf("read %d rows, want %d (%v)", rows, want, err)
			}
			if tt.workers > 1 && rr.(*reader).par == nil && rr.(*reader).recycle != nil {
				t.Fatal("the big file was not read in parallel")
			}
			used := rr.(*reader).tk
			rr.Close()
			opts.FilePath = "b.csv"
			next, err := Format{}.Open(context.Background(), strings.NewReader("code,name\n2,b\n"), s, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := next.(*reader).tk == used; got != tt.recycled {
				t.Fatalf("the next reader has the tokenizer before: %v, want %v", got, tt.recycled)
			}
			row, err := next.Next()
			if err != nil || !reflect.DeepEqual(row, []any{"2", "b"}) {
				t.Fatalf("the next reader read %#v, %v", row, err)
			}
			next.Close()
		})
	}
}
