package scan

import (
	"bytes"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// converter turns a value read from a file into the logical type's value.
type converter func(any) (any, error)

func identity(v any) (any, error) { return v, nil }

// buildConverter builds the conversion from a file type to a logical type,
// resolving nested struct fields like top-level ones.
func buildConverter(logical, file schema.Type, ids *idNode, mode, path string) (converter, error) {
	switch lt := logical.(type) {
	case *schema.StructType:
		ft, ok := file.(*schema.StructType)
		if !ok {
			return nil, fmt.Errorf("%w: column %s is %s in the file, %s in the table", ErrUnreadableFile, path, file, logical)
		}
		cols := make([]int, len(lt.Fields))
		convs := make([]converter, len(lt.Fields))
		for i, f := range lt.Fields {
			j := matchField(ft, ids, f, mode)
			cols[i] = j
			if j >= 0 {
				c, err := buildConverter(f.Type, ft.Fields[j].Type, ids.child(j), mode, path+"."+f.Name)
				if err != nil {
					return nil, err
				}
				convs[i] = c
			}
		}
		return func(v any) (any, error) {
			if v == nil {
				return nil, nil
			}
			in, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%w: column %s: %T is not a struct", ErrUnreadableFile, path, v)
			}
			out := make([]any, len(cols))
			for i, j := range cols {
				if j < 0 || j >= len(in) {
					continue
				}
				x, err := convs[i](in[j])
				if err != nil {
					return nil, err
				}
				out[i] = x
			}
			return out, nil
		}, nil
	case *schema.ArrayType:
		ft, ok := file.(*schema.ArrayType)
		if !ok {
			return nil, fmt.Errorf("%w: column %s is %s in the file, %s in the table", ErrUnreadableFile, path, file, logical)
		}
		ec, err := buildConverter(lt.Element, ft.Element, ids.child(0), mode, path+".element")
		if err != nil {
			return nil, err
		}
		return func(v any) (any, error) {
			if v == nil {
				return nil, nil
			}
			in, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%w: column %s: %T is not an array", ErrUnreadableFile, path, v)
			}
			out := make([]any, len(in))
			for i, e := range in {
				x, err := ec(e)
				if err != nil {
					return nil, err
				}
				out[i] = x
			}
			return out, nil
		}, nil
	case *schema.MapType:
		ft, ok := file.(*schema.MapType)
		if !ok {
			return nil, fmt.Errorf("%w: column %s is %s in the file, %s in the table", ErrUnreadableFile, path, file, logical)
		}
		kc, err := buildConverter(lt.Key, ft.Key, ids.child(0), mode, path+".key")
		if err != nil {
			return nil, err
		}
		vc, err := buildConverter(lt.Value, ft.Value, ids.child(1), mode, path+".value")
		if err != nil {
			return nil, err
		}
		return func(v any) (any, error) {
			if v == nil {
				return nil, nil
			}
			in, ok := v.([]schema.MapEntry)
			if !ok {
				return nil, fmt.Errorf("%w: column %s: %T is not a map", ErrUnreadableFile, path, v)
			}
			out := make([]schema.MapEntry, len(in))
			for i, e := range in {
				k, err := kc(e.Key)
				if err != nil {
					return nil, err
				}
				x, err := vc(e.Value)
				if err != nil {
					return nil, err
				}
				out[i] = schema.MapEntry{Key: k, Value: x}
			}
			return out, nil
		}, nil
	}
	switch file.(type) {
	case *schema.StructType, *schema.ArrayType, *schema.MapType:
		return nil, fmt.Errorf("%w: column %s is %s in the file, %s in the table", ErrUnreadableFile, path, file, logical)
	}
	if schema.EqualType(logical, file) {
		return identity, nil
	}
	return func(v any) (any, error) {
		if v == nil {
			return nil, nil
		}
		x, err := convertPrimitive(v, logical)
		if err != nil {
			return nil, fmt.Errorf("%w: column %s: %s in the file cannot be read as %s: %v", ErrUnreadableFile, path, file, logical, err)
		}
		return x, nil
	}, nil
}

