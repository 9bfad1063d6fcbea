package columnar

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// Source yields the rows of one file in the file's own schema (the row
// representation of package schema).
type Source interface {
	// Next returns the next row, io.EOF after the last one.
	Next() ([]any, error)
	// Close releases the source.
	Close() error
}

// Reader conforms a Source's rows to the stream's schema, as Auto Loader
// reads typed formats:
//   - columns match by name: exactly, then case-insensitively when
//     ReadOptions.CaseInsensitive is set or rescue is disabled; with rescue
//     and case-sensitive matching, a column differing only by case is
//     rescued;
//   - a value whose type widens to its column's type (int to long, float to
//     double, a decimal to a wider one, date to timestamp_ntz; see
//     schema.WidenType) is widened; any other type mismatch is rescued;
//   - a column the schema lacks (at any struct depth) is reported in
//     ReadStats.UnknownFields when the file is opened, whatever its values,
//     and its non-null values are rescued;
//   - a schema column the file lacks is null.
//
// Rescued values are rendered as JSON (see AppendValueJSON) in the rescued
// data column, with "_file_path". Without a rescued data column they are
// dropped (ReadStats.ValuesDropped).
type Reader struct {
	src     Source
	openErr error
	top     *structPlan
	opts    fileformat.ReadOptions
	width   int
	rescIdx int
	rescue  fileformat.Rescue
	stats   fileformat.ReadStats
	seenM   map[string]bool
	done    bool
}

// NewReader returns a Reader over src, whose rows have schema file, for
// the stream schema s. openErr, when not nil, is the error of opening the
// file: the first Next returns it (so that callers judge it like a read
// failure); src is then ignored.
func NewReader(src Source, file, s *schema.StructType, opts fileformat.ReadOptions, openErr error) (*Reader, error) {
	rd := &Reader{src: src, openErr: openErr, opts: opts, width: len(s.Fields), rescIdx: -1, seenM: map[string]bool{}}
	if opts.RescuedDataColumn != "" {
		rd.rescIdx = s.FieldIndex(opts.RescuedDataColumn)
		if rd.rescIdx < 0 || s.Fields[rd.rescIdx].Type != schema.String {
			return nil, fmt.Errorf("%w: the rescued data column %q must be a top-level string column", fileformat.ErrReadSchema, opts.RescuedDataColumn)
		}
	}
	if openErr == nil {
		fold := opts.CaseInsensitive || opts.RescuedDataColumn == ""
		seenU := map[string]bool{}
		rd.top = planStruct(s, file, "", fold, rd.rescIdx, func(p string) {
			if !seenU[p] && len(rd.stats.UnknownFields) < fileformat.MaxReportedPaths {
				seenU[p] = true
				rd.stats.UnknownFields = append(rd.stats.UnknownFields, p)
			}
		})
	}
	return rd, nil
}

// Next returns the next row of s.
func (rd *Reader) Next() ([]any, error) {
	if rd.done {
		return nil, io.EOF
	}
	if rd.openErr != nil {
		return nil, rd.openErr
	}
	in, err := rd.src.Next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			rd.done = true
		}
		return nil, err
	}
	if len(in) != len(rd.top.fileTypes) {
		return nil, fmt.Errorf("row of %d values, file schema has %d columns", len(in), len(rd.top.fileTypes))
	}
	out := make([]any, rd.width)
	rd.rescue.Reset()
	rd.top.apply(rd, in, out, nil)
	if rd.rescIdx >= 0 {
		if js, ok := rd.rescue.JSON(rd.opts.FilePath); ok {
			out[rd.rescIdx] = js
			rd.stats.RowsRescued++
		}
	}
	rd.stats.RowsRead++
	return out, nil
}

// Stats reports what was read so far.
func (rd *Reader) Stats() fileformat.ReadStats { return rd.stats.Clone() }

// Close closes the source; Next returns io.EOF after it.
func (rd *Reader) Close() error {
	if rd.done && rd.src == nil {
		return nil
	}
	rd.done = true
	src := rd.src
	rd.src = nil
	if src != nil {
		return src.Close()
	}
	return nil
}

