// Package formats is Tributary's file-format port: it names the
// cloudFiles.format readers (Lookup), and re-exports the contract they
// implement — schema inference over sample files, reading files into rows,
// Auto Loader's rescued-data semantics — from package fileformat, plus
// transparent decompression (Decompress).
//
// Typical use:
//
//	f, err := formats.Lookup(opts.Format)           // "json"
//	hints, err := schema.ParseDDL(opts.SchemaHints)
//	inf := f.NewInferrer(formats.InferOptions{Hints: hints, RescuedDataColumn: formats.DefaultRescuedDataColumn})
//	body, err := formats.Decompress(path, raw)       // per sample file, until ErrSampleFull / file cap
//	err = inf.Add(ctx, path, body)
//	s := inf.Schema()
//	rr, err := f.Open(ctx, body2, s, formats.ReadOptions{FilePath: path, RescuedDataColumn: formats.DefaultRescuedDataColumn})
//	for { row, err := rr.Next(); if err == io.EOF { break } … }
//	rr.Close()
package formats

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tributary-io/tributary/core/formats/avrofmt"
	"github.com/tributary-io/tributary/core/formats/binaryfmt"
	"github.com/tributary-io/tributary/core/formats/csvfmt"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/jsonfmt"
	"github.com/tributary-io/tributary/core/formats/orcfmt"
	"github.com/tributary-io/tributary/core/formats/parquetfmt"
	"github.com/tributary-io/tributary/core/formats/textfmt"
	"github.com/tributary-io/tributary/core/formats/xmlfmt"
)

// The port's types, defined in package fileformat.
type (
	// Format is one cloudFiles.format.
	Format = fileformat.Format
	// Inferrer accumulates a schema across sample files.
	Inferrer = fileformat.Inferrer
	// RowReader yields the rows of one file.
	RowReader = fileformat.RowReader
	// InferOptions configure schema inference.
	InferOptions = fileformat.InferOptions
	// ReadOptions configure reading one file.
	ReadOptions = fileformat.ReadOptions
	// Reuse carries what closed readers leave to later ones.
	Reuse = fileformat.Reuse
	// ReadStats counts what a RowReader read.
	ReadStats = fileformat.ReadStats
	// Sample counts what an Inferrer has read.
	Sample = fileformat.Sample
	// ParseMode is Spark's mode option for malformed records.
	ParseMode = fileformat.ParseMode
	// BadRecord is a record that could not be read as a row.
	BadRecord = fileformat.BadRecord
	// TextOptions are the encoding and lineSep of text formats.
	TextOptions = fileformat.TextOptions
	// FixedSchema is a format whose schema does not depend on the files.
	FixedSchema = fileformat.FixedSchema
	// RawContent is a format that reads files without decompression.
	RawContent = fileformat.RawContent
	// SmallInPlace is a format whose readers take small files read whole
	// in place.
	SmallInPlace = fileformat.SmallInPlace
	// File is random access to one input file (columnar formats).
	File = fileformat.File
	// RandomAccessFormat is a format that reads files through File.
	RandomAccessFormat = fileformat.RandomAccessFormat
	// RandomAccessInferrer is the inferrer of a RandomAccessFormat.
	RandomAccessInferrer = fileformat.RandomAccessInferrer
)

// Defaults and parse modes (see package fileformat).
const (
	DefaultRescuedDataColumn   = fileformat.DefaultRescuedDataColumn
	DefaultCorruptRecordColumn = fileformat.DefaultCorruptRecordColumn
	FilePathKey                = fileformat.FilePathKey
	DefaultSampleBytes         = fileformat.DefaultSampleBytes
	DefaultSampleFiles         = fileformat.DefaultSampleFiles
	Permissive                 = fileformat.Permissive
	DropMalformed              = fileformat.DropMalformed
	FailFast                   = fileformat.FailFast
)

// Contract errors (see package fileformat for their meaning).
var (
	ErrSampleFull             = fileformat.ErrSampleFull
	ErrMalformedRecord        = fileformat.ErrMalformedRecord
	ErrReadSchema             = fileformat.ErrReadSchema
	ErrBadOption              = fileformat.ErrBadOption
	ErrUnsupportedCompression = fileformat.ErrUnsupportedCompression
)

// ErrUnknownFormat is wrapped by Lookup for a name that is not a
// cloudFiles.format value.
var ErrUnknownFormat = errors.New("unknown cloudFiles.format")

// ErrUnsupportedFormat is wrapped by Lookup for a valid cloudFiles.format
// that Tributary does not read yet.
var ErrUnsupportedFormat = errors.New("cloudFiles.format not supported yet")

// names are the cloudFiles.format values, in Databricks' spelling.
var names = [...]string{"avro", "binaryFile", "csv", "json", "orc", "parquet", "text", "xml"}

// supported are the formats Lookup returns a reader for.
var supported = []string{"avro", "binaryFile", "csv", "json", "orc", "parquet", "text", "xml"}

// Names returns the valid cloudFiles.format values.
func Names() []string { return names[:] }

// Lookup returns the reader for a cloudFiles.format value (matched
// case-insensitively, as Spark matches format names). An unknown name wraps
// ErrUnknownFormat; a known one without a reader yet wraps
// ErrUnsupportedFormat. Both errors name the option and the value.
func Lookup(name string) (Format, error) {
	for _, n := range names {
		if !strings.EqualFold(n, name) {
			continue
		}
		switch n {
		case "json":
			return jsonfmt.Format{}, nil
		case "csv":
			return csvfmt.Format{}, nil
		case "text":
			return textfmt.Format{}, nil
		case "binaryFile":
			return binaryfmt.Format{}, nil
		case "parquet":
			return parquetfmt.Format{}, nil
		case "orc":
			return orcfmt.Format{}, nil
		case "avro":
			return avrofmt.Format{}, nil
		case "xml":
			return xmlfmt.Format{}, nil
		}
		return nil, fmt.Errorf("cloudFiles.format %q: %w (supported: %s)", name, ErrUnsupportedFormat, strings.Join(supported, ", "))
	}
	return nil, fmt.Errorf("cloudFiles.format %q: %w (want one of %s)", name, ErrUnknownFormat, strings.Join(names[:], ", "))
}

// Decompress returns the decompressed content of the file at path, choosing
// the codec by extension: .gz, .bz2, .zst, .deflate, .snappy and .lz4
// (Hadoop's block framing, as Spark writes them, or the codec's stream
// format); other names are read as they are; .lzo is refused
// (ErrUnsupportedCompression).
// Callers wrap a file's raw bytes with it before Inferrer.Add and
// Format.Open, and close it afterwards (it releases the codec).
func Decompress(path string, r io.Reader) (io.ReadCloser, error) {
	return fileformat.Decompress(path, r)
}

// ParseParseMode reads Spark's mode option ("" = PERMISSIVE).
func ParseParseMode(s string) (ParseMode, error) { return fileformat.ParseParseMode(s) }
