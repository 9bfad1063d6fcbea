// Package fileformat defines the contract between Tributary's ingest engine
// and its file-format readers (cloudFiles.format): schema inference over
// sample files, reading a file into rows of a schema, and the rescued-data
// semantics of Databricks Auto Loader. It also holds the helpers every text
// format shares: transparent decompression, value parsing (dates,
// timestamps, decimals) and the rescued-data JSON builder.
//
// Package formats re-exports these types and adds the registry; format
// implementations (formats/jsonfmt, …) import this package, which keeps the
// registry free of import cycles.
package fileformat

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tributary-io/tributary/core/schema"
)

// Defaults, as in Databricks Auto Loader.
const (
	// DefaultRescuedDataColumn is the default cloudFiles.rescuedDataColumn.
	DefaultRescuedDataColumn = "_rescued_data"
	// DefaultCorruptRecordColumn is Spark's default columnNameOfCorruptRecord.
	DefaultCorruptRecordColumn = "_corrupt_record"
	// FilePathKey is the key under which the rescued-data JSON records the
	// source file path of the row.
	FilePathKey = "_file_path"
	// DefaultSampleBytes is the default
	// cloudFiles.schemaInference.sampleSize.numBytes (50 GB).
	DefaultSampleBytes int64 = 50 << 30
	// DefaultSampleFiles is the default
	// cloudFiles.schemaInference.sampleSize.numFiles. The caller enforces
	// it: it decides which files it passes to Inferrer.Add.
	DefaultSampleFiles = 1000
)

// Sentinel errors.
var (
	// ErrSampleFull is returned by Inferrer.Add when the byte budget of the
	// sample was already used up: the file was not read.
	ErrSampleFull = errors.New("schema inference sample size reached")
	// ErrMalformedRecord is wrapped by readers and inferrers in FAILFAST
	// mode at the first bad record (see FailFast); the error names file and
	// line.
	ErrMalformedRecord = errors.New("malformed record")
	// ErrReadSchema is wrapped by Format.Open when the schema and the read
	// options do not fit together (e.g. the rescued data column is missing
	// from the schema or is not a string).
	ErrReadSchema = errors.New("invalid read schema")
	// ErrBadOption is wrapped when an option value is invalid; the error
	// names the option.
	ErrBadOption = errors.New("invalid option")
)

// Format is one cloudFiles.format. Implementations are stateless and safe
// for concurrent use; inferrers and readers they return are not.
type Format interface {
	// Name is the cloudFiles.format value ("json").
	Name() string
	// NewInferrer starts a schema inference over sample files. Invalid
	// options are reported by every Inferrer.Add (wrapping ErrBadOption).
	NewInferrer(opts InferOptions) Inferrer
	// Open reads one file's decompressed content r (see Decompress) as rows
	// of s. s is the full table schema, including the rescued data column
	// when opts.RescuedDataColumn is set.
	Open(ctx context.Context, r io.Reader, s *schema.StructType, opts ReadOptions) (RowReader, error)
}

// Inferrer accumulates a schema across sample files.
type Inferrer interface {
	// Add samples one file: path names it in errors and r yields its
	// decompressed content (see Decompress). Bytes read from r count against
	// InferOptions.MaxBytes; the file that crosses the budget is still read
	// whole, and every Add after that returns ErrSampleFull without reading.
	// A malformed record fails Add only in FAILFAST mode.
	Add(ctx context.Context, path string, r io.Reader) error
	// Schema returns the schema inferred so far, with the schema hints
	// applied and the rescued data column (if any) as the last field. When
	// nothing was sampled (Sampled().Records == 0) it holds only the hinted
	// columns and the rescued data column; Auto Loader then fails with
	// "unable to infer schema", which is the caller's call to make.
	Schema() *schema.StructType
	// Sampled reports the files, bytes and records sampled so far.
	Sampled() Sample
	// Full reports whether the byte budget is used up.
	Full() bool
}

// Sample counts what an Inferrer has read.
type Sample struct {
	Files   int   // files passed to Add and read
	Bytes   int64 // bytes read from those files' readers
	Records int64 // records (JSON objects) sampled
}

// RowReader yields the rows of one file.
type RowReader interface {
	// Next returns the next row: one value per schema field, in field
	// order, following the row rules of package schema. It returns io.EOF
	// after the last row. The returned slice is the caller's to keep.
	Next() ([]any, error)
	// Stats reports what was read so far.
	Stats() ReadStats
	// Close releases the reader's resources (the decompressor); it does not
	// close the io.Reader given to Open. Next returns io.EOF after Close.
	Close() error
}

