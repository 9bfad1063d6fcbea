// Package optspec provides the generic option spec: one named option whose
// value is parsed into a field of a T (a stream, or one family of its
// options), with its documentation, and the builders of boolean, positive
// integer, byte size and string options.
package optspec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tributary-io/tributary/core/options/sparkvalue"
)

// Spec is one option parsed into a T.
type Spec[T any] struct {
	// Name is the documented spelling.
	Name string
	// Default is the default as users read it ("" when it has none).
	Default string
	// Doc is one line of meaning; for a refused option, why.
	Doc string
	// Refused is true for an option Tributary recognises but does not
	// implement yet (Set and Get are nil).
	Refused bool
	// Set parses v into t. Its error message is the reason shown to the
	// user.
	Set func(t T, v string) error
	// Get returns the effective value for Describe (false: not shown).
	Get func(t T) (string, bool)
}

// Documented returns o with its default as users read it ("" when it has
// none) and one line of meaning.
func (o Spec[T]) Documented(def, meaning string) Spec[T] {
	o.Default, o.Doc = def, meaning
	return o
}

// Refused is an option Tributary recognises and refuses at load time with
// "not supported yet" and why.
func Refused[T any](name, why string) Spec[T] {
	return Spec[T]{Name: name, Refused: true, Doc: why}
}

// Bool is an option parsed into a bool field: true or false in any case.
func Bool[T any](name string, field func(t T) *bool) Spec[T] {
	return Spec[T]{
		Name: name,
		Set: func(t T, v string) error {
			b, err := sparkvalue.ParseBool(v)
			if err != nil {
				return err
			}
			*field(t) = b
			return nil
		},
		Get: func(t T) (string, bool) { return strconv.FormatBool(*field(t)), true },
	}
}

// PosInt is an option parsed into an int field: a positive integer.
func PosInt[T any](name string, field func(t T) *int) Spec[T] {
	return Spec[T]{
		Name: name,
		Set: func(t T, v string) error {
			n, err := sparkvalue.ParsePositiveInt(v)
			if err != nil {
				return err
			}
			*field(t) = n
			return nil
		},
		Get: func(t T) (string, bool) { return strconv.Itoa(*field(t)), true },
	}
}

// Bytes is an option parsed into an int64 field: a Spark byte string
// (sparkvalue.ParseBytes) greater than 0; optional hides 0 from Get.
func Bytes[T any](name string, field func(t T) *int64, optional bool) Spec[T] {
	return Spec[T]{
		Name: name,
		Set: func(t T, v string) error {
			n, err := sparkvalue.ParseBytes(v)
			if err != nil {
				return err
			}
			if n <= 0 {
				return fmt.Errorf("must be greater than 0")
			}
			*field(t) = n
			return nil
		},
		Get: func(t T) (string, bool) {
			n := *field(t)
			return sparkvalue.FormatBytes(n), !optional || n > 0
		},
	}
}

// String is an option parsed into a string field: any non-empty value,
// trimmed.
func String[T any](name string, field func(t T) *string) Spec[T] {
	return Spec[T]{
		Name: name,
		Set: func(t T, v string) error {
			if strings.TrimSpace(v) == "" {
				return fmt.Errorf("must not be empty")
			}
			*field(t) = strings.TrimSpace(v)
			return nil
		},
		Get: func(t T) (string, bool) { return *field(t), *field(t) != "" },
	}
}
