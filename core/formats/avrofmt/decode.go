package avrofmt

import (
	"math/big"
	"time"
	"unicode/utf8"

	"github.com/tributary-io/tributary/core/schema"
)

// member is a value of a union that Spark maps to a struct: the index of
// its branch among the non-null branches, and the value.
type member struct {
	i int
	v any
}

// maxDepth bounds nesting while decoding (schemas are not recursive, so
// this only guards against pathological schemas).
const maxDepth = 1000

// value decodes one value of n in its natural Go form: nil, bool, int32,
// int64, float32, float64, string, []byte (copied), schema.Date, time.Time,
// schema.Decimal, []any (record fields in schema order, array elements),
// []schema.MapEntry (string keys), member (struct-mapped unions). Unions
// mapped to long or double give int64 or float64. Errors are left in d.err.
func (d *dec) value(n *node, depth int) any {
	if d.err != nil {
		return nil
	}
	if depth > maxDepth {
		d.fail("nesting deeper than %d", maxDepth)
		return nil
	}
	switch n.kind {
	case kNull:
		return nil
	case kBoolean:
		return d.boolean()
	case kInt:
		return d.int()
	case kDate:
		return schema.Date(d.int())
	case kLong:
		return d.long()
	case kTimestampMillis, kLocalMillis:
		return time.UnixMilli(d.long()).UTC()
	case kTimestampMicros, kLocalMicros:
		return time.UnixMicro(d.long()).UTC()
	case kFloat:
		return d.float()
	case kDouble:
		return d.double()
	case kString:
		b := d.bytes()
		if !utf8.Valid(b) {
			d.fail("string is not valid UTF-8")
			return nil
		}
		return string(b)
	case kBytes:
		return append([]byte{}, d.bytes()...)
	case kFixed:
		return append([]byte{}, d.take(int64(n.size))...)
	case kDecimalBytes:
		return d.decimalOf(d.bytes(), n.decimal)
	case kDecimalFixed:
		return d.decimalOf(d.take(int64(n.size)), n.decimal)
	case kEnum:
		i := d.long()
		if i < 0 || i >= int64(len(n.symbols)) {
			d.fail("enum index %d out of range (%d symbols)", i, len(n.symbols))
			return nil
		}
		return n.symbols[i]
	case kRecord:
		out := make([]any, len(n.fields))
		for i, f := range n.fields {
			out[i] = d.value(f.n, depth+1)
		}
		return out
	case kArray:
		out := []any{}
		for {
			c := d.blockCount(n.items.minSize)
			if c == 0 || d.err != nil {
				return out
			}
			for range c {
				out = append(out, d.value(n.items, depth+1))
				if d.err != nil {
					return nil
				}
			}
		}
	case kMap:
		out := []schema.MapEntry{}
		for {
			c := d.blockCount(1 + n.values.minSize)
			if c == 0 || d.err != nil {
				return out
			}
			for range c {
				k := d.bytes()
				if !utf8.Valid(k) {
					d.fail("map key is not valid UTF-8")
				}
				v := d.value(n.values, depth+1)
				if d.err != nil {
					return nil
				}
				out = append(out, schema.MapEntry{Key: string(k), Value: v})
			}
		}
	case kUnion:
		i := d.long()
		if i < 0 || i >= int64(len(n.branches)) {
			d.fail("union branch %d out of range (%d branches)", i, len(n.branches))
			return nil
		}
		b := n.branches[i]
		v := d.value(b, depth+1)
		if v == nil {
			return nil
		}
		switch n.ukind {
		case unionLong:
			if x, ok := v.(int32); ok {
				return int64(x)
			}
			return v
		case unionDouble:
			if x, ok := v.(float32); ok {
				return float64(x)
			}
			return v
		case unionStruct:
			for j, nb := range n.nonNull {
				if nb == int(i) {
					return member{i: j, v: v}
				}
			}
		}
		return v
	}
	d.fail("unknown type")
	return nil
}

// decimalOf reads a two's-complement big-endian unscaled value.
func (d *dec) decimalOf(b []byte, t schema.DecimalType) any {
	if d.err != nil {
		return nil
	}
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(len(b))*8))
	}
	return schema.Decimal{Unscaled: u, Scale: t.Scale}
}
