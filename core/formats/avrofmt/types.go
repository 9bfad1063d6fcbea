package avrofmt

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/hamba/avro/v2"

	"github.com/tributary-io/tributary/core/schema"
)

// ErrSchema is wrapped when an Avro schema cannot be read or has no Spark
// equivalent (a recursive type, a decimal wider than 38 digits).
var ErrSchema = errors.New("unsupported Avro schema")

// kind is an Avro type as the decoder sees it, logical types resolved.
type kind int

const (
	kNull kind = iota
	kBoolean
	kInt
	kLong
	kFloat
	kDouble
	kString
	kBytes
	kFixed
	kEnum
	kRecord
	kArray
	kMap
	kUnion
	kDate // int date
	kTimestampMillis
	kTimestampMicros
	kLocalMillis // local-timestamp-millis: timestamp_ntz
	kLocalMicros
	kDecimalBytes
	kDecimalFixed
)

// unionKind is how Spark maps a union.
type unionKind int

const (
	unionNullable unionKind = iota // null and one type: that type
	unionLong                      // int and long (and null): long
	unionDouble                    // float and double (and null): double
	unionStruct                    // anything else: struct<member0, member1, ...>
)

// node is a compiled Avro schema.
type node struct {
	kind     kind
	name     string  // record, enum, fixed: full name
	fields   []field // record
	items    *node   // array
	values   *node   // map
	branches []*node // union, in schema order
	nonNull  []int   // union: indexes of the non-null branches
	ukind    unionKind
	symbols  []string // enum
	size     int      // fixed
	decimal  schema.DecimalType
	minSize  int // fewest bytes an encoded value takes
}

type field struct {
	name string
	n    *node
}

// compile turns a parsed Avro schema into nodes. A recursive record type
// fails (Spark: "Found recursive reference in Avro schema").
func compile(s avro.Schema) (*node, error) {
	return compileIn(s, map[string]bool{})
}

func compileIn(s avro.Schema, open map[string]bool) (*node, error) {
	if ref, ok := s.(*avro.RefSchema); ok {
		s = ref.Schema()
	}
	n := &node{}
	var logical avro.LogicalSchema
	if lt, ok := s.(avro.LogicalTypeSchema); ok && lt.Logical() != nil {
		logical = lt.Logical()
	}
	lname := avro.LogicalType("")
	if logical != nil {
		lname = logical.Type()
	}
	switch s.Type() {
	case avro.Null:
		n.kind = kNull
	case avro.Boolean:
		n.kind, n.minSize = kBoolean, 1
	case avro.Int:
		n.kind, n.minSize = kInt, 1
		if lname == avro.Date {
			n.kind = kDate
		}
	case avro.Long:
		n.kind, n.minSize = kLong, 1
		switch lname {
		case avro.TimestampMillis:
			n.kind = kTimestampMillis
		case avro.TimestampMicros:
			n.kind = kTimestampMicros
		case avro.LocalTimestampMillis:
			n.kind = kLocalMillis
		case avro.LocalTimestampMicros:
			n.kind = kLocalMicros
		}
	case avro.Float:
		n.kind, n.minSize = kFloat, 4
	case avro.Double:
		n.kind, n.minSize = kDouble, 8
	case avro.String:
		n.kind, n.minSize = kString, 1
	case avro.Bytes:
		n.kind, n.minSize = kBytes, 1
		if d, ok := logical.(*avro.DecimalLogicalSchema); ok && lname == avro.Decimal {
			n.kind = kDecimalBytes
			if err := n.setDecimal(d); err != nil {
				return nil, err
			}
		}
	case avro.Fixed:
		fs := s.(*avro.FixedSchema)
		n.kind, n.size, n.name, n.minSize = kFixed, fs.Size(), fs.FullName(), fs.Size()
		if d, ok := logical.(*avro.DecimalLogicalSchema); ok && lname == avro.Decimal {
			n.kind = kDecimalFixed
			if err := n.setDecimal(d); err != nil {
				return nil, err
			}
		}
	case avro.Enum:
		es := s.(*avro.EnumSchema)
		n.kind, n.symbols, n.name, n.minSize = kEnum, es.Symbols(), es.FullName(), 1
	case avro.Record, avro.Error:
		rs := s.(*avro.RecordSchema)
		n.kind, n.name = kRecord, rs.FullName()
		if open[n.name] {
			return nil, fmt.Errorf("%w: found recursive reference in Avro schema (%s), which Spark cannot represent", ErrSchema, n.name)
		}
		open[n.name] = true
		for _, f := range rs.Fields() {
			c, err := compileIn(f.Type(), open)
			if err != nil {
				return nil, err
			}
			n.fields = append(n.fields, field{name: f.Name(), n: c})
			n.minSize += c.minSize
		}
		delete(open, n.name)
	case avro.Array:
		c, err := compileIn(s.(*avro.ArraySchema).Items(), open)
		if err != nil {
			return nil, err
		}
		n.kind, n.items, n.minSize = kArray, c, 1
	case avro.Map:
		c, err := compileIn(s.(*avro.MapSchema).Values(), open)
		if err != nil {
			return nil, err
		}
		n.kind, n.values, n.minSize = kMap, c, 1
	case avro.Union:
		n.kind, n.minSize = kUnion, 1
		var kinds []kind
		for i, b := range s.(*avro.UnionSchema).Types() {
			c, err := compileIn(b, open)
			if err != nil {
				return nil, err
			}
			n.branches = append(n.branches, c)
			if c.kind != kNull {
				n.nonNull = append(n.nonNull, i)
				kinds = append(kinds, c.kind)
			}
		}
		switch {
		case len(n.nonNull) <= 1:
			n.ukind = unionNullable
		case len(kinds) == 2 && ((kinds[0] == kInt && kinds[1] == kLong) || (kinds[0] == kLong && kinds[1] == kInt)):
			n.ukind = unionLong
		case len(kinds) == 2 && ((kinds[0] == kFloat && kinds[1] == kDouble) || (kinds[0] == kDouble && kinds[1] == kFloat)):
			n.ukind = unionDouble
		default:
			n.ukind = unionStruct
		}
	default:
		return nil, fmt.Errorf("%w: type %s", ErrSchema, s.Type())
	}
	return n, nil
}

