// Package csvfmt reads CSV files for Tributary the way Databricks Auto
// Loader reads cloudFiles.format "csv" (Spark's CSV source: CSVOptions,
// CSVInferSchema, UnivocityParser): Spark's option names, defaults and
// inference, schema hints, the rescued data column and the PERMISSIVE /
// DROPMALFORMED / FAILFAST handling of malformed records.
//
// Records. The file is decoded from the encoding option's charset first
// (any charset: the whole stream is decoded before it is split, so UTF-16
// and UTF-32 work with or without lineSep) and a byte order mark opening it
// is dropped. A record ends at "\n", "\r\n" or "\r", or at the lineSep
// option's character. Values are separated by sep (alias delimiter, one or
// more characters, Spark's escapes \t, \u0000, ... resolved). A value that
// starts with the quote character (after leading white space when
// ignoreLeadingWhiteSpace is true) is quoted: it ends at the next quote that
// is followed by the delimiter or the record end (white space between them
// is skipped); inside it the escape character followed by a quote is a
// quote (a doubled quote only when escape is the quote character, as
// RFC 4180 writes it: with Spark's default escape \ the first of two quotes
// is an unescaped quote, as Spark reads it); charToEscapeQuoteEscaping followed by the escape
// and a quote is the escape character (the quote then closes the value);
// any other escape is kept as it is. With multiLine true a quoted value
// spans line ends (kept as they are); with multiLine false (the default)
// records are lines, as Spark splits them before parsing, so an unclosed
// quote ends with its line. A quote followed by something else is an
// unescaped quote: unescapedQuoteHandling STOP_AT_DELIMITER (default) and
// BACK_TO_DELIMITER read the rest of the value as unquoted text up to the
// delimiter (BACK_TO_DELIMITER keeps the opening quote too),
// STOP_AT_CLOSING_QUOTE keeps the quote and looks for the closing one,
// SKIP_VALUE makes the value null, RAISE_ERROR makes the record malformed;
// a quote inside an unquoted value is a plain character except under
// SKIP_VALUE (null) and RAISE_ERROR (malformed). Unquoted values lose
// leading/trailing characters <= ' ' with ignoreLeadingWhiteSpace /
// ignoreTrailingWhiteSpace (both false by default, as Spark reads). Lines
// that are empty or white space only, and lines starting with the comment
// character (when set), are skipped, and so are the first skipRows lines
// of every file (whatever they hold). A record of more than maxColumns
// (20480) values or a value of more than maxCharsPerColumn characters (-1:
// unlimited) fails the file (ErrLimit), as Spark's parser does.
//
// Values. An empty unquoted value is null; a quoted empty value ("") is
// emptyValue; then a value equal to nullValue (default "") is null — so by
// default both empty forms are null, as in Spark 3. Double and float
// columns take nanValue (NaN), positiveInf (Inf) and negativeInf (-Inf)
// and Java's number syntax; integral columns take Java's integers; decimal
// columns take numbers with commas removed (US locale), rounded half-up to
// the scale; boolean takes true/false in any case; date and timestamp take
// Spark's lenient default forms (no zone = UTC); binary takes the value's
// UTF-8 bytes. Nested types cannot be read from CSV (ErrReadSchema).
//
// Inference (Format.NewInferrer). With header true the first record of
// every file names its columns (an empty name or the nullValue becomes
// _c<i>, repeated names get their index appended); without it columns are
// _c0, _c1, ... Columns of all sampled files are unioned by name
// (case-insensitively, first spelling wins), in first-seen order. With
// cloudFiles.inferColumnTypes false every column is a string; with it,
// each value widens its column in Spark's order int, long, decimal (no
// fraction; prefersDecimal also takes fractions), double (nanValue,
// positiveInf and negativeInf included), date (yyyy-MM-dd; skipped with
// preferDate false), timestamp,
// boolean, string, and columns merge as Spark's compatibleType does;
// null-only columns are strings.
//
// Reading (Format.Open). With a rescued data column (Auto Loader's
// default) and header true, columns are matched to the schema by header
// name (case-sensitively unless readerCaseSensitive is false): a column the
// schema lacks is reported in ReadStats.UnknownFields (schema evolution) and
// its non-null values are rescued, as is any value that does not fit its
// column: {"col":"value",...,"_file_path":"..."}. Without a rescued data
// column the schema applies by position, as Spark's enforceSchema=true
// does; with enforceSchema false the header must name the schema's columns
// in order (case-insensitively), or the file fails with ErrHeaderMismatch.
// A record with fewer values than its file's columns (or, with a header or
// without rescue, more) is malformed, as in Spark: PERMISSIVE keeps the
// values it has and puts the record's text in the corrupt-record column
// (columnNameOfCorruptRecord) when the schema has one, else in the rescued
// data column under that name; DROPMALFORMED drops it; FAILFAST fails the
// file. A headerless record's extra values are the unknown columns _c<i>.
package csvfmt

import (
	"context"
	"io"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// Format is the cloudFiles.format "csv". The zero value is ready to use.
type Format struct{}

// Name returns "csv".
func (Format) Name() string { return "csv" }

// ReadsSmallInPlace reports true (fileformat.SmallInPlace): the reader
// tokenizes a small file read whole from the engine's buffer, without a
// read buffer of its own.
func (Format) ReadsSmallInPlace() bool { return true }

// NewInferrer starts a schema inference over CSV files.
func (Format) NewInferrer(opts fileformat.InferOptions) fileformat.Inferrer {
	return newInferrer(opts)
}

// Open reads one CSV file as rows of s.
func (Format) Open(ctx context.Context, r io.Reader, s *schema.StructType, opts fileformat.ReadOptions) (fileformat.RowReader, error) {
	return open(ctx, r, s, opts)
}
