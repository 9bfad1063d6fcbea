package xmlfmt

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/fileformat/javanum"
	"github.com/tributary-io/tributary/core/schema"
)

// Numbers and booleans as Spark's XML source reads them (StaxXmlParser's
// convertTo/castTo and XmlInferSchema's tryParse* cascade, checked against
// PySpark 4.1.1 in testdata/spark_numbers.json):
//   - LONG, INT, DOUBLE and FLOAT are "sign-safe": one leading + or - is
//     taken off, the rest parsed by Java, and the result negated for a -.
//     So "--5" reads as 5, "+-5" as -5, and "-2147483648" overflows INT
//     (null), as in Spark. SHORT and BYTE are parsed whole.
//   - Java's integer parsers and BigDecimal read any Unicode decimal digit
//     ("١٢٣" is 123).
//   - DOUBLE and FLOAT fall back, when Java's parseDouble refuses the text,
//     to java.text.NumberFormat for the US locale, which reads the longest
//     number at the start: grouping commas, Unicode digits, an "E"
//     exponent, "∞" ("1,234.5" is 1234.5, "12abc" is 12, "0x10" is 0).
//   - DECIMAL drops every comma and reads the rest as BigDecimal, rounded
//     half-up to the column's scale.
//   - BOOLEAN is true, false, 1 or 0, in any case.

// signSafe splits one leading sign off s.
func signSafe(s string) (rest string, neg bool) {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		return s[1:], s[0] == '-'
	}
	return s, false
}

// xmlIntegral reads s into integral type pt (its row type: int64, int32,
// int16 or int8).
func xmlIntegral(pt schema.PrimitiveType, s string) (any, bool) {
	neg := false
	if pt == schema.Long || pt == schema.Integer {
		s, neg = signSafe(s)
	}
	v, ok := javanum.ParseLong(s)
	if !ok {
		return nil, false
	}
	switch pt {
	case schema.Integer:
		if v != int64(int32(v)) { // Integer.parseInt of the text after the sign
			return nil, false
		}
		if neg {
			v = -v
		}
		return int32(v), true
	case schema.Short:
		if v != int64(int16(v)) {
			return nil, false
		}
		return int16(v), true
	case schema.Byte:
		if v != int64(int8(v)) {
			return nil, false
		}
		return int8(v), true
	}
	if neg {
		v = -v
	}
	return v, true
}

// xmlFloat reads s as a FLOAT: as xmlDouble, but Float.parseFloat rounds
// once to a float32; the NumberFormat fallback gives a double that
// floatValue() rounds again, as in Spark.
func xmlFloat(s string) (any, bool) {
	rest, neg := signSafe(s)
	f, ok := javanum.ParseFloat(rest)
	if !ok {
		d, ok := numberFormatPrefix(rest)
		if !ok {
			return nil, false
		}
		f = float32(d)
	}
	if neg {
		f = -f
	}
	return f, true
}

// xmlDouble reads s as a DOUBLE.
func xmlDouble(s string) (float64, bool) {
	rest, neg := signSafe(s)
	f, ok := javanum.ParseDouble(rest)
	if !ok {
		if f, ok = numberFormatPrefix(rest); !ok {
			return 0, false
		}
	}
	if neg {
		f = -f
	}
	return f, true
}

// numberFormatPrefix reads the number at the start of s as Java's
// NumberFormat.getInstance(Locale.US).parse does (a DecimalFormat
// "#,##0.###"): "NaN", an optional "-", "∞" or digits (any Unicode decimal
// digit) with grouping commas before the decimal point (a comma not
// followed by a digit ends the number before it), one ".", and an "E"
// exponent with an optional "-"; whatever follows is ignored. ok is false
// when s does not start with a number.
func numberFormatPrefix(s string) (float64, bool) {
	if strings.HasPrefix(s, "NaN") {
		return math.NaN(), true
	}
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	sign := func(f float64) float64 {
		if neg {
			return -f
		}
		return f
	}
	if strings.HasPrefix(s, "∞") {
		return sign(math.Inf(1)), true
	}
	var num []byte
	digits, dot := 0, false
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if d, ok := javanum.DigitValue(r); ok {
			num = append(num, byte('0'+d))
			digits++
			i += n
			continue
		}
		if r == '.' && !dot {
			dot = true
			num = append(num, '.')
			i += n
			continue
		}
		if r == ',' && !dot {
			i += n // kept only when a digit follows
			continue
		}
		if r == 'E' && digits > 0 {
			if e, ok := exponent(s[i+1:]); ok {
				num = append(num, 'e')
				num = strconv.AppendInt(num, e, 10)
			}
		}
		break
	}
	if digits == 0 {
		return 0, false
	}
	if num[0] == '.' {
		num = append([]byte{'0'}, num...)
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	return sign(f), true
}