// miss handles a value that cannot be stored: rescued at path, or dropped.
func (rd *Reader) miss(path []string, v any, t schema.Type, mismatch bool) {
	if mismatch {
		p := strings.Join(path, ".")
		if !rd.seenM[p] && len(rd.stats.MismatchedFields) < fileformat.MaxReportedPaths {
			rd.seenM[p] = true
			rd.stats.MismatchedFields = append(rd.stats.MismatchedFields, p)
		}
	}
	if rd.rescIdx < 0 {
		rd.stats.ValuesDropped++
		return
	}
	rd.rescue.AddJSON(path, AppendValueJSON(nil, v, t))
}

// structPlan maps a file struct onto a schema struct.
type structPlan struct {
	names     []string      // schema field names
	src       []int         // file field index per schema field, -1 if none
	conv      []*valuePlan  // per schema field
	fileTypes []schema.Type // file field types
	unknown   []int         // file fields the schema lacks
	fileNames []string
}

type planKind uint8

const (
	kindSame planKind = iota
	kindWiden
	kindStruct
	kindArray
	kindMap
	kindMismatch
)

// valuePlan converts one value of file type from to schema type to.
type valuePlan struct {
	kind     planKind
	from, to schema.Type
	st       *structPlan
	elem     *valuePlan // array element, map value
	key      *valuePlan
}

func planStruct(s, file *schema.StructType, prefix string, fold bool, skip int, unknown func(string)) *structPlan {
	p := &structPlan{src: make([]int, len(s.Fields)), conv: make([]*valuePlan, len(s.Fields))}
	used := make([]bool, len(file.Fields))
	for _, f := range file.Fields {
		p.fileTypes = append(p.fileTypes, f.Type)
		p.fileNames = append(p.fileNames, f.Name)
	}
	for i, f := range s.Fields {
		p.names = append(p.names, f.Name)
		p.src[i] = -1
		if i == skip {
			continue
		}
		j := matchField(file, f.Name, fold, used)
		if j < 0 {
			continue
		}
		used[j] = true
		p.src[i] = j
		p.conv[i] = planValue(file.Fields[j].Type, f.Type, prefix+f.Name+".", fold, unknown)
	}
	for j, u := range used {
		if !u {
			p.unknown = append(p.unknown, j)
			unknown(prefix + file.Fields[j].Name)
		}
	}
	return p
}

func matchField(file *schema.StructType, name string, fold bool, used []bool) int {
	for j, f := range file.Fields {
		if !used[j] && f.Name == name {
			return j
		}
	}
	if fold {
		for j, f := range file.Fields {
			if !used[j] && strings.EqualFold(f.Name, name) {
				return j
			}
		}
	}
	return -1
}

func planValue(from, to schema.Type, prefix string, fold bool, unknown func(string)) *valuePlan {
	vp := &valuePlan{from: from, to: to}
	switch ft := from.(type) {
	case *schema.StructType:
		if tt, ok := to.(*schema.StructType); ok {
			vp.kind, vp.st = kindStruct, planStruct(tt, ft, prefix, fold, -1, unknown)
			return vp
		}
	case *schema.ArrayType:
		if tt, ok := to.(*schema.ArrayType); ok {
			vp.kind, vp.elem = kindArray, planValue(ft.Element, tt.Element, prefix+"element.", fold, unknown)
			return vp
		}
	case *schema.MapType:
		if tt, ok := to.(*schema.MapType); ok {
			vp.kind = kindMap
			vp.key = planValue(ft.Key, tt.Key, prefix+"key.", fold, unknown)
			vp.elem = planValue(ft.Value, tt.Value, prefix+"value.", fold, unknown)
			return vp
		}
	}
	switch {
	case schema.EqualType(from, to):
		vp.kind = kindSame
	case widens(from, to):
		vp.kind = kindWiden
	default:
		vp.kind = kindMismatch
	}
	return vp
}

// widens reports whether a value of from is stored unchanged in meaning as
// a value of to.
func widens(from, to schema.Type) bool {
	if _, ok := from.(schema.PrimitiveType); !ok {
		if _, ok := from.(schema.DecimalType); !ok {
			return false
		}
	}
	w, ok := schema.WidenType(from, to)
	return ok && schema.EqualType(w, to)
}

// apply fills out (schema order) from in (file order); path is the struct's
// path for rescued values.
func (p *structPlan) apply(rd *Reader, in, out []any, path []string) {
	for i, j := range p.src {
		if j < 0 || in[j] == nil {
			continue
		}
		fp := append(path[:len(path):len(path)], p.names[i])
		v, ok := p.conv[i].convert(rd, in[j], fp)
		if !ok {
			rd.miss(fp, in[j], p.fileTypes[j], true)
			continue
		}
		out[i] = v
	}
	for _, j := range p.unknown {
		if in[j] != nil {
			rd.miss(append(path[:len(path):len(path)], p.fileNames[j]), in[j], p.fileTypes[j], false)
		}
	}
}

