// Package csvtype is Spark's CSV type inference lattice
// (CSVInferSchema): the types a CSV column can be inferred as and how two
// of them merge. The csvfmt package folds values into them.
package csvtype

import "github.com/tributary-io/tributary/core/schema"

// Kind is a type of Spark's CSV inference lattice (CSVInferSchema).
type Kind uint8

const (
	Null Kind = iota
	Int
	Long
	Decimal
	Double
	Date
	Timestamp
	Bool
	String
)

// Type is an inferred column type.
type Type struct {
	K           Kind
	Prec, Scale int // Decimal
}

// Merge is Spark's CSVInferSchema.compatibleType; no common type is
// STRING.
func Merge(a, b Type) Type {
	switch {
	case a.K == Null:
		return b
	case b.K == Null:
		return a
	case a.K == String || b.K == String:
		return Type{K: String}
	case a.K == b.K && a.K != Decimal:
		return a
	}
	integral := func(k Kind) bool { return k == Int || k == Long }
	switch {
	case integral(a.K) && integral(b.K):
		return Type{K: Long}
	case (integral(a.K) || a.K == Double) && (integral(b.K) || b.K == Double):
		return Type{K: Double}
	case a.K == Double && b.K == Decimal, a.K == Decimal && b.K == Double:
		return Type{K: Double}
	case (a.K == Decimal || integral(a.K)) && (b.K == Decimal || integral(b.K)):
		ap, as := decimalOf(a)
		bp, bs := decimalOf(b)
		scale := max(as, bs)
		rng := max(ap-as, bp-bs)
		if rng+scale > 38 {
			return Type{K: Double}
		}
		return Type{K: Decimal, Prec: rng + scale, Scale: scale}
	case a.K == Date && b.K == Timestamp, a.K == Timestamp && b.K == Date:
		return Type{K: Timestamp}
	}
	return Type{K: String}
}

// decimalOf is Spark's DecimalType.forType for integral types.
func decimalOf(t Type) (int, int) {
	switch t.K {
	case Int:
		return 10, 0
	case Long:
		return 20, 0
	}
	return t.Prec, t.Scale
}

// Schema is the column type t infers.
func (t Type) Schema() schema.Type {
	switch t.K {
	case Int:
		return schema.Integer
	case Long:
		return schema.Long
	case Decimal:
		return schema.DecimalType{Precision: t.Prec, Scale: t.Scale}
	case Double:
		return schema.Double
	case Date:
		return schema.DateType
	case Timestamp:
		return schema.Timestamp
	case Bool:
		return schema.Boolean
	}
	return schema.String
}
