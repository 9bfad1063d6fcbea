// Package jsonfmt reads JSON Lines (newline-delimited JSON) files for
// Tributary the way Databricks Auto Loader reads cloudFiles.format "json":
// schema inference (package jsoninfer), schema hints, the rescued data column and Spark's
// PERMISSIVE / DROPMALFORMED / FAILFAST handling of malformed records.
//
// Records. Each non-blank line is one JSON object; a line holding a JSON
// array of objects yields one record per element (as Spark does). A line
// ends at "\n", "\r\n" or "\r" (Hadoop's LineReader), or at the lineSep
// option's string; the input is decoded from the encoding option's charset
// first, and a byte order mark opening the file is dropped. A line of any
// length is read (see package jsonlines for what a huge one costs). With
// multiLine a file is one JSON value instead (an object, or an array of
// objects, one record each; what follows the first value is ignored, as
// Spark's parser reads one value): the file is read whole, decoded, its
// byte order mark dropped. Beyond RFC 8259,
// Spark's allow* options widen the syntax (package jsontape) with Spark's
// defaults: the unquoted numbers NaN, Infinity, +Infinity and -Infinity
// (allowNonNumericNumbers) and single-quoted names and strings
// (allowSingleQuotes) are accepted unless turned off; comments, unquoted
// names, leading zeros, any-character escapes and raw control characters
// only when turned on. Otherwise they make the record malformed. A nested
// value copied out as text (a STRING column, the rescued data column) is
// standard JSON however it was written.
//
// Inference (Format.NewInferrer). With inferColumnTypes false (the
// default) every top-level column is a string — objects and arrays too: a
// nested value is stored as its JSON text, as Databricks documents ("In JSON
// datasets, nested columns are also inferred as string columns"). Only
// along a schema hint's path (user_info.dob) are objects kept as structs
// whose other fields are again strings. With inferColumnTypes true, Spark's
// JSON inference applies: integers are long (decimal(p,0) beyond long, double
// beyond 38 digits), other numbers double (decimal with prefersDecimal),
// booleans boolean, objects struct, arrays array; an empty string counts as
// null; types merge across records as Spark's compatibleType does (long +
// double = double, long + decimal = wider decimal, struct + struct = union,
// array + array = array of the merged element, anything else = string);
// null-only columns and empty arrays' elements become string; empty structs
// are dropped. Field names that differ only by case are one column (the
// first-seen spelling); fields are sorted by name at every level, as Spark
// sorts JSON-inferred fields. Hints are applied last and the rescued data
// column is appended as the last field. A malformed record in PERMISSIVE
// mode adds the corrupt-record column (string), as Spark's inference does.
//
// Reading (Format.Open). Each value is converted to its column's type:
// strings take JSON strings as they are and any other value as its JSON
// text; integral columns take integer tokens within range (2147483648 does
// not fit an int); double/float take any number and the strings NaN,
// Infinity, -Infinity (and Spark's INF forms); boolean takes true/false;
// decimal takes numbers and numeric strings, rounded half-up to the scale,
// when they fit the precision; date takes "yyyy-[m]m-[d]d" strings (Spark's
// lenient forms); timestamp takes ISO-8601-like strings (no zone = UTC) and
// integers (seconds since the epoch); timestamp_ntz takes strings without a
// zone; with the dateFormat, timestampFormat, timestampNTZFormat, timeZone
// and locale options, dates and timestamps are parsed as package
// datetimefmt says (and inferTimestamp infers timestamp strings); binary
// takes base64 strings; struct takes objects; array takes
// arrays; map takes objects (keys converted from their text; a repeated key
// keeps the last value). A value that does not fit, and a field the schema
// lacks (or, with readerCaseSensitive, whose name differs from its column
// only by case), goes to the rescued data column as
// {"col":value,…,"_file_path":"…"} and its column is null; the row is still
// written. A value that does not fit inside an array or map (or an unknown
// field inside one, when rescue is on) makes the whole collection null and
// rescued. Unknown fields whose value is null are not rescued. With rescue
// disabled, such values become null and unknown fields are ignored; the
// counts are in ReadStats. A repeated key in one object keeps the last
// value.
package jsonfmt

import (
	"context"
	"io"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsoninfer"
	"github.com/tributary-io/tributary/core/schema"
)

// Format is the cloudFiles.format "json". The zero value is ready to use.
type Format struct{}

// Name returns "json".
func (Format) Name() string { return "json" }

// NewInferrer starts a schema inference over JSON Lines files.
func (Format) NewInferrer(opts fileformat.InferOptions) fileformat.Inferrer {
	return jsoninfer.New(opts)
}

// Open reads one JSON Lines file as rows of s.
func (Format) Open(ctx context.Context, r io.Reader, s *schema.StructType, opts fileformat.ReadOptions) (fileformat.RowReader, error) {
	return open(ctx, r, s, opts)
}
