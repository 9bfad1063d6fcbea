// Package readeropts provides the plain reader options of the file formats
// that cloudFiles.format names (pathGlobFilter, mode, the JSON, CSV and XML
// options, encoding, the datetime patterns, ...): the formats, the Reader
// they are parsed into, and one Spec per option with its documentation.
// Package options registers them for Auto Loader streams.
package readeropts

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/options/sparkvalue"
)

// FileFormat is a value of cloudFiles.format.
type FileFormat string

// File formats accepted by cloudFiles.format (no default, no detection).
const (
	FormatAvro       FileFormat = "avro"
	FormatBinaryFile FileFormat = "binaryFile"
	FormatCSV        FileFormat = "csv"
	FormatJSON       FileFormat = "json"
	FormatORC        FileFormat = "orc"
	FormatParquet    FileFormat = "parquet"
	FormatText       FileFormat = "text"
	FormatXML        FileFormat = "xml"
)

// FileFormats lists every accepted cloudFiles.format value.
func FileFormats() []FileFormat {
	return []FileFormat{FormatAvro, FormatBinaryFile, FormatCSV, FormatJSON, FormatORC, FormatParquet, FormatText, FormatXML}
}

// HasFixedSchema reports whether the format has a fixed schema (binaryFile,
// text): no inference, no schema location, no evolution.
func (f FileFormat) HasFixedSchema() bool { return f == FormatBinaryFile || f == FormatText }

// Untyped reports whether the format carries no types (json, csv, xml): with
// cloudFiles.inferColumnTypes=false every inferred column is a string.
func (f FileFormat) Untyped() bool { return f == FormatJSON || f == FormatCSV || f == FormatXML }

// Reader are the plain (non-cloudFiles) reader options of the file format.
// The common ones are typed; Options holds every reader option that was set,
// under its documented name, with normalised values (booleans lower case,
// enums upper case), for the format readers.
type Reader struct {
	// PathGlobFilter is pathGlobFilter, a glob on file names ("*.json").
	PathGlobFilter string
	// RecursiveFileLookup is recursiveFileLookup (default false).
	RecursiveFileLookup bool
	// IgnoreCorruptFiles is ignoreCorruptFiles (default false).
	IgnoreCorruptFiles bool
	// IgnoreMissingFiles is ignoreMissingFiles (default false).
	IgnoreMissingFiles bool
	// ModifiedAfter is modifiedAfter (nil: not set).
	ModifiedAfter *time.Time
	// ModifiedBefore is modifiedBefore (nil: not set).
	ModifiedBefore *time.Time
	// MultiLine is multiLine (json, csv; default false).
	MultiLine bool
	// Mode is mode: PERMISSIVE (default), DROPMALFORMED or FAILFAST.
	Mode string
	// BadRecordsPath is badRecordsPath.
	BadRecordsPath string
	// ColumnNameOfCorruptRecord is columnNameOfCorruptRecord.
	ColumnNameOfCorruptRecord string
	// PrefersDecimal is prefersDecimal (json, csv, xml; default false, true
	// with addNewColumnsWithTypeWidening).
	PrefersDecimal bool
	// PrimitivesAsString is primitivesAsString (json; default false).
	PrimitivesAsString bool
	// DropFieldIfAllNull is dropFieldIfAllNull (json; default false).
	DropFieldIfAllNull bool
	// CaseSensitive is readerCaseSensitive (default true): with a rescued
	// data column, a field whose name differs from its column only by case
	// is rescued.
	CaseSensitive bool
	// ParserCaseSensitive is the deprecated CSV option parserCaseSensitive
	// (nil: not set); checkReader folds it into CaseSensitive.
	ParserCaseSensitive *bool
	// Encoding is encoding (alias charset): the canonical Java name of the
	// files' charset ("" means UTF-8).
	Encoding string
	// LineSep is lineSep: the string that ends a record ("" means "\n",
	// "\r\n" or "\r").
	LineSep string
	// Options are all reader options set, by documented name.
	Options map[string]string
}

