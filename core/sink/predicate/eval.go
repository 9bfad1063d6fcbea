package predicate

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tributary-io/tributary/core/schema"
)

// ErrColumn reports a predicate over a column the table does not have, or
// of a type the predicate cannot compare.
var ErrColumn = errors.New("predicate: bad column")

// ErrType reports a comparison of incompatible types or a literal that
// does not cast to its column's type.
var ErrType = errors.New("predicate: type mismatch")

// Truth is a SQL boolean: false, true or NULL (unknown).
type Truth uint8

// The three truth values.
const (
	False Truth = iota
	True
	Null
)

// String returns FALSE, TRUE or NULL.
func (t Truth) String() string { return [...]string{"FALSE", "TRUE", "NULL"}[t] }

// Set is a set of truth values: the results a predicate can have on the
// rows of a file.
type Set uint8

// Of returns the set holding t.
func Of(t Truth) Set { return 1 << t }

// Has reports whether s holds t.
func (s Set) Has(t Truth) bool { return s&Of(t) != 0 }

// Any is the set of every truth value (nothing is known).
const Any = Set(1<<False | 1<<True | 1<<Null)

// Column is a column a predicate may reference.
type Column struct {
	Name string
	Type schema.Type
}

// Bound is a predicate bound to a list of columns: names resolved
// (case-insensitively), literals cast to their columns' types.
type Bound struct {
	root  node
	cols  []Column
	used  []int
	float []bool // per column: floating point (statistics ignored)
	src   string
}

// Bind resolves e's columns among cols and types its literals.
func (e *Expr) Bind(cols []Column) (*Bound, error) {
	b := &Bound{cols: cols, float: make([]bool, len(cols)), src: e.src}
	for i, c := range cols {
		b.float[i] = isFloat(c.Type)
	}
	seen := map[int]bool{}
	var err error
	b.root, err = b.bind(e.root, seen)
	if err != nil {
		return nil, err
	}
	for i := range cols {
		if seen[i] {
			b.used = append(b.used, i)
		}
	}
	if k := b.kindOf(b.root); k != kBool && k != kNull {
		return nil, fmt.Errorf("%w: %s is %s, not a boolean condition", ErrType, e.src, kindName[k])
	}
	return b, nil
}

// Columns returns the indexes (into the bound columns) of the columns
// the predicate references, ascending.
func (b *Bound) Columns() []int { return b.used }

// String returns the predicate as the user wrote it.
func (b *Bound) String() string { return b.src }

func (b *Bound) bind(n node, seen map[int]bool) (node, error) {
	switch x := n.(type) {
	case *colNode:
		idx := -1
		for i, c := range b.cols {
			if strings.EqualFold(c.Name, x.name) {
				idx = i
				break
			}
		}
		if idx < 0 {
			names := make([]string, len(b.cols))
			for i, c := range b.cols {
				names[i] = c.Name
			}
			return nil, fmt.Errorf("%w: column %s is not in the table (columns: %s)", ErrColumn, x.name, strings.Join(names, ", "))
		}
		k := kindOf(b.cols[idx].Type)
		if k == kOther {
			return nil, fmt.Errorf("%w: column %s is of type %s, which cannot be compared", ErrColumn, x.name, b.cols[idx].Type)
		}
		seen[idx] = true
		return &colNode{name: b.cols[idx].Name, idx: idx, k: k}, nil
	case *litNode:
		return x, nil
	case *cmpNode:
		l, err := b.bind(x.l, seen)
		if err != nil {
			return nil, err
		}
		r, err := b.bind(x.r, seen)
		if err != nil {
			return nil, err
		}
		lk, rk := b.kindOf(l), b.kindOf(r)
		// An untyped string literal takes the other side's type.
		if ls, ok := l.(*litNode); ok && ls.str && rk != kStr && rk != kNull {
			if l, err = castLit(ls, rk, r); err != nil {
				return nil, err
			}
		}
		if rs, ok := r.(*litNode); ok && rs.str && lk != kStr && lk != kNull {
			if r, err = castLit(rs, lk, l); err != nil {
				return nil, err
			}
		}
		if !comparableKinds(b.kindOf(l), b.kindOf(r)) {
			return nil, fmt.Errorf("%w: cannot compare %s (%s) with %s (%s)", ErrType, l.sql(), kindName[b.kindOf(l)], r.sql(), kindName[b.kindOf(r)])
		}
		return &cmpNode{x.op, l, r}, nil
	case *andNode, *orNode:
		var l, r node
		if a, ok := x.(*andNode); ok {
			l, r = a.l, a.r
		} else {
			o := x.(*orNode)
			l, r = o.l, o.r
		}
		bl, err := b.boolOperand(l, seen)
		if err != nil {
			return nil, err
		}
		br, err := b.boolOperand(r, seen)
		if err != nil {
			return nil, err
		}
		if _, ok := x.(*andNode); ok {
			return &andNode{bl, br}, nil
		}
		return &orNode{bl, br}, nil
	case *notNode:
		in, err := b.boolOperand(x.x, seen)
		if err != nil {
			return nil, err
		}
		return &notNode{in}, nil
	case *isNullNode:
		in, err := b.bind(x.x, seen)
		if err != nil {
			return nil, err
		}
		return &isNullNode{in, x.neg}, nil
	}
	return nil, fmt.Errorf("%w: %T", ErrUnsupported, n)
}

