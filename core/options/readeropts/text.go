package readeropts

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
func encodingOpt(formats []FileFormat) Spec {
	return Spec{
		Name: "encoding", Formats: formats,
		Set: func(r *Reader, f FileFormat, v string) error {
			c, err := charset.Lookup(v)
			if err != nil {
				return err
			}
			r.Encoding = c.Name()
			r.Options["encoding"] = c.Name()
			return nil
		},
		Get: func(r *Reader) (string, bool) { return r.Encoding, r.Encoding != "" },
	}
}

// lineSepOpt is lineSep: any non-empty string, taken as is.
func lineSepOpt(formats []FileFormat) Spec {
	return Spec{
		Name: "lineSep", Formats: formats,
		Set: func(r *Reader, f FileFormat, v string) error {
			if v == "" {
				return fmt.Errorf("'lineSep' cannot be an empty string")
			}
			if f == FormatCSV && utf8.RuneCountInString(v) != 1 {
				return fmt.Errorf("'lineSep' can contain only 1 character (csv)")
			}
			r.LineSep = v
			r.Options["lineSep"] = v
			return nil
		},
		Get: func(r *Reader) (string, bool) { return fmt.Sprintf("%q", r.LineSep), r.LineSep != "" },
	}
}

// datetimeOpt is a datetime reader option (dateFormat, timestampFormat,
// timestampNTZFormat, locale, timeZone): its value is checked at load time
// by package datetimefmt (a pattern letter Spark does not parse with, an
// unknown zone or a locale without names fails, naming the option) and
// handed to the JSON and CSV readers in Reader.Options.
func datetimeOpt(name string, formats []FileFormat) Spec {
	return Spec{
		Name: name, Formats: formats,
		Set: func(r *Reader, f FileFormat, v string) error {
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
			r.Options[name] = v
			return nil
		},
		Get: func(r *Reader) (string, bool) {
			v, ok := r.Options[name]
			return v, ok
		},
	}
}

// samplingRatioOpt is samplingRatio: checked at load time by
// fileformat.NewSampler, which the JSON and CSV inferrers use.
func samplingRatioOpt(formats []FileFormat) Spec {
	return Spec{
		Name: "samplingRatio", Formats: formats,
		Set: func(r *Reader, f FileFormat, v string) error {
			if _, err := fileformat.NewSampler(map[string]string{"samplingRatio": v}); err != nil {
				return err
			}
			r.Options["samplingRatio"] = strings.TrimSpace(v)
			return nil
		},
		Get: func(r *Reader) (string, bool) {
			v, ok := r.Options["samplingRatio"]
			return v, ok
		},
	}
}
