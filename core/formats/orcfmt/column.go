package orcfmt

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// maxValues bounds the values one column holds in one stripe, so that a
// corrupt length never allocates unbounded memory.
const maxValues = 1 << 27

// orcEpoch is 2015-01-01T00:00:00Z, the base of ORC timestamps.
const orcEpoch = 1420070400

// deltaType maps ORC type id to its Delta type, as Spark reads ORC.
func (t *tail) deltaType(id int) (schema.Type, error) {
	ot := t.types[id]
	switch ot.kind {
	case kBoolean:
		return schema.Boolean, nil
	case kByte:
		return schema.Byte, nil
	case kShort:
		return schema.Short, nil
	case kInt:
		return schema.Integer, nil
	case kLong:
		return schema.Long, nil
	case kFloat:
		return schema.Float, nil
	case kDouble:
		return schema.Double, nil
	case kString, kVarchar, kChar:
		return schema.String, nil
	case kBinary:
		return schema.Binary, nil
	case kTimestamp, kTimestampInstant:
		return schema.Timestamp, nil
	case kDate:
		return schema.DateType, nil
	case kDecimal:
		p, s := ot.precision, ot.scale
		if p == 0 { // Hive 0.11 decimals: ORC's default
			p, s = 38, 10
		}
		if p < 1 || p > 38 || s < 0 || s > p {
			return nil, corrupt("decimal(%d,%d) of column %d", p, s, id)
		}
		return schema.DecimalType{Precision: p, Scale: s}, nil
	case kStruct:
		st := &schema.StructType{}
		for i, c := range ot.subtypes {
			ft, err := t.deltaType(c)
			if err != nil {
				return nil, err
			}
			st.Fields = append(st.Fields, schema.Field{Name: ot.names[i], Type: ft, Nullable: true})
		}
		return st, nil
	case kList:
		if len(ot.subtypes) != 1 {
			return nil, corrupt("list type %d has %d subtypes", id, len(ot.subtypes))
		}
		et, err := t.deltaType(ot.subtypes[0])
		if err != nil {
			return nil, err
		}
		return &schema.ArrayType{Element: et, ContainsNull: true}, nil
	case kMap:
		if len(ot.subtypes) != 2 {
			return nil, corrupt("map type %d has %d subtypes", id, len(ot.subtypes))
		}
		kt, err := t.deltaType(ot.subtypes[0])
		if err != nil {
			return nil, err
		}
		vt, err := t.deltaType(ot.subtypes[1])
		if err != nil {
			return nil, err
		}
		return &schema.MapType{Key: kt, Value: vt, ValueContainsNull: true}, nil
	case kUnion:
		return nil, fmt.Errorf("%w: union type (column %d) has no Delta equivalent", ErrUnsupported, id)
	}
	return nil, corrupt("unknown type kind %d (column %d)", ot.kind, id)
}

// stripe holds one stripe's decompressed streams.
type stripe struct {
	t       *tail
	sf      *stripeFooter
	streams map[[2]uint64][]byte
}

func loadStripe(f fileformat.File, t *tail, s stripeInfo) (*stripe, error) {
	sf, err := t.readStripeFooter(f, s)
	if err != nil {
		return nil, err
	}
	if len(sf.encodings) < len(t.types) {
		return nil, corrupt("stripe footer has %d column encodings for %d columns", len(sf.encodings), len(t.types))
	}
	raw := make([]byte, s.indexLen+s.dataLen)
	if _, err := f.ReadAt(raw, int64(s.offset)); err != nil {
		return nil, corrupt("reading stripe: %v", err)
	}
	st := &stripe{t: t, sf: sf, streams: map[[2]uint64][]byte{}}
	var off uint64
	for _, si := range sf.streams {
		if si.length > uint64(len(raw))-off {
			return nil, corrupt("stream of column %d overruns its stripe", si.column)
		}
		b := raw[off : off+si.length]
		off += si.length
		switch si.kind {
		case sPresent, sData, sLength, sDictionaryData, sSecondary:
		default:
			continue
		}
		d, err := t.decompress(b, maxStripe)
		if err != nil {
			return nil, fmt.Errorf("column %d: %w", si.column, err)
		}
		st.streams[[2]uint64{si.column, si.kind}] = d
	}
	return st, nil
}

func (st *stripe) stream(col int, kind uint64) *byteReader {
	b, ok := st.streams[[2]uint64{uint64(col), kind}]
	r := &byteReader{b: b}
	if !ok && kind != sPresent {
		r.err = corrupt("column %d lacks stream kind %d", col, kind)
	}
	return r
}

