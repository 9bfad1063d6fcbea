package options

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tributary-io/tributary/core/formats/charset"
	"github.com/tributary-io/tributary/core/formats/datetimefmt"
	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// encodingOpt is encoding (alias charset): a Java charset name, resolved
// at load time so that an unknown one fails there, naming the option.
func encodingOpt(formats []FileFormat) optSpec {
	return optSpec{
		name: "encoding", scope: scopeReader, formats: formats,
		set: func(s *Stream, v string) error {
			c, err := charset.Lookup(v)
			if err != nil {
				return err
			}
			s.Reader.Encoding = c.Name()
			s.Reader.Options["encoding"] = c.Name()
			return nil
		},
		get: func(s *Stream) (string, bool) { return s.Reader.Encoding, s.Reader.Encoding != "" },
	}
}

// lineSepOpt is lineSep: any non-empty string, taken as is.
func lineSepOpt(formats []FileFormat) optSpec {
	return optSpec{
		name: "lineSep", scope: scopeReader, formats: formats,
		set: func(s *Stream, v string) error {
			if v == "" {
				return fmt.Errorf("'lineSep' cannot be an empty string")
			}
			if s.CloudFiles.Format == FormatCSV && utf8.RuneCountInString(v) != 1 {
				return fmt.Errorf("'lineSep' can contain only 1 character (csv)")
			}
			s.Reader.LineSep = v
			s.Reader.Options["lineSep"] = v
			return nil
		},
		get: func(s *Stream) (string, bool) { return fmt.Sprintf("%q", s.Reader.LineSep), s.Reader.LineSep != "" },
	}
}

// checkText applies Spark's rules for reading JSON line by line (multiLine
// false): a charset that takes its byte order from a byte order mark
// (UTF-16, UTF-32) is refused, as only the first line has the mark, and a
// charset other than UTF-8 needs an explicit lineSep. The CSV and text
// readers, and multiLine JSON, decode the whole file before splitting it,
// so they have no such rule.
func (p *parser) checkText() {
	r := &p.s.Reader
	if f := p.s.CloudFiles.Format; r.Encoding == "" || !p.explicit["encoding"] || f == FormatCSV || f == FormatText || r.MultiLine {
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

// datetimeOpt is a datetime reader option (dateFormat, timestampFormat,
// timestampNTZFormat, locale, timeZone): its value is checked at load time
// by package datetimefmt (a pattern letter Spark does not parse with, an
// unknown zone or a locale without names fails, naming the option) and
// handed to the JSON and CSV readers in Reader.Options.
func datetimeOpt(name string, formats []FileFormat) optSpec {
	return optSpec{
		name: name, scope: scopeReader, formats: formats,
		set: func(s *Stream, v string) error {
			var err error
			switch name {
			case datetimefmt.OptLocale:
				err = datetimefmt.CheckLocale(v)
			case datetimefmt.OptTimeZone:
				_, err = datetimefmt.LoadZone(v)
			default:
				_, err = datetimefmt.Compile(v, "")
			}
			if err != nil {
				return err
			}
			s.Reader.Options[name] = v
			return nil
		},
		get: func(s *Stream) (string, bool) {
			v, ok := s.Reader.Options[name]
			return v, ok
		},
	}
}

// samplingRatioOpt is samplingRatio: checked at load time by
// fileformat.NewSampler, which the JSON and CSV inferrers use.
func samplingRatioOpt(formats []FileFormat) optSpec {
	return optSpec{
		name: "samplingRatio", scope: scopeReader, formats: formats,
		set: func(s *Stream, v string) error {
			if _, err := fileformat.NewSampler(map[string]string{"samplingRatio": v}); err != nil {
				return err
			}
			s.Reader.Options["samplingRatio"] = strings.TrimSpace(v)
			return nil
		},
		get: func(s *Stream) (string, bool) {
			v, ok := s.Reader.Options["samplingRatio"]
			return v, ok
		},
	}
}
