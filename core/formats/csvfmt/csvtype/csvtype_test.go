package csvtype

import (
	"testing"

	"github.com/tributary-io/tributary/core/schema"
)

// TestMerge: Spark's compatibleType on the lattice's pairs.
func TestMerge(t *testing.T) {
	dec := func(p, s int) Type { return Type{K: Decimal, Prec: p, Scale: s} }
	for _, tt := range []struct {
		a, b, want Type
	}{
		{Type{K: Null}, Type{K: Int}, Type{K: Int}},
		{Type{K: Bool}, Type{K: Null}, Type{K: Bool}},
		{Type{K: Int}, Type{K: Long}, Type{K: Long}},
		{Type{K: Int}, Type{K: Double}, Type{K: Double}},
		{dec(5, 2), Type{K: Double}, Type{K: Double}},
		{dec(5, 2), Type{K: Int}, dec(12, 2)},
		{dec(38, 0), dec(3, 2), Type{K: Double}},
		{dec(5, 2), dec(5, 2), dec(5, 2)},
		{Type{K: Date}, Type{K: Timestamp}, Type{K: Timestamp}},
		{Type{K: Date}, Type{K: Int}, Type{K: String}},
		{Type{K: Bool}, Type{K: Int}, Type{K: String}},
		{Type{K: String}, Type{K: Int}, Type{K: String}},
	} {
		if got := Merge(tt.a, tt.b); got != tt.want {
			t.Errorf("Merge(%+v, %+v) = %+v, want %+v", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestSchema: each kind's schema type.
func TestSchema(t *testing.T) {
	for _, tt := range []struct {
		t    Type
		want schema.Type
	}{
		{Type{K: Null}, schema.String},
		{Type{K: Int}, schema.Integer},
		{Type{K: Long}, schema.Long},
		{Type{K: Decimal, Prec: 7, Scale: 2}, schema.DecimalType{Precision: 7, Scale: 2}},
		{Type{K: Double}, schema.Double},
		{Type{K: Date}, schema.DateType},
		{Type{K: Timestamp}, schema.Timestamp},
		{Type{K: Bool}, schema.Boolean},
		{Type{K: String}, schema.String},
	} {
		if got := tt.t.Schema(); got != tt.want {
			t.Errorf("%+v.Schema() = %v, want %v", tt.t, got, tt.want)
		}
	}
}
