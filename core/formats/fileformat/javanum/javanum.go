// Package javanum reads numbers as Java does, for Spark's CSV and XML sources:
// Double.parseDouble's syntax (ParseDouble) and the precision and scale
// BigDecimal gives a number (DecimalShape).
package javanum

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// AllDigits reports whether s is one or more ASCII digits.
func AllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// DecimalShape returns the precision and scale Java's BigDecimal gives
// s ([+-]digits[.digits][(e|E)[+-]digits]); ok is false when s is not
// such a number.
func DecimalShape(s string) (prec, scale int, ok bool) {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	exp := 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		digits := s[i+1:]
		if digits != "" && (digits[0] == '+' || digits[0] == '-') {
			digits = digits[1:]
		}
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || !AllDigits(digits) || e > 1<<20 || e < -(1<<20) {
			return 0, 0, false
		}
		exp, s = e, s[:i]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i+1:]
	}
	if intPart+frac == "" || !allDigitsOrEmpty(intPart) || !allDigitsOrEmpty(frac) {
		return 0, 0, false
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	return max(len(digits), 1), len(frac) - exp, true
}

// ASCIIDigits returns s with every non-ASCII Unicode decimal digit
// (general category Nd: what Java's Character.digit reads in radix 10, as
// Integer/Long/Short/Byte.parseXxx and new BigDecimal(String) do, so that
// Spark reads the CSV value "١٢٣" as 123) replaced by its ASCII digit, and
// whether there was one. Anything else, invalid UTF-8 included, is kept.
func ASCIIDigits(s string) (string, bool) {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return s, false
	}
	var b []byte
	for j := i; j < len(s); {
		r, n := utf8.DecodeRuneInString(s[j:])
		if d, ok := DigitValue(r); ok && r >= utf8.RuneSelf {
			if b == nil {
				b = append(make([]byte, 0, len(s)), s[:j]...)
			}
			b = append(b, byte('0'+d))
		} else if b != nil {
			b = append(b, s[j:j+n]...)
		}
		j += n
	}
	if b == nil {
		return s, false
	}
	return string(b), true
}

