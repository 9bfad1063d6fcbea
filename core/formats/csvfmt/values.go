package csvfmt

import (
	"math"

	"strings"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/fileformat/javanum"
	"github.com/tributary-io/tributary/core/schema"
)

// kind is a type of Spark's CSV inference lattice (CSVInferSchema).
type kind uint8

const (
	kNull kind = iota
	kInt
	kLong
	kDecimal
	kDouble
	kDate
	kTimestamp
	kBool
	kString
)

// ctype is an inferred column type.
type ctype struct {
	k           kind
	prec, scale int // kDecimal
}

// inferField widens soFar with one non-null value as Spark's
// CSVInferSchema.inferField does: the value is tried from soFar's type on,
// in the order int, long, decimal, double, date, timestamp, boolean,
// string.
func (o *Options) inferField(soFar ctype, s string, prefersDecimal bool) ctype {
	var t ctype
	switch soFar.k {
	case kNull, kInt:
		t = o.tryInt(s, prefersDecimal)
	case kLong:
		t = o.tryLong(s, prefersDecimal)
	case kDecimal:
		t = o.tryDecimal(s, prefersDecimal)
	case kDouble:
		t = o.tryDouble(s)
	case kDate:
		t = o.tryDate(s)
	case kTimestamp:
		t = o.tryTimestamp(s)
	case kBool:
		t = tryBool(s)
	default:
		return ctype{k: kString}
	}
	return merge(soFar, t)
}

// keeps reports, for the common values, that inferField(t, s) is t (a
// column of kind k keeps its type), without trying the lattice: an
// integer SmallInt reads keeps INT when it fits 32 bits and LONG (both
// ParseLong's answer), a number IsDouble takes keeps DOUBLE, a value
// ISOMicros reads under the default timestamp parsing keeps TIMESTAMP (as
// tryTimestamp tries first). false: inferField decides.
func (o *Options) keeps(k kind, s string) bool {
	switch k {
	case kInt:
		v, ok := javanum.SmallInt(s)
		return ok && v == int64(int32(v))
	case kLong:
		_, ok := javanum.SmallInt(s)
		return ok
	case kDouble:
		return javanum.IsDouble(s)
	case kTimestamp:
		if o.defaultTimestamps() {
			_, ok := fileformat.ISOMicros(s)
			return ok
		}
	}
	return false
}

// tryInt, tryLong and tryDecimal read s as Java's Long.parseLong and
// BigDecimal do, Unicode digits included (javanum.ASCIIDigits); what
// they pass on to tryDouble is s as it is (Double.parseDouble reads
// ASCII digits only).
func (o *Options) tryInt(s string, pd bool) ctype {
	if v, ok := javanum.ParseLong(s); ok {
		if v == int64(int32(v)) {
			return ctype{k: kInt}
		}
		return ctype{k: kLong}
	}
	return o.tryDecimal(s, pd)
}

func (o *Options) tryLong(s string, pd bool) ctype {
	if _, ok := javanum.ParseLong(s); ok {
		return ctype{k: kLong}
	}
	return o.tryDecimal(s, pd)
}

// tryDecimal: a number without a fraction (Java BigDecimal scale <= 0, US
// locale: commas removed) is DECIMAL(precision, 0) when it fits 38 digits;
// a fraction makes it DOUBLE, or DECIMAL with prefersDecimal.
func (o *Options) tryDecimal(s string, pd bool) ctype {
	p, sc, ok := javanum.DecimalShape(strings.ReplaceAll(s, ",", ""))
	if !ok {
		if a, uni := javanum.ASCIIDigits(s); uni {
			p, sc, ok = javanum.DecimalShape(strings.ReplaceAll(a, ",", ""))
		}
	}
	if ok {
		switch {
		case sc == 0 && p <= 38:
			return ctype{k: kDecimal, prec: p, scale: 0}
		case sc > 0 && pd && max(p, sc) <= 38:
			return ctype{k: kDecimal, prec: max(p, sc), scale: sc}
		}
	}
	return o.tryDouble(s)
}

func (o *Options) tryDouble(s string) ctype {
	if _, ok := javanum.ParseDouble(s); ok || s == o.NaNValue || s == o.PositiveInf || s == o.NegativeInf {
		return ctype{k: kDouble}
	}
	if !o.PreferDate {
		return o.tryTimestamp(s)
	}
	return o.tryDate(s)
}

// tryDate: Spark's preferDate inference parses with the dateFormat
// option, or strictly with the default yyyy-MM-dd.
func (o *Options) tryDate(s string) ctype {
	if o.Datetime != nil && o.Datetime.Date != nil {
		if _, ok := o.Datetime.Date.ParseDate(s); ok {
			return ctype{k: kDate}
		}
		return o.tryTimestamp(s)
	}
	if len(s) == 10 && s[4] == '-' && s[7] == '-' && javanum.AllDigits(s[:4]) && javanum.AllDigits(s[5:7]) && javanum.AllDigits(s[8:]) {
		if _, ok := fileformat.ParseDate(s); ok {
			return ctype{k: kDate}
		}
	}
	return o.tryTimestamp(s)
}

