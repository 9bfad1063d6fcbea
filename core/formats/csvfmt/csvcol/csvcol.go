// Package csvcol appends CSV records straight into a parquetio.ColumnBatch:
// the typed appenders for string, long, integer, double and boolean
// columns, the reader's own converter (boxed, through ColumnBatch.Value)
// for the other primitive types. It knows nothing of the CSV syntax: the
// csvfmt reader tokenizes a record, resolves each value's null-ness and
// hands the values over in schema order; a record any value of which does
// not fit its column is refused whole (nothing of it stays in the batch),
// and the reader then decides about it as its row path does.
package csvcol

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tributary-io/tributary/core/formats/fileformat/javanum"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// Value is one CSV value, resolved: Null, or the text B (the batch copies
// what it keeps).
type Value struct {
	B    []byte
	Null bool
}

// Conv converts the values the plan does not decode itself, exactly as
// the row path does. The strings it gets are views of reused memory: they
// must not be kept.
type Conv struct {
	// Double is the double conversion (nanValue, positiveInf,
	// negativeInf, Java's number syntax).
	Double func(s string) (float64, bool)
	// Timestamp is the timestamp (ntz false) and timestamp_ntz
	// conversion, to microseconds since the epoch; nil: Other converts
	// them.
	Timestamp func(s string, ntz bool) (int64, bool)
	// Other converts any other column type to its row value.
	Other func(t schema.Type, s string) (any, bool)
}

// kind is how a column is decoded.
type kind uint8

const (
	kOther kind = iota
	kString
	kLong
	kInt
	kDouble
	kBool
	kTimestamp
	kTimestampNTZ
)

// Plan appends records of one schema. It is not safe for concurrent use.
type Plan struct {
	kinds []kind
	types []schema.Type
	conv  Conv
}

// Batchable reports whether records of s can be appended: every field a
// nullable primitive or decimal column.
func Batchable(s *schema.StructType) bool {
	if s == nil || len(s.Fields) == 0 {
		return false
	}
	for _, f := range s.Fields {
		if !f.Nullable {
			return false
		}
		switch f.Type.(type) {
		case schema.PrimitiveType, schema.DecimalType:
		default:
			return false
		}
	}
	return true
}

// NewPlan returns a plan for records of s (Batchable), converting with c.
func NewPlan(s *schema.StructType, c Conv) (*Plan, error) {
	if !Batchable(s) {
		return nil, fmt.Errorf("csvcol: schema %s has a nested or non-nullable column", s)
	}
	p := &Plan{conv: c, kinds: make([]kind, 0, len(s.Fields)), types: make([]schema.Type, 0, len(s.Fields))}
	for _, f := range s.Fields {
		k := kOther
		switch f.Type {
		case schema.String:
			k = kString
		case schema.Long:
			k = kLong
		case schema.Integer:
			k = kInt
		case schema.Double:
			k = kDouble
		case schema.Boolean:
			k = kBool
		case schema.Timestamp, schema.TimestampNTZ:
			if c.Timestamp != nil {
				k = kTimestamp
				if f.Type == schema.TimestampNTZ {
					k = kTimestampNTZ
				}
			}
		}
		p.kinds = append(p.kinds, k)
		p.types = append(p.types, f.Type)
	}
	return p, nil
}

