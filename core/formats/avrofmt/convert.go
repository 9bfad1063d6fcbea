package avrofmt

import (
	"encoding/base64"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// conv converts decoded Avro values to the table schema's types, rescuing
// or dropping (and counting) what does not fit.
type conv struct {
	rescue *fileformat.Rescue // nil: rescue disabled
	// caseSensitive: with rescue, a field matching a column only by case
	// is rescued (readerCaseSensitive true, Databricks' default).
	caseSensitive bool
	skip          map[string]bool // top-level columns no file field fills (rescued data, corrupt record)
	stats         *fileformat.ReadStats
	seen          map[string]bool // paths already in the stats lists
	bad           bool            // the row dropped a value (rescue disabled)
}

func (c *conv) note(list *[]string, p string) {
	key := p
	if list == &c.stats.UnknownFields {
		key = "u:" + p
	} else {
		key = "m:" + p
	}
	if c.seen[key] || len(*list) >= fileformat.MaxReportedPaths {
		return
	}
	c.seen[key] = true
	*list = append(*list, p)
}

// lost records v (of n) at path as not stored: rescued, or dropped.
func (c *conv) lost(path []string, v any, n *node) {
	if v == nil {
		return
	}
	if c.rescue != nil {
		c.rescue.AddJSON(path, appendJSON(nil, v, n))
		return
	}
	c.stats.ValuesDropped++
	c.bad = true
}

func (c *conv) mismatch(path []string, v any, n *node) any {
	if v == nil {
		return nil
	}
	c.note(&c.stats.MismatchedFields, strings.Join(path, "."))
	c.lost(path, v, n)
	return nil
}

// branch resolves a union that Spark maps to its one non-null type.
func branch(n *node) *node {
	for n.kind == kUnion && n.ukind == unionNullable && len(n.nonNull) == 1 {
		n = n.branches[n.nonNull[0]]
	}
	return n
}

// record converts a record's field values to a row of st. top is true for
// the file's top-level record (its rescued values are the row's).
func (c *conv) record(vals []any, n *node, st *schema.StructType, path []string, top bool) []any {
	out := make([]any, len(st.Fields))
	for i, f := range n.fields {
		p := append(path[:len(path):len(path)], f.name)
		j, exact := lookup(st, f.name)
		if j >= 0 && top && c.skip[strings.ToLower(st.Fields[j].Name)] {
			j = -1
		}
		switch {
		case j < 0:
			c.note(&c.stats.UnknownFields, strings.Join(p, "."))
			c.lost(p, vals[i], f.n)
		case !exact && c.rescue != nil && c.caseSensitive:
			c.lost(p, vals[i], f.n)
		default:
			out[j] = c.to(vals[i], f.n, st.Fields[j].Type, p)
		}
	}
	return out
}

// lookup finds name in st: exactly, else case-insensitively.
func lookup(st *schema.StructType, name string) (int, bool) {
	for i, f := range st.Fields {
		if f.Name == name {
			return i, true
		}
	}
	return st.FieldIndexFold(name), false
}

// to converts v, a value of n, to type t.
func (c *conv) to(v any, n *node, t schema.Type, path []string) any {
	if v == nil {
		return nil
	}
	n = branch(n)
	switch tt := t.(type) {
	case *schema.StructType:
		switch {
		case n.kind == kRecord:
			return c.record(v.([]any), n, tt, path, false)
		case n.kind == kUnion && n.ukind == unionStruct:
			m := v.(member)
			name := "member" + strconv.Itoa(m.i)
			j, _ := lookup(tt, name)
			if j < 0 {
				return c.mismatch(path, v, n)
			}
			out := make([]any, len(tt.Fields))
			out[j] = c.to(m.v, n.branches[n.nonNull[m.i]], tt.Fields[j].Type, append(path[:len(path):len(path)], name))
			return out
		}
	case *schema.ArrayType:
		if n.kind == kArray {
			items := v.([]any)
			out := make([]any, len(items))
			p := append(path[:len(path):len(path)], "element")
			for i, x := range items {
				out[i] = c.to(x, n.items, tt.Element, p)
			}
			return out
		}
	case *schema.MapType:
		if n.kind == kMap && schema.EqualType(tt.Key, schema.String) {
			es := v.([]schema.MapEntry)
			out := make([]schema.MapEntry, len(es))
			p := append(path[:len(path):len(path)], "value")
			for i, e := range es {
				out[i] = schema.MapEntry{Key: e.Key, Value: c.to(e.Value, n.values, tt.Value, p)}
			}
			return out
		}
	case schema.DecimalType:
		if d, ok := toDecimal(v, tt); ok {
			return d
		}
	case schema.PrimitiveType:
		if x, ok := primitive(v, n, tt); ok {
			return x
		}
	}
	return c.mismatch(path, v, n)
}

// primitive converts v to the primitive type t: the type Spark gives n, or
// one of Avro's promotions (int to long, float or double; long to double;
// float to double; string and bytes to each other), or a narrower integer
// that holds the value (schema hints).
func primitive(v any, n *node, t schema.PrimitiveType) (any, bool) {
	switch t {
	case schema.String:
		switch x := v.(type) {
		case string:
			return x, true
		case []byte:
			if n.kind == kBytes && isUTF8(x) {
				return string(x), true
			}
		}
	case schema.Binary:
		switch x := v.(type) {
		case []byte:
			return x, true
		case string:
			return []byte(x), true
		}
	case schema.Boolean:
		if x, ok := v.(bool); ok {
			return x, true
		}
	case schema.Long, schema.Integer, schema.Short, schema.Byte:
		var i int64
		switch x := v.(type) {
		case int32:
			i = int64(x)
		case int64:
			i = x
		default:
			return nil, false
		}
		switch t {
		case schema.Long:
			return i, true
		case schema.Integer:
			return int32(i), i >= math.MinInt32 && i <= math.MaxInt32
		case schema.Short:
			return int16(i), i >= math.MinInt16 && i <= math.MaxInt16
		default:
			return int8(i), i >= math.MinInt8 && i <= math.MaxInt8
		}
	case schema.Double:
		switch x := v.(type) {
		case float64:
			return x, true
		case float32:
			return float64(x), true
		case int32:
			return float64(x), true
		case int64:
			return float64(x), true
		}
	case schema.Float:
		switch x := v.(type) {
		case float32:
			return x, true
		case int32:
			return float32(x), true
		case int64:
			return float32(x), true
		}
	case schema.DateType:
		if x, ok := v.(schema.Date); ok {
			return x, true
		}
	case schema.Timestamp:
		if x, ok := v.(time.Time); ok && (n.kind == kTimestampMillis || n.kind == kTimestampMicros) {
			return x, true
		}
	case schema.TimestampNTZ:
		if x, ok := v.(time.Time); ok && (n.kind == kLocalMillis || n.kind == kLocalMicros) {
			return x, true
		}
		if x, ok := v.(schema.Date); ok {
			return time.Unix(int64(x)*86400, 0).UTC(), true
		}
	}
	return nil, false
}

func isUTF8(b []byte) bool { return utf8.Valid(b) }

var ten = big.NewInt(10)

// toDecimal converts an integral or decimal value to t when no digit is
// lost and it fits t's precision.
func toDecimal(v any, t schema.DecimalType) (schema.Decimal, bool) {
	var u *big.Int
	scale := 0
	switch x := v.(type) {
	case int32:
		u = big.NewInt(int64(x))
	case int64:
		u = big.NewInt(x)
	case schema.Decimal:
		u, scale = new(big.Int).Set(x.Unscaled), x.Scale
	default:
		return schema.Decimal{}, false
	}
	for scale < t.Scale {
		u.Mul(u, ten)
		scale++
	}
	for scale > t.Scale {
		q, r := new(big.Int).QuoRem(u, ten, new(big.Int))
		if r.Sign() != 0 {
			return schema.Decimal{}, false
		}
		u = q
		scale--
	}
	if len(new(big.Int).Abs(u).String()) > t.Precision && u.Sign() != 0 {
		return schema.Decimal{}, false
	}
	return schema.Decimal{Unscaled: u, Scale: t.Scale}, true
}

// appendJSON renders v, a value of n, as JSON for the rescued data column:
// bytes in base64, dates and timestamps as ISO 8601 strings, decimals as
// numbers, records and maps as objects, struct-mapped unions as the
// branch's value.
func appendJSON(b []byte, v any, n *node) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	n = branch(n)
	switch x := v.(type) {
	case bool:
		return strconv.AppendBool(b, x)
	case int32:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float32:
		return appendFloat(b, float64(x), 32)
	case float64:
		return appendFloat(b, x, 64)
	case string:
		return fileformat.AppendJSONString(b, x)
	case []byte:
		return fileformat.AppendJSONString(b, base64.StdEncoding.EncodeToString(x))
	case schema.Date:
		return fileformat.AppendJSONString(b, time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02"))
	case time.Time:
		layout := "2006-01-02T15:04:05.999999Z07:00"
		if n.kind == kLocalMillis || n.kind == kLocalMicros {
			layout = "2006-01-02T15:04:05.999999"
		}
		return fileformat.AppendJSONString(b, x.Format(layout))
	case schema.Decimal:
		return append(b, decimalText(x)...)
	case member:
		return appendJSON(b, x.v, n.branches[n.nonNull[x.i]])
	case []schema.MapEntry:
		b = append(b, '{')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = fileformat.AppendJSONString(b, e.Key.(string))
			b = append(b, ':')
			b = appendJSON(b, e.Value, n.values)
		}
		return append(b, '}')
	case []any:
		if n.kind == kRecord {
			b = append(b, '{')
			for i, f := range n.fields {
				if i > 0 {
					b = append(b, ',')
				}
				b = fileformat.AppendJSONString(b, f.name)
				b = append(b, ':')
				b = appendJSON(b, x[i], f.n)
			}
			return append(b, '}')
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e, n.items)
		}
		return append(b, ']')
	}
	return append(b, "null"...)
}

func appendFloat(b []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}

// decimalText prints a decimal in plain notation ("-12.30").
func decimalText(d schema.Decimal) string {
	s := new(big.Int).Abs(d.Unscaled).String()
	neg := d.Unscaled.Sign() < 0
	if d.Scale > 0 {
		if len(s) <= d.Scale {
			s = strings.Repeat("0", d.Scale-len(s)+1) + s
		}
		s = s[:len(s)-d.Scale] + "." + s[len(s)-d.Scale:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
