package csvfmt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tributary-io/tributary/core/formats/charset"
	"github.com/tributary-io/tributary/core/formats/csvfmt/csvtok"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// icol is one inferred column.
type icol struct {
	name string
	t    ctype
}

// inferrer implements fileformat.Inferrer for CSV.
type inferrer struct {
	opts   fileformat.InferOptions
	o      Options
	optErr error
	mode   fileformat.ParseMode
	cols   []icol
	index  map[string]int // lower-cased name -> column
	sample fileformat.Sample
	max    int64
	// sampler is samplingRatio (nil: every record).
	sampler *fileformat.Sampler
	par     parConfig
	// checkUTF8 keeps the fold's tokenizers validating UTF-8 (tests:
	// the oracle of skipUTF8).
	checkUTF8 bool
}

func newInferrer(opts fileformat.InferOptions) *inferrer {
	in := &inferrer{opts: opts, index: map[string]int{}, max: opts.MaxBytes}
	var err error
	in.o, err = ParseOptions(opts.Options)
	if err == nil {
		in.mode, err = opts.Mode.Normalize()
	}
	if err == nil && opts.MaxBytes < 0 {
		err = fmt.Errorf("%w: cloudFiles.schemaInference.sampleSize.numBytes %d is negative", fileformat.ErrBadOption, opts.MaxBytes)
	}
	if err == nil {
		_, err = decoder(opts.Text)
	}
	if err == nil {
		in.sampler, err = fileformat.NewSampler(opts.Options)
	}
	if err != nil {
		in.optErr = fmt.Errorf("csvfmt: %w", err)
	}
	if in.max == 0 {
		in.max = fileformat.DefaultSampleBytes
	}
	return in
}

// decoder resolves the encoding option.
func decoder(t fileformat.TextOptions) (*charset.Charset, error) {
	if t.Encoding == "" {
		return charset.UTF8, nil
	}
	c, err := charset.Lookup(t.Encoding)
	if err != nil {
		return nil, fmt.Errorf("%w: encoding: %v", fileformat.ErrBadOption, err)
	}
	return c, nil
}

// Full reports whether the byte budget is used up.
func (in *inferrer) Full() bool { return in.sample.Bytes >= in.max }

// Sampled reports what was sampled so far.
func (in *inferrer) Sampled() fileformat.Sample { return in.sample }

// column returns the index of the column named name, adding it when new
// (names match case-insensitively; the first-seen spelling wins).
func (in *inferrer) column(name string) int {
	key := strings.ToLower(name)
	if i, ok := in.index[key]; ok {
		return i
	}
	in.index[key] = len(in.cols)
	in.cols = append(in.cols, icol{name: name})
	return len(in.cols) - 1
}

// Add samples one file.
func (in *inferrer) Add(ctx context.Context, path string, r io.Reader) error {
	if in.optErr != nil {
		return in.optErr
	}
	if in.Full() {
		return fmt.Errorf("csvfmt: %s: %w (%d bytes)", path, fileformat.ErrSampleFull, in.max)
	}
	cs, _ := decoder(in.opts.Text)
	cr := fileformat.CountBytes(r)
	defer func() { in.sample.Bytes += cr.Count() }()
	in.sample.Files++
	o := in.o
	tk := newTokenizer(cs.NewReader(cr), &o, in.opts.Text.LineSep)
	for {
		err := tk.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("csvfmt: read %s line %d: %w", path, tk.Line(), err)
		}
		f := in.fileFolder(tk)
		if !o.Header {
			if err := in.record(f, tk, path, 1); err != nil {
				return err
			}
		}
		in.skipUTF8(tk)
		if in.parallel() {
			if br, ok := tk.Rest(); ok {
				return in.parInfer(ctx, path, br, f, tk.Cur())
			}
		}
		return in.records(ctx, f, tk, path, 1)
	}
}

// folder folds the values of records into column types.
type folder struct {
	o     *Options
	infer bool // inferColumnTypes
	pd    bool // prefersDecimal
	cols  []int
	types []icol // indexed as inferrer.cols
	// records counts the records folded (not malformed, sampled).
	records int64
	// last (when not nil) is, for each column, the index of the last
	// record (counted in records, from 0) that changed its type (-1:
	// none).
	last []int64
	// changed is set when a type changed (a reader's check: foldRead).
	changed bool
	// skip (a reader's fold of a plainly read record: foldRecord), for
	// each file column, is the kind its values keep (noKind: none).
	skip []kind
	// live are the file columns, in order, whose type was not STRING
	// when last folded (STRING is the top of the lattice: a column that
	// reaches it never leaves it); nil: not made yet.
	live []int
}

func (in *inferrer) newFolder(cols []int, types []icol) *folder {
	return &folder{o: &in.o, infer: in.opts.InferColumnTypes, pd: in.opts.PrefersDecimal, cols: cols, types: types}
}