func (o *Options) tryTimestamp(s string) ctype {
	if o.defaultTimestamps() {
		if _, ok := fileformat.ISOMicros(s); ok {
			return ctype{k: kTimestamp}
		}
	}
	if _, ok := o.Datetime.ParseTimestamp(s, false); ok && s == strings.TrimSpace(s) {
		return ctype{k: kTimestamp}
	}
	return tryBool(s)
}

func tryBool(s string) ctype {
	if strings.EqualFold(s, "true") || strings.EqualFold(s, "false") {
		return ctype{k: kBool}
	}
	return ctype{k: kString}
}

// merge is Spark's CSVInferSchema.compatibleType; no common type is
// STRING.
func merge(a, b ctype) ctype {
	switch {
	case a.k == kNull:
		return b
	case b.k == kNull:
		return a
	case a.k == kString || b.k == kString:
		return ctype{k: kString}
	case a.k == b.k && a.k != kDecimal:
		return a
	}
	integral := func(k kind) bool { return k == kInt || k == kLong }
	switch {
	case integral(a.k) && integral(b.k):
		return ctype{k: kLong}
	case (integral(a.k) || a.k == kDouble) && (integral(b.k) || b.k == kDouble):
		return ctype{k: kDouble}
	case a.k == kDouble && b.k == kDecimal, a.k == kDecimal && b.k == kDouble:
		return ctype{k: kDouble}
	case (a.k == kDecimal || integral(a.k)) && (b.k == kDecimal || integral(b.k)):
		ap, as := decimalOf(a)
		bp, bs := decimalOf(b)
		scale := max(as, bs)
		rng := max(ap-as, bp-bs)
		if rng+scale > 38 {
			return ctype{k: kDouble}
		}
		return ctype{k: kDecimal, prec: rng + scale, scale: scale}
	case a.k == kDate && b.k == kTimestamp, a.k == kTimestamp && b.k == kDate:
		return ctype{k: kTimestamp}
	}
	return ctype{k: kString}
}

// decimalOf is Spark's DecimalType.forType for integral types.
func decimalOf(t ctype) (int, int) {
	switch t.k {
	case kInt:
		return 10, 0
	case kLong:
		return 20, 0
	}
	return t.prec, t.scale
}

func (t ctype) schemaType() schema.Type {
	switch t.k {
	case kInt:
		return schema.Integer
	case kLong:
		return schema.Long
	case kDecimal:
		return schema.DecimalType{Precision: t.prec, Scale: t.scale}
	case kDouble:
		return schema.Double
	case kDate:
		return schema.DateType
	case kTimestamp:
		return schema.Timestamp
	case kBool:
		return schema.Boolean
	}
	return schema.String
}

// convert turns one CSV value into a value of type t (Spark's
// UnivocityParser converters); ok is false when it does not fit.
func (o *Options) convert(t schema.Type, s string) (any, bool) {
	switch tt := t.(type) {
	case schema.DecimalType:
		s, _ = javanum.ASCIIDigits(s) // as BigDecimal reads them
		if _, _, ok := javanum.DecimalShape(strings.ReplaceAll(s, ",", "")); !ok {
			return nil, false
		}
		d, ok := fileformat.ParseDecimal(strings.ReplaceAll(s, ",", ""), tt)
		if !ok {
			return nil, false
		}
		return d, true
	case schema.PrimitiveType:
		switch tt {
		case schema.String:
			return s, true
		case schema.Integer, schema.Long, schema.Short, schema.Byte:
			s, _ = javanum.ASCIIDigits(s) // as Integer.parseInt reads them
			return fileformat.ParseIntegral(tt, s)
		case schema.Float:
			return o.float(s)
		case schema.Double:
			f, ok := o.double(s)
			if !ok {
				return nil, false
			}
			return f, true
		case schema.Boolean:
			switch {
			case strings.EqualFold(s, "true"):
				return true, true
			case strings.EqualFold(s, "false"):
				return false, true
			}
			return nil, false
		case schema.DateType:
			d, ok := o.Datetime.ParseDate(s)
			if !ok {
				return nil, false
			}
			return d, true
		case schema.Timestamp, schema.TimestampNTZ:
			ts, ok := o.Datetime.ParseTimestamp(s, tt == schema.TimestampNTZ)
			if !ok {
				return nil, false
			}
			return ts, true
		case schema.Binary:
			return []byte(s), true
		}
	}
	return nil, false
}

// double is the conversion of a double or float value: nanValue,
// negativeInf, positiveInf, else Java's number syntax.
func (o *Options) double(s string) (float64, bool) {
	switch s {
	case o.NaNValue:
		return math.NaN(), true
	case o.NegativeInf:
		return math.Inf(-1), true
	case o.PositiveInf:
		return math.Inf(1), true
	}
	return javanum.ParseDouble(s)
}

// float reads a FLOAT value: the options' NaN and infinities, or the
// number rounded once to a float32 (Float.parseFloat), not via a double.
func (o *Options) float(s string) (any, bool) {
	switch s {
	case o.NaNValue, o.NegativeInf, o.PositiveInf:
		f, _ := o.double(s)
		return float32(f), true
	}
	f, ok := javanum.ParseFloat(s)
	if !ok {
		return nil, false
	}
	return f, true
}
