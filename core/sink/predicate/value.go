package predicate

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/schema"
)

// kind is a value's SQL type family.
type kind uint8

const (
	kNull kind = iota
	kBool
	kNum // integral, decimal or (float) floating point
	kStr
	kBin
	kDate // days since 1970-01-01
	kTS   // microseconds since 1970-01-01 UTC
	kOther
)

var kindName = [...]string{kNull: "void", kBool: "boolean", kNum: "numeric", kStr: "string", kBin: "binary", kDate: "date", kTS: "timestamp", kOther: "complex"}

// value is a SQL value.
type value struct {
	k     kind
	b     bool
	n     *big.Rat // kNum, exact
	float bool     // kNum held as f
	f     float64
	s     string // kStr, kBin
	t     int64  // kDate (days), kTS (micros)
}

func (v value) sql() string {
	switch v.k {
	case kNull:
		return "NULL"
	case kBool:
		if v.b {
			return "TRUE"
		}
		return "FALSE"
	case kNum:
		if v.float {
			s := strconv.FormatFloat(v.f, 'g', -1, 64)
			if !strings.ContainsAny(s, ".eEIN") {
				s += ".0"
			}
			return s + "D"
		}
		if v.n.IsInt() {
			return v.n.Num().String()
		}
		return ratDecimal(v.n) + "BD"
	case kStr:
		return quote(v.s)
	case kBin:
		return "X'" + fmt.Sprintf("%X", v.s) + "'"
	case kDate:
		return "DATE " + quote(time.Unix(v.t*86400, 0).UTC().Format("2006-01-02"))
	case kTS:
		return "TIMESTAMP " + quote(time.UnixMicro(v.t).UTC().Format("2006-01-02 15:04:05.999999"))
	}
	return "?"
}

// String renders the value as Spark shows it in error messages.
func (v value) String() string {
	switch v.k {
	case kNull:
		return "null"
	case kBool:
		return strconv.FormatBool(v.b)
	case kNum:
		if v.float {
			return strconv.FormatFloat(v.f, 'g', -1, 64)
		}
		if v.n.IsInt() {
			return v.n.Num().String()
		}
		return ratDecimal(v.n)
	case kStr:
		return v.s
	case kDate:
		return time.Unix(v.t*86400, 0).UTC().Format("2006-01-02")
	case kTS:
		return time.UnixMicro(v.t).UTC().Format("2006-01-02 15:04:05.999999")
	}
	return v.sql()
}

func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// ratDecimal renders an exact decimal (a terminating fraction) in plain
// notation.
func ratDecimal(r *big.Rat) string {
	for prec := 1; prec <= 60; prec++ {
		s := r.FloatString(prec)
		if back, ok := new(big.Rat).SetString(s); ok && back.Cmp(r) == 0 {
			return s
		}
	}
	return r.FloatString(60)
}

// kindOf maps a Delta type to its value kind.
func kindOf(t schema.Type) kind {
	switch x := t.(type) {
	case schema.DecimalType:
		return kNum
	case schema.PrimitiveType:
		switch x {
		case schema.String:
			return kStr
		case schema.Binary:
			return kBin
		case schema.Boolean:
			return kBool
		case schema.Long, schema.Integer, schema.Short, schema.Byte, schema.Double, schema.Float:
			return kNum
		case schema.DateType:
			return kDate
		case schema.Timestamp, schema.TimestampNTZ:
			return kTS
		}
	}
	return kOther
}

// isFloat reports a floating-point Delta type.
func isFloat(t schema.Type) bool { return t == schema.Double || t == schema.Float }

// fromGo converts a row value (package schema's representation) to a value.
func fromGo(x any) (value, error) {
	switch v := x.(type) {
	case nil:
		return value{k: kNull}, nil
	case bool:
		return value{k: kBool, b: v}, nil
	case string:
		return value{k: kStr, s: v}, nil
	case []byte:
		return value{k: kBin, s: string(v)}, nil
	case int:
		return intVal(int64(v)), nil
	case int8:
		return intVal(int64(v)), nil
	case int16:
		return intVal(int64(v)), nil
	case int32:
		return intVal(int64(v)), nil
	case int64:
		return intVal(v), nil
	case uint8:
		return intVal(int64(v)), nil
	case uint16:
		return intVal(int64(v)), nil
	case uint32:
		return intVal(int64(v)), nil
	case uint64:
		return value{k: kNum, n: new(big.Rat).SetInt(new(big.Int).SetUint64(v))}, nil
	case float32:
		return value{k: kNum, float: true, f: float64(v)}, nil
	case float64:
		return value{k: kNum, float: true, f: v}, nil
	case schema.Decimal:
		if v.Unscaled == nil {
			return value{k: kNull}, nil
		}
		return value{k: kNum, n: new(big.Rat).SetFrac(v.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(v.Scale)), nil))}, nil
	case *schema.Decimal:
		if v == nil {
			return value{k: kNull}, nil
		}
		return fromGo(*v)
	case schema.Date:
		return value{k: kDate, t: int64(v)}, nil
	case time.Time:
		return value{k: kTS, t: v.UnixMicro()}, nil
	}
	return value{}, fmt.Errorf("unsupported value of type %T", x)
}

func intVal(n int64) value { return value{k: kNum, n: new(big.Rat).SetInt64(n)} }