// DigitValue is the value of decimal digit r (any Unicode Nd character,
// ASCII included), as Java's Character.digit(r, 10) reads it. Unicode's
// Nd characters come in runs of ten from a zero (every range of
// unicode.Nd is a stride-1 run of a multiple of ten).
func DigitValue(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	for _, rg := range unicode.Nd.R16 {
		if lo, hi := rune(rg.Lo), rune(rg.Hi); r >= lo && r <= hi {
			return int(r-lo) % 10, true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if lo, hi := rune(rg.Lo), rune(rg.Hi); r >= lo && r <= hi {
			return int(r-lo) % 10, true
		}
	}
	return 0, false
}

func allDigitsOrEmpty(s string) bool { return s == "" || AllDigits(s) }

// ParseDouble parses s as Java's Double.parseDouble does: surrounding
// characters <= ' ' ignored, an optional sign, NaN, Infinity, or a decimal
// or hexadecimal floating-point literal with an optional f/F/d/D suffix.
// Magnitudes beyond float64 are infinite, as in Java.
func ParseDouble(s string) (float64, bool) {
	if f, ok := fastDouble(s); ok {
		return f, true
	}
	return parseDouble(s)
}

// IsDouble reports whether ParseDouble reads s, without computing the
// value when s is PlainDecimal; any other s is parsed. Type inference
// needs only this answer.
func IsDouble(s string) bool {
	if PlainDecimal(s) {
		return true
	}
	_, ok := parseDouble(s)
	return ok
}

// PlainDecimal reports whether s is [-]digits[.digits] (ASCII, any number
// of digits): a literal ParseDouble always reads (a huge one as
// infinite).
func PlainDecimal(s string) bool {
	i := 0
	if s != "" && s[0] == '-' {
		i = 1
	}
	start := i
	for i < len(s) && s[i]-'0' < 10 {
		i++
	}
	if i == start {
		return false
	}
	if i == len(s) {
		return true
	}
	if s[i] != '.' {
		return false
	}
	i++
	k := i
	for i < len(s) && s[i]-'0' < 10 {
		i++
	}
	return i == len(s) && i > k
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastDouble reads the common number, [-]digits[.digits] with at most 15
// digits, exactly as strconv.ParseFloat does (Clinger's fast path, as
// strconv's own: the digits are an exact float64 below 2^53, and divided
// by an exact power of ten the quotient is correctly rounded); ok is false
// for anything else, which parseDouble reads.
func fastDouble(s string) (float64, bool) {
	i, neg := 0, false
	if s != "" && s[0] == '-' {
		i, neg = 1, true
	}
	// The integer digits, then (after a ".") the fraction's: one test a
	// digit in each loop.
	var m uint64
	start := i
	for ; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			break
		}
		m = m*10 + uint64(c)
	}
	digits, frac := i-start, 0
	if i < len(s) {
		if s[i] != '.' || digits == 0 {
			return 0, false
		}
		i++
		k := i
		for ; i < len(s); i++ {
			c := s[i] - '0'
			if c > 9 {
				return 0, false
			}
			m = m*10 + uint64(c)
		}
		if frac = i - k; frac == 0 {
			return 0, false
		}
		digits += frac
	}
	if digits == 0 || digits > 15 {
		return 0, false
	}
	f := float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// ParseFloat parses s as Java's Float.parseFloat does: ParseDouble's
// syntax, with the value rounded once to the nearest float32. Rounding to
// a float64 first and then to a float32 would differ near a float32
// halfway point (1.00000005960464477539062500001 is 1.0000001 in Java,
// 1.0 through a double) and at the top of the range (3.4028235677973366e38
// is math.MaxFloat32 in Java, +Inf through a double).
func ParseFloat(s string) (float32, bool) {
	f, ok := parseJava(s, 32)
	return float32(f), ok // exact: parseJava(s, 32) is a float32 value
}

// parseDouble is ParseDouble for any input.
func parseDouble(s string) (float64, bool) { return parseJava(s, 64) }

// parseJava parses s with Java's floating-point syntax, rounded to a
// float of bitSize bits (32 or 64) as strconv.ParseFloat rounds.
func parseJava(s string, bitSize int) (float64, bool) {
	if s != "" && (s[0] <= ' ' || s[len(s)-1] <= ' ') {
		s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	}
	body := s
	neg := false
	if body != "" && (body[0] == '+' || body[0] == '-') {
		neg = body[0] == '-'
		body = body[1:]
	}
	switch body {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	}
	hex := len(body) > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')
	if n := len(body); n > 0 && strings.IndexByte("fFdD", body[n-1]) >= 0 && (!hex || strings.ContainsAny(body, "pP")) {
		body = body[:n-1]
	}
	if body == "" {
		return 0, false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c >= '0' && c <= '9', c == '.':
		case !hex && (c == 'e' || c == 'E' || c == '+' || c == '-'):
		case hex && (i == 1 || c == 'p' || c == 'P' || c == '+' || c == '-' || (c|0x20) >= 'a' && (c|0x20) <= 'f'):
		default:
			return 0, false
		}
	}
	if body == "." || strings.HasPrefix(body, "+") || strings.HasPrefix(body, "-") {
		return 0, false
	}
	f, err := strconv.ParseFloat(body, bitSize)
	if err != nil {
		ne, ok := err.(*strconv.NumError)
		if !ok || ne.Err != strconv.ErrRange {
			return 0, false
		}
	}
	if neg {
		f = -f
	}
	return f, true
}

// ParseLong parses s as Java's Long.parseLong does: an optional ASCII
// sign and decimal digits, Unicode digits included (ASCIIDigits); ok is
// false for anything else and for values beyond int64.
func ParseLong(s string) (int64, bool) {
	if v, ok := SmallInt(s); ok {
		return v, true
	}
	if a, uni := ASCIIDigits(s); uni {
		s = a
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// SmallInt reads the common integer, [+-]digits with at most 18 digits
// (always an int64), as strconv.ParseInt(s, 10, 64) does; ok is false for
// anything else (which strconv then reads).
func SmallInt(s string) (int64, bool) {
	i, neg := 0, false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		i, neg = 1, s[0] == '-'
	}
	if n := len(s) - i; n == 0 || n > 18 {
		return 0, false
	}
	var v int64
	for ; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + int64(c)
	}
	if neg {
		v = -v
	}
	return v, true
}