// convert converts a non-null value. ok is false for a mismatch (the
// caller rescues the whole value); a struct's own mismatches and unknown
// fields are rescued at their nested paths.
func (vp *valuePlan) convert(rd *Reader, v any, path []string) (any, bool) {
	switch vp.kind {
	case kindSame:
		return v, true
	case kindWiden:
		return widenValue(v, vp.to)
	case kindStruct:
		in, ok := v.([]any)
		if !ok || len(in) != len(vp.st.fileTypes) {
			return nil, false
		}
		out := make([]any, len(vp.st.names))
		vp.st.apply(rd, in, out, path)
		return out, true
	case kindArray:
		in, ok := v.([]any)
		if !ok {
			return nil, false
		}
		out := make([]any, len(in))
		for i, e := range in {
			if e == nil {
				continue
			}
			c, ok := vp.elem.convertWhole(e)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	case kindMap:
		in, ok := v.([]schema.MapEntry)
		if !ok {
			return nil, false
		}
		out := make([]schema.MapEntry, len(in))
		for i, e := range in {
			k, ok := vp.key.convertWhole(e.Key)
			if !ok {
				return nil, false
			}
			var val any
			if e.Value != nil {
				if val, ok = vp.elem.convertWhole(e.Value); !ok {
					return nil, false
				}
			}
			out[i] = schema.MapEntry{Key: k, Value: val}
		}
		return out, true
	}
	return nil, false
}

// convertWhole converts a value inside a collection: any mismatch or
// unknown field inside makes the whole collection a mismatch (a collection
// is rescued whole).
func (vp *valuePlan) convertWhole(v any) (any, bool) {
	switch vp.kind {
	case kindSame:
		return v, true
	case kindWiden:
		return widenValue(v, vp.to)
	case kindStruct:
		in, ok := v.([]any)
		if !ok || len(in) != len(vp.st.fileTypes) {
			return nil, false
		}
		for _, j := range vp.st.unknown {
			if in[j] != nil {
				return nil, false
			}
		}
		out := make([]any, len(vp.st.names))
		for i, j := range vp.st.src {
			if j < 0 || in[j] == nil {
				continue
			}
			c, ok := vp.st.conv[i].convertWhole(in[j])
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	case kindArray, kindMap:
		return vp.convert(nil, v, nil)
	}
	return nil, false
}

// widenValue converts v to the wider type to (see schema.WidenType).
func widenValue(v any, to schema.Type) (any, bool) {
	if d, ok := to.(schema.DecimalType); ok {
		var u *big.Int
		scale := 0
		switch x := v.(type) {
		case int8:
			u = big.NewInt(int64(x))
		case int16:
			u = big.NewInt(int64(x))
		case int32:
			u = big.NewInt(int64(x))
		case int64:
			u = big.NewInt(x)
		case schema.Decimal:
			u, scale = x.Unscaled, x.Scale
		default:
			return nil, false
		}
		if u == nil || scale > d.Scale {
			return nil, false
		}
		r := new(big.Int).Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale-scale)), nil))
		if new(big.Int).Abs(r).Cmp(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Precision)), nil)) >= 0 {
			return nil, false
		}
		return schema.Decimal{Unscaled: r, Scale: d.Scale}, true
	}
	var i int64
	isInt := true
	switch x := v.(type) {
	case int8:
		i = int64(x)
	case int16:
		i = int64(x)
	case int32:
		i = int64(x)
	case int64:
		i = x
	default:
		isInt = false
	}
	switch to {
	case schema.Short:
		if isInt {
			return int16(i), true
		}
	case schema.Integer:
		if isInt {
			return int32(i), true
		}
	case schema.Long:
		if isInt {
			return i, true
		}
	case schema.Double:
		if isInt {
			return float64(i), true
		}
		if f, ok := v.(float32); ok {
			return float64(f), true
		}
	case schema.TimestampNTZ:
		if d, ok := v.(schema.Date); ok {
			return time.Unix(int64(d)*86400, 0).UTC(), true
		}
	}
	return nil, false
}
