package datetimefmt

import (
	"strings"
	"time"
	"unicode/utf8"
)

// fields are the values one parse found (-1: absent).
type fields struct {
	era, year, month, day, doy        int
	hour24, clockHour, hourAmPm, ampm int // H (k normalised), h, K, a
	minute, second, nanos             int
	yearDigits                        int
	zone                              *time.Location
}

func newFields() fields {
	return fields{era: -1, year: -1, month: -1, day: -1, doy: -1, hour24: -1, clockHour: -1, hourAmPm: -1, ampm: -1, minute: -1, second: -1, nanos: -1}
}

// numWidth is a numeric element's digit count bounds (max 0: not numeric).
func numWidth(e elem) (min, max int) {
	switch e.letter {
	case 'y':
		if e.count == 2 {
			return 2, 2
		}
		return e.count, 9
	case 'M', 'L':
		if e.count > 2 {
			return 0, 0
		}
		return e.count, 2
	case 'd', 'H', 'h', 'K', 'k', 'm', 's':
		return e.count, 2
	case 'D':
		return e.count, 3
	case 'S':
		return 1, e.count
	}
	return 0, 0
}

// parse matches s against elems from offset i and returns the offset
// after them; ok is false when they do not match.
func (l *Layout) parse(elems []elem, s string, i int, f *fields) (int, bool) {
	for k, e := range elems {
		if e.isOpt {
			save := *f
			if j, ok := l.parse(e.opt, s, i, f); ok {
				i = j
			} else {
				*f = save
			}
			continue
		}
		if e.letter == 0 {
			if len(s)-i < len(e.lit) || !strings.EqualFold(s[i:i+len(e.lit)], e.lit) {
				return i, false
			}
			i += len(e.lit)
			continue
		}
		if min, max := numWidth(e); max > 0 {
			// Adjacent value parsing: leave the digits of fixed-width
			// numbers that follow directly.
			if min != max {
				reserve := 0
				for _, next := range elems[k+1:] {
					nmin, nmax := numWidth(next)
					if next.isOpt || nmax == 0 || nmin != nmax {
						break
					}
					reserve += nmin
				}
				avail := 0
				for i+avail < len(s) && s[i+avail] >= '0' && s[i+avail] <= '9' {
					avail++
				}
				if reserve > 0 && avail-reserve < max {
					max = avail - reserve
				}
			}
			n, width := 0, 0
			for width < max && i+width < len(s) && s[i+width] >= '0' && s[i+width] <= '9' {
				n = n*10 + int(s[i+width]-'0')
				width++
			}
			if width < min || width == 0 {
				return i, false
			}
			if !assign(e, n, width, f) {
				return i, false
			}
			i += width
			continue
		}
		j, ok := l.text(e, s, i, f)
		if !ok {
			return i, false
		}
		i = j
	}
	return i, true
}

// assign stores a numeric field; false when it is out of range.
func assign(e elem, n, width int, f *fields) bool {
	set := func(dst *int, lo, hi int) bool {
		if n < lo || n > hi || (*dst >= 0 && *dst != n) {
			return false
		}
		*dst = n
		return true
	}
	switch e.letter {
	case 'y':
		if e.count == 2 {
			n += 2000
		}
		f.yearDigits = width
		return set(&f.year, 0, 999_999_999)
	case 'M', 'L':
		return set(&f.month, 1, 12)
	case 'd':
		return set(&f.day, 1, 31)
	case 'D':
		return set(&f.doy, 1, 366)
	case 'H':
		return set(&f.hour24, 0, 23)
	case 'k':
		if n < 1 || n > 24 {
			return false
		}
		if n == 24 {
			n = 0
		}
		return set(&f.hour24, 0, 23)
	case 'h':
		return set(&f.clockHour, 1, 12)
	case 'K':
		return set(&f.hourAmPm, 0, 11)
	case 'm':
		return set(&f.minute, 0, 59)
	case 's':
		return set(&f.second, 0, 59)
	case 'S':
		for w := width; w < 9; w++ {
			n *= 10
		}
		f.nanos = n
		return true
	}
	return false
}

// text parses a text element (names, zones) at s[i:].
func (l *Layout) text(e elem, s string, i int, f *fields) (int, bool) {
	rest := s[i:]
	switch e.letter {
	case 'M', 'L':
		list := l.names.short[:]
		if e.count == 4 {
			list = l.names.months[:]
		}
		idx, n := longestPrefix(rest, list)
		if idx < 0 || (f.month >= 0 && f.month != idx+1) {
			return i, false
		}
		f.month = idx + 1
		return i + n, true
	case 'a':
		idx, n := longestPrefix(rest, l.names.ampm[:])
		if idx < 0 {
			return i, false
		}
		f.ampm = idx
		return i + n, true
	case 'G':
		idx, n := longestPrefix(rest, l.names.era[:])
		if idx < 0 {
			return i, false
		}
		f.era = idx
		return i + n, true
	case 'V', 'z':
		j := 0
		for j < len(rest) && (isLetter(rest[j]) || rest[j] >= '0' && rest[j] <= '9' || strings.IndexByte("/_+-:", rest[j]) >= 0) {
			j++
		}
		loc, err := LoadZone(rest[:j])
		if j == 0 || err != nil {
			return i, false
		}
		f.zone = loc
		return i + j, true
	case 'O':
		return l.gmtOffset(s, i, f)
	case 'Z':
		if e.count == 4 {
			return l.gmtOffset(s, i, f)
		}
		return offset(s, i, e.count == 5, f)
	case 'X':
		return offset(s, i, true, f)
	case 'x':
		return offset(s, i, false, f)
	}
	return i, false
}