// column decodes n values of column col (nil for nulls).
func (st *stripe) column(col, n int) ([]any, error) {
	if n > maxValues {
		return nil, corrupt("column %d: %d values in one stripe", col, n)
	}
	var present []bool
	m := n
	if b, ok := st.streams[[2]uint64{uint64(col), sPresent}]; ok {
		r := &byteReader{b: b}
		present = boolRLE(r, n)
		if r.err != nil {
			return nil, fmt.Errorf("column %d present: %w", col, r.err)
		}
		m = 0
		for _, p := range present {
			if p {
				m++
			}
		}
	}
	vals, err := st.values(col, m)
	if err != nil {
		return nil, err
	}
	if len(vals) != m {
		return nil, corrupt("column %d: %d values, %d expected", col, len(vals), m)
	}
	if present == nil {
		return vals, nil
	}
	out := make([]any, n)
	j := 0
	for i, p := range present {
		if p {
			out[i] = vals[j]
			j++
		}
	}
	return out, nil
}

func (st *stripe) values(col, m int) ([]any, error) {
	ot := st.t.types[col]
	enc := st.sf.encodings[col]
	v2 := enc == 2 || enc == 3
	out := make([]any, 0, min(m, 1<<16))
	data := func() *byteReader { return st.stream(col, sData) }
	var r *byteReader
	switch ot.kind {
	case kBoolean:
		r = data()
		for _, b := range boolRLE(r, m) {
			out = append(out, b)
		}
	case kByte:
		r = data()
		for _, b := range byteRLE(r, m) {
			out = append(out, int8(b))
		}
	case kShort, kInt, kLong, kDate:
		r = data()
		for _, v := range intRLE(r, m, true, v2) {
			switch ot.kind {
			case kShort:
				out = append(out, int16(v))
			case kInt:
				out = append(out, int32(v))
			case kLong:
				out = append(out, v)
			default:
				if v < math.MinInt32 || v > math.MaxInt32 {
					return nil, corrupt("column %d: date %d out of range", col, v)
				}
				out = append(out, schema.Date(rebaseJulianDays(v)))
			}
		}
	case kFloat, kDouble:
		r = data()
		w := 4
		if ot.kind == kDouble {
			w = 8
		}
		b := r.bytes(m * w)
		for i := 0; i < m && r.err == nil; i++ {
			if w == 4 {
				out = append(out, math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
			} else {
				out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
			}
		}
	case kString, kVarchar, kChar, kBinary:
		bin := ot.kind == kBinary
		conv := func(b []byte) any {
			if bin {
				return append([]byte(nil), b...)
			}
			return string(b)
		}
		if enc == 1 || enc == 3 {
			size := st.sf.dictSizes[col]
			if size > maxValues {
				return nil, corrupt("column %d: dictionary of %d entries", col, size)
			}
			lr := st.stream(col, sLength)
			lens := intRLE(lr, int(size), false, v2)
			if lr.err != nil {
				return nil, fmt.Errorf("column %d dictionary lengths: %w", col, lr.err)
			}
			dr := st.stream(col, sDictionaryData)
			dict := make([]any, len(lens))
			for i, l := range lens {
				dict[i] = conv(dr.bytes(int(l)))
			}
			if dr.err != nil && size > 0 {
				return nil, fmt.Errorf("column %d dictionary: %w", col, dr.err)
			}
			r = data()
			for _, i := range intRLE(r, m, false, v2) {
				if i < 0 || i >= int64(len(dict)) {
					return nil, corrupt("column %d: dictionary index %d of %d", col, i, len(dict))
				}
				out = append(out, dict[i])
			}
		} else {
			lr := st.stream(col, sLength)
			lens := intRLE(lr, m, false, v2)
			if lr.err != nil {
				return nil, fmt.Errorf("column %d lengths: %w", col, lr.err)
			}
			r = &byteReader{b: st.streams[[2]uint64{uint64(col), sData}]}
			for _, l := range lens {
				out = append(out, conv(r.bytes(int(l))))
			}
		}
	case kTimestamp, kTimestampInstant:
		r = data()
		secs := intRLE(r, m, true, v2)
		nr := st.stream(col, sSecondary)
		nanos := intRLE(nr, m, false, v2)
		if nr.err != nil {
			return nil, fmt.Errorf("column %d nanos: %w", col, nr.err)
		}
		for i := 0; i < len(secs) && i < len(nanos); i++ {
			ns := nanos[i] >> 3
			if z := nanos[i] & 7; z != 0 {
				for k := int64(0); k <= z; k++ {
					ns *= 10
				}
			}
			// pyarrow's writer stores a negative nanosecond part for
			// instants before 1970 (seconds truncated toward zero).
			if ns < -999999999 || ns > 999999999 {
				return nil, corrupt("column %d: %d nanoseconds", col, ns)
			}
			s := secs[i] + orcEpoch
			if s < 0 && ns > 999999 {
				s--
			}
			out = append(out, time.Unix(s, ns).UTC())
		}
	case kDecimal:
		dt, err := st.t.deltaType(col)
		if err != nil {
			return nil, err
		}
		scale := dt.(schema.DecimalType).Scale
		r = data()
		sr := st.stream(col, sSecondary)
		unscaled := make([]*big.Int, 0, min(m, 1<<16))
		for i := 0; i < m && r.err == nil; i++ {
			unscaled = append(unscaled, bigVarint(r))
		}
		scales := intRLE(sr, m, true, v2)
		if sr.err != nil {
			return nil, fmt.Errorf("column %d scales: %w", col, sr.err)
		}
		for i := 0; i < len(unscaled) && i < len(scales); i++ {
			u, s := unscaled[i], scales[i]
			if s < -38 || s > 38 {
				return nil, corrupt("column %d: decimal scale %d", col, s)
			}
			if d := int64(scale) - s; d > 0 {
				u.Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(d), nil))
			} else if d < 0 {
				u.Quo(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(-d), nil))
			}
			out = append(out, schema.Decimal{Unscaled: u, Scale: scale})
		}
	case kStruct:
		kids := make([][]any, len(ot.subtypes))
		for i, c := range ot.subtypes {
			v, err := st.column(c, m)
			if err != nil {
				return nil, err
			}
			kids[i] = v
		}
		for j := 0; j < m; j++ {
			row := make([]any, len(kids))
			for i := range kids {
				row[i] = kids[i][j]
			}
			out = append(out, row)
		}
		return out, nil
	case kList, kMap:
		r = st.stream(col, sLength)
		lens := intRLE(r, m, false, v2)
		if r.err != nil {
			return nil, fmt.Errorf("column %d lengths: %w", col, r.err)
		}
		total := 0
		for _, l := range lens {
			if l < 0 || l > maxValues || total+int(l) > maxValues {
				return nil, corrupt("column %d: collection of %d elements", col, l)
			}
			total += int(l)
		}
		if len(ot.subtypes) < 1 || (ot.kind == kMap && len(ot.subtypes) < 2) {
			return nil, corrupt("column %d: collection without element type", col)
		}
		elems, err := st.column(ot.subtypes[0], total)
		if err != nil {
			return nil, err
		}
		var vals []any
		if ot.kind == kMap {
			if vals, err = st.column(ot.subtypes[1], total); err != nil {
				return nil, err
			}
		}
		pos := 0
		for _, l := range lens {
			if ot.kind == kList {
				out = append(out, elems[pos:pos+int(l):pos+int(l)])
			} else {
				es := make([]schema.MapEntry, l)
				for k := range es {
					if elems[pos+k] == nil {
						return nil, corrupt("column %d: null map key", col)
					}
					es[k] = schema.MapEntry{Key: elems[pos+k], Value: vals[pos+k]}
				}
				out = append(out, es)
			}
			pos += int(l)
		}
		return out, nil
	case kUnion:
		return nil, fmt.Errorf("%w: union type (column %d)", ErrUnsupported, col)
	default:
		return nil, corrupt("unknown type kind %d (column %d)", ot.kind, col)
	}
	if r != nil && r.err != nil {
		return nil, fmt.Errorf("column %d: %w", col, r.err)
	}
	return out, nil
}

