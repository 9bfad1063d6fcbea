// Package jsonnum reads the JSON reader's numbers as Jackson and Spark
// read them: number tokens (NaN and the infinities included) as doubles
// and floats, short integer tokens as longs without strconv, and the
// strings Spark takes for a double column.
package jsonnum

import (
	"math"
	"strconv"
)

// IsFinite reports whether a non-integral number token is not NaN/±Infinity.
func IsFinite(raw []byte) bool {
	c := raw[len(raw)-1]
	return c != 'N' && c != 'y'
}

// Parse converts a validated JSON number token (NaN and ±Infinity
// included); magnitudes beyond float64 become ±Inf, as Jackson reads them.
func Parse(s string) float64 {
	switch s {
	case "NaN":
		return math.NaN()
	case "Infinity", "+Infinity":
		return math.Inf(1)
	case "-Infinity":
		return math.Inf(-1)
	}
	f, _ := strconv.ParseFloat(s, 64) // range errors return ±Inf or 0
	return f
}

// Parse32 is Parse for a FLOAT column: the number rounded
// once to a float32, as Jackson's getFloatValue does (Float.parseFloat),
// not through a float64.
func Parse32(s string) float32 {
	switch s {
	case "NaN", "Infinity", "+Infinity", "-Infinity":
		return float32(Parse(s))
	}
	f, _ := strconv.ParseFloat(s, 32) // range errors return ±Inf or 0
	return float32(f)
}

// Special reads the strings Spark accepts for a double column.
func Special(s string) (float64, bool) {
	switch s {
	case "NaN", "+NaN", "-NaN":
		return math.NaN(), true
	case "Infinity", "+Infinity", "INF", "+INF":
		return math.Inf(1), true
	case "-Infinity", "-INF":
		return math.Inf(-1), true
	}
	return 0, false
}

// ParseLong parses a validated JSON integer token of at most 18 digits
// (which always fits an int64) without strconv; ok is false for longer
// tokens.
func ParseLong(raw []byte) (int64, bool) {
	neg := len(raw) > 0 && raw[0] == '-'
	digits := raw
	if neg {
		digits = raw[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range digits {
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}
