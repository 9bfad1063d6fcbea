package jsoninfer

import (
	"cmp"
	"fmt"
	"maps"
	"math"

	"github.com/tributary-io/tributary/core/formats/charset"
	"github.com/tributary-io/tributary/core/formats/datetimefmt"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsontape"
	"github.com/tributary-io/tributary/core/schema"
)

// One-pass inference (fileformat.FoldInferrer): a reader converting a
// file with the schema inferred from a prefix of it checks each record
// with a Checker. The type scanner (scan.go) folds the record into a copy
// of the prefix's types and logs every change it makes (its undo log), so
// a record it scans without a logged change leaves the inference's types
// exactly as they were: Add over the whole file, whose fold goes on from
// the prefix's types, would end with them. Anything else abandons: a
// record the scanner gives up on, a new field (even a null one), a
// null-only type gaining a value, long meeting double, a decimal (widen
// logs even one that fits), a struct's new field, an array's element
// widening, a string inferTimestamp does not read.

// Folds reports whether readers may check records against in's types
// (ReadOptions.Fold): its options are valid, it samples every record (no
// samplingRatio), and a cut after a "\n" is a record boundary (not
// multiLine, no lineSep, UTF-8).
func (in *inferrer) Folds() bool {
	whole, err := jsontape.MultiLine(in.opts.Options)
	cs, cerr := charset.Lookup(cmp.Or(in.opts.Text.Encoding, "UTF-8"))
	return in.optErr == nil && in.sampler == nil && in.opts.Text.LineSep == "" && !in.sc.off && err == nil && !whole &&
		cerr == nil && cs == charset.UTF8
}

// Checker checks records against the types an inferrer inferred from a
// prefix of a file (a one-pass inference): Keeps reports whether a record
// leaves them all as they are. A Checker is for one goroutine: a reader
// makes its own, or takes over the one a closed reader left when Reuses
// says it may.
type Checker struct {
	in   *inferrer
	dead bool
	// src is the inferrer cloned, sampled what it had sampled then: an
	// Add or Merge since changes its sample (Reuses).
	src     *inferrer
	sampled fileformat.Sample
}

// NewChecker returns a Checker of inf's types (inf is an inferrer of this
// package whose Folds is true, only read) for a reader of text and
// options, which must be inf's: the lines and their syntax must be the
// inference's. The error wraps fileformat.ErrFoldAbandoned.
func NewChecker(inf fileformat.Inferrer, text fileformat.TextOptions, options map[string]string) (*Checker, error) {
	src, ok := inf.(*inferrer)
	if !ok || !src.Folds() {
		return nil, fmt.Errorf("jsoninfer: %w: the inferrer cannot fold", fileformat.ErrFoldAbandoned)
	}
	if src.opts.Text != text || !maps.Equal(src.opts.Options, options) {
		return nil, fmt.Errorf("jsoninfer: %w: inference and read options differ", fileformat.ErrFoldAbandoned)
	}
	in := &inferrer{opts: src.opts, mode: src.mode, corrupt: src.corrupt, hints: src.hints, root: *cloneType(&src.root),
		max: math.MaxInt64, tape: jsontape.Tape{Syn: src.tape.Syn}}
	if src.dt != nil {
		in.dt, _ = datetimefmt.FromOptions(src.opts.Options) // src's options compiled
	}
	return &Checker{in: in, src: src, sampled: src.sample}, nil
}

// Reuses reports whether c, left by a closed reader, may be the Checker
// of a reader that NewChecker(inf, text, options) would give one: c
// never refused a record (Keeps false may leave a type changed: the scan
// is not undone), it was made of inf, whose types are c's (inf sampled
// nothing since: only Add and Merge change them, and both change the
// sample), and text and options are inf's. A record Keeps accepts
// changes no type (no logged change), only the scanner's hints (guess),
// so such a c is NewChecker's clone. Comparing costs tens of nanoseconds,
// where a clone of the types costs microseconds.
func (c *Checker) Reuses(inf fileformat.Inferrer, text fileformat.TextOptions, options map[string]string) bool {
	return c != nil && !c.dead && inf == fileformat.Inferrer(c.src) && c.src.sample == c.sampled &&
		c.src.opts.Text == text && maps.Equal(c.src.opts.Options, options)
}

// Keeps reports whether the non-blank line keeps every type of the
// inference: Add would sample it without a change. Once it reports
// false, it always does.
func (c *Checker) Keeps(line []byte) bool {
	in := c.in
	if c.dead || len(line) > maxScan {
		c.dead = true
		return false
	}
	s := &in.sc
	s.b = line
	ok := in.scanTop()
	s.b = nil
	if !ok || len(s.log) > 0 {
		c.dead = true // the types may have changed: no more records
		return false
	}
	return true
}

// Proves reports whether a record that package jsonfast decodes whole
// into a batch of s (a reader's schema, rescued its rescued data column)
// keeps every type, so that Keeps need not scan it. jsonfast decodes a
// standard JSON object whose every key names a field of s exactly and
// once, its values null or fitting as they are: any scalar into STRING,
// integers of up to 18 digits into BIGINT, numbers into DOUBLE, booleans
// into BOOLEAN, objects into structs, arrays into arrays. They keep the
// types when each field of s is the inferred field of its name, of the
// kind that takes them all: string (not null-only, also read as string),
// long, double, boolean, structs and arrays of them; not with hints.
func (c *Checker) Proves(s *schema.StructType, rescued string) bool {
	if c.in.hints != nil {
		return false
	}
	for _, f := range s.Fields {
		if f.Name != rescued && !c.proves(f.Name, f.Type, &c.in.root) {
			return false
		}
	}
	return true
}

// proves is Proves for field name of type t in inferred struct st.
func (c *Checker) proves(name string, t schema.Type, st *itype) bool {
	i, ok := st.exact[name]
	if !ok || st.fields[i].name != name {
		return false
	}
	it := st.fields[i].t
	switch t := t.(type) {
	case *schema.StructType:
		for _, f := range t.Fields {
			if it.kind != iStruct || !c.proves(f.Name, f.Type, it) {
				return false
			}
		}
		return it.kind == iStruct
	case *schema.ArrayType:
		if it.kind != iArray || it.elem == nil {
			return false
		}
		elem := &itype{kind: iStruct, fields: []ifield{{name: "element", t: it.elem}}, exact: map[string]int{"element": 0}}
		return c.proves("element", t.Element, elem)
	}
	switch t {
	case schema.String:
		return it.kind == iString
	case schema.Long:
		return it.kind == iLong
	case schema.Double:
		return it.kind == iDouble
	case schema.Boolean:
		return it.kind == iBool && !c.in.opts.PrimitivesAsString
	}
	return false
}

// cloneType is a deep copy of it.
func cloneType(it *itype) *itype {
	c := *it
	c.guess = nil
	c.index, c.exact = maps.Clone(it.index), maps.Clone(it.exact)
	if it.fields != nil {
		c.fields = make([]ifield, len(it.fields))
		for i, f := range it.fields {
			f.t = cloneType(f.t)
			f.hintFrom, f.hint = nil, nil
			c.fields[i] = f
		}
	}
	if it.elem != nil {
		c.elem = cloneType(it.elem)
	}
	return &c
}

var _ fileformat.FoldInferrer = (*inferrer)(nil)
