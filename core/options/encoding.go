package options

import (
	"fmt"

	"github.com/tributary-io/tributary/core/formats/charset"
)

// checkText applies Spark's rules for reading JSON line by line (multiLine
// false): a charset that takes its byte order from a byte order mark
// (UTF-16, UTF-32) is refused, as only the first line has the mark, and a
// charset other than UTF-8 needs an explicit lineSep. The CSV, XML and
// text readers, and multiLine JSON, decode the whole file before splitting
// it, so they have no such rule (XML has no lineSep option at all).
func (p *parser) checkText() {
	r := &p.s.Reader
	if r.Encoding == "" || !p.explicit["encoding"] || p.s.CloudFiles.Format != FormatJSON || r.MultiLine {
		return
	}
	c, err := charset.Lookup(r.Encoding)
	if err == nil && c.ByteOrderMark() {
		p.c.add("encoding", p.given["encoding"], fmt.Sprintf("%s takes its byte order from a byte order mark, which only the first line of a file has: Spark refuses it unless multiLine is true; name the byte order (%sLE or %sBE)", c.Name(), c.Name(), c.Name()))
		return
	}
	if r.LineSep != "" {
		return
	}
	if err == nil && !c.IsUTF8() {
		p.c.add("encoding", p.given["encoding"], fmt.Sprintf("the lineSep option must be specified for the %s encoding (Spark reads only UTF-8 line by line without it)", r.Encoding))
	}
}
