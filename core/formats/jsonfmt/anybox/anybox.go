// Package anybox turns strings, longs and doubles into interface values
// without an allocation each (the JSON reader's row values).
package anybox

import "unsafe"

// Boxes turns strings, longs and doubles into interface values without an
// allocation each: the value is stored in a slab slot that is never
// written again, and the interface points at that slot. This is what
// converting to an interface does, minus the allocation (one slab holds
// many values, and lives while one of them does).
type Boxes struct {
	strs []string
	ints []int64
	dbls []float64
}

// Slabs grow from boxFirst to boxMax values.
const (
	boxFirst = 32
	boxMax   = 1024
)

// eface is the layout of an interface value (runtime.eface).
type eface struct {
	typ, data unsafe.Pointer
}

// point returns proto (a boxed value of the slot's type) pointing at slot.
func point(proto any, slot unsafe.Pointer) any {
	(*eface)(unsafe.Pointer(&proto)).data = slot
	return proto
}

// nextCap is a slab's next capacity.
func nextCap(c int) int { return min(max(2*c, boxFirst), boxMax) }

// String returns s as an interface value.
func (b *Boxes) String(s string) any {
	if len(b.strs) == cap(b.strs) {
		b.strs = make([]string, 0, nextCap(cap(b.strs)))
	}
	b.strs = append(b.strs, s)
	return point(any(""), unsafe.Pointer(&b.strs[len(b.strs)-1]))
}

// Long returns v as an interface value.
func (b *Boxes) Long(v int64) any {
	if len(b.ints) == cap(b.ints) {
		b.ints = make([]int64, 0, nextCap(cap(b.ints)))
	}
	b.ints = append(b.ints, v)
	return point(any(int64(0)), unsafe.Pointer(&b.ints[len(b.ints)-1]))
}

// Double returns v as an interface value.
func (b *Boxes) Double(v float64) any {
	if len(b.dbls) == cap(b.dbls) {
		b.dbls = make([]float64, 0, nextCap(cap(b.dbls)))
	}
	b.dbls = append(b.dbls, v)
	return point(any(float64(0)), unsafe.Pointer(&b.dbls[len(b.dbls)-1]))
}
