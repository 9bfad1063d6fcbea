// Package opterr provides the contract errors of Tributary's options: the
// sentinels every option error wraps and OptionError, which names the
// stream, the option and the offending value. Package options re-exports
// them; its subpackages use them directly.
package opterr

import (
	"errors"
	"fmt"
	"strings"
)

// Contract errors. Every error returned by options.Parse,
// options.LoadConfig and (*options.Config).Validate wraps ErrInvalidOption; errors.Is also matches the more
// precise sentinel below when it applies.
var (
	// ErrInvalidOption: an option is missing, malformed, out of range or in
	// conflict with another option or stream.
	ErrInvalidOption = errors.New("invalid option")
	// ErrUnknownOption: an option name is not known for this stream while
	// cloudFiles.validateOptions is true.
	ErrUnknownOption = errors.New("unknown option")
	// ErrUnsupportedOption: a Databricks option or value that Tributary
	// recognises but does not implement.
	ErrUnsupportedOption = errors.New("not supported yet")
	// ErrSharedLocation: two streams share (or nest) a checkpoint or schema
	// location, share a stream id, or share a txnAppId on one table.
	ErrSharedLocation = errors.New("location shared between streams")
)

// OptionError describes one configuration error. Its message names the
// stream, the option and the value.
type OptionError struct {
	// Stream is the stream id, when known.
	Stream string
	// Option is the option name in its documented spelling (or the config
	// field, such as "id" or "checkpointLocation").
	Option string
	// Value is the offending value as given ("" when missing).
	Value string
	// Reason says what is wrong.
	Reason string
	// Suggestion is the option name the user probably meant, if any.
	Suggestion string
	// Kind is the sentinel this error wraps besides ErrInvalidOption
	// (ErrUnknownOption, ErrUnsupportedOption, ErrSharedLocation) or
	// ErrInvalidOption itself.
	Kind error
}

// Error implements error.
func (e *OptionError) Error() string {
	var b strings.Builder
	if e.Stream != "" {
		fmt.Fprintf(&b, "stream %q: ", e.Stream)
	}
	kind := e.Kind
	if kind == nil {
		kind = ErrInvalidOption
	}
	if kind == ErrUnsupportedOption {
		// The wording users grep for: "option X: not supported yet (why)".
		fmt.Fprintf(&b, "option %s: %s (%s; given %q)", e.Option, kind.Error(), e.Reason, e.Value)
	} else {
		fmt.Fprintf(&b, "%s %s=%q: %s", kind.Error(), e.Option, e.Value, e.Reason)
	}
	if e.Suggestion != "" {
		fmt.Fprintf(&b, " (did you mean %s?)", e.Suggestion)
	}
	return b.String()
}

// Unwrap returns the sentinels the error wraps.
func (e *OptionError) Unwrap() []error {
	if e.Kind == nil || e.Kind == ErrInvalidOption {
		return []error{ErrInvalidOption}
	}
	return []error{e.Kind, ErrInvalidOption}
}