// InferOptions configure schema inference.
type InferOptions struct {
	// Text is how the files' bytes split into records.
	Text TextOptions
	// InferColumnTypes is cloudFiles.inferColumnTypes (default false for
	// json, csv and xml): when false every column is a string, nested
	// objects and arrays included (they hold their JSON text), except along
	// the path of a schema hint.
	InferColumnTypes bool
	// PrefersDecimal is Spark's prefersDecimal: with InferColumnTypes,
	// floating-point numbers infer as decimal when they fit.
	PrefersDecimal bool
	// Hints are the parsed cloudFiles.schemaHints (schema.ParseDDL).
	Hints []schema.HintField
	// RescuedDataColumn, when not empty, is appended as the last field
	// (string) of the inferred schema. A sampled column of that name
	// (compared case-insensitively) is left out: its values are rescued.
	RescuedDataColumn string
	// MaxBytes is the sample byte budget; 0 means DefaultSampleBytes.
	MaxBytes int64
	// Mode is the parse mode for malformed records ("" = PERMISSIVE). In
	// PERMISSIVE mode a malformed record adds CorruptRecordColumn (string)
	// to the inferred schema, as Spark does.
	Mode ParseMode
	// CorruptRecordColumn is columnNameOfCorruptRecord; "" means
	// DefaultCorruptRecordColumn.
	CorruptRecordColumn string
	// PrimitivesAsString is Spark's primitivesAsString: with
	// InferColumnTypes, numbers and booleans infer as string (objects and
	// arrays keep their shape).
	PrimitivesAsString bool
	// DropFieldIfAllNull is Spark's dropFieldIfAllNull: a column whose
	// sampled values are all null (or empty arrays, or empty structs) is left
	// out of the schema instead of becoming a string.
	DropFieldIfAllNull bool
	// Options are the format's own reader options (csv: header, sep, ...)
	// by documented name, as the options registry normalised them; formats
	// without such options ignore them.
	Options map[string]string
}

// BadRecord is a record that could not be read as a row: it is malformed
// or, with rescue disabled, holds a value that does not fit its column
// (Spark's bad records; badRecordsPath records them).
type BadRecord struct {
	// Line is the record's line number in the file, from 1.
	Line int64
	// Record is the record's text (invalid UTF-8 replaced by U+FFFD).
	Record string
	// Reason says what is wrong with it.
	Reason string
}

// ReadOptions configure reading one file.
type ReadOptions struct {
	// Text is how the file's bytes split into records.
	Text TextOptions
	// FilePath is the file's full path (s3://bucket/key or a local path):
	// recorded under "_file_path" in the rescued data and used in error
	// messages.
	FilePath string
	// RescuedDataColumn names the schema's rescued data column (a top-level
	// string field). "" disables rescue: values that do not fit their
	// column become null and unknown columns are ignored (schema evolution
	// mode "none" without rescuedDataColumn); ReadStats counts them.
	// Callers normally set DefaultRescuedDataColumn.
	RescuedDataColumn string
	// CaseInsensitive is the inverse of Databricks' readerCaseSensitive
	// (default true). With rescue enabled and CaseInsensitive false, a
	// field whose name differs from its column only by case is rescued;
	// otherwise it fills the column. Without rescue, matching is always
	// case-insensitive (Spark's default).
	CaseInsensitive bool
	// Mode is the parse mode for malformed records ("" = PERMISSIVE).
	Mode ParseMode
	// CorruptRecordColumn is columnNameOfCorruptRecord; "" means
	// DefaultCorruptRecordColumn. It only matters if the schema has a
	// top-level string field of that name.
	CorruptRecordColumn string
	// BadRecords, when set, receives every bad record, which is then left
	// out of the rows whatever Mode says (Databricks' badRecordsPath: the
	// load goes on and the record is recorded instead). A value that does
	// not fit its column is a bad record only when rescue is disabled;
	// otherwise it is rescued (Databricks: with the rescued data column,
	// only malformed records are bad records).
	BadRecords func(BadRecord)
	// Options are the format's own reader options, as in InferOptions.
	Options map[string]string
	// ModTime is the file's last modification time; the engine sets it
	// only for RawContent formats (binaryFile's modificationTime column).
	ModTime time.Time
	// Workers bounds the goroutines a reader may decode this one file on
	// (0: GOMAXPROCS). The engine sets 1 when it decodes several files at
	// once, each on one goroutine.
	Workers int
	// Reuse, when set, receives the reader's reusable state when it is
	// closed and offers it to the next reader opened with it (nil: none).
	Reuse *Reuse
	// Fold, when set, is a FoldInferrer of the same format (and the same
	// text and format options) whose Folds is true, holding the schema
	// inferred from a prefix of the file (FoldInferrer): the reader checks
	// every record it reads against it (Fold is only read), and fails with
	// ErrFoldAbandoned at the first one that does not fit.
	Fold Inferrer
}

// Reuse carries what closed readers can hand to later readers of the same
// schema and options (a format's compiled decoding plan), so that many
// small files do not each pay for it (ReadOptions.Reuse). It is safe for
// concurrent use; what a reader leaves is taken by at most one reader.
type Reuse struct {
	mu   sync.Mutex
	left []any
}

// maxReused bounds what a Reuse holds.
const maxReused = 8