func (b *Bound) boolOperand(n node, seen map[int]bool) (node, error) {
	bn, err := b.bind(n, seen)
	if err != nil {
		return nil, err
	}
	if l, ok := bn.(*litNode); ok && l.str {
		v, err := castString(l.v.s, kBool)
		if err != nil {
			return nil, fmt.Errorf("%w: %s is not a boolean condition", ErrType, l.sql())
		}
		return &litNode{v: v}, nil
	}
	if k := b.kindOf(bn); k != kBool && k != kNull {
		return nil, fmt.Errorf("%w: %s is %s, not a boolean condition", ErrType, bn.sql(), kindName[k])
	}
	return bn, nil
}

func castLit(l *litNode, k kind, other node) (node, error) {
	if k == kOther {
		return l, nil
	}
	v, err := castString(l.v.s, k)
	if err != nil {
		return nil, fmt.Errorf("%w: %s compared with %s: %v", ErrType, l.sql(), other.sql(), err)
	}
	return &litNode{v: v}, nil
}

func (b *Bound) kindOf(n node) kind {
	switch x := n.(type) {
	case *colNode:
		return x.k
	case *litNode:
		return x.v.k
	}
	return kBool
}

// Eval evaluates the predicate on a row: get returns the value of bound
// column i (package schema's row representation; nil is NULL). A value
// that cannot be compared makes the comparison NULL.
func (b *Bound) Eval(get func(i int) any) Truth {
	return b.eval(b.root, get)
}

func (b *Bound) operand(n node, get func(int) any) value {
	switch x := n.(type) {
	case *colNode:
		v, err := fromGo(get(x.idx))
		if err != nil {
			return value{k: kNull}
		}
		return v
	case *litNode:
		return x.v
	}
	switch b.eval(n, get) {
	case True:
		return value{k: kBool, b: true}
	case False:
		return value{k: kBool}
	}
	return value{k: kNull}
}

func (b *Bound) eval(n node, get func(int) any) Truth {
	switch x := n.(type) {
	case *cmpNode:
		return cmpValues(x.op, b.operand(x.l, get), b.operand(x.r, get))
	case *andNode:
		return and3(b.eval(x.l, get), b.eval(x.r, get))
	case *orNode:
		return or3(b.eval(x.l, get), b.eval(x.r, get))
	case *notNode:
		return not3(b.eval(x.x, get))
	case *isNullNode:
		isNull := b.operand(x.x, get).k == kNull
		return truth(isNull != x.neg)
	}
	v := b.operand(n, get)
	if v.k == kBool {
		return truth(v.b)
	}
	return Null
}

func truth(b bool) Truth {
	if b {
		return True
	}
	return False
}

func cmpValues(o op, a, b value) Truth {
	if o == opNullSafeEq && (a.k == kNull || b.k == kNull) {
		return truth(a.k == kNull && b.k == kNull)
	}
	if a.k == kNull || b.k == kNull {
		return Null
	}
	a, b, ok, err := coerce(a, b)
	if err != nil || !ok {
		return Null
	}
	c := compare(a, b)
	switch o {
	case opEq, opNullSafeEq:
		return truth(c == 0)
	case opNe:
		return truth(c != 0)
	case opLt:
		return truth(c < 0)
	case opLe:
		return truth(c <= 0)
	case opGt:
		return truth(c > 0)
	}
	return truth(c >= 0)
}

func and3(a, b Truth) Truth {
	switch {
	case a == False || b == False:
		return False
	case a == True && b == True:
		return True
	}
	return Null
}

func or3(a, b Truth) Truth {
	switch {
	case a == True || b == True:
		return True
	case a == False && b == False:
		return False
	}
	return Null
}

func not3(a Truth) Truth {
	switch a {
	case True:
		return False
	case False:
		return True
	}
	return Null
}

// Range is what a data file's metadata says about one column's values.
type Range struct {
	// Exact reports that every row holds Value (nil: NULL), as for a
	// partition column.
	Exact bool
	Value any
	// Min and Max bound the column's non-NULL values (either nil:
	// unknown), in package schema's row representation.
	Min, Max any
	// NullCount is the number of NULL values (negative: unknown) among
	// NumRecords rows.
	NullCount, NumRecords int64
}

// Unknown is the Range of a column nothing is known about.
var Unknown = Range{NullCount: -1}

// Possible returns the truth values the predicate can take on the rows of
// a file whose columns' metadata r describes (called only for the bound
// columns). The answer is conservative: a value it leaves out is
// impossible; one it holds may not occur.
func (b *Bound) Possible(r func(i int) Range) Set {
	return b.possible(b.root, r)
}

