// Package avrofmt reads Avro object container files for Tributary the way
// Databricks Auto Loader reads cloudFiles.format "avro" (Spark's Avro
// source, SchemaConverters and AvroDeserializer).
//
// Schema. Each file's writer schema (its header) maps to Spark's types:
// boolean, int (INT), long (BIGINT), float, double, string and enum
// (STRING), bytes and fixed (BINARY), record (STRUCT), array, map
// (MAP<STRING, ...>); logical types decimal(p,s) on bytes or fixed
// (DECIMAL(p,s)), date (DATE), timestamp-millis and timestamp-micros
// (TIMESTAMP), local-timestamp-millis and -micros (TIMESTAMP_NTZ), uuid
// (STRING); time-millis stays INT and time-micros BIGINT, as in Spark.
// Unions: null with one type is that type; int and long give BIGINT;
// float and double give DOUBLE; any other union is a STRUCT of member0,
// member1, ... (its non-null types in order), only the written member set.
// Every column is nullable. A recursive type, a decimal wider than 38
// digits or a top-level type other than a record fails the file
// (ErrSchema), as in Spark. Inference reads only the headers of the sample
// files and merges their schemas (Auto Loader's mergeSchema default for
// Avro; mergeSchema=false takes the first sampled file's): new fields are
// appended, int and long widen to long and float to
// double (schema.Merge); a field whose types do not reconcile keeps the
// first file's type and other files' values are rescued. Schema hints and
// the rescued data column apply as for every format. With the avroSchema
// option (an Avro schema's JSON) the schema is that schema's and no file
// is sampled.
//
// Reading. Records are read with their file's writer schema and matched to
// the table's columns by name (case-sensitively with a rescued data
// column, unless readerCaseSensitive is false). A field the table lacks
// is reported in ReadStats.UnknownFields (schema evolution) and rescued; a
// value that does not fit its column's type is rescued (or, without a
// rescued data column, dropped and counted). Values convert along Avro's
// promotions (int to long, float or double; long to double; float to
// double; string and bytes to each other) and into narrower integers or
// decimals that hold them. With avroSchema, a field the file lacks is null
// (Avro defaults of the reader schema are not applied).
//
// Robustness. The container is read block by block (memory: one block,
// never the file); codecs null, deflate, snappy, zstandard and bzip2 (xz
// is refused, naming the codec). Every length in the file is checked
// against the bytes present before anything is allocated, so a corrupt
// file fails with ErrCorrupt (the engine's unreadable file: the batch
// fails naming it, or ignoreCorruptFiles skips it keeping the rows read
// before the corruption) and never exhausts memory or panics.
package avrofmt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// SchemaOption is the option holding a reader schema's JSON.
const SchemaOption = "avroSchema"

// MergeSchemaOption is Auto Loader's Avro mergeSchema: merging is the
// default; "false" takes the first sampled file's schema.
const MergeSchemaOption = "mergeSchema"

// Format is the cloudFiles.format "avro". The zero value is ready to use.
type Format struct{}

// Name returns "avro".
func (Format) Name() string { return "avro" }

// ParseSchema checks an avroSchema option value and returns the table
// schema it gives (without the rescued data column).
func ParseSchema(text string) (*schema.StructType, error) {
	n, err := parseSchema(text)
	if err != nil {
		return nil, err
	}
	return n.topStruct()
}

// readerSchema returns the avroSchema option from a format options map.
func readerSchema(opts map[string]string) (string, bool) {
	for k, v := range opts {
		if strings.EqualFold(k, SchemaOption) {
			return v, true
		}
	}
	return "", false
}

// NewInferrer starts a schema inference over Avro files' headers.
func (Format) NewInferrer(opts fileformat.InferOptions) fileformat.Inferrer {
	in := &inferrer{opts: opts, acc: &schema.StructType{}}
	for k, v := range opts.Options {
		if strings.EqualFold(k, MergeSchemaOption) && strings.EqualFold(strings.TrimSpace(v), "false") {
			in.firstOnly = true
		}
	}
	if text, ok := readerSchema(opts.Options); ok {
		in.fixed = true
		if in.acc, in.err = ParseSchema(text); in.err != nil {
			in.err = fmt.Errorf("%w: %s: %v", fileformat.ErrBadOption, SchemaOption, in.err)
		}
	}
	return in
}

type inferrer struct {
	opts  fileformat.InferOptions
	acc   *schema.StructType
	fixed bool // avroSchema given: files are not sampled
	// firstOnly is mergeSchema=false: the first sampled file's schema is
	// the schema; later files are counted, not read.
	firstOnly bool
	err       error // a bad avroSchema, reported by every Add
	sample    fileformat.Sample
}

func (in *inferrer) max() int64 {
	if in.opts.MaxBytes > 0 {
		return in.opts.MaxBytes
	}
	return fileformat.DefaultSampleBytes
}

