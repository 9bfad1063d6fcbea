// Package csvopt resolves Spark's CSV reader options (CSVOptions): the
// option map into Options, and the values that name characters (sep,
// quote, escape, charToEscapeQuoteEscaping, comment).
package csvopt

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tributary-io/tributary/core/formats/csvfmt/csvtok"
	"github.com/tributary-io/tributary/core/formats/datetimefmt"
	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// Delimiter resolves the sep (delimiter) option as Spark's
// CSVExprUtils.toDelimiterStr does: any non-empty string; a backslash
// starts an escape (\t, \r, \b, \f, \", \', \\, \u0000 as written);
// a single backslash, or one before another character, is refused.
func Delimiter(v string) (string, error) {
	if v == "" {
		return "", fmt.Errorf("delimiter cannot be empty string")
	}
	if v == `\` {
		return "", fmt.Errorf("single backslash is prohibited: it starts an escape sequence; to get the backslash character, pass two backslashes")
	}
	var b strings.Builder
	for i := 0; i < len(v); {
		if v[i] != '\\' || i+1 == len(v) {
			r, n := utf8.DecodeRuneInString(v[i:])
			b.WriteRune(r)
			i += n
			continue
		}
		if strings.HasPrefix(v[i:], `\u0000`) {
			b.WriteByte(0)
			i += 6
			continue
		}
		switch v[i+1] {
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case '"':
			b.WriteByte('"')
		case '\'':
			b.WriteByte('\'')
		case '\\':
			b.WriteByte('\\')
		default:
			return "", fmt.Errorf("unsupported special character for delimiter: %s", v[i:i+2])
		}
		i += 2
	}
	return b.String(), nil
}

// Char resolves a one-character option (quote, escape,
// charToEscapeQuoteEscaping, comment) as Spark's getChar does: "" is the
// character \u0000, which turns the feature off (0); more than one
// character is refused.
func Char(name, v string) (rune, error) {
	if v == "" {
		return 0, nil
	}
	if utf8.RuneCountInString(v) != 1 {
		return 0, fmt.Errorf("%s cannot be more than one character", name)
	}
	r, _ := utf8.DecodeRuneInString(v)
	return r, nil
}

// UnescapedQuoteHandlings lists the unescapedQuoteHandling values.
func UnescapedQuoteHandlings() []string {
	return []string{csvtok.StopAtDelimiter, csvtok.BackToDelimiter, csvtok.StopAtClosingQuote, csvtok.SkipValue, csvtok.RaiseError}
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
		EnforceSchema: true, UnescapedQuoteHandling: csvtok.StopAtDelimiter,
		MaxColumns: 20480, MaxCharsPerColumn: -1, PreferDate: true,
	}
}

// Parse resolves the CSV options in m (documented names, matched
// case-insensitively; other keys are ignored). An invalid value wraps
// fileformat.ErrBadOption and names the option.
func Parse(m map[string]string) (Options, error) {
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

// TokConfig is the tokenizer's part of o (lineSep: the text options' line
// separator, "" for any line end).
func (o *Options) TokConfig(lineSep string) *csvtok.Config {
	return &csvtok.Config{
		Sep: o.Sep, LineSep: lineSep, Quote: o.Quote, Escape: o.Escape,
		CharToEscapeQuoteEscape: o.CharToEscapeQuoteEscape, Comment: o.Comment,
		MultiLine: o.MultiLine, IgnoreLeadingWhiteSpace: o.IgnoreLeadingWhiteSpace,
		IgnoreTrailingWhiteSpace: o.IgnoreTrailingWhiteSpace, UnescapedQuoteHandling: o.UnescapedQuoteHandling,
		MaxColumns: o.MaxColumns, MaxCharsPerColumn: o.MaxCharsPerColumn, SkipRows: o.SkipRows,
	}
}
