package fileformat

import (
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/schema"
)

// ParseDate parses a date the way Spark's lenient default date parsing
// does: "yyyy", "yyyy-[m]m", "yyyy-[m]m-[d]d", the last optionally followed
// by ' ' or 'T' and anything (a time part, ignored). Surrounding whitespace
// is ignored. ok is false for anything else or an impossible date.
func ParseDate(s string) (d schema.Date, ok bool) {
	s = strings.TrimSpace(s)
	y, m, dd, rest, ok := parseYMD(s, true)
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != 'T') {
		return 0, false
	}
	return schema.Date(daysSinceEpoch(y, m, dd)), true
}

// parseYMD reads yyyy[-[m]m[-[d]d]] (partial forms only when partial is
// true) and returns the unparsed rest.
func parseYMD(s string, partial bool) (y, m, d int, rest string, ok bool) {
	if len(s) < 4 {
		return 0, 0, 0, "", false
	}
	y, ok = digits(s[:4])
	if !ok {
		return 0, 0, 0, "", false
	}
	m, d, rest = 1, 1, s[4:]
	var got int
	if rest, got = dashNumber(rest, &m); got == 0 {
		if !partial || (rest != "" && rest[0] != ' ' && rest[0] != 'T') {
			return 0, 0, 0, "", false
		}
		return y, 1, 1, rest, true
	}
	if rest, got = dashNumber(rest, &d); got == 0 {
		if !partial || (rest != "" && rest[0] != ' ' && rest[0] != 'T') {
			return 0, 0, 0, "", false
		}
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, 0, 0, "", false
	}
	return y, m, d, rest, true
}

// dashNumber reads "-" and one or two digits into *n; got is the number of
// digits read (0: nothing consumed).
func dashNumber(s string, n *int) (rest string, got int) {
	if len(s) < 2 || s[0] != '-' || !isDigit(s[1]) {
		return s, 0
	}
	end := 2
	if len(s) > 2 && isDigit(s[2]) {
		end = 3
	}
	v, _ := digits(s[1:end])
	*n = v
	return s[end:], end - 1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, s != ""
}

// daysIn is the number of days of month m (1 to 12) of year y.
func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysSinceEpoch is the number of days from 1970-01-01 to y-m-d of the
// proleptic Gregorian calendar (Howard Hinnant's days_from_civil), as
// time.Date counts them, without building a time.Time.
func daysSinceEpoch(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era*146097 + doe - 719468)
}

// ISOMicros reads the common timestamp, yyyy-MM-ddTHH:mm:ss[.fraction]Z
// (one to nine fraction digits), as microseconds since the epoch, exactly
// as ParseTimestamp(s, false) reads it (the fraction truncated to
// microseconds), without building a time.Time; ok is false for anything
// else, which ParseTimestamp reads.
func ISOMicros(s string) (int64, bool) {
	n := len(s)
	if n < 20 || n > 30 || s[n-1] != 'Z' {
		return 0, false
	}
	// Eight bytes at a time: "yyyy-MM-", "ddTHH:mm", ":ss" and s[19]; a
	// digit is a byte 0x30 to 0x39: high nibble 3, low nibble + 6 < 16.
	a, b := le64(s[0:8]), le64(s[8:16])
	c := uint64(s[16]) | uint64(s[17])<<8 | uint64(s[18])<<16
	const (
		aDig, aSep, aWant = 0x00ffff00ffffffff, 0xff0000ff00000000, 0x2d00002d00000000 // yyyy-MM-
		bDig, bSep, bWant = 0xffff00ffff00ffff, 0x0000ff0000ff0000, 0x00003a0000540000 // ddTHH:mm
		cDig, cSep, cWant = 0x0000000000ffff00, 0x00000000000000ff, 0x000000000000003a // :ss
	)
	bad := (a&aSep ^ aWant) | (b&bSep ^ bWant) | (c&cSep ^ cWant) |
		(a&his^zeros)&aDig | (b&his^zeros)&bDig | (c&his^zeros)&cDig |
		((a&los+six)&his)&aDig | ((b&los+six)&his)&bDig | ((c&los+six)&his)&cDig
	if bad != 0 {
		return 0, false
	}
	y := int(a&15)*1000 + int(a>>8&15)*100 + int(a>>16&15)*10 + int(a>>24&15)
	mo := int(a>>40&15)*10 + int(a>>48&15)
	d := int(b&15)*10 + int(b>>8&15)
	h := int(b>>24&15)*10 + int(b>>32&15)
	mi := int(b>>48&15)*10 + int(b>>56&15)
	sec := int(c>>8&15)*10 + int(c>>16&15)
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	var micros int64
	if n > 20 {
		frac := s[20 : n-1]
		if s[19] != '.' || len(frac) < 1 || len(frac) > 9 {
			return 0, false
		}
		if k := len(frac); k < 9 {
			// The eight bytes before the "Z", those before the fraction
			// made "0": eight digits, read at once.
			keep := uint64(1)<<(8*(8-k)) - 1
			w := le64(s[n-9:n-1])&^keep | zeros&keep
			if w&his != zeros || (w&los+six)&his != 0 {
				return 0, false
			}
			v := eightDigits(w)
			if k <= 6 {
				micros = int64(v * pow10u[6-k])
			} else {
				micros = int64(v / pow10u[k-6])
			}
		} else {
			v, ok := digits(frac)
			if !ok {
				return 0, false
			}
			micros = int64(v / 1000)
		}
	} else if s[19] != 'Z' {
		return 0, false
	}
	return (daysSinceEpoch(y, mo, d)*86400+int64(h*3600+mi*60+sec))*1_000_000 + micros, true
}