// exponent reads DecimalFormat's exponent after the "E": an optional "-"
// and at least one digit. Exponents beyond what a float64 can scale are
// clamped (the value is zero or infinite either way).
func exponent(s string) (e int64, ok bool) {
	neg := strings.HasPrefix(s, "-")
	n := 0
	if neg {
		n = 1
	}
	digits := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		d, isDigit := javanum.DigitValue(r)
		if !isDigit {
			break
		}
		if e < 1e6 {
			e = e*10 + int64(d)
		}
		digits++
		n += size
	}
	if digits == 0 {
		return 0, false
	}
	if neg {
		e = -e
	}
	return e, true
}

// xmlDecimal reads s as a DECIMAL of type t: commas dropped, BigDecimal's
// syntax with Unicode digits, rounded half-up to t's scale.
func xmlDecimal(s string, t schema.DecimalType) (schema.Decimal, bool) {
	s, _ = javanum.ASCIIDigits(strings.ReplaceAll(s, ",", ""))
	if _, _, ok := javanum.DecimalShape(s); !ok {
		// BigDecimal's syntax: no white space, which ParseDecimal would
		// trim (also where a dropped comma leaves it at an end: ", 5").
		return schema.Decimal{}, false
	}
	return fileformat.ParseDecimal(s, t)
}

// xmlBool reads s as a BOOLEAN: true, false, 1 or 0 in any case.
func xmlBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

// Inference, as XmlInferSchema's cascade reads a value: LONG, then DECIMAL
// (with prefersDecimal), then DOUBLE; a value that is none of these goes on
// to the date, timestamp and boolean checks.

// inferLong reports whether s infers as LONG: after one sign, a Unicode
// digit first and Long.parseLong's syntax.
func inferLong(s string) bool {
	rest, _ := signSafe(s)
	if r, _ := utf8.DecodeRuneInString(rest); rest == "" || !unicode.IsDigit(r) {
		return false
	}
	_, ok := javanum.ParseLong(rest)
	return ok
}

// numberStart reports whether s (after one sign) starts with a digit or a
// point and does not end in d, D, f or F: the values XmlInferSchema tries
// as DECIMAL and DOUBLE.
func numberStart(s string) bool {
	rest, _ := signSafe(s)
	if rest == "" {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(rest); !unicode.IsDigit(r) && r != '.' {
		return false
	}
	return strings.IndexByte("dDfF", rest[len(rest)-1]) < 0
}

// inferDecimal is the DECIMAL(max(precision, scale), scale) BigDecimal
// gives s with its commas dropped; ok is false when that is no valid
// decimal type (a negative scale, over 38 digits).
func inferDecimal(s string) (schema.DecimalType, bool) {
	if !numberStart(s) {
		return schema.DecimalType{}, false
	}
	a, _ := javanum.ASCIIDigits(strings.ReplaceAll(s, ",", ""))
	p, sc, ok := javanum.DecimalShape(a)
	if !ok || sc < 0 || max(p, sc) > 38 {
		return schema.DecimalType{}, false
	}
	return schema.DecimalType{Precision: max(p, sc), Scale: sc}, true
}

// inferDouble reports whether s infers as DOUBLE: Double.parseDouble of s
// after one sign (hexadecimal and out-of-range values included; NaN and
// Infinity are not, as they start with a letter).
func inferDouble(s string) bool {
	if !numberStart(s) {
		return false
	}
	rest, _ := signSafe(s)
	_, ok := javanum.ParseDouble(rest)
	return ok
}