func (n *node) setDecimal(d *avro.DecimalLogicalSchema) error {
	if d.Precision() < 1 || d.Precision() > 38 || d.Scale() < 0 || d.Scale() > d.Precision() {
		return fmt.Errorf("%w: decimal(%d,%d): Spark's decimals have a precision of 1 to 38 and a scale of at most the precision", ErrSchema, d.Precision(), d.Scale())
	}
	n.decimal = schema.DecimalType{Precision: d.Precision(), Scale: d.Scale()}
	return nil
}

// sparkType is the Spark (Delta) type Spark's SchemaConverters gives n;
// nil for a null-only type. Every field, element and value is nullable:
// Auto Loader merges the schemas of many files, in which a field may be
// missing.
func (n *node) sparkType() schema.Type {
	switch n.kind {
	case kNull:
		return nil
	case kBoolean:
		return schema.Boolean
	case kInt:
		return schema.Integer
	case kLong:
		return schema.Long
	case kFloat:
		return schema.Float
	case kDouble:
		return schema.Double
	case kString, kEnum:
		return schema.String
	case kBytes, kFixed:
		return schema.Binary
	case kDate:
		return schema.DateType
	case kTimestampMillis, kTimestampMicros:
		return schema.Timestamp
	case kLocalMillis, kLocalMicros:
		return schema.TimestampNTZ
	case kDecimalBytes, kDecimalFixed:
		return n.decimal
	case kRecord:
		st := &schema.StructType{}
		for _, f := range n.fields {
			st.Fields = append(st.Fields, schema.Field{Name: f.name, Type: orString(f.n.sparkType()), Nullable: true})
		}
		return st
	case kArray:
		return &schema.ArrayType{Element: orString(n.items.sparkType()), ContainsNull: true}
	case kMap:
		return &schema.MapType{Key: schema.String, Value: orString(n.values.sparkType()), ValueContainsNull: true}
	case kUnion:
		switch n.ukind {
		case unionNullable:
			if len(n.nonNull) == 0 {
				return nil
			}
			return n.branches[n.nonNull[0]].sparkType()
		case unionLong:
			return schema.Long
		case unionDouble:
			return schema.Double
		}
		st := &schema.StructType{}
		for i, b := range n.nonNull {
			st.Fields = append(st.Fields, schema.Field{Name: "member" + strconv.Itoa(i), Type: orString(n.branches[b].sparkType()), Nullable: true})
		}
		return st
	}
	return nil
}

// orString gives a null-only Avro type (Spark's NullType, which Delta
// cannot store) the type string, whose values are then always null.
func orString(t schema.Type) schema.Type {
	if t == nil {
		return schema.String
	}
	return t
}

// parseSchema parses an Avro schema's JSON text with a cache of its own
// (named types of one file never meet another file's).
func parseSchema(text string) (*node, error) {
	s, err := avro.ParseWithCache(text, "", &avro.SchemaCache{})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSchema, err)
	}
	n, err := compile(s)
	if err != nil {
		return nil, err
	}
	return n, nil
}

// topStruct is the table schema of a file's top-level record. Any other
// top-level type fails, as in Spark ("Avro schema cannot be converted to a
// Spark SQL StructType").
func (n *node) topStruct() (*schema.StructType, error) {
	if n.kind != kRecord {
		return nil, fmt.Errorf("%w: the top-level type is not a record: Avro schema cannot be converted to a Spark SQL StructType", ErrSchema)
	}
	return n.sparkType().(*schema.StructType), nil
}
