// Package ptree is parquetio's column tree: the Parquet schema Tributary
// writes for a Delta schema and the tree of Dremel levels that drives
// shredding (writes) and assembly (reads).
package ptree

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/tributary-io/tributary/core/parquetio/internal/pnodes"
	"github.com/tributary-io/tributary/core/parquetio/internal/values"
	"github.com/tributary-io/tributary/core/schema"
)

// Contract errors, re-exported by package parquetio under the same names.
var (
	// ErrUnsupportedSchema means a schema cannot be written to or read from
	// Parquet.
	ErrUnsupportedSchema = errors.New("parquetio: unsupported schema")
	// ErrCorrupt means a Parquet file could not be decoded.
	ErrCorrupt = errors.New("parquetio: corrupt parquet file")
	// ErrUnsupportedCodec means a Parquet file uses a compression codec
	// Tributary cannot read yet.
	ErrUnsupportedCodec = errors.New("parquetio: compression codec not supported for reading yet")
)

// ParquetSchema converts a Delta schema to a Parquet schema laid out the way
// Spark writes it: fields in schema order, 3-level LISTs, MAP key_value
// groups, nullable fields OPTIONAL and the others REQUIRED.
//
// The leaf columns whose Parquet paths (joined by '.') are in dict are
// dictionary encoded (RLE_DICTIONARY data pages and a dictionary page per
// column chunk).
func ParquetSchema(s *schema.StructType, dict map[string]bool) (*parquet.Schema, error) {
	b := nodeBuilder{dict: dict}
	fields := make([]parquet.Field, 0, len(s.Fields))
	for _, f := range s.Fields {
		n, err := b.field(f.Name, f.Name, f.Type, f.Nullable)
		if err != nil {
			return nil, err
		}
		fields = append(fields, pnodes.Field(f.Name, n))
	}
	if err := checkNames(s, ""); err != nil {
		return nil, err
	}
	return parquet.NewSchema("spark_schema", pnodes.Group(fields)), nil
}

// checkNames rejects empty and duplicate field names, which Parquet cannot
// represent unambiguously.
func checkNames(s *schema.StructType, prefix string) error {
	seen := make(map[string]bool, len(s.Fields))
	for _, f := range s.Fields {
		if f.Name == "" {
			return fmt.Errorf("%w: empty field name in struct %q", ErrUnsupportedSchema, prefix)
		}
		if seen[f.Name] {
			return fmt.Errorf("%w: duplicate field %q", ErrUnsupportedSchema, prefix+f.Name)
		}
		seen[f.Name] = true
	}
	return nil
}

// nodeBuilder builds Parquet nodes; path is a column's Delta path (for
// errors) and pq its Parquet path (with the list and map levels), which
// selects the dictionary-encoded leaves.
type nodeBuilder struct {
	dict map[string]bool
}

func (b nodeBuilder) field(path, pq string, t schema.Type, nullable bool) (parquet.Node, error) {
	n, err := b.node(path, pq, t)
	if err != nil {
		return nil, err
	}
	if nullable {
		return parquet.Optional(n), nil
	}
	return parquet.Required(n), nil
}

func (b nodeBuilder) node(path, pq string, t schema.Type) (parquet.Node, error) {
	n, err := parquetNode(b, path, pq, t)
	if err == nil && b.dict[pq] {
		n = parquet.Encoded(n, &parquet.RLEDictionary)
	}
	return n, err
}