// convertPrimitive converts a file value to the logical primitive type:
// the widenings Delta allows (integers to wider integers, double or
// decimal; float to double; decimals to a larger scale; date to
// timestamp_ntz) and string/binary reinterpretation.
func convertPrimitive(v any, to schema.Type) (any, error) {
	if d, ok := to.(schema.DecimalType); ok {
		var dec schema.Decimal
		switch x := v.(type) {
		case schema.Decimal:
			dec = x
		default:
			n, ok := asInt(v)
			if !ok {
				return nil, fmt.Errorf("%T is not a number", v)
			}
			dec = schema.Decimal{Unscaled: big.NewInt(n)}
		}
		if dec.Scale > d.Scale {
			return nil, fmt.Errorf("scale %d does not fit scale %d", dec.Scale, d.Scale)
		}
		u := new(big.Int).Mul(dec.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale-dec.Scale)), nil))
		return schema.Decimal{Unscaled: u, Scale: d.Scale}, nil
	}
	p, ok := to.(schema.PrimitiveType)
	if !ok {
		return nil, fmt.Errorf("unknown type %s", to)
	}
	switch p {
	case schema.Long, schema.Integer, schema.Short, schema.Byte:
		n, ok := asInt(v)
		if !ok {
			return nil, fmt.Errorf("%T is not an integer", v)
		}
		switch p {
		case schema.Long:
			return n, nil
		case schema.Integer:
			if n == int64(int32(n)) {
				return int32(n), nil
			}
		case schema.Short:
			if n == int64(int16(n)) {
				return int16(n), nil
			}
		case schema.Byte:
			if n == int64(int8(n)) {
				return int8(n), nil
			}
		}
		return nil, fmt.Errorf("%d overflows %s", n, p)
	case schema.Double:
		if f, ok := v.(float32); ok {
			return float64(f), nil
		}
		if n, ok := asInt(v); ok {
			return float64(n), nil
		}
	case schema.Float:
		if n, ok := asInt(v); ok {
			return float32(n), nil
		}
	case schema.String:
		if b, ok := v.([]byte); ok {
			return string(b), nil
		}
	case schema.Binary:
		if s, ok := v.(string); ok {
			return []byte(s), nil
		}
	case schema.TimestampNTZ, schema.Timestamp:
		switch x := v.(type) {
		case time.Time:
			return x, nil
		case schema.Date:
			return time.Unix(int64(x)*86400, 0).UTC(), nil
		}
	}
	return nil, fmt.Errorf("%T cannot be converted", v)
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	}
	return 0, false
}

// parsePartitionValue decodes a serialised partition value (PROTOCOL.md
// "Partition Value Serialization"); a missing key, null or "" is NULL.
func parsePartitionValue(vals map[string]*string, phys, name string, t schema.Type) (any, error) {
	p, ok := vals[phys]
	if !ok {
		// Older writers keyed by the logical name.
		for k, v := range vals {
			if strings.EqualFold(k, phys) || strings.EqualFold(k, name) {
				p, ok = v, true
				break
			}
		}
	}
	if !ok || p == nil || *p == "" {
		return nil, nil
	}
	v, err := parsePartitionString(*p, t)
	if err != nil {
		return nil, fmt.Errorf("%w: partition column %s=%q: %v", ErrUnreadableFile, name, *p, err)
	}
	return v, nil
}

func parsePartitionString(s string, t schema.Type) (any, error) {
	if d, ok := t.(schema.DecimalType); ok {
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			return nil, errors.New("not a decimal")
		}
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(d.Scale)), nil)))
		if !r.IsInt() {
			return nil, fmt.Errorf("more than %d decimal places", d.Scale)
		}
		return schema.Decimal{Unscaled: new(big.Int).Set(r.Num()), Scale: d.Scale}, nil
	}
	p, ok := t.(schema.PrimitiveType)
	if !ok {
		return nil, fmt.Errorf("type %s cannot be a partition column", t)
	}
	switch p {
	case schema.String:
		return s, nil
	case schema.Binary:
		return []byte(s), nil
	case schema.Boolean:
		return strconv.ParseBool(s)
	case schema.Long, schema.Integer, schema.Short, schema.Byte:
		bits := map[schema.PrimitiveType]int{schema.Long: 64, schema.Integer: 32, schema.Short: 16, schema.Byte: 8}[p]
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
		if err != nil {
			// delta-rs writes integral partitions of float-typed sources as "2021.0".
			f, ferr := strconv.ParseFloat(s, 64)
			if ferr != nil || f != float64(int64(f)) {
				return nil, err
			}
			n = int64(f)
		}
		return convertPrimitive(n, p)
	case schema.Double:
		return strconv.ParseFloat(s, 64)
	case schema.Float:
		f, err := strconv.ParseFloat(s, 32)
		return float32(f), err
	case schema.DateType:
		d, err := time.Parse("2006-01-02", s)
		if err != nil {
			return nil, err
		}
		return schema.Date(d.Unix() / 86400), nil
	case schema.Timestamp, schema.TimestampNTZ:
		for _, layout := range []string{"2006-01-02 15:04:05.999999999", time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02"} {
			if ts, err := time.Parse(layout, s); err == nil {
				return ts.UTC(), nil
			}
		}
		return nil, errors.New("not a timestamp")
	}
	return nil, fmt.Errorf("type %s cannot be a partition column", p)
}

