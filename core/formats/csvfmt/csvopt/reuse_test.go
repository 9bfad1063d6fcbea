package csvopt

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/csvfmt/csvtok"
	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// TestParseReused: options parsed for one file are taken by the next
// reader given equal options (the same Options), parsed again for other
// options, never kept when they fail, and a nil Reuse parses every time.
func TestParseReused(t *testing.T) {
	base := map[string]string{"header": "true", "timestampFormat": "yyyy-MM-dd HH:mm:ss"}
	other := map[string]string{"header": "false", "sep": ";"}
	bad := map[string]string{"header": "maybe"}
	tests := []struct {
		name   string
		reuse  *fileformat.Reuse
		maps   []map[string]string
		shared []bool // the i-th parse gave the Options of the one before (same Datetime)
	}{
		{"equal options", &fileformat.Reuse{}, []map[string]string{base, base, {"header": "true", "timestampFormat": "yyyy-MM-dd HH:mm:ss"}}, []bool{false, true, true}},
		{"other options", &fileformat.Reuse{}, []map[string]string{base, other, other, base}, []bool{false, false, true, false}},
		{"failing options", &fileformat.Reuse{}, []map[string]string{bad, bad, base}, []bool{false, false, false}},
		{"no reuse", nil, []map[string]string{base, base}, []bool{false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prev Options
			for i, m := range tt.maps {
				got, _, err := ParseReused(m, tt.reuse)
				want, werr := Parse(m)
				if (err == nil) != (werr == nil) || (err != nil && !errors.Is(err, fileformat.ErrBadOption)) {
					t.Fatalf("parse %d: %v, Parse: %v", i, err, werr)
				}
				if err != nil {
					continue
				}
				// The same options as Parse, the datetime parser compared by value.
				g, w := got, want
				gd, wd := g.Datetime, w.Datetime
				g.Datetime, w.Datetime = nil, nil
				if !reflect.DeepEqual(g, w) || !reflect.DeepEqual(gd, wd) {
					t.Fatalf("parse %d: %+v, Parse %+v", i, got, want)
				}
				if shared := i > 0 && got.Datetime != nil && got.Datetime == prev.Datetime; shared != tt.shared[i] {
					t.Fatalf("parse %d: reused %v, want %v", i, shared, tt.shared[i])
				}
				prev = got
			}
		})
	}
}

// TestMemoTokenizer: a tokenizer handed back is the next one given out,
// reset to read the new source with the configuration of the line
// separator asked for; at most maxFree are kept; a nil Memo makes new
// ones and keeps none.
func TestMemoTokenizer(t *testing.T) {
	o := Defaults()
	var m Memo
	first := func(tk *csvtok.Tokenizer) string {
		t.Helper()
		if err := tk.Next(); err != nil {
			t.Fatal(err)
		}
		return tk.Value(0)
	}
	a := m.Tokenizer(&o, "", strings.NewReader("a,b\n"))
	if got := first(a); got != "a" {
		t.Fatalf("first value %q", got)
	}
	m.Recycle(a)
	b := m.Tokenizer(&o, "", strings.NewReader("c,d\n"))
	if b != a {
		t.Fatal("the tokenizer handed back was not given out again")
	}
	if got := first(b); got != "c" {
		t.Fatalf("after a reset: first value %q, want c", got)
	}
	m.Recycle(b)
	c := m.Tokenizer(&o, ";", strings.NewReader("e;f;g\n"))
	if got := first(c); got != "e" || c.Len() != 1 {
		t.Fatalf("with line separator ';': first value %q of %d, want e of 1", got, c.Len())
	}
	var many []*csvtok.Tokenizer
	for range maxFree + 3 {
		many = append(many, m.Tokenizer(&o, "", strings.NewReader("x\n")))
	}
	for _, tk := range many {
		m.Recycle(tk)
	}
	if len(m.free) != maxFree {
		t.Fatalf("kept %d tokenizers, want %d", len(m.free), maxFree)
	}
	var none *Memo
	x := none.Tokenizer(&o, "", strings.NewReader("y\n"))
	none.Recycle(x)
	if y := none.Tokenizer(&o, "", strings.NewReader("z\n")); y == x || first(y) != "z" {
		t.Fatal("a nil Memo gave out a tokenizer twice")
	}
}
