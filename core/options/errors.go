package options

import (
	"errors"

	"github.com/tributary-io/tributary/core/options/opterr"
)

// Contract errors (package opterr). Every error returned by Parse,
// LoadConfig and (*Config).Validate wraps ErrInvalidOption; errors.Is also
// matches the more precise sentinel below when it applies.
var (
	// ErrInvalidOption: an option is missing, malformed, out of range or in
	// conflict with another option or stream.
	ErrInvalidOption = opterr.ErrInvalidOption
	// ErrUnknownOption: an option name is not known for this stream while
	// cloudFiles.validateOptions is true.
	ErrUnknownOption = opterr.ErrUnknownOption
	// ErrUnsupportedOption: a Databricks option or value that Tributary
	// recognises but does not implement.
	ErrUnsupportedOption = opterr.ErrUnsupportedOption
	// ErrSharedLocation: two streams share (or nest) a checkpoint or schema
	// location, share a stream id, or share a txnAppId on one table.
	ErrSharedLocation = opterr.ErrSharedLocation
)

// OptionError describes one configuration error (opterr.OptionError).
type OptionError = opterr.OptionError

// errs collects option errors for one stream.
type errs struct {
	stream string
	list   []error
}

func (c *errs) add(option, value, reason string) {
	c.list = append(c.list, &OptionError{Stream: c.stream, Option: option, Value: value, Reason: reason, Kind: ErrInvalidOption})
}

func (c *errs) addErr(e *OptionError) {
	if e.Stream == "" {
		e.Stream = c.stream
	}
	c.list = append(c.list, e)
}

func (c *errs) err() error {
	return errors.Join(c.list...)
}
