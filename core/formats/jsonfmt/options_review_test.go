package jsonfmt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// TestReviewFastPathsUnderOptions runs the differential check (row path;
// batch path serial, parallel and without the fast decoder) on documents
// of the fast decoder's types mixed with lenient-syntax records, under
// the reading options the fuzz targets leave at their defaults: lineSep
// (records holding "\n" and "\r" inside), encoding (UTF-16LE), every
// allow* option, dateFormat/timestampFormat/timeZone.
func TestReviewFastPathsUnderOptions(t *testing.T) {
	lenient := []string{
		`{'s0':'single'}`, `{a0: 1}`, `{"b0":007}`, `{"c0":NaN,"c1":-Infinity}`, "{\"s0\":\"tab\tin\"}",
		`{"s0":"\q"} // comment`, `/* c */ {"l0":1}`, `{"d0":+1.5}`, `{"l0":-0012}`,
	}
	optionSets := []struct {
		name    string
		opts    map[string]string
		lineSep string
		utf16   bool
	}{
		{name: "lineSep ;", lineSep: ";"},
		{name: "lineSep CRLF", lineSep: "\r\n"},
		{name: "lineSep multi-byte", lineSep: "¤"},
		{name: "UTF-16LE", utf16: true},
		{name: "allow all", opts: map[string]string{"allowComments": "true", "allowUnquotedFieldNames": "true", "allowNumericLeadingZeros": "true",
			"allowBackslashEscapingAnyCharacter": "true", "allowUnquotedControlChars": "true"}},
		{name: "allow none", opts: map[string]string{"allowSingleQuotes": "false", "allowNonNumericNumbers": "false"}},
		{name: "datetime", opts: map[string]string{"dateFormat": "yyyy-MM-dd", "timestampFormat": "yyyy-MM-dd HH:mm:ss", "timeZone": "America/New_York"}},
		{name: "datetime utc", opts: map[string]string{"timeZone": "UTC", "timestampNTZFormat": "yyyy-MM-dd'T'HH:mm:ss[.SSS]"}},
	}
	for i := range 60 {
		g := cleanGen{rand.New(rand.NewPCG(uint64(i), 611))}
		c := g.randomCase()
		o := optionSets[i%len(optionSets)]
		var recs []string
		for range 1 + g.r.IntN(25) {
			if g.r.IntN(5) == 0 {
				recs = append(recs, lenient[g.r.IntN(len(lenient))])
				continue
			}
			r := g.object(c.s)
			if o.lineSep != "" && o.lineSep != "\r\n" && g.r.IntN(3) == 0 {
				r = strings.Replace(r, ",", ",\n\r", 1) // line breaks inside a record
			}
			recs = append(recs, r)
		}
		sep := "\n"
		if o.lineSep != "" {
			sep = o.lineSep
		}
		doc := strings.Join(recs, sep)
		if g.r.IntN(2) == 0 {
			doc += sep
		}
		c.opts.Options = o.opts
		c.opts.Text.LineSep = o.lineSep
		if o.utf16 {
			c.opts.Text.Encoding = "UTF-16LE"
			var b strings.Builder
			for _, u := range utf16.Encode([]rune(doc)) {
				b.WriteByte(byte(u))
				b.WriteByte(byte(u >> 8))
			}
			doc = b.String()
		}
		c.doc = doc
		c.opts.Mode = []fileformat.ParseMode{fileformat.Permissive, fileformat.DropMalformed, fileformat.FailFast}[i%3]
		t.Run(fmt.Sprintf("%d %s", i, o.name), func(t *testing.T) {
			checkSamePaths(t, c, 1+i%5)
		})
	}
}
