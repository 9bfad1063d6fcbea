package jsonfmt

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// TestLenientRecordRead: a record using lenient syntax reads into typed
// columns, and its nested values and rescued fields are standard JSON.
func TestLenientRecordRead(t *testing.T) {
	ctx := context.Background()
	data := "{id: 007, 'o': {x: 'a'} /* c */, extra: [01]}\n// a comment line\n{\"id\": 2}\n"
	opts := map[string]string{"allowUnquotedFieldNames": "true", "allowNumericLeadingZeros": "true", "allowComments": "true"}
	inf := Format{}.NewInferrer(fileformat.InferOptions{RescuedDataColumn: "_rescued_data", Options: opts, Hints: nil})
	if err := inf.Add(ctx, "a.json", strings.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	s := inf.Schema()
	if got := s.String(); !strings.Contains(got, "id") || !strings.Contains(got, "extra") {
		t.Fatalf("schema %s", got)
	}
	s = &schema.StructType{Fields: []schema.Field{{Name: "id", Type: schema.Long, Nullable: true}, {Name: "o", Type: schema.String, Nullable: true},
		{Name: "_rescued_data", Type: schema.String, Nullable: true}}}
	rr, err := Format{}.Open(ctx, strings.NewReader(data), s, fileformat.ReadOptions{RescuedDataColumn: "_rescued_data", FilePath: "a.json", Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]any
	for {
		r, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	if len(rows) != 2 || rows[0][0] != int64(7) || rows[0][1] != `{x: 'a'}` || rows[0][2] != `{"extra":[1],"_file_path":"a.json"}` {
		t.Fatalf("rows %q", rows)
	}
}