func (b *Bound) possible(n node, r func(int) Range) Set {
	switch x := n.(type) {
	case *andNode:
		return combine(b.possible(x.l, r), b.possible(x.r, r), and3)
	case *orNode:
		return combine(b.possible(x.l, r), b.possible(x.r, r), or3)
	case *notNode:
		in := b.possible(x.x, r)
		var out Set
		for _, t := range []Truth{False, True, Null} {
			if in.Has(t) {
				out |= Of(not3(t))
			}
		}
		return out
	case *isNullNode:
		if v, ok := b.exact(x.x, r); ok {
			return Of(truth((v.k == kNull) != x.neg))
		}
		c, ok := x.x.(*colNode)
		if !ok {
			return Of(False) | Of(True)
		}
		rg := r(c.idx)
		var out Set
		if mayNull(rg) {
			out |= Of(truth(!x.neg))
		}
		if mayNonNull(rg) {
			out |= Of(truth(x.neg))
		}
		return out
	case *cmpNode:
		lv, lok := b.exact(x.l, r)
		rv, rok := b.exact(x.r, r)
		if lok && rok {
			return Of(cmpValues(x.op, lv, rv))
		}
		switch {
		case rok:
			if c, ok := x.l.(*colNode); ok {
				return b.cmpRange(x.op, c, r(c.idx), rv)
			}
		case lok:
			if c, ok := x.r.(*colNode); ok {
				return b.cmpRange(flip(x.op), c, r(c.idx), lv)
			}
		}
		return Any
	}
	if v, ok := b.exact(n, r); ok {
		switch {
		case v.k == kBool:
			return Of(truth(v.b))
		case v.k == kNull:
			return Of(Null)
		}
		return Any
	}
	if c, ok := n.(*colNode); ok { // a boolean column
		return b.cmpRange(opEq, c, r(c.idx), value{k: kBool, b: true})
	}
	return Any
}

// exact returns the value an operand has on every row, if known.
func (b *Bound) exact(n node, r func(int) Range) (value, bool) {
	switch x := n.(type) {
	case *litNode:
		return x.v, true
	case *colNode:
		rg := r(x.idx)
		if rg.Exact {
			v, err := fromGo(rg.Value)
			return v, err == nil
		}
		if rg.NullCount >= 0 && rg.NumRecords > 0 && rg.NullCount == rg.NumRecords {
			return value{k: kNull}, true
		}
	}
	return value{}, false
}

func mayNull(rg Range) bool    { return rg.NullCount != 0 }
func mayNonNull(rg Range) bool { return rg.NullCount < 0 || rg.NullCount < rg.NumRecords }

// cmpRange returns the results of `col op c` over a column's range.
func (b *Bound) cmpRange(o op, col *colNode, rg Range, c value) Set {
	var out Set
	if o == opNullSafeEq {
		if c.k == kNull {
			if mayNull(rg) {
				out |= Of(True)
			}
			if mayNonNull(rg) {
				out |= Of(False)
			}
			return out
		}
		if mayNull(rg) {
			out |= Of(False)
		}
	} else {
		if c.k == kNull {
			return Of(Null)
		}
		if mayNull(rg) {
			out |= Of(Null)
		}
	}
	if !mayNonNull(rg) {
		return out
	}
	lo, loErr := fromGo(rg.Min)
	hi, hiErr := fromGo(rg.Max)
	if b.float[col.idx] || rg.Min == nil || rg.Max == nil || loErr != nil || hiErr != nil || col.k == kStr || col.k == kBin {
		// Floats (NaN), strings (truncated statistics) and unknown
		// bounds: every outcome.
		return out | Of(True) | Of(False) | Of(Null)
	}
	lo, c1, ok1, err1 := coerce(lo, c)
	hi, c2, ok2, err2 := coerce(hi, c)
	if !ok1 || !ok2 || err1 != nil || err2 != nil {
		return out | Of(True) | Of(False) | Of(Null)
	}
	cl, ch := compare(lo, c1), compare(hi, c2)
	var mayT, mayF bool
	switch o {
	case opEq, opNullSafeEq:
		mayT, mayF = cl <= 0 && ch >= 0, !(cl == 0 && ch == 0)
	case opNe:
		mayT, mayF = !(cl == 0 && ch == 0), cl <= 0 && ch >= 0
	case opLt:
		mayT, mayF = cl < 0, ch >= 0
	case opLe:
		mayT, mayF = cl <= 0, ch > 0
	case opGt:
		mayT, mayF = ch > 0, cl <= 0
	case opGe:
		mayT, mayF = ch >= 0, cl < 0
	}
	if mayT {
		out |= Of(True)
	}
	if mayF {
		out |= Of(False)
	}
	return out
}

func flip(o op) op {
	switch o {
	case opLt:
		return opGt
	case opLe:
		return opGe
	case opGt:
		return opLt
	case opGe:
		return opLe
	}
	return o
}

func combine(a, b Set, f func(Truth, Truth) Truth) Set {
	var out Set
	for _, x := range []Truth{False, True, Null} {
		if !a.Has(x) {
			continue
		}
		for _, y := range []Truth{False, True, Null} {
			if b.Has(y) {
				out |= Of(f(x, y))
			}
		}
	}
	return out
}
