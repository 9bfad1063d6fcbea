package schema

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// ErrIncompatible is wrapped by Merge when two schemas give one column types
// that no supported widening reconciles.
var ErrIncompatible = errors.New("schema: incompatible types")

// maxDecimalPrecision is the largest decimal precision Delta supports.
const maxDecimalPrecision = 38

// Merge returns the schema that holds both a and b: a's fields in a's order,
// each merged with b's field of the same name (names match
// case-insensitively, as Delta column names do; a's spelling is kept), then
// b's remaining fields appended in b's order — the way Auto Loader adds new
// columns at the end of the schema. Types are reconciled with WidenType; a
// pair it cannot reconcile is an error wrapping ErrIncompatible that names
// the column path. Nullability is the OR of both sides; metadata is a's.
// Neither input is modified.
func Merge(a, b *StructType) (*StructType, error) {
	if a == nil {
		a = &StructType{}
	}
	if b == nil {
		b = &StructType{}
	}
	return mergeStruct(a, b, "")
}

func mergeStruct(a, b *StructType, path string) (*StructType, error) {
	out := &StructType{Fields: make([]Field, 0, len(a.Fields)+len(b.Fields))}
	used := make([]bool, len(b.Fields))
	for _, fa := range a.Fields {
		f := cloneField(fa)
		if j := foldIndex(b, fa.Name, used); j >= 0 {
			used[j] = true
			fb := b.Fields[j]
			p := joinPath(path, fa.Name)
			t, err := mergeType(fa.Type, fb.Type, p)
			if err != nil {
				return nil, err
			}
			f.Type = t
			f.Nullable = fa.Nullable || fb.Nullable
		}
		out.Fields = append(out.Fields, f)
	}
	for j, fb := range b.Fields {
		if !used[j] {
			out.Fields = append(out.Fields, cloneField(fb))
		}
	}
	return out, nil
}

// foldIndex finds the unused field of s named name: an exact match first,
// then a case-insensitive one.
func foldIndex(s *StructType, name string, used []bool) int {
	for j, f := range s.Fields {
		if !used[j] && f.Name == name {
			return j
		}
	}
	for j, f := range s.Fields {
		if !used[j] && strings.EqualFold(f.Name, name) {
			return j
		}
	}
	return -1
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func mergeType(a, b Type, path string) (Type, error) {
	switch at := a.(type) {
	case *StructType:
		if bt, ok := b.(*StructType); ok {
			return mergeStruct(at, bt, path)
		}
	case *ArrayType:
		if bt, ok := b.(*ArrayType); ok {
			el, err := mergeType(at.Element, bt.Element, path+".element")
			if err != nil {
				return nil, err
			}
			return &ArrayType{Element: el, ContainsNull: at.ContainsNull || bt.ContainsNull}, nil
		}
	case *MapType:
		if bt, ok := b.(*MapType); ok {
			k, err := mergeType(at.Key, bt.Key, path+".key")
			if err != nil {
				return nil, err
			}
			v, err := mergeType(at.Value, bt.Value, path+".value")
			if err != nil {
				return nil, err
			}
			return &MapType{Key: k, Value: v, ValueContainsNull: at.ValueContainsNull || bt.ValueContainsNull}, nil
		}
	}
	if t, ok := WidenType(a, b); ok {
		return t, nil
	}
	return nil, fmt.Errorf("%w: column %q is %s in one schema and %s in the other", ErrIncompatible, path, typeName(a), typeName(b))
}

func typeName(t Type) string {
	if t == nil {
		return "<nil>"
	}
	return t.String()
}

// integralRank orders byte < short < integer < long; 0 for other types.
func integralRank(t Type) int {
	switch t {
	case Byte:
		return 1
	case Short:
		return 2
	case Integer:
		return 3
	case Long:
		return 4
	}
	return 0
}

// integralDecimal is the decimal an integral type widens to (seed 002:
// starting precision 10 for byte, short and int, 20 for long).
func integralDecimal(t Type) DecimalType {
	if t == Long {
		return DecimalType{Precision: 20}
	}
	return DecimalType{Precision: 10}
}

// WidenType returns the narrowest type that both a and b widen to under
// Delta Lake type widening as Auto Loader applies it
// (addNewColumnsWithTypeWidening; seed 002):
//
//	byte → short, int, long, decimal, double
//	short → int, long, decimal, double
//	int → long, decimal, double
//	long → decimal
//	float → double
//	decimal → decimal of higher precision and scale
//	date → timestamp_ntz
//
// An integral type meets a decimal as decimal(10,0) (byte, short, int) or
// decimal(20,0) (long); decimals combine to scale max(s1,s2) and integer
// digits max(p1-s1, p2-s2), so int and decimal(5,2) give decimal(12,2). A
// result beyond precision 38 is not a widening. Structs, arrays and maps are
// not handled here (Merge recurses into them); equal types return a.
// ok is false when no widening exists (e.g. long and double, int and string).
func WidenType(a, b Type) (Type, bool) {
	if a == nil || b == nil {
		return nil, false
	}
	if EqualType(a, b) {
		return a, true
	}
	ra, rb := integralRank(a), integralRank(b)
	switch {
	case ra > 0 && rb > 0:
		if ra >= rb {
			return a, true
		}
		return b, true
	case ra > 0 || rb > 0:
		other, integral := b, a
		if rb > 0 {
			other, integral = a, b
		}
		switch o := other.(type) {
		case DecimalType:
			return widenDecimal(integralDecimal(integral), o)
		case PrimitiveType:
			if o == Double && integral != Long {
				return Double, true
			}
		}
		return nil, false
	}
	if da, ok := a.(DecimalType); ok {
		if db, ok := b.(DecimalType); ok {
			return widenDecimal(da, db)
		}
		return nil, false
	}
	switch {
	case (a == Float && b == Double) || (a == Double && b == Float):
		return Double, true
	case (a == DateType && b == TimestampNTZ) || (a == TimestampNTZ && b == DateType):
		return TimestampNTZ, true
	}
	return nil, false
}

func widenDecimal(a, b DecimalType) (Type, bool) {
	scale := max(a.Scale, b.Scale)
	digits := max(a.Precision-a.Scale, b.Precision-b.Scale)
	if digits+scale > maxDecimalPrecision {
		return nil, false
	}
	return DecimalType{Precision: digits + scale, Scale: scale}, true
}

// Equal reports whether a and b are the same schema: the same fields in the
// same order with equal names (case-sensitive), types, nullability and
// metadata (a nil and an empty metadata map are equal). Two nil schemas are
// equal.
func Equal(a, b *StructType) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		fa, fb := a.Fields[i], b.Fields[i]
		if fa.Name != fb.Name || fa.Nullable != fb.Nullable || !EqualType(fa.Type, fb.Type) {
			return false
		}
		if (len(fa.Metadata) != 0 || len(fb.Metadata) != 0) && !reflect.DeepEqual(fa.Metadata, fb.Metadata) {
			return false
		}
	}
	return true
}

