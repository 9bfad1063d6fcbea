package sparkvalue

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Day, Week and Month are the calendar lengths ParseDuration uses. A month is
// 31 days, Spark's convention when it turns an interval into a duration
// (withWatermark does the same); a year is 12 months.
const (
	Day   = 24 * time.Hour
	Week  = 7 * Day
	Month = 31 * Day
)

// durationUnits maps Spark interval units (singular and plural) to their
// length and whether they belong to the month part of a CalendarInterval.
func durationUnit(u string) (time.Duration, bool, bool) {
	u = strings.TrimSuffix(u, "s")
	switch u {
	case "year":
		return 12 * Month, true, true
	case "month":
		return Month, true, true
	case "week":
		return Week, false, true
	case "day":
		return Day, false, true
	case "hour":
		return time.Hour, false, true
	case "minute":
		return time.Minute, false, true
	case "second":
		return time.Second, false, true
	case "millisecond":
		return time.Millisecond, false, true
	case "microsecond":
		return time.Microsecond, false, true
	}
	return 0, false, false
}

// ParseDuration parses a Spark interval string, the syntax of Auto Loader's
// duration options ("1 day", "14 days", "2 hours 30 minutes",
// "interval 1 week"). It accepts an optional leading "interval" keyword, then
// one or more "<number> <unit>" pairs separated by spaces; units are year,
// month, week, day, hour, minute, second, millisecond, microsecond, singular
// or plural, in any case. Numbers are integers with an optional sign; only
// seconds take a fraction (up to 9 digits, "1.5 seconds"). Months are 31 days
// and years 12 months (Spark's conversion). The quoted ANSI form
// (INTERVAL '1' DAY) and compact forms ("10s") are not accepted.
func ParseDuration(s string) (time.Duration, error) {
	d, _, err := ParseInterval(s)
	return d, err
}

// ParseInterval is ParseDuration that also reports whether the interval has a
// month part (months or years), which Spark's processingTime rejects.
func ParseInterval(s string) (time.Duration, bool, error) {
	fields := strings.Fields(strings.ToLower(s))
	if len(fields) > 0 && fields[0] == "interval" {
		fields = fields[1:]
	}
	if len(fields) == 0 {
		return 0, false, fmt.Errorf("invalid duration %q: want \"<number> <unit>\", e.g. \"14 days\"", s)
	}
	if len(fields)%2 != 0 {
		return 0, false, fmt.Errorf("invalid duration %q: %q has no unit (e.g. \"14 days\")", s, fields[len(fields)-1])
	}
	var total time.Duration
	var hasMonths bool
	for i := 0; i < len(fields); i += 2 {
		num, unit := fields[i], fields[i+1]
		length, months, ok := durationUnit(unit)
		if !ok {
			return 0, false, fmt.Errorf("invalid duration %q: unknown unit %q (want year, month, week, day, hour, minute, second, millisecond or microsecond)", s, unit)
		}
		hasMonths = hasMonths || months
		part, err := intervalPart(num, length)
		if err != nil {
			return 0, false, fmt.Errorf("invalid duration %q: %w", s, err)
		}
		if (part > 0 && total > math.MaxInt64-part) || (part < 0 && total < math.MinInt64-part) {
			return 0, false, fmt.Errorf("invalid duration %q: out of range", s)
		}
		total += part
	}
	return total, hasMonths, nil
}

