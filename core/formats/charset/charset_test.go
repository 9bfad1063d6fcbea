package charset

import (
	"errors"
	"io"
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	tests := []struct {
		in, name string
		utf8     bool
		bom      bool
	}{
		{"UTF-8", "UTF-8", true, false},
		{" utf8 ", "UTF-8", true, false},
		{"ISO-8859-1", "ISO-8859-1", false, false},
		{"latin1", "ISO-8859-1", false, false},
		{"ISO8859_1", "ISO-8859-1", false, false},
		{"iso_8859-1:1987", "ISO-8859-1", false, false},
		{"Cp1252", "windows-1252", false, false},
		{"WINDOWS-1252", "windows-1252", false, false},
		{"cp1251", "windows-1251", false, false},
		{"UTF-16", "UTF-16", false, true},
		{"UnicodeBig", "UTF-16", false, true},
		{"utf-16le", "UTF-16LE", false, false},
		{"UTF-32", "UTF-32", false, true},
		{"UTF_32BE", "UTF-32BE", false, false},
		{"US-ASCII", "US-ASCII", false, false},
		{"Shift_JIS", "Shift_JIS", false, false},
		{"sjis", "Shift_JIS", false, false},
		{"KOI8-R", "KOI8-R", false, false},
		{"ISO-8859-15", "ISO-8859-15", false, false},
	}
	for _, tc := range tests {
		c, err := Lookup(tc.in)
		if err != nil {
			t.Errorf("Lookup(%q): %v", tc.in, err)
			continue
		}
		if c.Name() != tc.name || c.IsUTF8() != tc.utf8 || c.ByteOrderMark() != tc.bom {
			t.Errorf("Lookup(%q) = %s (utf8 %v, bom %v), want %s (%v, %v)", tc.in, c.Name(), c.IsUTF8(), c.ByteOrderMark(), tc.name, tc.utf8, tc.bom)
		}
	}
	for _, bad := range []string{"", "x-unknown", "UTF-7½", "latin99"} {
		if _, err := Lookup(bad); !errors.Is(err, ErrUnknown) {
			t.Errorf("Lookup(%q): error %v, want ErrUnknown", bad, err)
		}
	}
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct{ enc, in, want string }{
		{"ISO-8859-1", "\xe9t\xe9", "été"},
		{"UTF-16BE", "\x00h\x00\xe9", "hé"},
		{"UTF-16LE", "h\x00\xe9\x00", "hé"},
		{"UTF-32LE", "h\x00\x00\x00", "h"},
		{"UTF-8", "\xff", "\xff"}, // read as is: invalid bytes are the parser's business
	} {
		c, err := Lookup(tc.enc)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(c.NewReader(strings.NewReader(tc.in)))
		if err != nil || string(got) != tc.want {
			t.Errorf("%s %q: %q (%v), want %q", tc.enc, tc.in, got, err, tc.want)
		}
	}
}
