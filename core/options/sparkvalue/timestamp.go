package sparkvalue

import (
	"errors"
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // region zone ids ("Europe/Paris") resolve the same on every host
)

// TimestampLayout is how timestamps are written back (Describe, docs): the
// instant in UTC with up to microsecond precision.
const TimestampLayout = "2006-01-02T15:04:05.999999Z07:00"

// ErrTimestamp is wrapped by ParseTimestamp's errors for input that is not
// a timestamp at all.
var ErrTimestamp = errors.New(`want yyyy-MM-dd'T'HH:mm:ss (e.g. "2020-06-01T13:00:00"), optionally with fractional seconds and a zone ("Z", "+09:00", "UTC+1", "Europe/Paris"), or a date ("2020-06-01")`)

// ParseTimestamp parses a timestamp as Spark casts a string to TIMESTAMP
// (DateTimeUtils.stringToTimestamp), the form of modifiedAfter,
// modifiedBefore and startingTimestamp:
//
//	[+-]yyyy[-[m]m[-[d]d]]
//	[+-]yyyy-[m]m-[d]d( |T)[h]h[:[m]m[:[s]s[.fraction]]][zone]
//
// The year has 4 to 6 digits (Tributary accepts years 1 to 9999); missing
// parts are the start of the period ("2020-06" is 2020-06-01T00:00:00). The
// fraction keeps microseconds (more digits are cut, as in Spark). The zone,
// after the seconds (a space before it is allowed), is "Z", an offset
// ("+h", "+hh", "+hh:mm", "+hhmm", "+hh:mm:ss", "+hhmmss"), "UTC", "GMT" or
// "UT" alone or followed by an offset, one of Java's short ids ("PST",
// "JST", ...) or a region id ("Europe/Paris"). A timestamp without a zone
// is in the session time zone, which for Tributary is UTC. Spark's
// time-only forms ("12:00:00", today's date in the zone) are refused: a
// stream option must not change meaning from one day to the next.
func ParseTimestamp(s string) (time.Time, error) {
	t, err := parseSparkTimestamp(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid timestamp %q: %w", s, err)
	}
	return t, nil
}

// FormatTimestamp writes t in the form ParseTimestamp reads back (UTC,
// microseconds).
func FormatTimestamp(t time.Time) string {
	return t.UTC().Truncate(time.Microsecond).Format(TimestampLayout)
}

func parseSparkTimestamp(s string) (time.Time, error) {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f })
	if s == "" {
		return time.Time{}, ErrTimestamp
	}
	// fields: year, month, day, hour, minute, second, microsecond.
	fields := [7]int{0, 1, 1, 0, 0, 0, 0}
	sign := 1
	switch s[0] {
	case '+':
		s = s[1:]
	case '-':
		sign, s = -1, s[1:]
	}
	num := func(min, max int) (int, bool) {
		n, v := 0, 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			if n < 9 {
				v = v*10 + int(s[n]-'0')
			}
			n++
		}
		if n < min || n > max {
			return 0, false
		}
		s = s[n:]
		return v, true
	}
	var ok bool
	if fields[0], ok = num(4, 6); !ok {
		if strings.Contains(s, ":") && !strings.Contains(s, "-") {
			return time.Time{}, errors.New("a time without a date is not accepted (Spark would take today's date): write the date too")
		}
		return time.Time{}, ErrTimestamp
	}
	fields[0] *= sign
	zone := ""
	// Date: -[m]m, -[d]d.
	dateParts := 1
	for ; dateParts <= 2 && s != "" && s[0] == '-'; dateParts++ {
		s = s[1:]
		if fields[dateParts], ok = num(1, 2); !ok {
			return time.Time{}, ErrTimestamp
		}
	}
	if s != "" {
		// Time: only after a full date, hours first.
		if !(s[0] == ' ' || s[0] == 'T') || dateParts < 3 {
			return time.Time{}, ErrTimestamp
		}
		s = s[1:]
		if fields[3], ok = num(1, 2); !ok {
			return time.Time{}, ErrTimestamp
		}
		timeParts := 1
		for ; timeParts <= 2 && s != "" && s[0] == ':'; timeParts++ {
			s = s[1:]
			if fields[3+timeParts], ok = num(1, 2); !ok {
				return time.Time{}, ErrTimestamp
			}
		}
		if timeParts == 3 && s != "" && s[0] == '.' {
			// Fraction: microseconds are kept, further digits cut.
			s = s[1:]
			n := 0
			for ; n < len(s) && s[n] >= '0' && s[n] <= '9'; n++ {
				if n < 6 {
					fields[6] = fields[6]*10 + int(s[n]-'0')
				}
			}
			for i := n; i < 6; i++ {
				fields[6] *= 10
			}
			s = s[n:]
		}
		if s != "" && timeParts < 3 {
			return time.Time{}, ErrTimestamp // a zone follows the seconds
		}
		zone = strings.TrimSpace(s)
	}
	if fields[0] < 1 || fields[0] > 9999 {
		return time.Time{}, fmt.Errorf("year %d is out of range (1 to 9999)", fields[0])
	}
	if fields[1] < 1 || fields[1] > 12 || fields[2] < 1 || fields[2] > 31 ||
		fields[3] > 23 || fields[4] > 59 || fields[5] > 59 {
		return time.Time{}, ErrTimestamp
	}
	loc := time.UTC // the session time zone
	if zone != "" {
		var err error
		if loc, err = parseZone(zone); err != nil {
			return time.Time{}, err
		}
	}
	t := time.Date(fields[0], time.Month(fields[1]), fields[2], fields[3], fields[4], fields[5], fields[6]*1000, loc)
	if t.Day() != fields[2] || t.Month() != time.Month(fields[1]) {
		return time.Time{}, fmt.Errorf("%04d-%02d-%02d is not a date", fields[0], fields[1], fields[2])
	}
	if t = t.UTC(); t.Year() < 1 || t.Year() > 9999 {
		return time.Time{}, fmt.Errorf("%s is out of range (years 1 to 9999 in UTC)", t)
	}
	return t, nil
}