// Spec is one reader option.
type Spec struct {
	// Name is the documented spelling.
	Name string
	// Formats are the cloudFiles.format values the option applies to (nil:
	// every format).
	Formats []FileFormat
	// Default is the default as users read it ("" when it has none).
	Default string
	// Doc is one line of meaning; for a refused option, why.
	Doc string
	// Refused is true for an option Tributary recognises but does not
	// implement yet (Set and Get are nil).
	Refused bool
	// Warning, when set, is logged whenever the option is given (a
	// deprecated option).
	Warning string
	// Set parses v into r; f is the stream's cloudFiles.format. Its error
	// message is the reason shown to the user.
	Set func(r *Reader, f FileFormat, v string) error
	// Get returns the effective value for Describe (false: not shown).
	Get func(r *Reader) (string, bool)
}

// doc sets an option's documentation: its default as users read it ("" when
// it has none) and one line of meaning.
func doc(o Spec, def, meaning string) Spec {
	o.Default, o.Doc = def, meaning
	return o
}

// refused is an option Tributary recognises and refuses at load time with
// "not supported yet" and why.
func refused(name string, formats []FileFormat, why string) Spec {
	return Spec{Name: name, Formats: formats, Refused: true, Doc: why}
}

// Reasons given by refused options.
const (
	formatsIssue = "this Spark reader option is not implemented by Tributary's readers yet"
	xmlIssue     = "this Spark XML option is not implemented by Tributary's XML reader yet"
)

// valueKind validates and normalises the value of a generic reader option.
type valueKind int

const (
	kString valueKind = iota
	kBool
	kNonNegInt
	kPosInt
	kRatio
	kTimestamp
)

func normalise(kind valueKind, enum []string, v string) (string, error) {
	if enum != nil {
		for _, e := range enum {
			if strings.EqualFold(strings.TrimSpace(v), e) {
				return e, nil
			}
		}
		return "", fmt.Errorf("want one of %s", strings.Join(enum, ", "))
	}
	switch kind {
	case kBool:
		b, err := sparkvalue.ParseBool(v)
		return strconv.FormatBool(b), err
	case kNonNegInt:
		n, err := sparkvalue.ParseNonNegative(v)
		return strconv.FormatInt(n, 10), err
	case kPosInt:
		n, err := sparkvalue.ParsePositiveInt(v)
		return strconv.Itoa(n), err
	case kRatio:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(f > 0 && f <= 1) {
			return "", fmt.Errorf("invalid value %q: want a number in (0, 1]", v)
		}
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	case kTimestamp:
		t, err := sparkvalue.ParseTimestamp(v)
		if err != nil {
			return "", err
		}
		return sparkvalue.FormatTimestamp(t), nil
	}
	return v, nil
}

// readerOption builds a generic reader option stored in Reader.Options;
// typed, when not nil, also updates a typed field from the normalised value.
func readerOption(name string, kind valueKind, formats []FileFormat, enum []string, typed func(r *Reader, v string)) Spec {
	return Spec{
		Name: name, Formats: formats,
		Set: func(r *Reader, f FileFormat, v string) error {
			n, err := normalise(kind, enum, v)
			if err != nil {
				return err
			}
			r.Options[name] = n
			if typed != nil {
				typed(r, n)
			}
			return nil
		},
		Get: func(r *Reader) (string, bool) {
			v, ok := r.Options[name]
			return v, ok
		},
	}
}

// timestampOpt is a file-source timestamp filter (modifiedAfter,
// modifiedBefore): a Spark timestamp string (ParseTimestamp), in UTC when
// it names no zone.
func timestampOpt(name string, field func(r *Reader) **time.Time) Spec {
	return Spec{
		Name: name,
		Set: func(r *Reader, f FileFormat, v string) error {
			t, err := sparkvalue.ParseTimestamp(v)
			if err != nil {
				return err
			}
			*field(r) = &t
			r.Options[name] = sparkvalue.FormatTimestamp(t)
			return nil
		},
		Get: func(r *Reader) (string, bool) {
			if t := *field(r); t != nil {
				return sparkvalue.FormatTimestamp(*t), true
			}
			return "", false
		},
	}
}