// pow10u are the powers of ten ISOMicros scales a fraction by.
var pow10u = [...]uint64{1, 10, 100, 1000, 10000, 100000, 1000000}

// eightDigits is the value of the eight ASCII digits of w, the first in
// its low byte (three multiplications: pairs, quads, the whole).
func eightDigits(w uint64) uint64 {
	w -= zeros
	w = w*10 + w>>8
	return ((w&0x000000ff000000ff)*(100+1000000<<32) + (w>>16&0x000000ff000000ff)*(1+10000<<32)) >> 32
}

// Masks of ISOMicros' digit tests: a digit is a byte 0x30 to 0x39, its
// high nibble 3 (his, zeros) and its low nibble + 6 below 16 (los, six).
const (
	his, los, six = 0xf0f0f0f0f0f0f0f0, 0x0f0f0f0f0f0f0f0f, 0x0606060606060606
	zeros         = 0x3030303030303030
)

// le64 is s's first eight bytes as a little-endian word.
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// ParseTimestamp parses an ISO-8601-like timestamp as Spark's default
// timestamp parsing accepts it:
//
//	yyyy-[m]m-[d]d[(T| )[h]h:[m]m[:[s]s[.fraction]]][zone]
//
// (also "yyyy" and "yyyy-[m]m"), fraction up to 9 digits (truncated to
// microseconds), zone "Z", "UTC", "GMT", "UT", [+-]h, [+-]hh, [+-]hh:mm or
// [+-]hhmm, optionally after a space or after UTC/GMT/UT. A timestamp with
// no zone is read in UTC (Tributary's session time zone). With ntz
// (timestamp_ntz) a zone is not allowed and the wall clock is returned as
// UTC. The result is in UTC.
func ParseTimestamp(s string, ntz bool) (time.Time, bool) {
	s = strings.TrimSpace(s)
	y, mo, d, rest, ok := parseYMD(s, true)
	if !ok {
		return time.Time{}, false
	}
	var h, mi, sec, nanos int
	if rest != "" && (rest[0] == 'T' || rest[0] == ' ') {
		r := rest[1:]
		var n int
		if r, n = number12(r); n == 0 {
			// Only a zone may follow a date and a space ("2021-01-01 UTC").
			if rest[0] == 'T' {
				return time.Time{}, false
			}
			r = rest
		} else {
			h = n - 1
			if len(r) == 0 || r[0] != ':' {
				return time.Time{}, false
			}
			if r, n = number12(r[1:]); n == 0 {
				return time.Time{}, false
			}
			mi = n - 1
			if len(r) > 0 && r[0] == ':' {
				if r, n = number12(r[1:]); n == 0 {
					return time.Time{}, false
				}
				sec = n - 1
				if len(r) > 0 && r[0] == '.' {
					i := 1
					for i < len(r) && isDigit(r[i]) {
						i++
					}
					frac := r[1:i]
					if frac == "" || len(frac) > 9 {
						return time.Time{}, false
					}
					v, _ := digits(frac)
					for k := len(frac); k < 9; k++ {
						v *= 10
					}
					nanos = v / 1000 * 1000
					r = r[i:]
				}
			}
		}
		rest = r
	}
	if h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, false
	}
	offset, hasZone, ok := parseZone(rest)
	if !ok || (ntz && hasZone) {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, nanos, time.UTC)
	return t.Add(-time.Duration(offset) * time.Second), true
}

// number12 reads one or two digits; n is the value plus one (0: none).
func number12(s string) (rest string, n int) {
	if len(s) == 0 || !isDigit(s[0]) {
		return s, 0
	}
	end := 1
	if len(s) > 1 && isDigit(s[1]) {
		end = 2
	}
	v, _ := digits(s[:end])
	return s[end:], v + 1
}

