package csvopt

import (
	"testing"
	"unicode/utf8"
)

func TestDelimiter(t *testing.T) {
	for _, c := range []struct {
		in, want string
		err      bool
	}{
		{",", ",", false}, {`\t`, "\t", false}, {`\u0000`, "\x00", false}, {"||", "||", false},
		{`\\`, `\`, false}, {`a\`, `a\`, false}, {"", "", true}, {`\`, "", true}, {`\x`, "", true},
	} {
		got, err := Delimiter(c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("Delimiter(%q) = %q, %v; want %q, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestChar(t *testing.T) {
	for _, c := range []struct {
		in   string
		want rune
		err  bool
	}{{"", 0, false}, {`"`, '"', false}, {"é", 'é', false}, {"ab", 0, true}} {
		got, err := Char("quote", c.in)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("Char(%q) = %q, %v; want %q, error %v", c.in, got, err, c.want, c.err)
		}
	}
}

func FuzzDelimiter(f *testing.F) {
	for _, s := range []string{",", `\t`, `\u0000x`, `\`, `a\b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Delimiter(s)
		if err == nil && (d == "" || (utf8.ValidString(s) && !utf8.ValidString(d))) {
			t.Fatalf("Delimiter(%q) = %q", s, d)
		}
		if _, err := Char("c", s); err == nil && utf8.RuneCountInString(s) > 1 {
			t.Fatalf("Char(%q) took more than one character", s)
		}
	})
}