func parquetNode(b nodeBuilder, path, pq string, t schema.Type) (parquet.Node, error) {
	switch t := t.(type) {
	case schema.PrimitiveType:
		switch t {
		case schema.String:
			return parquet.String(), nil
		case schema.Long:
			return parquet.Leaf(parquet.Int64Type), nil
		case schema.Integer:
			return parquet.Leaf(parquet.Int32Type), nil
		case schema.Short:
			return parquet.Int(16), nil
		case schema.Byte:
			return parquet.Int(8), nil
		case schema.Double:
			return parquet.Leaf(parquet.DoubleType), nil
		case schema.Float:
			return parquet.Leaf(parquet.FloatType), nil
		case schema.Boolean:
			return parquet.Leaf(parquet.BooleanType), nil
		case schema.Binary:
			return parquet.Leaf(parquet.ByteArrayType), nil
		case schema.DateType:
			return parquet.Date(), nil
		case schema.Timestamp:
			return parquet.TimestampAdjusted(parquet.Microsecond, true), nil
		case schema.TimestampNTZ:
			return parquet.TimestampAdjusted(parquet.Microsecond, false), nil
		}
	case schema.DecimalType:
		p, s := t.Precision, t.Scale
		if p < 1 || p > 38 || s < 0 || s > p {
			return nil, fmt.Errorf("%w: column %s: %s", ErrUnsupportedSchema, path, t)
		}
		switch {
		case p <= 9:
			return parquet.Decimal(s, p, parquet.Int32Type), nil
		case p <= 18:
			return parquet.Decimal(s, p, parquet.Int64Type), nil
		default:
			n := parquet.Decimal(s, p, parquet.FixedLenByteArrayType(DecimalBytes(p)))
			return parquet.Leaf(pnodes.SignedFLBA(n.Type())), nil
		}
	case *schema.StructType:
		if len(t.Fields) == 0 {
			return nil, fmt.Errorf("%w: column %s: empty struct", ErrUnsupportedSchema, path)
		}
		if err := checkNames(t, path+"."); err != nil {
			return nil, err
		}
		fields := make([]parquet.Field, 0, len(t.Fields))
		for _, f := range t.Fields {
			n, err := b.field(path+"."+f.Name, pq+"."+f.Name, f.Type, f.Nullable)
			if err != nil {
				return nil, err
			}
			fields = append(fields, pnodes.Field(f.Name, n))
		}
		return pnodes.Group(fields), nil
	case *schema.ArrayType:
		e, err := b.field(path+".element", pq+".list.element", t.Element, t.ContainsNull)
		if err != nil {
			return nil, err
		}
		return parquet.List(e), nil
	case *schema.MapType:
		k, err := b.node(path+".key", pq+".key_value.key", t.Key)
		if err != nil {
			return nil, err
		}
		v, err := b.field(path+".value", pq+".key_value.value", t.Value, t.ValueContainsNull)
		if err != nil {
			return nil, err
		}
		return parquet.Map(k, v), nil
	}
	return nil, fmt.Errorf("%w: column %s: type %v", ErrUnsupportedSchema, path, t)
}

// DecimalBytes is the smallest byte width holding any decimal of precision
// p, as Spark computes it (Decimal.minBytesForPrecision).
func DecimalBytes(p int) int {
	n := 1
	for {
		// 2^(8n-1) > 10^p  <=>  (8n-1)*log10(2) > p
		if float64(8*n-1)*0.30102999566398120 >= float64(p) {
			return n
		}
		n++
	}
}

// Kind is the shape of a tree node.
type Kind uint8

// Node kinds.
const (
	KindLeaf Kind = iota
	KindStruct
	KindList
	KindMap
)

// Conv says how a leaf column's Parquet values map to row values.
type Conv uint8

// Leaf conversions, by Parquet physical and logical type.
const (
	ConvBool Conv = iota
	ConvInt8
	ConvInt16
	ConvInt32
	ConvInt64
	ConvUint8
	ConvUint16
	ConvUint32
	ConvUint64
	ConvFloat
	ConvDouble
	ConvString
	ConvBinary
	ConvDate
	ConvTimestampMillis
	ConvTimestampMicros
	ConvTimestampNanos
	ConvInt96
	ConvDecimal32
	ConvDecimal64
	ConvDecimalBytes
)