// fold widens the types with the values of tk's record.
func (f *folder) fold(tk *csvtok.Tokenizer) {
	if f.live == nil {
		f.live = make([]int, len(f.cols))
		for i := range f.live {
			f.live[i] = i
		}
	}
	toks, text := tk.Tokens()
	live, n := f.live, len(toks)
	for k := 0; k < len(live); k++ {
		i := live[k]
		if i >= n {
			break
		}
		j := f.cols[i]
		c := &f.types[j]
		if c.t.K == kString {
			live = append(live[:k], live[k+1:]...) // nothing widens it
			k--
			continue
		}
		// inferField keeps nothing of the value: a view of the
		// tokenizer's buffer, no copy.
		s, null := valueOf(toks[i], text, f.o)
		if null || (f.skip != nil && f.skip[i] == c.t.K && (c.t.K != kTimestamp || trimmed(s))) || f.o.keeps(c.t.K, s) {
			continue
		}
		if s, null = repair(tk, i, s, f.o); null {
			continue
		}
		t := f.o.inferField(c.t, s, f.pd)
		if t != c.t {
			c.t, f.changed = t, true
			if f.last != nil {
				f.last[j] = f.records
			}
		}
	}
	f.live = live
}

// record samples tk's record (its lines numbered from base on): a
// malformed one fails FAILFAST and is skipped otherwise.
func (in *inferrer) record(f *folder, tk *csvtok.Tokenizer, path string, base int64) error {
	if !in.sampler.Take() {
		return nil
	}
	if tk.Bad() != "" {
		if in.mode == fileformat.FailFast {
			return fmt.Errorf("csvfmt: %s line %d: %w: %s", path, base+tk.Line()-1, fileformat.ErrMalformedRecord, tk.Bad())
		}
		return nil
	}
	in.sample.Records++
	if f.infer {
		f.fold(tk)
	}
	f.records++
	return nil
}

// records samples the rest of tk's records, its lines numbered from base
// on.
func (in *inferrer) records(ctx context.Context, f *folder, tk *csvtok.Tokenizer, path string, base int64) error {
	for n := 1; ; n++ {
		err := tk.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("csvfmt: read %s line %d: %w", path, base+tk.Line()-1, err)
		}
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := in.record(f, tk, path, base); err != nil {
			return err
		}
	}
}

// skipUTF8 lets tk, which reads records to fold (after the header),
// skip UTF-8 validation (csvtok.Tokenizer.SkipUTF8Check) when the fold
// can repair its values exactly: the nullValue is valid UTF-8 (so that a
// value equal to it is valid, and read alike by both paths).
func (in *inferrer) skipUTF8(tk *csvtok.Tokenizer) {
	if !in.checkUTF8 && utf8.ValidString(in.o.NullValue) {
		tk.SkipUTF8Check()
	}
}

// repair is value i of tk's record (s, not null) as the validating
// tokenizer reads it: when tk skips UTF-8 validation and the value's text
// is not valid, one U+FFFD per invalid byte, then null when that is the
// nullValue. The fold repairs what keeps does not take (ASCII: valid).
func repair(tk *csvtok.Tokenizer, i int, s string, o *Options) (string, bool) {
	if !tk.UTF8Unchecked() || len(tk.Bytes(i)) == 0 || utf8.ValidString(s) {
		return s, false
	}
	if s = string([]rune(s)); s == o.NullValue {
		return "", true
	}
	return s, false
}

// tokenValue returns value i of the record: null for an empty unquoted
// value, a skipped one (SKIP_VALUE) and the nullValue; a quoted empty value
// is the emptyValue.
func tokenValue(tk *csvtok.Tokenizer, i int, o *Options) (string, bool) {
	s, null := tokenView(tk, i, o)
	return strings.Clone(s), null
}

// tokenView is tokenValue as a view of the tokenizer's buffer, valid
// until the next record: for uses that keep nothing of it.
func tokenView(tk *csvtok.Tokenizer, i int, o *Options) (string, bool) {
	toks, text := tk.Tokens()
	return valueOf(toks[i], text, o)
}

// valueOf is tokenView of token t, text being the record's
// (csvtok.Tokenizer.Tokens): for a loop over a record's values.
func valueOf(t csvtok.Token, text []byte, o *Options) (string, bool) {
	if t.Skip || (t.Start == t.End && !t.Quoted) {
		return "", true
	}
	s := o.EmptyValue
	if b := text[t.Start:t.End]; len(b) > 0 {
		s = unsafe.String(&b[0], len(b))
	}
	if s == o.NullValue {
		return "", true
	}
	return s, false
}

// Schema returns the inferred schema: columns in first-seen order (STRING
// without inferColumnTypes, and for null-only columns), the hints applied
// and the rescued data column appended.
func (in *inferrer) Schema() *schema.StructType {
	st := &schema.StructType{}
	for _, c := range in.cols {
		if in.opts.RescuedDataColumn != "" && strings.EqualFold(c.name, in.opts.RescuedDataColumn) {
			continue
		}
		st.Fields = append(st.Fields, schema.Field{Name: c.name, Type: c.t.Schema(), Nullable: true})
	}
	st = schema.ApplyHints(st, in.opts.Hints)
	if in.opts.RescuedDataColumn != "" {
		st.Fields = slices.DeleteFunc(st.Fields, func(f schema.Field) bool {
			return strings.EqualFold(f.Name, in.opts.RescuedDataColumn)
		})
		st.Fields = append(st.Fields, schema.Field{Name: in.opts.RescuedDataColumn, Type: schema.String, Nullable: true})
	}
	return st
}