// intervalPart computes num*length for one "<number> <unit>" pair.
func intervalPart(num string, length time.Duration) (time.Duration, error) {
	neg := false
	switch {
	case strings.HasPrefix(num, "-"):
		neg, num = true, num[1:]
	case strings.HasPrefix(num, "+"):
		num = num[1:]
	}
	whole, frac, hasFrac := strings.Cut(num, ".")
	if whole == "" && !hasFrac || !allDigits(whole) || hasFrac && (frac == "" || !allDigits(frac)) {
		return 0, fmt.Errorf("%q is not a number", num)
	}
	if hasFrac && length != time.Second {
		return 0, fmt.Errorf("%q: only seconds take a fraction", num)
	}
	if len(frac) > 9 {
		return 0, fmt.Errorf("%q: at most 9 fractional digits", num)
	}
	w := uint64(0)
	if whole != "" {
		var err error
		w, err = strconv.ParseUint(whole, 10, 63)
		if err != nil {
			return 0, fmt.Errorf("%q: out of range", num)
		}
	}
	if w > uint64(math.MaxInt64/int64(length)) {
		return 0, fmt.Errorf("%q: out of range", num)
	}
	d := time.Duration(w) * length
	if frac != "" {
		f, _ := strconv.ParseUint((frac + "000000000")[:9], 10, 64)
		if d > math.MaxInt64-time.Duration(f) {
			return 0, fmt.Errorf("%q: out of range", num)
		}
		d += time.Duration(f)
	}
	if neg {
		d = -d
	}
	return d, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FormatDuration writes d as a Spark interval string that ParseDuration reads
// back exactly: "14 days", "1 day 2 hours", "1.5 seconds", "0 seconds".
func FormatDuration(d time.Duration) string {
	if d == 0 {
		return "0 seconds"
	}
	var parts []string
	sign := ""
	u := uint64(d)
	if d < 0 {
		sign = "-"
		u = uint64(-(d + 1)) + 1 // |MinInt64| does not fit in int64
	}
	unit := func(n uint64, name string) {
		if n == 0 {
			return
		}
		if n != 1 {
			name += "s"
		}
		parts = append(parts, sign+strconv.FormatUint(n, 10)+" "+name)
	}
	unit(u/uint64(Day), "day")
	u %= uint64(Day)
	unit(u/uint64(time.Hour), "hour")
	u %= uint64(time.Hour)
	unit(u/uint64(time.Minute), "minute")
	u %= uint64(time.Minute)
	if u != 0 {
		sec := strconv.FormatUint(u/uint64(time.Second), 10)
		if ns := u % uint64(time.Second); ns != 0 {
			sec += "." + strings.TrimRight(fmt.Sprintf("%09d", ns), "0")
		}
		name := " seconds"
		if sec == "1" {
			name = " second"
		}
		parts = append(parts, sign+sec+name)
	}
	return strings.Join(parts, " ")
}

// byteUnits are Spark's byte-string suffixes (JavaUtils.byteStringAsBytes):
// powers of 1024.
func byteUnit(u string) (int64, bool) {
	switch u {
	case "", "b":
		return 1, true
	case "k", "kb":
		return 1 << 10, true
	case "m", "mb":
		return 1 << 20, true
	case "g", "gb":
		return 1 << 30, true
	case "t", "tb":
		return 1 << 40, true
	case "p", "pb":
		return 1 << 50, true
	}
	return 0, false
}

// ParseBytes parses a Spark byte string: a non-negative integer with an
// optional unit b, k/kb, m/mb, g/gb, t/tb or p/pb (powers of 1024, any case,
// no space before the unit): "1024", "10k", "512m", "10g", "1gb". Fractions
// are refused, as in Spark.
func ParseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	num, unit := t[:i], t[i:]
	if num == "" {
		return 0, fmt.Errorf("invalid byte size %q: want a number with an optional unit, e.g. \"10g\" or \"512m\"", s)
	}
	if strings.HasPrefix(unit, ".") {
		return 0, fmt.Errorf("invalid byte size %q: fractional values are not supported", s)
	}
	mult, ok := byteUnit(unit)
	if !ok {
		return 0, fmt.Errorf("invalid byte size %q: unknown unit %q (want b, k, kb, m, mb, g, gb, t, tb, p or pb)", s, unit)
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("invalid byte size %q: out of range", s)
	}
	return n * mult, nil
}

// FormatBytes writes n as a Spark byte string with the largest unit that
// divides it exactly: 10737418240 is "10g", 1536 is "1536", 0 is "0".
func FormatBytes(n int64) string {
	if n <= 0 {
		return strconv.FormatInt(n, 10)
	}
	for _, u := range []struct {
		s string
		m int64
	}{{"p", 1 << 50}, {"t", 1 << 40}, {"g", 1 << 30}, {"m", 1 << 20}, {"k", 1 << 10}} {
		if n%u.m == 0 {
			return strconv.FormatInt(n/u.m, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseBool parses "true" or "false" in any case, surrounding spaces
// ignored, as Spark's option.toBoolean does.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("invalid boolean %q: want true or false", s)
}

// ParsePositiveInt parses a decimal integer greater than zero.
func ParsePositiveInt(s string) (int, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("invalid value %q: want a positive integer", s)
	}
	return int(n), nil
}

// ParseNonNegative parses a decimal integer ≥ 0 (int64).
func ParseNonNegative(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid value %q: want a non-negative integer", s)
	}
	return n, nil
}
