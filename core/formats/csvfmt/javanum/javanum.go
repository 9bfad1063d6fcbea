// Package javanum reads numbers as Java does, for Spark's CSV source:
// Double.parseDouble's syntax (ParseDouble) and the precision and scale
// BigDecimal gives a number (DecimalShape).
package javanum

import (
	"math"
	"strconv"
	"strings"
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

func allDigitsOrEmpty(s string) bool { return s == "" || AllDigits(s) }

// ParseDouble parses s as Java's Double.parseDouble does: surrounding
// characters <= ' ' ignored, an optional sign, NaN, Infinity, or a decimal
// or hexadecimal floating-point literal with an optional f/F/d/D suffix.
// Magnitudes beyond float64 are infinite, as in Java.
func ParseDouble(s string) (float64, bool) {
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
	f, err := strconv.ParseFloat(body, 64)
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