// Node is one node of the column tree that drives shredding (writes) and
// assembly (reads): the Delta type of the node plus its Dremel levels.
type Node struct {
	// Kind is the node's shape.
	Kind Kind
	// Name is the field name ("element", "key" or "value" inside lists
	// and maps).
	Name string
	// Path is the dotted column path, for messages.
	Path string
	// Type is the node's Delta type.
	Type schema.Type
	// Nullable says whether the node may be null.
	Nullable bool
	// Def is the definition level of a non-null value of this node.
	Def int
	// Rep is the repetition level of this node.
	Rep int
	// ElemDef and ElemRep are the levels of the repeated group of a list or
	// map: a value with definition level >= ElemDef has at least one element.
	ElemDef, ElemRep int
	// Children are the struct fields; list: [element]; map: [key, value].
	Children []*Node
	// Col is the leaf column index.
	Col int
	// Conv is a leaf's value conversion.
	Conv Conv
	// Width is the FIXED_LEN_BYTE_ARRAY width of a decimal leaf.
	Width int
	// Scale is a decimal leaf's scale.
	Scale int
	// Limit is 10^precision of a decimal leaf.
	Limit *big.Int
	// Leaves are the leaf column indices under this node, in order.
	Leaves []int
}

// BuildTree walks a Parquet schema into a column tree; the root is a struct
// whose Delta type is the table schema.
func BuildTree(root parquet.Node) (*Node, error) {
	col := 0
	t := &Node{Kind: KindStruct, Name: "", Path: ""}
	st := &schema.StructType{}
	for _, f := range root.Fields() {
		c, err := build(f, f.Name(), f.Name(), 0, 0, &col)
		if err != nil {
			return nil, err
		}
		t.Children = append(t.Children, c)
		t.Leaves = append(t.Leaves, c.Leaves...)
		st.Fields = append(st.Fields, schema.Field{Name: c.Name, Type: c.Type, Nullable: c.Nullable})
	}
	t.Type = st
	return t, nil
}

// maxTreeDepth bounds nesting so that hostile files cannot exhaust the stack.
const maxTreeDepth = 64

// build converts node n (a field named name) whose parent is defined at
// definition level def and repetition level rep.
func build(n parquet.Node, name, path string, def, rep int, col *int) (*Node, error) {
	if def > maxTreeDepth || rep > maxTreeDepth {
		return nil, fmt.Errorf("%w: column %s nests too deeply", ErrUnsupportedSchema, path)
	}
	if n.Repeated() {
		// A bare repeated field outside a LIST is a required list of
		// required elements.
		e, err := buildInner(n, "element", path+".element", def+1, rep+1, false, col)
		if err != nil {
			return nil, err
		}
		t := &Node{Kind: KindList, Name: name, Path: path, Def: def, Rep: rep,
			ElemDef: def + 1, ElemRep: rep + 1, Children: []*Node{e}, Leaves: e.Leaves,
			Type: &schema.ArrayType{Element: e.Type, ContainsNull: false}}
		return t, nil
	}
	nullable := n.Optional()
	if nullable {
		def++
	}
	return buildInner(n, name, path, def, rep, nullable, col)
}

func isList(n parquet.Node) bool {
	if lt := n.Type().LogicalType(); lt != nil {
		if _, ok := lt.Value.(*format.ListType); ok {
			return true
		}
	}
	ct := n.Type().ConvertedType()
	return ct != nil && *ct == deprecated.List
}

func isMap(n parquet.Node) bool {
	if lt := n.Type().LogicalType(); lt != nil {
		if _, ok := lt.Value.(*format.MapType); ok {
			return true
		}
	}
	ct := n.Type().ConvertedType()
	return ct != nil && (*ct == deprecated.Map || *ct == deprecated.MapKeyValue)
}

