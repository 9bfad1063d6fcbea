package jsonlines

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/tributary-io/tributary/core/formats/charset"
	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// readLines returns every line of data; chunked reads the input a byte at
// a time, which puts every line end across a buffer boundary.
func readLines(t testing.TB, data []byte, opts fileformat.TextOptions, oneByte bool) []string {
	t.Helper()
	var r io.Reader = bytes.NewReader(data)
	if oneByte {
		r = iotest.OneByteReader(r)
	}
	lr, err := New(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		line, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(line))
	}
}

// splitLines is the reference split: Hadoop's LineReader by default (a
// line ends at "\n", "\r\n" or "\r"), or at every sep; no last empty line.
func splitLines(data, sep string) []string {
	var parts []string
	if sep != "" {
		parts = strings.Split(data, sep)
	} else {
		data = strings.ReplaceAll(data, "\r\n", "\n")
		data = strings.ReplaceAll(data, "\r", "\n")
		parts = strings.Split(data, "\n")
	}
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 0 {
		parts[0] = strings.TrimPrefix(parts[0], "\uFEFF")
	}
	return parts
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 3*readBufSize+17)
	tests := []struct {
		name string
		in   string
		sep  string
		want []string
	}{
		{"lf", "a\nb\n", "", []string{"a", "b"}},
		{"crlf", "a\r\nb\r\n", "", []string{"a", "b"}},
		{"lone cr ends a line", "a\rb\rc", "", []string{"a", "b", "c"}},
		{"cr cr lf", "a\r\r\nb", "", []string{"a", "", "b"}},
		{"no final end", "a\nb", "", []string{"a", "b"}},
		{"empty lines kept", "\n\na\n", "", []string{"", "", "a"}},
		{"bom dropped on line 1 only", "\uFEFFa\n\uFEFFb\n", "", []string{"a", "\uFEFFb"}},
		{"long line", "a\n" + long + "\nb", "", []string{"a", long, "b"}},
		{"custom one byte", "a|b|c", "|", []string{"a", "b", "c"}},
		{"custom keeps newlines", "{\"a\":\n1}|{\"b\":2}\n|", "|", []string{"{\"a\":\n1}", "{\"b\":2}\n"}},
		{"custom several bytes", "a<EOR>b<EOR>", "<EOR>", []string{"a", "b"}},
		{"custom overlapping", "aXXXb", "XX", []string{"a", "Xb"}},
		{"custom multibyte character", "aéb", "é", []string{"a", "b"}},
		{"custom long line", long + "||" + long, "||", []string{long, long}},
	}
	for _, tc := range tests {
		for _, oneByte := range []bool{false, true} {
			got := readLines(t, []byte(tc.in), fileformat.TextOptions{LineSep: tc.sep}, oneByte)
			if strings.Join(got, "\x00") != strings.Join(tc.want, "\x00") || len(got) != len(tc.want) {
				t.Errorf("%s (one byte reads %v): %d lines %.60q, want %d %.60q", tc.name, oneByte, len(got), got, len(tc.want), tc.want)
			}
		}
	}
}

// TestLineReaderLoneCRFarAhead: the reader looks for "\r" once per read
// buffer, not once per line; a lone "\r" after thousands of "\n" lines, at
// a buffer boundary or in the last line still ends its line, as the
// reference split says.
func TestLineReaderLoneCRFarAhead(t *testing.T) {
	lf := strings.Repeat("{\"a\":1}\n", 20000)
	for name, in := range map[string]string{
		"cr after many lf":      lf + "b\rc\r\nd\n" + lf + "e\rf",
		"cr at buffer boundary": strings.Repeat("x", readBufSize-1) + "\ry\n" + lf,
		"cr before lf":          strings.Repeat("x", readBufSize) + "\r\n\r" + lf,
		"only cr":               strings.Repeat("ab\r", 50000),
		"cr in last line":       lf + "last\r",
	} {
		want := splitLines(in, "")
		for _, oneByte := range []bool{false, true} {
			got := readLines(t, []byte(in), fileformat.TextOptions{}, oneByte)
			if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) {
				t.Errorf("%s (one byte reads %v): %d lines, want %d", name, oneByte, len(got), len(want))
			}
		}
	}
}

