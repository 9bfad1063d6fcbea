package jsonfmt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// TestMultiLine: with multiLine a file is one JSON value: an object is one
// record, an array of objects one record per element; what follows the
// first value is ignored (Spark's parser reads one value); a malformed
// file is one corrupt record holding its text.
func TestMultiLine(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, data string
		want       string // rows as a|_corrupt_record, ";"-separated
	}{
		{"object over lines", "{\n  \"a\": 1,\n  \"b\": \"x\"\n}\n", "1|<nil>"},
		{"array of objects", "\ufeff[\n {\"a\": 1},\n {\"a\": 2}\n]", "1|<nil>;2|<nil>"},
		{"first value only", "{\"a\": 1}\n{\"a\": 2}\n", "1|<nil>"},
		{"empty file", "\n\n", ""},
		{"malformed", "{\n \"a\": 1,\n", "<nil>|{\n \"a\": 1,\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := map[string]string{"multiLine": "true"}
			inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, Options: opts})
			if err := inf.Add(ctx, "f.json", strings.NewReader(tc.data)); err != nil {
				t.Fatal(err)
			}
			s := inf.Schema()
			rr, err := Format{}.Open(ctx, strings.NewReader(tc.data), s, fileformat.ReadOptions{FilePath: "f.json", Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for {
				r, err := rr.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				a, c := any(nil), any(nil)
				if i := s.FieldIndex("a"); i >= 0 {
					a = r[i]
				}
				if i := s.FieldIndex("_corrupt_record"); i >= 0 {
					c = r[i]
				}
				got = append(got, fmt.Sprintf("%v|%v", a, c))
			}
			if g := strings.Join(got, ";"); g != tc.want {
				t.Errorf("rows %q, want %q (schema %s)", g, tc.want, s)
			}
		})
	}
	// Without multiLine the object over lines is malformed line by line.
	inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true})
	if err := inf.Add(ctx, "f.json", strings.NewReader(tests[0].data)); err != nil {
		t.Fatal(err)
	}
	if s := inf.Schema(); s.FieldIndex("a") >= 0 || s.FieldIndex("_corrupt_record") < 0 {
		t.Errorf("line by line: schema %s, want only _corrupt_record", s)
	}
}
