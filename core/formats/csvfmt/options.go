package csvfmt

import (
	"io"

	"github.com/tributary-io/tributary/core/formats/csvfmt/csvopt"
	"github.com/tributary-io/tributary/core/formats/csvfmt/csvtok"
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
	return csvtok.New(r, o.TokConfig(lineSep))
}

// UnescapedQuoteHandlings lists the unescapedQuoteHandling values.
func UnescapedQuoteHandlings() []string { return csvopt.UnescapedQuoteHandlings() }

// Options are Spark's CSV reader options, resolved (csvopt.Options), with
// the reader's methods. The zero value is not ready: use ParseOptions
// (nil map = Spark's defaults).
type Options struct{ csvopt.Options }

// Defaults are Spark's CSV read defaults.
func Defaults() Options { return Options{csvopt.Defaults()} }

// Option value parsers (package csvopt's).
var (
	// Delimiter resolves the sep (delimiter) option (csvopt.Delimiter).
	Delimiter = csvopt.Delimiter
	// Char resolves a one-character option (csvopt.Char).
	Char = csvopt.Char
)

// ParseOptions resolves the CSV options in m (csvopt.Parse).
func ParseOptions(m map[string]string) (Options, error) {
	o, err := csvopt.Parse(m)
	return Options{o}, err
}
