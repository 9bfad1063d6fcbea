package csvfmt

import "time"

// isoMicros reads the common timestamp, yyyy-MM-ddTHH:mm:ss[.fraction]Z
// (one to nine fraction digits), as microseconds since the epoch, exactly
// as fileformat.ParseTimestamp(s, false) reads it (the fraction truncated
// to microseconds); ok is false for anything else, which ParseTimestamp
// reads.
func isoMicros(s string) (int64, bool) {
	n := len(s)
	if n < 20 || n > 30 || s[n-1] != 'Z' || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' {
		return 0, false
	}
	y, ok1 := num(s[0:4])
	mo, ok2 := num(s[5:7])
	d, ok3 := num(s[8:10])
	h, ok4 := num(s[11:13])
	mi, ok5 := num(s[14:16])
	sec, ok6 := num(s[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	var micros int64
	if n > 20 {
		frac := s[20 : n-1]
		if s[19] != '.' || len(frac) < 1 || len(frac) > 9 {
			return 0, false
		}
		v, ok := num(frac)
		if !ok {
			return 0, false
		}
		for k := len(frac); k < 9; k++ {
			v *= 10
		}
		micros = v / 1000
	} else if s[19] != 'Z' {
		return 0, false
	}
	days := daysFromCivil(y, mo, d)
	return (days*86400+h*3600+mi*60+sec)*1_000_000 + micros, true
}

// daysInMonth is the number of days of month m of year y.
func daysInMonth(y, m int64) int64 {
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

// num reads s, all ASCII digits, as a number.
func num(s string) (int64, bool) {
	var v int64
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + int64(c)
	}
	return v, true
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d of the
// proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
func daysFromCivil(y, m, d int64) int64 {
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
	return era*146097 + doe - 719468
}

// defaultTimestamps reports whether a timestamp (not timestamp_ntz) value
// is read by fileformat.ParseTimestamp alone: no timestampFormat, the
// time zone UTC (Datetime.ParseTimestamp then comes down to it).
func (o *Options) defaultTimestamps() bool {
	p := o.Datetime
	return p == nil || (p.Timestamp == nil && (p.Zone == nil || p.Zone == time.UTC))
}

// timestampMicros is the timestamp (ntz false) or timestamp_ntz
// conversion as microseconds since the epoch: isoMicros for the common
// form under the default parsing (defaultTimestamps), else Datetime.ParseTimestamp.
func (o *Options) timestampMicros(s string, ntz bool) (int64, bool) {
	if !ntz && o.defaultTimestamps() {
		if v, ok := isoMicros(s); ok {
			return v, true
		}
	}
	t, ok := o.Datetime.ParseTimestamp(s, ntz)
	if !ok {
		return 0, false
	}
	return t.UnixMicro(), true
}