// javaShortID maps java.time.ZoneId.SHORT_IDS, which Spark accepts, to
// the zone they stand for.
func javaShortID(id string) (string, bool) {
	z, ok := map[string]string{
		"ACT": "Australia/Darwin", "AET": "Australia/Sydney", "AGT": "America/Argentina/Buenos_Aires",
		"ART": "Africa/Cairo", "AST": "America/Anchorage", "BET": "America/Sao_Paulo",
		"BST": "Asia/Dhaka", "CAT": "Africa/Harare", "CNT": "America/St_Johns",
		"CST": "America/Chicago", "CTT": "Asia/Shanghai", "EAT": "Africa/Addis_Ababa",
		"ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis", "IST": "Asia/Kolkata",
		"JST": "Asia/Tokyo", "MIT": "Pacific/Apia", "NET": "Asia/Yerevan",
		"NST": "Pacific/Auckland", "PLT": "Asia/Karachi", "PNT": "America/Phoenix",
		"PRT": "America/Puerto_Rico", "PST": "America/Los_Angeles", "SST": "Pacific/Guadalcanal",
		"VST": "Asia/Ho_Chi_Minh", "EST": "-05:00", "MST": "-07:00", "HST": "-10:00",
	}[id]
	return z, ok
}

// parseZone reads a zone id as java.time.ZoneId.of does with SHORT_IDS
// (Spark also accepts a one-digit hour before ':', "+8:00").
func parseZone(z string) (*time.Location, error) {
	if id, ok := javaShortID(z); ok {
		z = id
	}
	switch {
	case z == "Z" || z == "UTC" || z == "GMT" || z == "UT":
		return time.UTC, nil
	case z[0] == '+' || z[0] == '-':
		return parseOffset(z, z)
	}
	for _, p := range []string{"UTC", "GMT", "UT"} {
		if rest, ok := strings.CutPrefix(z, p); ok && rest != "" && (rest[0] == '+' || rest[0] == '-') {
			return parseOffset(rest, z)
		}
	}
	if strings.Contains(z, "/") && !strings.Contains(z, "..") {
		if loc, err := time.LoadLocation(z); err == nil {
			return loc, nil
		}
	}
	return nil, fmt.Errorf("unknown time zone %q: want Z, an offset such as +09:00, UTC+1, or a region such as Europe/Paris", z)
}

// parseOffset reads "+h", "+hh", "+hh:mm", "+hhmm", "+hh:mm:ss" or
// "+hhmmss" (and "+h:mm", which Spark rewrites to "+0h:mm"), at most 18
// hours as in java.time.ZoneOffset.
func parseOffset(o, zone string) (*time.Location, error) {
	bad := fmt.Errorf("invalid zone offset %q: want +h, +hh, +hh:mm, +hhmm, +hh:mm:ss or +hhmmss", zone)
	sign := 1
	if o[0] == '-' {
		sign = -1
	}
	o = o[1:]
	if len(o) >= 2 && o[1] == ':' {
		o = "0" + o
	}
	var digits string
	switch {
	case len(o) == 1:
		digits = "0" + o
	case len(o) == 2 || len(o) == 4 || len(o) == 6:
		digits = o
	case len(o) == 5 && o[2] == ':':
		digits = o[:2] + o[3:]
	case len(o) == 8 && o[2] == ':' && o[5] == ':':
		digits = o[:2] + o[3:5] + o[6:]
	default:
		return nil, bad
	}
	var parts [3]int
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return nil, bad
		}
		parts[i/2] = parts[i/2]*10 + int(c-'0')
	}
	secs := parts[0]*3600 + parts[1]*60 + parts[2]
	if parts[1] > 59 || parts[2] > 59 || secs > 18*3600 {
		return nil, bad
	}
	return time.FixedZone(zone, sign*secs), nil
}