// ReadStats counts what a RowReader read. Paths are dotted column paths
// ("user.dob"; "element"/"key"/"value" step into collections); each list
// holds distinct paths in first-seen order, at most MaxReportedPaths.
type ReadStats struct {
	// RowsRead counts rows returned by Next.
	RowsRead int64
	// RowsRescued counts rows whose rescued data column is not null.
	RowsRescued int64
	// CorruptRecords counts bad records: malformed records (returned as
	// null rows in PERMISSIVE mode, skipped in DROPMALFORMED mode or given to
	// ReadOptions.BadRecords) and, with rescue disabled, records holding a
	// value that does not fit its column (kept with that value null in
	// PERMISSIVE mode).
	CorruptRecords int64
	// ValuesDropped counts values that were neither stored nor rescued
	// (rescue disabled: mismatched values set to null, unknown columns
	// ignored, corrupt records without a corrupt-record column).
	ValuesDropped int64
	// UnknownFields lists paths present in the data but not in the schema:
	// the new columns schema evolution would add.
	UnknownFields []string
	// MismatchedFields lists paths whose values did not fit their type.
	MismatchedFields []string
}

// Clone returns a copy of st that shares no slices with it.
func (st ReadStats) Clone() ReadStats {
	st.UnknownFields = slices.Clone(st.UnknownFields)
	st.MismatchedFields = slices.Clone(st.MismatchedFields)
	return st
}

// MaxReportedPaths caps ReadStats.UnknownFields and MismatchedFields.
const MaxReportedPaths = 1000

// NotePath appends path p to list (UnknownFields or MismatchedFields)
// unless seen holds it already or list holds MaxReportedPaths paths; seen
// records the paths appended.
func NotePath(seen map[string]bool, list *[]string, p string) {
	if len(*list) >= MaxReportedPaths || seen[p] {
		return
	}
	seen[p] = true
	*list = append(*list, p)
}

// Merge adds the statistics of a later part of the same read (a chunk
// decoded on its own) to st: its counts, and its paths after st's, each
// once (seenU, seenM: the paths of st's lists, NotePath).
func (st *ReadStats) Merge(c ReadStats, seenU, seenM map[string]bool) {
	st.RowsRead += c.RowsRead
	st.RowsRescued += c.RowsRescued
	st.CorruptRecords += c.CorruptRecords
	st.ValuesDropped += c.ValuesDropped
	for _, p := range c.UnknownFields {
		NotePath(seenU, &st.UnknownFields, p)
	}
	for _, p := range c.MismatchedFields {
		NotePath(seenM, &st.MismatchedFields, p)
	}
}

// ParseMode is Spark's mode option for malformed records.
type ParseMode string

// Parse modes.
const (
	// Permissive keeps a malformed record as a row of nulls, its text in the
	// corrupt-record column when the schema has one, else in the rescued
	// data column under the corrupt-record column's name. With rescue
	// disabled, a record holding a value that does not fit its column is
	// kept with that value null and its text in the corrupt-record column
	// (when the schema has one), as Spark keeps partial results.
	Permissive ParseMode = "PERMISSIVE"
	// DropMalformed skips bad records: malformed ones and, with rescue
	// disabled, those holding a value that does not fit its column (with
	// rescue, such values are rescued and the record is kept).
	DropMalformed ParseMode = "DROPMALFORMED"
	// FailFast fails the read at the first bad record (as DropMalformed
	// defines them), wrapping ErrMalformedRecord.
	FailFast ParseMode = "FAILFAST"
)

// ParseParseMode reads a mode option value, case-insensitively; "" is
// Permissive.
func ParseParseMode(s string) (ParseMode, error) {
	switch ParseMode(strings.ToUpper(strings.TrimSpace(s))) {
	case "", Permissive:
		return Permissive, nil
	case DropMalformed:
		return DropMalformed, nil
	case FailFast:
		return FailFast, nil
	}
	return "", fmt.Errorf("%w: mode %q: want PERMISSIVE, DROPMALFORMED or FAILFAST", ErrBadOption, s)
}

// Normalize returns m with "" replaced by Permissive, or an error naming the
// option when m is not a known mode.
func (m ParseMode) Normalize() (ParseMode, error) { return ParseParseMode(string(m)) }

// FixedSchema is implemented by formats whose schema does not depend on the
// files (text, binaryFile): the engine takes Schema() instead of sampling
// files, which would only cost reads.
type FixedSchema interface {
	// Schema returns the format's schema (a fresh copy the caller may keep).
	Schema() *schema.StructType
}

// RawContent is implemented by formats that read a file's bytes as they are
// stored (binaryFile): the engine does not decompress them by extension.
type RawContent interface {
	// Raw reports whether the file's stored bytes are read without
	// decompression.
	Raw() bool
}

// Take returns state a closed reader left, removing it (nil if none, or
// on a nil Reuse).
func (r *Reuse) Take() any {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.left)
	if n == 0 {
		return nil
	}
	v := r.left[n-1]
	r.left[n-1] = nil
	r.left = r.left[:n-1]
	return v
}

// Leave stores v, which its reader no longer uses, for a later reader (a
// nil Reuse, or a full one, drops it).
func (r *Reuse) Leave(v any) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.left) < maxReused {
		r.left = append(r.left, v)
	}
}
