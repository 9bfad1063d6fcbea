// Package textfmt reads files for Tributary the way Databricks Auto Loader
// reads cloudFiles.format "text" (Spark's text source): every line is a row
// of one string column, value.
//
// Lines end at "\n", "\r\n" or "\r" (Hadoop's LineReader), or at the
// lineSep option's string; the end is not part of the value. An empty line
// is a row with the empty string; a file that ends with a line end has no
// empty row after it; an empty file has no rows. A UTF-8 byte order mark
// opening the file is dropped. With wholetext true the whole file is one
// row (an empty file too, as Spark's whole-text reader gives it).
//
// Encoding: the file is decoded from the encoding option's charset (default
// UTF-8) before it is split. Spark only uses encoding to encode lineSep and
// takes the bytes as UTF-8; decoding the file instead gives the same
// result for UTF-8 and real text for every other charset (Delta strings
// must be UTF-8). Invalid UTF-8 is replaced by U+FFFD.
//
// The schema is fixed: value STRING (nullable, as Spark declares it). The
// reader fills the schema's field named value (case-insensitively) and
// leaves any other field null. Lines stream: only the current line is in
// memory (wholetext holds the file).
package textfmt

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/tributary-io/tributary/core/formats/charset"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/options/sparkvalue"
	"github.com/tributary-io/tributary/core/schema"
)

// ValueColumn is the name of the text format's column.
const ValueColumn = "value"

// WholeTextOption is the option that makes a file one row.
const WholeTextOption = "wholetext"

// Format is the cloudFiles.format "text". The zero value is ready to use.
type Format struct{}

// Name returns "text".
func (Format) Name() string { return "text" }

// Schema returns the text format's fixed schema: value STRING.
func (Format) Schema() *schema.StructType {
	return &schema.StructType{Fields: []schema.Field{{Name: ValueColumn, Type: schema.String, Nullable: true}}}
}

// NewInferrer returns an inferrer that reads nothing: the schema is fixed.
func (f Format) NewInferrer(opts fileformat.InferOptions) fileformat.Inferrer {
	return &inferrer{s: f.Schema()}
}

type inferrer struct {
	s      *schema.StructType
	sample fileformat.Sample
}

func (i *inferrer) Add(ctx context.Context, path string, r io.Reader) error {
	i.sample.Files++
	return ctx.Err()
}
func (i *inferrer) Schema() *schema.StructType { return i.s }
func (i *inferrer) Sampled() fileformat.Sample { return i.sample }
func (i *inferrer) Full() bool                 { return false }

// WholeText reads the wholetext option from a format options map (false
// when absent); a bad value wraps fileformat.ErrBadOption.
func WholeText(opts map[string]string) (bool, error) {
	for k, v := range opts {
		if strings.EqualFold(k, WholeTextOption) {
			b, err := sparkvalue.ParseBool(v)
			if err != nil {
				return false, fmt.Errorf("%w: wholetext: %v", fileformat.ErrBadOption, err)
			}
			return b, nil
		}
	}
	return false, nil
}

// Open reads one file as rows of s.
func (Format) Open(ctx context.Context, r io.Reader, s *schema.StructType, opts fileformat.ReadOptions) (fileformat.RowReader, error) {
	col := -1
	for i, f := range s.Fields {
		if strings.EqualFold(f.Name, ValueColumn) {
			col = i
		}
	}
	if col < 0 || !schema.EqualType(s.Fields[col].Type, schema.String) {
		return nil, fmt.Errorf("%w: text needs a string column %q", fileformat.ErrReadSchema, ValueColumn)
	}
	whole, err := WholeText(opts.Options)
	if err != nil {
		return nil, err
	}
	cs := charset.UTF8
	if opts.Text.Encoding != "" {
		if cs, err = charset.Lookup(opts.Text.Encoding); err != nil {
			return nil, fmt.Errorf("%w: encoding: %v", fileformat.ErrBadOption, err)
		}
	}
	rr := &reader{ctx: ctx, n: len(s.Fields), col: col, whole: whole, src: cs.NewReader(r)}
	if !whole {
		rr.sp = newSplitter(rr.src, opts.Text.LineSep)
	}
	return rr, nil
}

type reader struct {
	ctx    context.Context
	n, col int
	whole  bool
	src    io.Reader
	sp     *splitter
	done   bool
	stats  fileformat.ReadStats
}

func (r *reader) Next() ([]any, error) {
	if r.done {
		return nil, io.EOF
	}
	if err := r.ctx.Err(); err != nil {
		return nil, err
	}
	var v string
	if r.whole {
		b, err := io.ReadAll(r.src)
		if err != nil {
			return nil, err
		}
		b, _ = trimBOM(b)
		v, r.done = text(b), true
	} else {
		b, err := r.sp.next()
		if err == io.EOF {
			r.done = true
			return nil, io.EOF
		}
		if err != nil {
			return nil, err
		}
		v = text(b)
	}
	row := make([]any, r.n)
	row[r.col] = v
	r.stats.RowsRead++
	return row, nil
}

func trimBOM(b []byte) ([]byte, bool) {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:], true
	}
	return b, false
}

// text copies b into a string, replacing invalid UTF-8 by U+FFFD.
func text(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func (r *reader) Stats() fileformat.ReadStats { return r.stats }

func (r *reader) Close() error {
	r.done = true
	return nil
}
