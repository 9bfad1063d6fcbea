package csvfmt

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tributary-io/tributary/core/formats/csvfmt/csvopt"
	"github.com/tributary-io/tributary/core/formats/csvfmt/csvtok"
	"github.com/tributary-io/tributary/core/formats/datetimefmt"
	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// UnescapedQuoteHandling values (Spark's unescapedQuoteHandling).
const (
	StopAtDelimiter    = csvtok.StopAtDelimiter
	BackToDelimiter    = csvtok.BackToDelimiter
	StopAtClosingQuote = csvtok.StopAtClosingQuote
	SkipValue          = csvtok.SkipValue
	RaiseError         = csvtok.RaiseError
)

// ErrLimit is wrapped when a record exceeds maxColumns or a value
// exceeds maxCharsPerColumn: Spark's parser fails the file then (whatever
// the mode), and so does Tributary, naming the file, the line and the
// option.
var ErrLimit = csvtok.ErrLimit

// newTokenizer returns a tokenizer of o's syntax reading r (lineSep: the
// lineSep option, "" for any line end).
func newTokenizer(r io.Reader, o *Options, lineSep string) *csvtok.Tokenizer {
	return csvtok.New(r, o.tokConfig(lineSep))
}

// tokConfig is the tokenizer's part of o.
func (o *Options) tokConfig(lineSep string) *csvtok.Config {
	return &csvtok.Config{
		Sep: o.Sep, LineSep: lineSep, Quote: o.Quote, Escape: o.Escape,
		CharToEscapeQuoteEscape: o.CharToEscapeQuoteEscape, Comment: o.Comment,
		MultiLine: o.MultiLine, IgnoreLeadingWhiteSpace: o.IgnoreLeadingWhiteSpace,
		IgnoreTrailingWhiteSpace: o.IgnoreTrailingWhiteSpace, UnescapedQuoteHandling: o.UnescapedQuoteHandling,
		MaxColumns: o.MaxColumns, MaxCharsPerColumn: o.MaxCharsPerColumn, SkipRows: o.SkipRows,
	}
}

// UnescapedQuoteHandlings lists the unescapedQuoteHandling values.
func UnescapedQuoteHandlings() []string {
	return []string{StopAtDelimiter, BackToDelimiter, StopAtClosingQuote, SkipValue, RaiseError}
}

// Options are Spark's CSV reader options, resolved. The zero value is not
// ready: use ParseOptions (nil map = Spark's defaults).
type Options struct {
	Header                   bool
	Sep                      string // the delimiter, one or more characters
	Quote                    rune   // 0: quoting off
	Escape                   rune   // 0: no escape
	CharToEscapeQuoteEscape  rune   // 0: none
	Comment                  rune   // 0: no comment lines
	NullValue                string
	EmptyValue               string
	NaNValue                 string
	PositiveInf              string
	NegativeInf              string
	MultiLine                bool
	IgnoreLeadingWhiteSpace  bool
	IgnoreTrailingWhiteSpace bool
	EnforceSchema            bool
	UnescapedQuoteHandling   string
	MaxColumns               int
	MaxCharsPerColumn        int // -1: unlimited
	PreferDate               bool
	SkipRows                 int
	// Datetime parses DATE and TIMESTAMP values (dateFormat,
	// timestampFormat, timestampNTZFormat, timeZone, locale); nil is
	// Spark's default parsing.
	Datetime *datetimefmt.Parser
}

// Defaults are Spark's CSV read defaults.
func Defaults() Options {
	return Options{
		Sep: ",", Quote: '"', Escape: '\\', CharToEscapeQuoteEscape: '\\',
		NaNValue: "NaN", PositiveInf: "Inf", NegativeInf: "-Inf",
		EnforceSchema: true, UnescapedQuoteHandling: StopAtDelimiter,
		MaxColumns: 20480, MaxCharsPerColumn: -1, PreferDate: true,
	}
}

// Option value parsers (package csvopt's).
var (
	// Delimiter resolves the sep (delimiter) option (csvopt.Delimiter).
	Delimiter = csvopt.Delimiter
	// Char resolves a one-character option (csvopt.Char).
	Char = csvopt.Char
)