// gmtOffset parses a localized offset: GMT, or GMT followed by an offset.
func (l *Layout) gmtOffset(s string, i int, f *fields) (int, bool) {
	if len(s)-i < 3 || !strings.EqualFold(s[i:i+3], "GMT") {
		return i, false
	}
	i += 3
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		return offset(s, i, false, f)
	}
	f.zone = time.UTC
	return i, true
}

// offset parses +h, +hh, +hhmm, +hh:mm, +hhmmss, +hh:mm:ss and, when
// allowZ, Z.
func offset(s string, i int, allowZ bool, f *fields) (int, bool) {
	if allowZ && i < len(s) && (s[i] == 'Z' || s[i] == 'z') {
		f.zone = time.UTC
		return i + 1, true
	}
	if i >= len(s) || (s[i] != '+' && s[i] != '-') {
		return i, false
	}
	sign := 1
	if s[i] == '-' {
		sign = -1
	}
	i++
	two := func() (int, bool) {
		if i+2 > len(s) || !isDigit(s[i]) || !isDigit(s[i+1]) {
			return 0, false
		}
		n := int(s[i]-'0')*10 + int(s[i+1]-'0')
		i += 2
		return n, true
	}
	h, ok := two()
	if !ok {
		if i < len(s) && isDigit(s[i]) { // one-digit hour (+8)
			h, i, ok = int(s[i]-'0'), i+1, true
		} else {
			return i, false
		}
	}
	var m, sec int
	for part := 0; part < 2; part++ {
		save := i
		if i < len(s) && s[i] == ':' {
			i++
		}
		n, ok := two()
		if !ok {
			i = save
			break
		}
		if part == 0 {
			m = n
		} else {
			sec = n
		}
	}
	if h > 18 || m > 59 || sec > 59 {
		return i, false
	}
	f.zone = time.FixedZone("", sign*(h*3600+m*60+sec))
	return i, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// longestPrefix finds the longest name s starts with, case-insensitively.
func longestPrefix(s string, list []string) (idx, n int) {
	idx = -1
	for k, name := range list {
		if len(name) > n && hasFoldPrefix(s, name) {
			idx, n = k, len(name)
		}
	}
	return idx, n
}

func hasFoldPrefix(s, prefix string) bool {
	// Byte lengths of case variants can differ outside ASCII: compare
	// rune by rune.
	for _, r := range prefix {
		if s == "" {
			return false
		}
		c, size := utf8.DecodeRuneInString(s)
		if !strings.EqualFold(string(c), string(r)) {
			return false
		}
		s = s[size:]
	}
	return true
}

// resolve turns parsed fields into a date (days of the civil calendar)
// and a time of day, as Spark's DateTimeFormatterHelper does: a missing
// year is 1970, a missing month or day 1, a missing hour (or am-pm hour
// without a marker: am) 0.
func (f *fields) resolve() (y, mo, d, h, mi, sec, nanos int, ok bool) {
	y = 1970
	if f.year >= 0 {
		y = f.year
		if f.era == 0 { // BC: year 1 BC is proleptic year 0
			y = 1 - y
		}
	}
	mo, d = 1, 1
	if f.month >= 0 {
		mo = f.month
	}
	if f.day >= 0 {
		d = f.day
	}
	if f.doy >= 0 {
		t := time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, f.doy-1)
		if t.Year() != y || (f.month >= 0 && int(t.Month()) != mo) || (f.day >= 0 && t.Day() != d) {
			return 0, 0, 0, 0, 0, 0, 0, false
		}
		mo, d = int(t.Month()), t.Day()
	}
	if d > daysIn(y, mo) {
		return 0, 0, 0, 0, 0, 0, 0, false
	}
	switch {
	case f.hour24 >= 0:
		h = f.hour24
		if (f.clockHour >= 0 && f.clockHour%12 != h%12) || (f.ampm >= 0 && f.ampm != h/12) {
			return 0, 0, 0, 0, 0, 0, 0, false
		}
	case f.clockHour >= 0:
		h = f.clockHour % 12
	case f.hourAmPm >= 0:
		h = f.hourAmPm
	}
	if f.hour24 < 0 && f.ampm == 1 {
		h += 12
	}
	if f.minute >= 0 {
		mi = f.minute
	}
	if f.second >= 0 {
		sec = f.second
	}
	if f.nanos >= 0 {
		nanos = f.nanos / 1000 * 1000 // microseconds, as Spark keeps
	}
	return y, mo, d, h, mi, sec, nanos, true
}

func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// match parses the whole of s.
func (l *Layout) match(s string) (fields, bool) {
	f := newFields()
	j, ok := l.parse(l.elems, s, 0, &f)
	return f, ok && j == len(s)
}

// ParseDate parses s as a date (time and zone fields are checked but not
// used), in days since 1970-01-01.
func (l *Layout) ParseDate(s string) (days int64, ok bool) {
	f, ok := l.match(s)
	if !ok {
		return 0, false
	}
	y, mo, d, _, _, _, _, ok := f.resolve()
	if !ok {
		return 0, false
	}
	return time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC).Unix() / 86400, true
}

// ParseTimestamp parses s as an instant: a zone or offset in s wins, else
// the wall clock is read in zone (nil: UTC). With ntz the wall clock is
// returned as UTC, any zone in s ignored. The result is in UTC.
func (l *Layout) ParseTimestamp(s string, zone *time.Location, ntz bool) (time.Time, bool) {
	f, ok := l.match(s)
	if !ok {
		return time.Time{}, false
	}
	y, mo, d, h, mi, sec, nanos, ok := f.resolve()
	if !ok {
		return time.Time{}, false
	}
	loc := time.UTC
	switch {
	case ntz:
	case f.zone != nil:
		loc = f.zone
	case zone != nil:
		loc = zone
	}
	return time.Date(y, time.Month(mo), d, h, mi, sec, nanos, loc).UTC(), true
}
