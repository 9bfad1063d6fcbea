package jsonopt

import (
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// Parse returns the options parsed before when they were parsed from an
// equal map and equal text options, and parses again otherwise (another
// value, another option, another lineSep, the map changed in place, or
// options that did not parse).
func TestParseReuses(t *testing.T) {
	inPlace := map[string]string{"multiLine": "true"}
	var prev *Parsed
	for _, tc := range []struct {
		name    string
		opts    fileformat.ReadOptions
		before  func()
		reused  bool
		wantErr bool
		multi   bool
	}{
		{"first", fileformat.ReadOptions{Options: map[string]string{"dateFormat": "yyyy/MM/dd"}}, nil, false, false, false},
		{"equal map", fileformat.ReadOptions{Options: map[string]string{"dateFormat": "yyyy/MM/dd"}}, nil, true, false, false},
		{"another value", fileformat.ReadOptions{Options: map[string]string{"dateFormat": "yyyy-MM-dd"}}, nil, false, false, false},
		{"another lineSep", fileformat.ReadOptions{Options: map[string]string{"dateFormat": "yyyy-MM-dd"}, Text: fileformat.TextOptions{LineSep: ";"}}, nil, false, false, false},
		{"a map", fileformat.ReadOptions{Options: inPlace}, nil, false, false, true},
		{"the map changed in place", fileformat.ReadOptions{Options: inPlace}, func() { inPlace["multiLine"] = "false" }, false, false, false},
		{"a bad option", fileformat.ReadOptions{Options: map[string]string{"allowComments": "maybe"}}, nil, false, true, false},
		{"the bad option again", fileformat.ReadOptions{Options: map[string]string{"allowComments": "maybe"}}, nil, false, true, false},
	} {
		if tc.before != nil {
			tc.before()
		}
		p, err := Parse(tc.opts, prev)
		if (err != nil) != tc.wantErr {
			t.Fatalf("%s: error %v, want one: %v", tc.name, err, tc.wantErr)
		}
		if err != nil {
			continue // prev stays: a reader that fails to open leaves nothing
		}
		if reused := p == prev; reused != tc.reused {
			t.Errorf("%s: reused %v, want %v", tc.name, reused, tc.reused)
		}
		if p.MultiLine != tc.multi || p.Datetime == nil {
			t.Errorf("%s: multiLine %v (want %v), datetime parser %v", tc.name, p.MultiLine, tc.multi, p.Datetime)
		}
		prev = p
	}
}
