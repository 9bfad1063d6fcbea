package jsonfmt

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// TestLongLinesStayIntact: strings read from a long line point into its
// buffer, which the reader never reuses: rows read earlier keep their
// values while later long lines are read.
func TestLongLinesStayIntact(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{{Name: "s", Type: schema.String, Nullable: true}}}
	var in strings.Builder
	var want []string
	for i := range 4 {
		v := strings.Repeat(string(rune('a'+i)), 64<<10+i*1000)
		want = append(want, v)
		in.WriteString(`{"s":"` + v + "\"}\n")
	}
	rr, err := Format{}.Open(context.Background(), iotest.HalfReader(strings.NewReader(in.String())), s, fileformat.ReadOptions{FilePath: "f"})
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for {
		row, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, row := range rows {
		if row[0] != want[i] {
			t.Errorf("row %d changed after later lines were read", i)
		}
	}
}