// parseZone reads an optional zone suffix; offset is in seconds east of UTC.
func parseZone(s string) (offset int, has, ok bool) {
	s = strings.TrimLeft(s, " ")
	if s == "" {
		return 0, false, true
	}
	if s == "Z" {
		return 0, true, true
	}
	for _, name := range []string{"UTC", "GMT", "UT"} {
		if strings.HasPrefix(s, name) {
			s = s[len(name):]
			if s == "" {
				return 0, true, true
			}
			break
		}
	}
	if s[0] != '+' && s[0] != '-' {
		return 0, false, false
	}
	sign := 1
	if s[0] == '-' {
		sign = -1
	}
	s = s[1:]
	var hh, mm int
	switch {
	case len(s) == 1 || len(s) == 2:
		hh, ok = digits(s)
	case len(s) == 4:
		hh, ok = digits(s[:2])
		if ok {
			mm, ok = digits(s[2:])
		}
	case len(s) == 5 && s[2] == ':':
		hh, ok = digits(s[:2])
		if ok {
			mm, ok = digits(s[3:])
		}
	}
	if !ok || hh > 18 || mm > 59 {
		return 0, false, false
	}
	return sign * (hh*3600 + mm*60), true, true
}

var bigTen = big.NewInt(10)

// ParseDecimal parses a decimal number ([+-]digits[.digits][(e|E)[+-]digits],
// surrounding whitespace ignored) into t: rounded half-up to t.Scale, ok false
// when the result needs more than t.Precision digits or s is not a number.
func ParseDecimal(s string, t schema.DecimalType) (schema.Decimal, bool) {
	s = strings.TrimSpace(s)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	mant, frac := s, ""
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e := s[i+1:]
		esign := 1
		if e != "" && (e[0] == '+' || e[0] == '-') {
			if e[0] == '-' {
				esign = -1
			}
			e = e[1:]
		}
		if e == "" || len(strings.TrimLeft(e, "0")) > 6 { // BigDecimal reads 1e0000002
			return schema.Decimal{}, false
		}
		v, ok := digits(e)
		if !ok {
			return schema.Decimal{}, false
		}
		exp = esign * v
	}
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		mant, frac = mant[:i], mant[i+1:]
	}
	if mant == "" && frac == "" {
		return schema.Decimal{}, false
	}
	all := mant + frac
	for i := 0; i < len(all); i++ {
		if !isDigit(all[i]) {
			return schema.Decimal{}, false
		}
	}
	all = strings.TrimLeft(all, "0")
	u := new(big.Int)
	if all != "" {
		u.SetString(all, 10)
	}
	// value = u × 10^(exp - len(frac)); want unscaled = value × 10^scale.
	shift := exp - len(frac) + t.Scale
	switch {
	case u.Sign() == 0:
	case shift > 0:
		if len(all)+shift > t.Precision {
			return schema.Decimal{}, false
		}
		u.Mul(u, new(big.Int).Exp(bigTen, big.NewInt(int64(shift)), nil))
	case shift < 0:
		if -shift > len(all)+1 {
			u.SetInt64(0) // far below half a unit: rounds to zero
			break
		}
		div := new(big.Int).Exp(bigTen, big.NewInt(int64(-shift)), nil)
		q, r := new(big.Int).QuoRem(u, div, new(big.Int))
		if r.Lsh(r, 1).Cmp(div) >= 0 {
			q.Add(q, big.NewInt(1))
		}
		u = q
	}
	if len(u.String()) > t.Precision && u.Sign() != 0 {
		return schema.Decimal{}, false
	}
	if neg {
		u.Neg(u)
	}
	return schema.Decimal{Unscaled: u, Scale: t.Scale}, true
}

// ParseIntegral parses s as a decimal integer of the integral type pt
// (BYTE, SHORT, INT or LONG), returning the value in its row type (int8,
// int16, int32, int64); ok is false when s is not an integer or is out of
// range.
func ParseIntegral(pt schema.PrimitiveType, s string) (any, bool) {
	bits := 64
	switch pt {
	case schema.Integer:
		bits = 32
	case schema.Short:
		bits = 16
	case schema.Byte:
		bits = 8
	}
	v, err := strconv.ParseInt(s, 10, bits)
	if err != nil {
		return nil, false
	}
	switch pt {
	case schema.Integer:
		return int32(v), true
	case schema.Short:
		return int16(v), true
	case schema.Byte:
		return int8(v), true
	}
	return v, true
}