// bigVarint reads a zigzag varint of any length (decimal DATA streams).
func bigVarint(r *byteReader) *big.Int {
	var x uint64
	var s uint
	for s < 63 {
		c := r.byte()
		x |= uint64(c&0x7f) << s
		s += 7
		if c < 0x80 || r.err != nil {
			if s <= 63 || x>>63 == 0 {
				v := new(big.Int).SetUint64(x >> 1)
				if x&1 == 1 {
					v.Neg(v).Sub(v, big.NewInt(1))
				}
				return v
			}
			break
		}
	}
	// Long form: more than 63 bits.
	u := new(big.Int).SetUint64(x)
	for i := 0; r.err == nil; i++ {
		if i > 20 {
			r.err = corrupt("decimal varint too long")
			break
		}
		c := r.byte()
		u.Or(u, new(big.Int).Lsh(big.NewInt(int64(c&0x7f)), s))
		s += 7
		if c < 0x80 {
			break
		}
	}
	neg := u.Bit(0) == 1
	u.Rsh(u, 1)
	if neg {
		u.Neg(u).Sub(u, big.NewInt(1))
	}
	return u
}

// gregorianStart is 1582-10-15 in days since 1970-01-01.
const gregorianStart = -141427

// rebaseJulianDays is Spark's rebaseJulianToGregorianDays, which its ORC
// reader applies to every date: a day count before 1582-10-15 is read as
// a date of the Julian calendar (ORC's Java writers use the hybrid
// calendar) and becomes the proleptic Gregorian date with the same year,
// month and day.
func rebaseJulianDays(days int64) int64 {
	if days >= gregorianStart {
		return days
	}
	c := days + 2440588 + 32082 // Julian day number, shifted
	if c < 0 {
		return days
	}
	d := (4*c + 3) / 1461
	e := c - 1461*d/4
	m := (5*e + 2) / 153
	day := e - (153*m+2)/5 + 1
	month := m + 3 - 12*(m/10)
	year := d - 4800 + m/10
	return time.Date(int(year), time.Month(month), int(day), 0, 0, 0, 0, time.UTC).Unix() / 86400
}
