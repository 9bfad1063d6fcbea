// Package columnar holds what Tributary's columnar input formats (Parquet,
// ORC) share: schema inference from the files' own schemas (footers), with
// Spark's mergeSchema, and a reader that conforms a file's rows to the
// stream's schema with Auto Loader's rescued-data semantics. The formats
// themselves (formats/parquetfmt, formats/orcfmt) only decode their files.
package columnar

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// FooterFunc reads a file's schema (as Delta types) and row count without
// reading its rows.
type FooterFunc func(f fileformat.File) (*schema.StructType, int64, error)

// Inferrer infers a stream's schema from the schemas the sampled files
// carry. Without mergeSchema the schema is the first sampled file's, as
// Spark takes one file's footer (the inference is then full after one
// file); with it, the schemas of every sampled file are merged (columns in
// first-seen order, types reconciled by schema.Merge; an incompatible pair
// fails the inference naming the file and the column). Every column is
// nullable, as Spark reads files. Schema hints and the rescued data column
// apply as for the other formats.
type Inferrer struct {
	opts   fileformat.InferOptions
	footer FooterFunc
	merge  bool
	s      *schema.StructType
	sample fileformat.Sample
}

// NewInferrer returns an inferrer reading schemas with footer. merge is
// the reader option mergeSchema.
func NewInferrer(opts fileformat.InferOptions, footer FooterFunc, merge bool) *Inferrer {
	return &Inferrer{opts: opts, footer: footer, merge: merge}
}

// Add samples a file given as a stream: it is read whole into memory (see
// fileformat.ReadAllFile); engines use AddFile.
func (in *Inferrer) Add(ctx context.Context, path string, r io.Reader) error {
	if in.Full() {
		return fileformat.ErrSampleFull
	}
	f, err := fileformat.ReadAllFile(r)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return in.AddFile(ctx, path, f)
}

// AddFile samples one file's schema; its size counts against the byte
// budget.
func (in *Inferrer) AddFile(ctx context.Context, path string, f fileformat.File) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if in.Full() {
		return fileformat.ErrSampleFull
	}
	fs, n, err := in.footer(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	in.sample.Files++
	in.sample.Bytes += f.Size()
	in.sample.Records += n
	if in.s == nil {
		in.s = fs
		return nil
	}
	merged, err := schema.Merge(in.s, fs)
	if err != nil {
		return fmt.Errorf("mergeSchema: file %s: %w", path, err)
	}
	in.s = merged
	return nil
}

// Full reports whether the byte budget is used up or, without mergeSchema,
// a file was sampled.
func (in *Inferrer) Full() bool {
	max := in.opts.MaxBytes
	if max <= 0 {
		max = fileformat.DefaultSampleBytes
	}
	return in.sample.Bytes >= max || (!in.merge && in.sample.Files > 0)
}

// Sampled reports what was sampled.
func (in *Inferrer) Sampled() fileformat.Sample { return in.sample }

// Schema returns the sampled schema, all nullable, with the hints applied
// and the rescued data column last (a sampled column of that name is left
// out: its values are rescued).
func (in *Inferrer) Schema() *schema.StructType {
	out := &schema.StructType{}
	if in.s != nil {
		for _, f := range in.s.Fields {
			if in.opts.RescuedDataColumn != "" && strings.EqualFold(f.Name, in.opts.RescuedDataColumn) {
				continue
			}
			f.Type = Nullable(f.Type)
			f.Nullable = true
			out.Fields = append(out.Fields, f)
		}
	}
	out = schema.ApplyHints(out, in.opts.Hints)
	if in.opts.RescuedDataColumn != "" {
		out.Fields = append(out.Fields, schema.Field{Name: in.opts.RescuedDataColumn, Type: schema.String, Nullable: true})
	}
	return out
}

// Nullable returns t with every nested field, element and map value
// nullable (Spark's asNullable).
func Nullable(t schema.Type) schema.Type {
	switch t := t.(type) {
	case *schema.StructType:
		out := &schema.StructType{Fields: make([]schema.Field, len(t.Fields))}
		for i, f := range t.Fields {
			f.Type = Nullable(f.Type)
			f.Nullable = true
			out.Fields[i] = f
		}
		return out
	case *schema.ArrayType:
		return &schema.ArrayType{Element: Nullable(t.Element), ContainsNull: true}
	case *schema.MapType:
		return &schema.MapType{Key: Nullable(t.Key), Value: Nullable(t.Value), ValueContainsNull: true}
	}
	return t
}