// idNode is the Parquet field_id tree of a file, shaped like the schema
// parquetio.ReadFile returns (a list's child is its element, a map's
// children are key and value).
type idNode struct {
	id       int
	hasID    bool
	children []*idNode
}

func (n *idNode) child(i int) *idNode {
	if n == nil || i < 0 || i >= len(n.children) {
		return nil
	}
	return n.children[i]
}

// fileFieldIDs reads the field ids of a Parquet file's schema.
func fileFieldIDs(data []byte) (n *idNode, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %w: reading field ids: %v", ErrUnreadableFile, parquetio.ErrCorrupt, r)
		}
	}()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", parquetio.ErrCorrupt, err)
	}
	root := &idNode{}
	for _, c := range f.Root().Columns() {
		root.children = append(root.children, idsOf(c))
	}
	return root, nil
}

// idsOf mirrors parquetio's tree building: LIST and MAP groups collapse to
// their element / key and value.
func idsOf(c *parquet.Column) *idNode {
	n := &idNode{id: c.ID(), hasID: c.ID() != 0}
	kids := c.Columns()
	if c.Repeated() && !c.Leaf() && !isAnnotated(c) {
		// A bare repeated group is a list of that group.
		elem := &idNode{}
		for _, k := range kids {
			elem.children = append(elem.children, idsOf(k))
		}
		n.children = []*idNode{elem}
		return n
	}
	if c.Leaf() {
		return n
	}
	if isAnnotated(c) && len(kids) == 1 && kids[0].Repeated() {
		rg := kids[0]
		inner := rg.Columns()
		if isMapNode(c) && len(inner) == 2 {
			k, v := inner[0], inner[1]
			if v.Name() == "key" {
				k, v = v, k
			}
			n.children = []*idNode{idsOf(k), idsOf(v)}
			return n
		}
		if rg.Leaf() || len(inner) != 1 || rg.Name() == "array" || rg.Name() == c.Name()+"_tuple" {
			e := &idNode{id: rg.ID(), hasID: rg.ID() != 0}
			for _, k := range inner {
				e.children = append(e.children, idsOf(k))
			}
			n.children = []*idNode{e}
			return n
		}
		n.children = []*idNode{idsOf(inner[0])}
		return n
	}
	for _, k := range kids {
		n.children = append(n.children, idsOf(k))
	}
	return n
}

func isAnnotated(c *parquet.Column) bool {
	return isListNode(c) || isMapNode(c)
}

func isListNode(c *parquet.Column) bool {
	if lt := c.Type().LogicalType(); lt != nil {
		if _, ok := lt.Value.(*format.ListType); ok {
			return true
		}
	}
	ct := c.Type().ConvertedType()
	return ct != nil && *ct == deprecated.List
}

func isMapNode(c *parquet.Column) bool {
	if lt := c.Type().LogicalType(); lt != nil {
		if _, ok := lt.Value.(*format.MapType); ok {
			return true
		}
	}
	ct := c.Type().ConvertedType()
	return ct != nil && (*ct == deprecated.Map || *ct == deprecated.MapKeyValue)
}

// PartitionValue decodes one serialised partition value of type t
// (PROTOCOL.md "Partition Value Serialization"; "" is NULL, returned as
// nil). Statistics of dates, timestamps and decimals decode the same way.
func PartitionValue(s string, t schema.Type) (any, error) {
	if s == "" {
		return nil, nil
	}
	return parsePartitionString(s, t)
}
