package csvopt

import (
	"errors"
	"reflect"
	"testing"

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
