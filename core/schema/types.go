// Package schema holds Tributary's table schema model — the Delta Lake schema
// types (primitive, struct, array, map), their JSON form as written in a Delta
// metaData action — and the in-memory row representation shared by readers
// and writers.
//
// Rows: a row of a StructType is a []any with one element per field, in field
// order. A value is nil (null) or, by type:
//
//	string            string
//	long              int64
//	integer           int32
//	short             int16
//	byte              int8
//	double            float64
//	float             float32
//	boolean           bool
//	binary            []byte
//	date              Date (days since the Unix epoch)
//	timestamp         time.Time (an instant; written as UTC microseconds)
//	timestamp_ntz     time.Time (wall clock read in UTC; microseconds)
//	decimal(p,s)      Decimal
//	struct            []any, one element per field
//	array             []any
//	map               []MapEntry
package schema

import (
	"math/big"
)

// Type is a Delta Lake data type.
type Type interface {
	// String returns the type in Delta's simple-string form: "long",
	// "decimal(10,2)", "struct<a:long>", "array<string>", "map<string,long>".
	String() string
	isType()
}

// PrimitiveType is a non-nested type, named as in Delta's schema JSON.
type PrimitiveType string

// The primitive types.
const (
	String       PrimitiveType = "string"
	Long         PrimitiveType = "long"
	Integer      PrimitiveType = "integer"
	Short        PrimitiveType = "short"
	Byte         PrimitiveType = "byte"
	Double       PrimitiveType = "double"
	Float        PrimitiveType = "float"
	Boolean      PrimitiveType = "boolean"
	Binary       PrimitiveType = "binary"
	DateType     PrimitiveType = "date"
	Timestamp    PrimitiveType = "timestamp"
	TimestampNTZ PrimitiveType = "timestamp_ntz"
)

// String returns the type's Delta name.
func (p PrimitiveType) String() string { return string(p) }
func (PrimitiveType) isType()          {}

// DecimalType is decimal(Precision, Scale), Precision at most 38.
type DecimalType struct {
	Precision int
	Scale     int
}

func (DecimalType) isType() {}

// Field is one named member of a struct.
type Field struct {
	Name     string
	Type     Type
	Nullable bool
	// Metadata is the field's free-form metadata (kept verbatim).
	Metadata map[string]any
}

// StructType is an ordered list of fields; a table schema is a StructType.
type StructType struct {
	Fields []Field
}

func (*StructType) isType() {}

// ArrayType is a list of elements.
type ArrayType struct {
	Element      Type
	ContainsNull bool
}

func (*ArrayType) isType() {}

// MapType is a map from keys to values; keys are never null.
type MapType struct {
	Key               Type
	Value             Type
	ValueContainsNull bool
}

func (*MapType) isType() {}

// Date is a calendar date as days since 1970-01-01.
type Date int32

// Decimal is an exact decimal number: Unscaled × 10^-Scale.
type Decimal struct {
	Unscaled *big.Int
	Scale    int
}

// MapEntry is one key/value pair of a map value.
type MapEntry struct {
	Key   any
	Value any
}