// EqualType reports whether a and b are the same type, recursively (see
// Equal for struct fields).
func EqualType(a, b Type) bool {
	switch at := a.(type) {
	case PrimitiveType:
		bt, ok := b.(PrimitiveType)
		return ok && at == bt
	case DecimalType:
		bt, ok := b.(DecimalType)
		return ok && at == bt
	case *StructType:
		bt, ok := b.(*StructType)
		return ok && Equal(at, bt)
	case *ArrayType:
		bt, ok := b.(*ArrayType)
		return ok && (at == nil) == (bt == nil) && (at == nil ||
			at.ContainsNull == bt.ContainsNull && EqualType(at.Element, bt.Element))
	case *MapType:
		bt, ok := b.(*MapType)
		return ok && (at == nil) == (bt == nil) && (at == nil ||
			at.ValueContainsNull == bt.ValueContainsNull && EqualType(at.Key, bt.Key) && EqualType(at.Value, bt.Value))
	case nil:
		return b == nil
	}
	return false
}

// CloneType returns a deep copy of t (metadata maps are copied one level).
func CloneType(t Type) Type {
	switch t := t.(type) {
	case *StructType:
		return t.Clone()
	case *ArrayType:
		if t == nil {
			return t
		}
		return &ArrayType{Element: CloneType(t.Element), ContainsNull: t.ContainsNull}
	case *MapType:
		if t == nil {
			return t
		}
		return &MapType{Key: CloneType(t.Key), Value: CloneType(t.Value), ValueContainsNull: t.ValueContainsNull}
	}
	return t
}

// Clone returns a deep copy of s.
func (s *StructType) Clone() *StructType {
	if s == nil {
		return nil
	}
	out := &StructType{Fields: make([]Field, len(s.Fields))}
	for i, f := range s.Fields {
		out.Fields[i] = cloneField(f)
	}
	return out
}

func cloneField(f Field) Field {
	f.Type = CloneType(f.Type)
	if f.Metadata != nil {
		m := make(map[string]any, len(f.Metadata))
		for k, v := range f.Metadata {
			m[k] = v
		}
		f.Metadata = m
	}
	return f
}
