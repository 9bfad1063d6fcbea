package ingest

import (
	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/schema"
)

// ReaderConfig holds a stream's plain reader options (Spark's file-source
// and JSON options). The zero value is Spark's and Databricks' defaults.
type ReaderConfig struct {
	// Mode is mode: what a bad record does ("" = PERMISSIVE).
	Mode formats.ParseMode
	// CorruptRecordColumn is columnNameOfCorruptRecord ("" = _corrupt_record).
	CorruptRecordColumn string
	// PrefersDecimal is prefersDecimal: with inferColumnTypes, fractional
	// numbers infer as decimals.
	PrefersDecimal bool
	// PrimitivesAsString is primitivesAsString: with inferColumnTypes,
	// numbers and booleans infer as strings.
	PrimitivesAsString bool
	// DropFieldIfAllNull is dropFieldIfAllNull: inference leaves out
	// null-only columns.
	DropFieldIfAllNull bool
	// CaseInsensitive is readerCaseSensitive=false: with a rescued data
	// column, a field whose name differs from its column only by case fills
	// the column instead of being rescued.
	CaseInsensitive bool
	// IgnoreCorruptFiles is ignoreCorruptFiles: an unreadable file is
	// skipped (the rows read before the corruption are kept) instead of
	// failing its batch.
	IgnoreCorruptFiles bool
	// IgnoreMissingFiles is ignoreMissingFiles: a file deleted since its
	// discovery is skipped instead of failing its batch.
	IgnoreMissingFiles bool
	// BadRecordsPath is badRecordsPath: bad records and bad files are
	// recorded under it (Engine.BadRecords) and the load goes on.
	BadRecordsPath string
	// Text is encoding and lineSep: how the files' bytes split into
	// records.
	Text formats.TextOptions
}

// inferOptions are the format's inference options for this stream.
func (e *Engine) inferOptions(hints []schema.HintField, maxBytes int64) formats.InferOptions {
	r, s := e.Config.Reader, e.Config.Schema
	mode := r.Mode
	if r.BadRecordsPath != "" {
		// Bad records are recorded and left out of the table: a malformed
		// sample must not add the corrupt-record column.
		mode = formats.DropMalformed
	}
	return formats.InferOptions{
		Text:                r.Text,
		InferColumnTypes:    s.InferColumnTypes,
		PrefersDecimal:      r.PrefersDecimal,
		PrimitivesAsString:  r.PrimitivesAsString,
		DropFieldIfAllNull:  r.DropFieldIfAllNull,
		Hints:               hints,
		RescuedDataColumn:   s.rescuedColumn(),
		MaxBytes:            maxBytes,
		Mode:                mode,
		CorruptRecordColumn: r.CorruptRecordColumn,
		Options:             e.Config.FormatOptions,
	}
}

// readOptions are the format's read options for the source file at path;
// bad, when not nil, receives its bad records (badRecordsPath).
func (e *Engine) readOptions(path string, bad func(formats.BadRecord)) formats.ReadOptions {
	r := e.Config.Reader
	return formats.ReadOptions{
		Text:                r.Text,
		FilePath:            e.fullPath(path),
		RescuedDataColumn:   e.Config.Schema.rescuedColumn(),
		CaseInsensitive:     r.CaseInsensitive,
		Mode:                r.Mode,
		CorruptRecordColumn: r.CorruptRecordColumn,
		BadRecords:          bad,
		Options:             e.Config.FormatOptions,
	}
}