// ParseOptions resolves the CSV options in m (documented names, matched
// case-insensitively; other keys are ignored). An invalid value wraps
// fileformat.ErrBadOption and names the option.
func ParseOptions(m map[string]string) (Options, error) {
	o := Defaults()
	get := func(name string) (string, bool) {
		for k, v := range m {
			if strings.EqualFold(k, name) {
				return v, true
			}
		}
		return "", false
	}
	bad := func(name, v string, err error) error {
		return fmt.Errorf("%w: %s=%q: %v", fileformat.ErrBadOption, name, v, err)
	}
	for _, b := range []struct {
		name string
		p    *bool
	}{
		{"header", &o.Header}, {"multiLine", &o.MultiLine}, {"ignoreLeadingWhiteSpace", &o.IgnoreLeadingWhiteSpace},
		{"ignoreTrailingWhiteSpace", &o.IgnoreTrailingWhiteSpace}, {"enforceSchema", &o.EnforceSchema}, {"preferDate", &o.PreferDate},
	} {
		if v, ok := get(b.name); ok {
			x := strings.ToLower(strings.TrimSpace(v))
			if x != "true" && x != "false" {
				return o, bad(b.name, v, fmt.Errorf("want true or false"))
			}
			*b.p = x == "true"
		}
	}
	if v, ok := get("sep"); ok {
		d, err := Delimiter(v)
		if err != nil {
			return o, bad("sep", v, err)
		}
		o.Sep = d
	}
	for _, c := range []struct {
		name string
		p    *rune
	}{{"quote", &o.Quote}, {"escape", &o.Escape}, {"comment", &o.Comment}} {
		if v, ok := get(c.name); ok {
			r, err := Char(c.name, v)
			if err != nil {
				return o, bad(c.name, v, err)
			}
			*c.p = r
		}
	}
	// charToEscapeQuoteEscaping defaults to the escape character when it
	// differs from the quote, else to none (Spark).
	o.CharToEscapeQuoteEscape = o.Escape
	if o.Escape == o.Quote {
		o.CharToEscapeQuoteEscape = 0
	}
	if v, ok := get("charToEscapeQuoteEscaping"); ok {
		r, err := Char("charToEscapeQuoteEscaping", v)
		if err != nil {
			return o, bad("charToEscapeQuoteEscaping", v, err)
		}
		o.CharToEscapeQuoteEscape = r
	}
	for _, s := range []struct {
		name string
		p    *string
	}{{"nullValue", &o.NullValue}, {"emptyValue", &o.EmptyValue}, {"nanValue", &o.NaNValue}, {"positiveInf", &o.PositiveInf}, {"negativeInf", &o.NegativeInf}} {
		if v, ok := get(s.name); ok {
			*s.p = v
		}
	}
	if v, ok := get("unescapedQuoteHandling"); ok {
		found := false
		for _, h := range UnescapedQuoteHandlings() {
			if strings.EqualFold(strings.TrimSpace(v), h) {
				o.UnescapedQuoteHandling, found = h, true
			}
		}
		if !found {
			return o, bad("unescapedQuoteHandling", v, fmt.Errorf("want one of %s", strings.Join(UnescapedQuoteHandlings(), ", ")))
		}
	}
	if v, ok := get("maxColumns"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n <= 0 {
			return o, bad("maxColumns", v, fmt.Errorf("want a positive integer"))
		}
		o.MaxColumns = n
	}
	if v, ok := get("skipRows"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return o, bad("skipRows", v, fmt.Errorf("want a non-negative integer"))
		}
		o.SkipRows = n
	}
	if v, ok := get("maxCharsPerColumn"); ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n == 0 || n < -1 {
			return o, bad("maxCharsPerColumn", v, fmt.Errorf("want a positive integer, or -1 for no limit"))
		}
		o.MaxCharsPerColumn = n
	}
	dt, err := datetimefmt.FromOptions(m)
	if err != nil {
		return o, err
	}
	o.Datetime = dt
	if o.Sep != "" && o.Quote != 0 && strings.ContainsRune(o.Sep, o.Quote) {
		return o, bad("quote", string(o.Quote), fmt.Errorf("the quote character is part of the delimiter %q", o.Sep))
	}
	return o, nil
}