// buildInner converts n, whose own repetition is already accounted for in
// def and rep.
func buildInner(n parquet.Node, name, path string, def, rep int, nullable bool, col *int) (*Node, error) {
	t := &Node{Name: name, Path: path, Def: def, Rep: rep, Nullable: nullable}
	if n.Leaf() {
		t.Kind = KindLeaf
		t.Col = *col
		*col++
		t.Leaves = []int{t.Col}
		if err := leafType(t, n.Type()); err != nil {
			return nil, err
		}
		return t, nil
	}
	fields := n.Fields()
	switch {
	case isList(n) && len(fields) == 1 && fields[0].Repeated():
		t.Kind = KindList
		t.ElemDef, t.ElemRep = def+1, rep+1
		rg := fields[0]
		var e *Node
		var err error
		if rg.Leaf() || len(rg.Fields()) != 1 || rg.Name() == "array" || rg.Name() == name+"_tuple" {
			// Two-level list: the repeated node is the element.
			e, err = buildInner(rg, "element", path+".element", def+1, rep+1, false, col)
		} else {
			e, err = build(rg.Fields()[0], "element", path+".element", def+1, rep+1, col)
		}
		if err != nil {
			return nil, err
		}
		t.Children = []*Node{e}
		t.Leaves = e.Leaves
		t.Type = &schema.ArrayType{Element: e.Type, ContainsNull: e.Nullable}
		return t, nil
	case isMap(n) && len(fields) == 1 && fields[0].Repeated() && !fields[0].Leaf() && len(fields[0].Fields()) == 2:
		t.Kind = KindMap
		t.ElemDef, t.ElemRep = def+1, rep+1
		kv := fields[0].Fields()
		kn, vn := kv[0], kv[1]
		if kv[1].Name() == "key" {
			kn, vn = kv[1], kv[0]
		}
		k, err := build(kn, "key", path+".key", def+1, rep+1, col)
		if err != nil {
			return nil, err
		}
		// Keys are never null in Delta: an optional key column is read as
		// required and a null key is refused at read time.
		k.Nullable = false
		v, err := build(vn, "value", path+".value", def+1, rep+1, col)
		if err != nil {
			return nil, err
		}
		t.Children = []*Node{k, v}
		t.Leaves = append(append([]int{}, k.Leaves...), v.Leaves...)
		t.Type = &schema.MapType{Key: k.Type, Value: v.Type, ValueContainsNull: v.Nullable}
		return t, nil
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("%w: column %s: empty group", ErrUnsupportedSchema, path)
	}
	t.Kind = KindStruct
	st := &schema.StructType{}
	for _, f := range fields {
		c, err := build(f, f.Name(), path+"."+f.Name(), def, rep, col)
		if err != nil {
			return nil, err
		}
		t.Children = append(t.Children, c)
		t.Leaves = append(t.Leaves, c.Leaves...)
		st.Fields = append(st.Fields, schema.Field{Name: c.Name, Type: c.Type, Nullable: c.Nullable})
	}
	t.Type = st
	return t, nil
}

