package readeropts

import (
	"strings"
	"testing"
)

// TestSpecs: names are unique (case-insensitively), refused options carry
// a reason and no parser, honoured ones a parser, a getter and a meaning.
func TestSpecs(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Specs() {
		k := strings.ToLower(s.Name)
		if seen[k] {
			t.Errorf("option %s is listed twice", s.Name)
		}
		seen[k] = true
		switch {
		case s.Doc == "":
			t.Errorf("option %s has no doc", s.Name)
		case s.Refused && (s.Set != nil || s.Get != nil):
			t.Errorf("refused option %s has a parser", s.Name)
		case !s.Refused && (s.Set == nil || s.Get == nil):
			t.Errorf("option %s has no parser or getter", s.Name)
		}
	}
}

func TestSet(t *testing.T) {
	byName := map[string]Spec{}
	for _, s := range Specs() {
		byName[s.Name] = s
	}
	tests := []struct {
		name, in string
		format   FileFormat
		wantGet  string // "" means refused
		check    func(r *Reader) bool
	}{
		{"mode", "dropmalformed", FormatJSON, "DROPMALFORMED", func(r *Reader) bool { return r.Mode == "DROPMALFORMED" }},
		{"mode", "lenient", FormatJSON, "", nil},
		{"allowComments", "TRUE", FormatJSON, "true", func(r *Reader) bool { return r.Options["allowComments"] == "true" }},
		{"maxColumns", "0", FormatCSV, "", nil},
		{"skipRows", "3", FormatCSV, "3", nil},
		{"lineSep", "ab", FormatJSON, `"ab"`, func(r *Reader) bool { return r.LineSep == "ab" }},
		{"lineSep", "ab", FormatCSV, "", nil},
		{"modifiedAfter", "2020-06-01", FormatJSON, "2020-06-01T00:00:00Z", func(r *Reader) bool { return r.ModifiedAfter != nil }},
		{"encoding", "latin1", FormatCSV, "ISO-8859-1", func(r *Reader) bool { return r.Encoding == "ISO-8859-1" }},
		{"badRecordsPath", "gs://x/y", FormatJSON, "", nil},
		{"timestampFormat", "yyyy-MM-dd EEE", FormatJSON, "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name+"="+tc.in, func(t *testing.T) {
			s, ok := byName[tc.name]
			if !ok {
				t.Fatalf("no option %s", tc.name)
			}
			r := &Reader{Options: map[string]string{}}
			err := s.Set(r, tc.format, tc.in)
			if tc.wantGet == "" {
				if err == nil {
					t.Fatalf("%s=%q accepted", tc.name, tc.in)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := s.Get(r); !ok || got != tc.wantGet {
				t.Errorf("Get = %q, %v; want %q", got, ok, tc.wantGet)
			}
			if tc.check != nil && !tc.check(r) {
				t.Errorf("reader not updated: %+v", r)
			}
		})
	}
}
