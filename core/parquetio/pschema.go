package parquetio

import (
	"fmt"
	"math/big"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"

	"github.com/tributary-io/tributary/core/parquetio/internal/pnodes"
	"github.com/tributary-io/tributary/core/parquetio/internal/values"
	"github.com/tributary-io/tributary/core/schema"
)

// parquetSchema converts a Delta schema to a Parquet schema laid out the way
// Spark writes it: fields in schema order, 3-level LISTs, MAP key_value
// groups, nullable fields OPTIONAL and the others REQUIRED.
//
// The leaf columns whose Parquet paths (joined by '.') are in dict are
// dictionary encoded (RLE_DICTIONARY data pages and a dictionary page per
// column chunk).
func parquetSchema(s *schema.StructType, dict map[string]bool) (*parquet.Schema, error) {
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
			n := parquet.Decimal(s, p, parquet.FixedLenByteArrayType(decimalBytes(p)))
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

// decimalBytes is the smallest byte width holding any decimal of precision
// p, as Spark computes it (Decimal.minBytesForPrecision).
func decimalBytes(p int) int {
	n := 1
	for {
		// 2^(8n-1) > 10^p  <=>  (8n-1)*log10(2) > p
		if float64(8*n-1)*0.30102999566398120 >= float64(p) {
			return n
		}
		n++
	}
}

// kind is the shape of a tree node.
type kind uint8

const (
	kindLeaf kind = iota
	kindStruct
	kindList
	kindMap
)

// conv says how a leaf column's Parquet values map to row values.
type conv uint8

const (
	convBool conv = iota
	convInt8
	convInt16
	convInt32
	convInt64
	convUint8
	convUint16
	convUint32
	convUint64
	convFloat
	convDouble
	convString
	convBinary
	convDate
	convTimestampMillis
	convTimestampMicros
	convTimestampNanos
	convInt96
	convDecimal32
	convDecimal64
	convDecimalBytes
)

// tnode is one node of the column tree that drives shredding (writes) and
// assembly (reads): the Delta type of the node plus its Dremel levels.
type tnode struct {
	kind     kind
	name     string
	path     string // dotted column path, for messages
	typ      schema.Type
	nullable bool
	def      int // definition level of a non-null value of this node
	rep      int // repetition level of this node
	// elemDef and elemRep are the levels of the repeated group of a list or
	// map: a value with definition level >= elemDef has at least one element.
	elemDef  int
	elemRep  int
	children []*tnode // struct fields; list: [element]; map: [key, value]
	col      int      // leaf column index
	conv     conv
	width    int      // FIXED_LEN_BYTE_ARRAY width of a decimal leaf
	scale    int      // decimal scale
	limit    *big.Int // 10^precision of a decimal
	leaves   []int    // leaf column indices under this node, in order
}

// buildTree walks a Parquet schema into a column tree; the root is a struct
// whose Delta type is the table schema.
func buildTree(root parquet.Node) (*tnode, error) {
	col := 0
	t := &tnode{kind: kindStruct, name: "", path: ""}
	st := &schema.StructType{}
	for _, f := range root.Fields() {
		c, err := build(f, f.Name(), f.Name(), 0, 0, &col)
		if err != nil {
			return nil, err
		}
		t.children = append(t.children, c)
		t.leaves = append(t.leaves, c.leaves...)
		st.Fields = append(st.Fields, schema.Field{Name: c.name, Type: c.typ, Nullable: c.nullable})
	}
	t.typ = st
	return t, nil
}

// maxTreeDepth bounds nesting so that hostile files cannot exhaust the stack.
const maxTreeDepth = 64

// build converts node n (a field named name) whose parent is defined at
// definition level def and repetition level rep.
func build(n parquet.Node, name, path string, def, rep int, col *int) (*tnode, error) {
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
		t := &tnode{kind: kindList, name: name, path: path, def: def, rep: rep,
			elemDef: def + 1, elemRep: rep + 1, children: []*tnode{e}, leaves: e.leaves,
			typ: &schema.ArrayType{Element: e.typ, ContainsNull: false}}
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
func buildInner(n parquet.Node, name, path string, def, rep int, nullable bool, col *int) (*tnode, error) {
	t := &tnode{name: name, path: path, def: def, rep: rep, nullable: nullable}
	if n.Leaf() {
		t.kind = kindLeaf
		t.col = *col
		*col++
		t.leaves = []int{t.col}
		if err := leafType(t, n.Type()); err != nil {
			return nil, err
		}
		return t, nil
	}
	fields := n.Fields()
	switch {
	case isList(n) && len(fields) == 1 && fields[0].Repeated():
		t.kind = kindList
		t.elemDef, t.elemRep = def+1, rep+1
		rg := fields[0]
		var e *tnode
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
		t.children = []*tnode{e}
		t.leaves = e.leaves
		t.typ = &schema.ArrayType{Element: e.typ, ContainsNull: e.nullable}
		return t, nil
	case isMap(n) && len(fields) == 1 && fields[0].Repeated() && !fields[0].Leaf() && len(fields[0].Fields()) == 2:
		t.kind = kindMap
		t.elemDef, t.elemRep = def+1, rep+1
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
		k.nullable = false
		v, err := build(vn, "value", path+".value", def+1, rep+1, col)
		if err != nil {
			return nil, err
		}
		t.children = []*tnode{k, v}
		t.leaves = append(append([]int{}, k.leaves...), v.leaves...)
		t.typ = &schema.MapType{Key: k.typ, Value: v.typ, ValueContainsNull: v.nullable}
		return t, nil
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("%w: column %s: empty group", ErrUnsupportedSchema, path)
	}
	t.kind = kindStruct
	st := &schema.StructType{}
	for _, f := range fields {
		c, err := build(f, f.Name(), path+"."+f.Name(), def, rep, col)
		if err != nil {
			return nil, err
		}
		t.children = append(t.children, c)
		t.leaves = append(t.leaves, c.leaves...)
		st.Fields = append(st.Fields, schema.Field{Name: c.name, Type: c.typ, Nullable: c.nullable})
	}
	t.typ = st
	return t, nil
}

// leafType sets the Delta type and value conversion of a leaf column. A
// malformed file can give a leaf a group type (LIST, MAP) whose methods
// panic in parquet-go; that is reported as ErrCorrupt.
func leafType(t *tnode, pt parquet.Type) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: column %s: invalid leaf type: %v", ErrCorrupt, t.path, p)
		}
	}()
	lt := pt.LogicalType()
	var lv format.LogicalTypeValue
	if lt != nil {
		lv = lt.Value
	}
	ct := pt.ConvertedType()
	unsupported := func() error {
		return fmt.Errorf("%w: column %s: Parquet type %s", ErrUnsupportedSchema, t.path, pt)
	}
	if d, ok := lv.(*format.DecimalType); ok {
		if d.Precision < 1 || d.Precision > 38 || d.Scale < 0 || d.Scale > d.Precision {
			return unsupported()
		}
		t.typ = schema.DecimalType{Precision: int(d.Precision), Scale: int(d.Scale)}
		t.scale = int(d.Scale)
		t.limit = values.Pow10(int(d.Precision))
		switch pt.Kind() {
		case parquet.Int32:
			t.conv = convDecimal32
		case parquet.Int64:
			t.conv = convDecimal64
		case parquet.ByteArray, parquet.FixedLenByteArray:
			t.conv = convDecimalBytes
			t.width = pt.Length()
		default:
			return unsupported()
		}
		return nil
	}
	switch pt.Kind() {
	case parquet.Boolean:
		t.typ, t.conv = schema.Boolean, convBool
	case parquet.Int32:
		switch v := lv.(type) {
		case *format.IntType:
			switch {
			case v.IsSigned && v.BitWidth == 8:
				t.typ, t.conv = schema.Byte, convInt8
			case v.IsSigned && v.BitWidth == 16:
				t.typ, t.conv = schema.Short, convInt16
			case v.IsSigned:
				t.typ, t.conv = schema.Integer, convInt32
			case v.BitWidth == 8:
				t.typ, t.conv = schema.Short, convUint8
			case v.BitWidth == 16:
				t.typ, t.conv = schema.Integer, convUint16
			default:
				t.typ, t.conv = schema.Long, convUint32
			}
		case *format.DateType:
			t.typ, t.conv = schema.DateType, convDate
		case nil:
			switch {
			case ct != nil && *ct == deprecated.Int8:
				t.typ, t.conv = schema.Byte, convInt8
			case ct != nil && *ct == deprecated.Int16:
				t.typ, t.conv = schema.Short, convInt16
			case ct != nil && *ct == deprecated.Date:
				t.typ, t.conv = schema.DateType, convDate
			default:
				t.typ, t.conv = schema.Integer, convInt32
			}
		default:
			return unsupported()
		}
	case parquet.Int64:
		switch v := lv.(type) {
		case *format.IntType:
			if v.IsSigned {
				t.typ, t.conv = schema.Long, convInt64
			} else {
				t.typ, t.conv = schema.DecimalType{Precision: 20, Scale: 0}, convUint64
			}
		case *format.TimestampType:
			t.typ = schema.TimestampNTZ
			if v.IsAdjustedToUTC {
				t.typ = schema.Timestamp
			}
			switch v.Unit.Value.(type) {
			case *format.MilliSeconds:
				t.conv = convTimestampMillis
			case *format.MicroSeconds:
				t.conv = convTimestampMicros
			case *format.NanoSeconds:
				t.conv = convTimestampNanos
			default:
				return unsupported()
			}
		case nil:
			switch {
			case ct != nil && *ct == deprecated.TimestampMillis:
				t.typ, t.conv = schema.Timestamp, convTimestampMillis
			case ct != nil && *ct == deprecated.TimestampMicros:
				t.typ, t.conv = schema.Timestamp, convTimestampMicros
			default:
				t.typ, t.conv = schema.Long, convInt64
			}
		default:
			return unsupported()
		}
	case parquet.Int96:
		t.typ, t.conv = schema.Timestamp, convInt96
	case parquet.Float:
		t.typ, t.conv = schema.Float, convFloat
	case parquet.Double:
		t.typ, t.conv = schema.Double, convDouble
	case parquet.ByteArray:
		switch lv.(type) {
		case *format.StringType, *format.EnumType, *format.JsonType:
			t.typ, t.conv = schema.String, convString
		case nil:
			if ct != nil && (*ct == deprecated.UTF8 || *ct == deprecated.Enum || *ct == deprecated.Json) {
				t.typ, t.conv = schema.String, convString
			} else {
				t.typ, t.conv = schema.Binary, convBinary
			}
		default:
			t.typ, t.conv = schema.Binary, convBinary
		}
	case parquet.FixedLenByteArray:
		t.typ, t.conv = schema.Binary, convBinary
	default:
		return unsupported()
	}
	return nil
}
