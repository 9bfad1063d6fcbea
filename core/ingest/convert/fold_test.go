package convert

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestLinesPrefix: a prefix ends after the last "\n" of the first n
// bytes when the file is longer, and is the whole file otherwise.
func TestLinesPrefix(t *testing.T) {
	for _, tt := range []struct {
		doc  string
		n    int64
		want string
	}{
		{"a\nb\nc\n", 100, "a\nb\nc\n"},
		{"a\nb\nc\n", 6, "a\nb\nc\n"},
		{"a\nb\nc\n", 5, "a\nb\n"},
		{"a\nbb\nc\n", 4, "a\n"},
		{"abcdef", 3, ""},
		{"", 3, ""},
	} {
		r, err := linesPrefix(strings.NewReader(tt.doc), tt.n)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := io.ReadAll(r); string(got) != tt.want {
			t.Errorf("linesPrefix(%q, %d) = %q, want %q", tt.doc, tt.n, got, tt.want)
		}
	}
	if _, err := linesPrefix(io.MultiReader(strings.NewReader("ab"), errReader{}), 10); err == nil {
		t.Error("a read error is not returned")
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("boom") }
