// Package jsonopt parses the JSON reader's options once for the readers of
// a batch's files: the tape syntax (allowComments and the other parser
// options), the datetime parser (dateFormat, timestampFormat, timeZone,
// ...) and multiLine, as package csvopt does for CSV.
package jsonopt

import (
	"maps"

	"github.com/tributary-io/tributary/core/formats/datetimefmt"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsontape"
)

// Parsed is what a reader makes of ReadOptions.Options and Text. It is
// only read once made, the datetime parser's compiled layouts included:
// readers on several goroutines share it.
type Parsed struct {
	m    map[string]string // a copy: the caller's map may change
	text fileformat.TextOptions
	// Syntax is the tape syntax of the options.
	Syntax jsontape.Syntax
	// Datetime parses dates and timestamps as the options say.
	Datetime *datetimefmt.Parser
	// MultiLine is the multiLine option, and MultiLineErr its error, which
	// a reader reports after an encoding's (jsonlines.New).
	MultiLine    bool
	MultiLineErr error
}

// Parse parses opts' options and text options, or returns prev when it
// was parsed from equal ones (prev nil: none): a parse takes microseconds,
// the comparison tens of nanoseconds. Options that do not parse are
// parsed again, and fail again, every time: the reader that would keep
// them fails to open.
func Parse(opts fileformat.ReadOptions, prev *Parsed) (*Parsed, error) {
	if prev != nil && prev.text == opts.Text && maps.Equal(prev.m, opts.Options) {
		return prev, nil
	}
	p := &Parsed{m: maps.Clone(opts.Options), text: opts.Text}
	var err error
	if p.Syntax, err = jsontape.ParseSyntax(opts.Options); err != nil {
		return nil, err
	}
	if p.Datetime, err = datetimefmt.FromOptions(opts.Options); err != nil {
		return nil, err
	}
	p.MultiLine, p.MultiLineErr = jsontape.MultiLine(opts.Options)
	return p, nil
}
