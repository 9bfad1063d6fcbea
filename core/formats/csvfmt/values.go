package csvfmt

import (
	"math"

	"strings"

	"github.com/tributary-io/tributary/core/formats/csvfmt/csvtype"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/fileformat/javanum"
	"github.com/tributary-io/tributary/core/schema"
)

// kind, ctype and the lattice's merge are csvtype's.
type (
	kind  = csvtype.Kind
	ctype = csvtype.Type
)

const (
	kNull      = csvtype.Null
	kInt       = csvtype.Int
	kLong      = csvtype.Long
	kDecimal   = csvtype.Decimal
	kDouble    = csvtype.Double
	kDate      = csvtype.Date
	kTimestamp = csvtype.Timestamp
	kBool      = csvtype.Bool
	kString    = csvtype.String
)

// inferField widens soFar with one non-null value as Spark's
// CSVInferSchema.inferField does: the value is tried from soFar's type on,
// in the order int, long, decimal, double, date, timestamp, boolean,
// string.
func (o *Options) inferField(soFar ctype, s string, prefersDecimal bool) ctype {
	var t ctype
	switch soFar.K {
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
		return ctype{K: kString}
	}
	return csvtype.Merge(soFar, t)
}

// keeps reports, for the common values, that inferField(t, s) is t (a
// column of kind k keeps its type), without trying the lattice: an
// integer SmallInt reads keeps INT when it fits 32 bits and LONG (both
// ParseLong's answer), a javanum.PlainDecimal keeps DOUBLE (ParseDouble
// reads it), a value ISOMicros reads under the default timestamp parsing
// keeps TIMESTAMP (as tryTimestamp tries first). false: inferField
// decides. What it keeps is ASCII (the fold relies on it: see repair).
func (o *Options) keeps(k kind, s string) bool {
	switch k {
	case kInt:
		v, ok := javanum.SmallInt(s)
		return ok && v == int64(int32(v))
	case kLong:
		_, ok := javanum.SmallInt(s)
		return ok
	case kDouble:
		return javanum.PlainDecimal(s)
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
			return ctype{K: kInt}
		}
		return ctype{K: kLong}
	}
	return o.tryDecimal(s, pd)
}

func (o *Options) tryLong(s string, pd bool) ctype {
	if _, ok := javanum.ParseLong(s); ok {
		return ctype{K: kLong}
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
			return ctype{K: kDecimal, Prec: p, Scale: 0}
		case sc > 0 && pd && max(p, sc) <= 38:
			return ctype{K: kDecimal, Prec: max(p, sc), Scale: sc}
		}
	}
	return o.tryDouble(s)
}

func (o *Options) tryDouble(s string) ctype {
	if _, ok := javanum.ParseDouble(s); ok || s == o.NaNValue || s == o.PositiveInf || s == o.NegativeInf {
		return ctype{K: kDouble}
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
			return ctype{K: kDate}
		}
		return o.tryTimestamp(s)
	}
	if len(s) == 10 && s[4] == '-' && s[7] == '-' && javanum.AllDigits(s[:4]) && javanum.AllDigits(s[5:7]) && javanum.AllDigits(s[8:]) {
		if _, ok := fileformat.ParseDate(s); ok {
			return ctype{K: kDate}
		}
	}
	return o.tryTimestamp(s)
}

func (o *Options) tryTimestamp(s string) ctype {
	if o.defaultTimestamps() {
		if _, ok := fileformat.ISOMicros(s); ok {
			return ctype{K: kTimestamp}
		}
	}
	if _, ok := o.Datetime.ParseTimestamp(s, false); ok && s == strings.TrimSpace(s) {
		return ctype{K: kTimestamp}
	}
	return tryBool(s)
}

func tryBool(s string) ctype {
	if strings.EqualFold(s, "true") || strings.EqualFold(s, "false") {
		return ctype{K: kBool}
	}
	return ctype{K: kString}
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