// castString casts a string to kind k as Spark's CAST does for literals.
func castString(s string, k kind) (value, error) {
	t := strings.TrimSpace(s)
	switch k {
	case kStr:
		return value{k: kStr, s: s}, nil
	case kBin:
		return value{k: kBin, s: s}, nil
	case kBool:
		switch strings.ToLower(t) {
		case "true", "t", "yes", "y", "1":
			return value{k: kBool, b: true}, nil
		case "false", "f", "no", "n", "0":
			return value{k: kBool}, nil
		}
		return value{}, fmt.Errorf("'%s' is not a boolean", s)
	case kNum:
		if r, ok := new(big.Rat).SetString(t); ok && !strings.ContainsAny(t, "/") {
			return value{k: kNum, n: r}, nil
		}
		switch strings.ToLower(t) {
		case "nan":
			return value{k: kNum, float: true, f: math.NaN()}, nil
		case "infinity", "inf", "+infinity", "+inf":
			return value{k: kNum, float: true, f: math.Inf(1)}, nil
		case "-infinity", "-inf":
			return value{k: kNum, float: true, f: math.Inf(-1)}, nil
		}
		return value{}, fmt.Errorf("'%s' is not a number", s)
	case kDate:
		for _, layout := range []string{"2006-01-02", "2006-1-2", "2006-01", "2006"} {
			if d, err := time.Parse(layout, t); err == nil {
				return value{k: kDate, t: floorDiv(d.Unix(), 86400)}, nil
			}
		}
		// Spark casts 'yyyy-mm-dd hh:mm:ss' to the date part too.
		if ts, err := parseTimestamp(t); err == nil {
			return value{k: kDate, t: floorDiv(ts.Unix(), 86400)}, nil
		}
		return value{}, fmt.Errorf("'%s' is not a date (yyyy-mm-dd)", s)
	case kTS:
		ts, err := parseTimestamp(t)
		if err != nil {
			return value{}, err
		}
		return value{k: kTS, t: ts.UnixMicro()}, nil
	}
	return value{}, fmt.Errorf("cannot cast '%s' to %s", s, kindName[k])
}

// parseTimestamp parses Spark's timestamp literal forms; without a zone
// the time is UTC (the session time zone Tributary uses).
func parseTimestamp(s string) (time.Time, error) {
	for _, layout := range []string{
		"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999Z0700", "2006-01-02T15:04:05.999999999Z0700",
		"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999",
		"2006-01-02 15:04", "2006-01-02T15:04", "2006-01-02",
	} {
		if ts, err := time.Parse(layout, s); err == nil {
			return ts.UTC(), nil
		}
	}
	if strings.HasSuffix(s, " UTC") || strings.HasSuffix(s, "Z") && !strings.Contains(s, "T") {
		return parseTimestamp(strings.TrimSuffix(strings.TrimSuffix(s, " UTC"), "Z"))
	}
	return time.Time{}, fmt.Errorf("'%s' is not a timestamp (yyyy-mm-dd[ hh:mm:ss[.ffffff]][zone])", s)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// errIncomparable reports values whose kinds cannot be compared.
var errIncomparable = errors.New("incomparable")

// coerce brings two non-NULL values to one kind: a string is cast to the
// other kind, a date to a timestamp (midnight UTC). A string that does not
// cast makes the comparison NULL (ok false, err nil), as Spark's
// non-ANSI cast does for row values.
func coerce(a, b value) (value, value, bool, error) {
	if a.k == b.k {
		return a, b, true, nil
	}
	if a.k == kStr || b.k == kStr {
		swap := b.k == kStr
		if swap {
			a, b = b, a
		}
		c, err := castString(a.s, b.k)
		if err != nil {
			if b.k == kOther || b.k == kNull {
				return a, b, false, errIncomparable
			}
			return a, b, false, nil
		}
		if swap {
			return b, c, true, nil
		}
		return c, b, true, nil
	}
	if a.k == kDate && b.k == kTS {
		return value{k: kTS, t: a.t * 86400e6}, b, true, nil
	}
	if a.k == kTS && b.k == kDate {
		return a, value{k: kTS, t: b.t * 86400e6}, true, nil
	}
	return a, b, false, errIncomparable
}

// comparable reports whether kinds a and b can be compared.
func comparableKinds(a, b kind) bool {
	if a == kNull || b == kNull || a == b {
		return a != kOther && b != kOther
	}
	if a == kStr || b == kStr {
		return a != kOther && b != kOther
	}
	return a == kDate && b == kTS || a == kTS && b == kDate
}

// compare orders two non-NULL values of one kind (after coerce): -1, 0, 1.
// NaN is larger than every other number and equal to itself, as in Spark.
func compare(a, b value) int {
	switch a.k {
	case kBool:
		switch {
		case a.b == b.b:
			return 0
		case !a.b:
			return -1
		}
		return 1
	case kNum:
		if !a.float && !b.float {
			return a.n.Cmp(b.n)
		}
		x, y := a.f, b.f
		if !a.float {
			if !b.float || math.IsInf(y, 0) || math.IsNaN(y) {
				x, _ = a.n.Float64()
			} else {
				return a.n.Cmp(exactRat(y))
			}
		}
		if !b.float {
			if math.IsInf(x, 0) || math.IsNaN(x) {
				y, _ = b.n.Float64()
			} else {
				return exactRat(x).Cmp(b.n)
			}
		}
		switch {
		case math.IsNaN(x) && math.IsNaN(y):
			return 0
		case math.IsNaN(x):
			return 1
		case math.IsNaN(y):
			return -1
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case kStr, kBin:
		return strings.Compare(a.s, b.s)
	case kDate, kTS:
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return 0
	}
	return 0
}

func exactRat(f float64) *big.Rat {
	r, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	if r == nil {
		r = new(big.Rat).SetFloat64(f)
	}
	return r
}