// leafType sets the Delta type and value conversion of a leaf column. A
// malformed file can give a leaf a group type (LIST, MAP) whose methods
// panic in parquet-go; that is reported as ErrCorrupt.
func leafType(t *Node, pt parquet.Type) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: column %s: invalid leaf type: %v", ErrCorrupt, t.Path, p)
		}
	}()
	lt := pt.LogicalType()
	var lv format.LogicalTypeValue
	if lt != nil {
		lv = lt.Value
	}
	ct := pt.ConvertedType()
	unsupported := func() error {
		return fmt.Errorf("%w: column %s: Parquet type %s", ErrUnsupportedSchema, t.Path, pt)
	}
	if d, ok := lv.(*format.DecimalType); ok {
		if d.Precision < 1 || d.Precision > 38 || d.Scale < 0 || d.Scale > d.Precision {
			return unsupported()
		}
		t.Type = schema.DecimalType{Precision: int(d.Precision), Scale: int(d.Scale)}
		t.Scale = int(d.Scale)
		t.Limit = values.Pow10(int(d.Precision))
		switch pt.Kind() {
		case parquet.Int32:
			t.Conv = ConvDecimal32
		case parquet.Int64:
			t.Conv = ConvDecimal64
		case parquet.ByteArray, parquet.FixedLenByteArray:
			t.Conv = ConvDecimalBytes
			t.Width = pt.Length()
		default:
			return unsupported()
		}
		return nil
	}
	switch pt.Kind() {
	case parquet.Boolean:
		t.Type, t.Conv = schema.Boolean, ConvBool
	case parquet.Int32:
		switch v := lv.(type) {
		case *format.IntType:
			switch {
			case v.IsSigned && v.BitWidth == 8:
				t.Type, t.Conv = schema.Byte, ConvInt8
			case v.IsSigned && v.BitWidth == 16:
				t.Type, t.Conv = schema.Short, ConvInt16
			case v.IsSigned:
				t.Type, t.Conv = schema.Integer, ConvInt32
			case v.BitWidth == 8:
				t.Type, t.Conv = schema.Short, ConvUint8
			case v.BitWidth == 16:
				t.Type, t.Conv = schema.Integer, ConvUint16
			default:
				t.Type, t.Conv = schema.Long, ConvUint32
			}
		case *format.DateType:
			t.Type, t.Conv = schema.DateType, ConvDate
		case nil:
			switch {
			case ct != nil && *ct == deprecated.Int8:
				t.Type, t.Conv = schema.Byte, ConvInt8
			case ct != nil && *ct == deprecated.Int16:
				t.Type, t.Conv = schema.Short, ConvInt16
			case ct != nil && *ct == deprecated.Date:
				t.Type, t.Conv = schema.DateType, ConvDate
			default:
				t.Type, t.Conv = schema.Integer, ConvInt32
			}
		default:
			return unsupported()
		}
	case parquet.Int64:
		switch v := lv.(type) {
		case *format.IntType:
			if v.IsSigned {
				t.Type, t.Conv = schema.Long, ConvInt64
			} else {
				t.Type, t.Conv = schema.DecimalType{Precision: 20, Scale: 0}, ConvUint64
			}
		case *format.TimestampType:
			t.Type = schema.TimestampNTZ
			if v.IsAdjustedToUTC {
				t.Type = schema.Timestamp
			}
			switch v.Unit.Value.(type) {
			case *format.MilliSeconds:
				t.Conv = ConvTimestampMillis
			case *format.MicroSeconds:
				t.Conv = ConvTimestampMicros
			case *format.NanoSeconds:
				t.Conv = ConvTimestampNanos
			default:
				return unsupported()
			}
		case nil:
			switch {
			case ct != nil && *ct == deprecated.TimestampMillis:
				t.Type, t.Conv = schema.Timestamp, ConvTimestampMillis
			case ct != nil && *ct == deprecated.TimestampMicros:
				t.Type, t.Conv = schema.Timestamp, ConvTimestampMicros
			default:
				t.Type, t.Conv = schema.Long, ConvInt64
			}
		default:
			return unsupported()
		}
	case parquet.Int96:
		t.Type, t.Conv = schema.Timestamp, ConvInt96
	case parquet.Float:
		t.Type, t.Conv = schema.Float, ConvFloat
	case parquet.Double:
		t.Type, t.Conv = schema.Double, ConvDouble
	case parquet.ByteArray:
		switch lv.(type) {
		case *format.StringType, *format.EnumType, *format.JsonType:
			t.Type, t.Conv = schema.String, ConvString
		case nil:
			if ct != nil && (*ct == deprecated.UTF8 || *ct == deprecated.Enum || *ct == deprecated.Json) {
				t.Type, t.Conv = schema.String, ConvString
			} else {
				t.Type, t.Conv = schema.Binary, ConvBinary
			}
		default:
			t.Type, t.Conv = schema.Binary, ConvBinary
		}
	case parquet.FixedLenByteArray:
		t.Type, t.Conv = schema.Binary, ConvBinary
	default:
		return unsupported()
	}
	return nil
}

// FromTwosComplement decodes a big-endian two's complement integer.
func FromTwosComplement(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}