// view is b as a string, without a copy: it must not be kept.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// Append appends the record vals (one per schema field, in order) to b as
// a row. ok is false when a value does not fit its column: b is then as
// it was. err reports a value the batch refused (b as it was too).
func (p *Plan) Append(b *parquetio.ColumnBatch, vals []Value) (ok bool, err error) {
	if len(vals) != len(p.kinds) {
		return false, fmt.Errorf("csvcol: record of %d values, schema of %d", len(vals), len(p.kinds))
	}
	cols := b.Root().Children
	m := b.Mark()
	for i, v := range vals {
		n := cols[i]
		if v.Null {
			b.Null(n, 0, 0)
			continue
		}
		fits := true
		switch p.kinds[i] {
		case kString:
			b.ByteArray(n, v.B, 0)
		case kLong:
			x, small := javanum.SmallInt(view(v.B))
			if !small {
				var perr error
				x, perr = strconv.ParseInt(view(v.B), 10, 64)
				fits = perr == nil
			}
			if fits {
				b.Int64(n, x, 0)
			}
		case kInt:
			x, small := javanum.SmallInt(view(v.B))
			if !small || x != int64(int32(x)) {
				var perr error
				x, perr = strconv.ParseInt(view(v.B), 10, 32)
				fits = perr == nil
			}
			if fits {
				b.Int32(n, int32(x), 0)
			}
		case kDouble:
			var x float64
			if x, fits = p.conv.Double(view(v.B)); fits {
				b.Double(n, x, 0)
			}
		case kBool:
			var x bool
			if x, fits = parseBool(v.B); fits {
				b.Boolean(n, x, 0)
			}
		case kTimestamp, kTimestampNTZ:
			// A batch's timestamp columns are INT64 microseconds (as
			// ColumnBatch.Value writes a time.Time): no boxing.
			var x int64
			if x, fits = p.conv.Timestamp(view(v.B), p.kinds[i] == kTimestampNTZ); fits {
				b.Int64(n, x, 0)
			}
		default:
			var x any
			if x, fits = p.conv.Other(p.types[i], view(v.B)); fits {
				err = b.Value(n, x, 0)
			}
		}
		if !fits || err != nil {
			b.Drop(m)
			return false, err
		}
	}
	b.EndRow()
	return true, nil
}

// parseBool reads a BOOLEAN value: "true" or "false" in any case
// (strings.EqualFold, which also folds some non-ASCII letters: "falſe"
// is false), the common ASCII spellings without EqualFold's loop.
func parseBool(b []byte) (x, ok bool) {
	// c|0x20 is an ASCII letter's lower case, and is it only for that
	// letter and its upper case.
	switch {
	case len(b) == 4 && b[0]|0x20 == 't' && b[1]|0x20 == 'r' && b[2]|0x20 == 'u' && b[3]|0x20 == 'e':
		return true, true
	case len(b) == 5 && b[0]|0x20 == 'f' && b[1]|0x20 == 'a' && b[2]|0x20 == 'l' && b[3]|0x20 == 's' && b[4]|0x20 == 'e':
		return false, true
	}
	switch s := view(b); {
	case strings.EqualFold(s, "true"):
		return true, true
	case strings.EqualFold(s, "false"):
		return false, true
	}
	return false, false
}

// AppendRow appends row (a row as the CSV row reader gives it: one Go
// value or nil per schema field) to b, counting it in b.Rescued when its
// rescued data column (index rescue, -1: none) is set. On an error b is as
// it was.
func AppendRow(b *parquetio.ColumnBatch, row []any, rescue int) error {
	cols := b.Root().Children
	if len(row) != len(cols) {
		return fmt.Errorf("csvcol: row of %d values, schema of %d", len(row), len(cols))
	}
	for i, v := range row {
		if v == nil {
			b.Null(cols[i], 0, 0)
		} else if err := b.Value(cols[i], v, 0); err != nil {
			b.Drop(b.Mark())
			return err
		}
	}
	if rescue >= 0 && row[rescue] != nil {
		b.Rescued++
	}
	b.EndRow()
	return nil
}

// Whole reports whether br's source ends within br's buffer (a file too
// small to be worth a column batch), filling the buffer to find out. It
// returns the reader to go on with: br, or when filling met a read error
// (which bufio hands over only once) a reader that gives the bytes read
// and then that error.
func Whole(br *bufio.Reader) (bool, *bufio.Reader) {
	b, err := br.Peek(br.Size())
	if err == nil || errors.Is(err, io.EOF) {
		return err != nil, br
	}
	rest := append([]byte(nil), b...)
	return false, bufio.NewReaderSize(io.MultiReader(bytes.NewReader(rest), errReader{err}), br.Size())
}

// errReader fails every read with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