func (in *inferrer) Add(ctx context.Context, path string, r io.Reader) error {
	if in.err != nil {
		return in.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if in.Full() {
		return fileformat.ErrSampleFull
	}
	in.sample.Files++
	if in.fixed || (in.firstOnly && in.sample.Files > 1) {
		return nil
	}
	c, err := openContainer(r)
	if c != nil {
		defer c.close()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	in.sample.Bytes += c.nbytes
	n, err := parseSchema(c.schema)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	st, err := n.topStruct()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	in.sample.Records++ // a file's schema is what is sampled
	merged, err := schema.Merge(in.acc, st)
	if err != nil {
		// Keep the first type of a column whose types do not reconcile;
		// add the file's new columns.
		merged = in.acc.Clone()
		for _, f := range st.Fields {
			if merged.FieldIndexFold(f.Name) < 0 {
				merged.Fields = append(merged.Fields, f)
			}
		}
	}
	in.acc = merged
	return nil
}

func (in *inferrer) Schema() *schema.StructType {
	st := schema.ApplyHints(in.acc.Clone(), in.opts.Hints)
	if rc := in.opts.RescuedDataColumn; rc != "" {
		st.Fields = slices.DeleteFunc(st.Fields, func(f schema.Field) bool { return strings.EqualFold(f.Name, rc) })
		st.Fields = append(st.Fields, schema.Field{Name: rc, Type: schema.String, Nullable: true})
	}
	return st
}

func (in *inferrer) Sampled() fileformat.Sample { return in.sample }
func (in *inferrer) Full() bool                 { return in.sample.Bytes >= in.max() }

// Open reads one Avro file as rows of s. The header is read by the first
// Next, so that a corrupt header is an unreadable file like any other
// corruption.
func (Format) Open(ctx context.Context, r io.Reader, s *schema.StructType, opts fileformat.ReadOptions) (fileformat.RowReader, error) {
	rr := &reader{ctx: ctx, r: r, s: s, opts: opts, rescueCol: -1}
	rr.conv = conv{caseSensitive: !opts.CaseInsensitive, skip: map[string]bool{}, stats: &rr.stats, seen: map[string]bool{}}
	if rc := opts.RescuedDataColumn; rc != "" {
		rr.rescueCol = s.FieldIndexFold(rc)
		if rr.rescueCol < 0 || !schema.EqualType(s.Fields[rr.rescueCol].Type, schema.String) {
			return nil, fmt.Errorf("%w: rescued data column %q is not a string column of the schema", fileformat.ErrReadSchema, rc)
		}
		rr.conv.rescue = &rr.rescue
		rr.conv.skip[strings.ToLower(rc)] = true
	}
	return rr, nil
}

type reader struct {
	ctx       context.Context
	r         io.Reader
	s         *schema.StructType
	opts      fileformat.ReadOptions
	c         *container
	n         *node
	count     int64 // records left in the current block
	d         dec
	buf       []byte
	rescue    fileformat.Rescue
	rescueCol int
	conv      conv
	stats     fileformat.ReadStats
	record    int64 // records read, for error messages
	done      bool
}

func (r *reader) open() error {
	c, err := openContainer(r.r)
	if err != nil {
		return err
	}
	r.c = c
	n, err := parseSchema(c.schema)
	if err != nil {
		return err
	}
	if _, err := n.topStruct(); err != nil {
		return err
	}
	r.n = n
	return nil
}

func (r *reader) Next() ([]any, error) {
	if r.done {
		return nil, io.EOF
	}
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	if r.c == nil {
		if err := r.open(); err != nil {
			r.done = true
			return nil, err
		}
	}
	for r.count == 0 {
		if r.d.b != nil && r.d.pos != len(r.d.b) {
			r.done = true
			return nil, fmt.Errorf("%w: %d bytes left over after the records of a block", ErrCorrupt, len(r.d.b)-r.d.pos)
		}
		count, data, err := r.c.next(r.buf)
		if errors.Is(err, io.EOF) {
			r.done = true
			return nil, io.EOF
		}
		if err != nil {
			r.done = true
			return nil, err
		}
		if (r.n.minSize > 0 && count > int64(len(data))/int64(r.n.minSize)) || (r.n.minSize == 0 && count > 1<<24) {
			r.done = true
			return nil, fmt.Errorf("%w: block claims %d records in %d bytes", ErrCorrupt, count, len(data))
		}
		r.buf = data[:0]
		r.count, r.d = count, dec{b: data}
	}
	v := r.d.value(r.n, 0)
	if r.d.err != nil {
		r.done = true
		return nil, fmt.Errorf("record %d: %w", r.record+1, r.d.err)
	}
	r.count--
	r.record++
	r.rescue.Reset()
	r.conv.bad = false
	row := r.conv.record(v.([]any), r.n, r.s, nil, true)
	if r.rescueCol >= 0 {
		if js, ok := r.rescue.JSON(r.opts.FilePath); ok {
			row[r.rescueCol] = js
			r.stats.RowsRescued++
		}
	}
	if r.conv.bad {
		r.stats.CorruptRecords++
	}
	r.stats.RowsRead++
	return row, nil
}

func (r *reader) Stats() fileformat.ReadStats { return r.stats.Clone() }

func (r *reader) Close() error {
	r.done = true
	if r.c != nil {
		r.c.close()
	}
	return nil
}