// TestLineReaderEncodings: the input is decoded before it is split, and
// the separator is a string, not bytes.
func TestLineReaderEncodings(t *testing.T) {
	text := "{\"s\":\"é€😀\"}\n{\"s\":\"b\"}\n"
	for _, name := range []string{"UTF-8", "utf8", "UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE", "UnicodeLittleUnmarked", "x-UTF-32BE"} {
		cs, err := charset.Lookup(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, err := cs.Encode(text)
		if err != nil {
			t.Fatal(err)
		}
		for _, sep := range []string{"", "\n"} {
			got := readLines(t, data, fileformat.TextOptions{Encoding: name, LineSep: sep}, true)
			if want := splitLines(text, sep); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%s lineSep %q: lines %q, want %q", name, sep, got, want)
			}
		}
	}
	// A UTF-16LE byte order mark reads as U+FEFF, dropped on line 1.
	got := readLines(t, []byte("\xff\xfea\x00\n\x00b\x00"), fileformat.TextOptions{Encoding: "UTF-16LE", LineSep: "\n"}, false)
	if strings.Join(got, "|") != "a|b" {
		t.Errorf("UTF-16LE with a byte order mark: %q", got)
	}
	// Latin-1 and windows-1252 bytes are characters, not U+FFFD.
	for _, tc := range []struct{ enc, in, want string }{
		{"ISO-8859-1", "caf\xe9", "café"},
		{"latin1", "\xff", "ÿ"},
		{"windows-1252", "\x80 \x93q\x94", "€ “q”"},
		{"Cp1252", "\x80", "€"},
		{"ISO8859_15", "\xa4", "€"},
		{"US-ASCII", "a\xe9", "a\uFFFD"},
	} {
		got := readLines(t, []byte(tc.in), fileformat.TextOptions{Encoding: tc.enc, LineSep: "\n"}, false)
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.enc, tc.in, got, tc.want)
		}
	}
	if _, err := New(strings.NewReader(""), fileformat.TextOptions{Encoding: "no-such-charset"}); !errors.Is(err, fileformat.ErrBadOption) || !strings.Contains(err.Error(), "no-such-charset") {
		t.Errorf("unknown encoding: error %v, want ErrBadOption naming it", err)
	}
}

// FuzzLineReader splits arbitrary input, read whole or a byte at a time,
// with or without lineSep, and compares with the reference split; encoded
// as UTF-16LE and UTF-32BE, valid text splits the same way.
func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"a\nb\r\nc\rd", "x|y||z|", "\uFEFF{}\n", "a\r", "\r\n\r\n", "ab<>cd<><>"} {
		f.Add(s, "")
		f.Add(s, "|")
		f.Add(s, "<>")
	}
	f.Fuzz(func(t *testing.T, data, sep string) {
		want := splitLines(data, sep)
		for _, oneByte := range []bool{false, true} {
			got := readLines(t, []byte(data), fileformat.TextOptions{LineSep: sep}, oneByte)
			if len(got) != len(want) || strings.Join(got, "\x00") != strings.Join(want, "\x00") {
				t.Fatalf("lineSep %q, one byte %v: %q, want %q", sep, oneByte, got, want)
			}
		}
		if !utf8Valid(data) || !utf8Valid(sep) || strings.ContainsRune(data, '\uFFFD') {
			return
		}
		for _, enc := range []string{"UTF-16LE", "UTF-32BE"} {
			cs, err := charset.Lookup(enc)
			if err != nil {
				t.Fatal(err)
			}
			encoded, err := cs.Encode(data)
			if err != nil {
				return // not encodable (e.g. surrogates)
			}
			got := readLines(t, encoded, fileformat.TextOptions{Encoding: enc, LineSep: sep}, true)
			if len(got) != len(want) || strings.Join(got, "\x00") != strings.Join(want, "\x00") {
				t.Fatalf("%s lineSep %q: %q, want %q", enc, sep, got, want)
			}
		}
	})
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "") == s }
