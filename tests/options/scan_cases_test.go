package options_test

import (
	"slices"
	"strings"
	"testing"
)

// scanCases are the behavioural cases of the scan area (owner: helper
// large): how a file's bytes become records.
func scanCases() []optionCase {
	return []optionCase{
		{name: "encoding decodes the files' charset", options: []string{"encoding"}, run: func(t *testing.T) {
			// "café" and "€" in ISO-8859-1, windows-1252 and UTF-16LE.
			for _, tc := range []struct {
				opts map[string]string
				data []byte
				want []string
			}{
				{map[string]string{"encoding": "ISO-8859-1", "lineSep": "\n"}, []byte("{\"s\":\"caf\xe9\"}\n{\"s\":\"\xe0 bient\xf4t\"}\n"), []string{"café", "à bientôt"}},
				{map[string]string{"charset": "latin1", "lineSep": "\n"}, []byte("{\"s\":\"caf\xe9\"}\n"), []string{"café"}},
				{map[string]string{"encoding": "windows-1252", "lineSep": "\n"}, []byte("{\"s\":\"5 \x80\"}\n"), []string{"5 €"}},
				{map[string]string{"encoding": "UTF-16LE", "lineSep": "\n"}, utf16le("\uFEFF{\"s\":\"café\"}\n{\"s\":\"€\"}\n"), []string{"café", "€"}},
			} {
				p := newPipe(t)
				p.writeBytes("a.json", tc.data)
				p.mustRun(tc.opts)
				if got := p.column("s"); !slices.Equal(got, tc.want) {
					t.Errorf("%v: s = %q, want %q", tc.opts, got, tc.want)
				}
			}
			// Without the option the same Latin-1 bytes are not "é".
			p := newPipe(t)
			p.writeBytes("a.json", []byte("{\"s\":\"caf\xe9\"}\n"))
			p.mustRun(nil)
			if got := p.column("s"); slices.Equal(got, []string{"café"}) {
				t.Errorf("UTF-8 (default) read Latin-1 bytes as %q: the case cannot tell the option works", got)
			}
		}},
		{name: "encoding is checked at load time as Spark checks it", options: []string{"encoding"}, run: func(t *testing.T) {
			for _, tc := range []struct {
				opts map[string]string
				want string // in the load error; "" means it loads
			}{
				{map[string]string{"encoding": "x-no-such-charset", "lineSep": "\n"}, `option encoding="x-no-such-charset"`},
				{map[string]string{"encoding": "ISO-8859-1"}, "lineSep option must be specified for the ISO-8859-1 encoding"},
				{map[string]string{"encoding": "UTF-16", "lineSep": "\n"}, "name the byte order (UTF-16LE or UTF-16BE)"},
				{map[string]string{"encoding": "UTF-32", "lineSep": "\n"}, "UTF-32LE or UTF-32BE"},
				{map[string]string{"encoding": "utf8"}, ""},
				{map[string]string{"encoding": "Cp1252", "lineSep": "\r\n"}, ""},
			} {
				p := newPipe(t)
				_, err := p.load(tc.opts)
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("%v: %v, want it to load", tc.opts, err)
				case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
					t.Errorf("%v: error %v, want one containing %q", tc.opts, err, tc.want)
				}
			}
		}},
		{name: "lineSep ends records at its string", options: []string{"lineSep"}, run: func(t *testing.T) {
			data := "{\"a\":\"1\"}|{\"a\":\n\"2\"}|{\"a\":\"3\"}"
			p := newPipe(t)
			p.write("a.json", data)
			p.mustRun(map[string]string{"lineSep": "|"})
			if got := p.column("a"); !slices.Equal(got, []string{"1", "2", "3"}) {
				t.Errorf("lineSep=|: a = %q, want [1 2 3]", got)
			}
			// Without it the file's lines are "{...}|{\"a\":" and "\"2\"}|{...}":
			// no record reads.
			p = newPipe(t)
			p.write("a.json", data)
			p.mustRun(nil)
			if got := p.column("a"); slices.Contains(got, "1") {
				t.Errorf("default lineSep read a = %q from %q", got, data)
			}
			// A separator of several characters; the default ends lines at a
			// lone \r too, as Hadoop's LineReader does.
			p = newPipe(t)
			p.write("a.json", "{\"a\":\"x\"}<EOR>{\"a\":\"y\"}<EOR>")
			p.mustRun(map[string]string{"lineSep": "<EOR>"})
			if got := p.column("a"); !slices.Equal(got, []string{"x", "y"}) {
				t.Errorf("lineSep=<EOR>: a = %q, want [x y]", got)
			}
			p = newPipe(t)
			p.write("a.json", "{\"a\":\"x\"}\r{\"a\":\"y\"}\r\n{\"a\":\"z\"}")
			p.mustRun(nil)
			if got := p.column("a"); !slices.Equal(got, []string{"x", "y", "z"}) {
				t.Errorf("default line ends: a = %q, want [x y z]", got)
			}
			if _, err := p.load(map[string]string{"lineSep": ""}); err == nil || !strings.Contains(err.Error(), "cannot be an empty string") {
				t.Errorf("lineSep=\"\": %v, want an error", err)
			}
		}},
		{name: "lineSep ends CSV and text records at its string", options: []string{"lineSep"}, run: func(t *testing.T) {
			// CSV: one character (Spark refuses more); a \n is then a
			// character of a value, as a quoted one shows.
			const data = "a,b|1,\"x\ny\"|3,4\n5|"
			p := csvPipe(t, data, map[string]string{"header": "true", "lineSep": "|"})
			if got := p.column("b"); !slices.Equal(got, []string{"4\n5", "x\ny"}) {
				t.Errorf("csv lineSep=|: b %q", got)
			}
			p = csvPipe(t, data, map[string]string{"header": "true"})
			if slices.Contains(p.schema(), "b STRING") {
				t.Errorf("csv default lineSep: schema %v, want the first line's names", p.schema())
			}
			q := newPipe(t)
			if _, err := q.load(map[string]string{"cloudFiles.format": "csv", "lineSep": "||"}); err == nil || !strings.Contains(err.Error(), "lineSep") {
				t.Errorf("csv lineSep=||: %v, want a load error", err)
			}
			txt := rowfmtPipe(t, "text", map[string]string{"a.txt": "x<EOR>y\nz<EOR>"}, map[string]string{"lineSep": "<EOR>"})
			if got := txt.column("value"); !slices.Equal(got, []string{"x", "y\nz"}) {
				t.Errorf("text lineSep=<EOR>: value %q", got)
			}
			txt = rowfmtPipe(t, "text", map[string]string{"a.txt": "x<EOR>y\nz<EOR>"}, nil)
			if got := txt.column("value"); !slices.Equal(got, []string{"x<EOR>y", "z<EOR>"}) {
				t.Errorf("text default lineSep: value %q", got)
			}
		}},
		{name: "encoding decodes text files", options: []string{"encoding"}, run: func(t *testing.T) {
			p := newPipe(t)
			p.writeBytes("a.txt", []byte("caf\xe9\n\x80\n"))
			p.mustRun(map[string]string{"cloudFiles.format": "text", "encoding": "windows-1252", "lineSep": "\n"})
			if got := p.column("value"); !slices.Equal(got, []string{"café", "€"}) {
				t.Errorf("text encoding=windows-1252: value %q, want café and €", got)
			}
			p = newPipe(t)
			p.writeBytes("a.txt", []byte("caf\xe9\n\x80\n"))
			p.mustRun(map[string]string{"cloudFiles.format": "text"})
			if got := p.column("value"); slices.Contains(got, "café") {
				t.Errorf("text UTF-8 (default) read windows-1252 bytes as %q", got)
			}
		}},
		{name: "encoding decodes XML files (no lineSep: XML has none)", options: []string{"encoding"}, run: func(t *testing.T) {
			for _, tc := range []struct {
				enc  string
				data []byte
			}{
				{"ISO-8859-1", []byte("<rows><r><s>caf\xe9</s></r></rows>")},
				{"UTF-16", utf16le("\uFEFF<rows><r><s>café</s></r></rows>")},
			} {
				p := newPipe(t)
				p.writeBytes("a.xml", tc.data)
				if _, err := p.run(map[string]string{"cloudFiles.format": "xml", "rowTag": "r", "encoding": tc.enc}); err != nil {
					t.Errorf("xml encoding=%s: %v", tc.enc, err)
					continue
				}
				if got := p.column("s"); !slices.Equal(got, []string{"café"}) {
					t.Errorf("xml encoding=%s: s %q, want café", tc.enc, got)
				}
			}
			p := newPipe(t)
			p.writeBytes("a.xml", []byte("<rows><r><s>caf\xe9</s></r></rows>"))
			p.mustRun(map[string]string{"cloudFiles.format": "xml", "rowTag": "r"})
			if got := p.column("s"); slices.Equal(got, []string{"café"}) {
				t.Errorf("xml UTF-8 (default) read Latin-1 bytes as %q", got)
			}
		}},
	}
}

// utf16le encodes s as UTF-16LE.
func utf16le(s string) []byte {
	var out []byte
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			hi, lo := 0xD800+(r>>10), 0xDC00+(r&0x3FF)
			out = append(out, byte(hi), byte(hi>>8), byte(lo), byte(lo>>8))
			continue
		}
		out = append(out, byte(r), byte(r>>8))
	}
	return out
}
