package datetimefmt

import (
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // zone ids resolve where the system has no zoneinfo (AWS Lambda)

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// The option names, as Spark documents them.
const (
	OptDateFormat         = "dateFormat"
	OptTimestampFormat    = "timestampFormat"
	OptTimestampNTZFormat = "timestampNTZFormat"
	OptTimeZone           = "timeZone"
	OptLocale             = "locale"
	OptFallback           = "enableDateTimeParsingFallback"
)

// LoadZone resolves a timeZone value as Spark does: a region id
// (America/Los_Angeles), an offset ((+|-)HH:mm, (+|-)HH, (+|-)HHmm,
// optionally after UTC, GMT or UT), or UTC, GMT, UT and Z.
func LoadZone(v string) (*time.Location, error) {
	v = strings.TrimSpace(v)
	switch strings.ToUpper(v) {
	case "UTC", "GMT", "UT", "Z", "UTC0", "GMT0":
		return time.UTC, nil
	case "":
		return nil, fmt.Errorf("empty zone")
	}
	rest := v
	for _, p := range []string{"UTC", "GMT", "UT"} {
		if len(rest) > len(p) && strings.EqualFold(rest[:len(p)], p) && (rest[len(p)] == '+' || rest[len(p)] == '-') {
			rest = rest[len(p):]
			break
		}
	}
	if rest[0] == '+' || rest[0] == '-' {
		f := newFields()
		if j, ok := offset(rest, 0, false, &f); ok && j == len(rest) {
			return f.zone, nil
		}
		return nil, fmt.Errorf("invalid zone offset %q", v)
	}
	if strings.Contains(v, "..") || strings.HasPrefix(v, "/") {
		return nil, fmt.Errorf("invalid zone id %q", v)
	}
	loc, err := time.LoadLocation(v)
	if err != nil {
		return nil, fmt.Errorf("unknown zone id %q", v)
	}
	return loc, nil
}

// Parser parses date and timestamp values as a JSON or CSV reader's
// options say. Without a pattern option a type is parsed as Spark does by
// default (fileformat.ParseDate and ParseTimestamp, the lenient forms of
// yyyy-MM-dd and ISO 8601); with one, strictly by the pattern, falling
// back to the default parsing only with enableDateTimeParsingFallback
// (Spark's default is off for a custom pattern). A timestamp without a zone is read in the timeZone option's
// zone (default UTC).
type Parser struct {
	// Date, Timestamp and TimestampNTZ are the compiled patterns (nil:
	// the default parsing).
	Date, Timestamp, TimestampNTZ *Layout
	// Zone is the timeZone option (nil: UTC).
	Zone *time.Location
	// Fallback is enableDateTimeParsingFallback: a value a pattern does
	// not match is parsed as without the pattern (Spark's backward
	// compatible parsing).
	Fallback bool
}

// FromOptions compiles the datetime options found in a format's options
// (names compared case-insensitively). An error names the option and
// wraps fileformat.ErrBadOption.
func FromOptions(opts map[string]string) (*Parser, error) {
	get := func(name string) (string, bool) {
		if v, ok := opts[name]; ok {
			return v, true
		}
		for k, v := range opts {
			if strings.EqualFold(k, name) {
				return v, true
			}
		}
		return "", false
	}
	p := &Parser{}
	locale, _ := get(OptLocale)
	if err := CheckLocale(locale); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", fileformat.ErrBadOption, OptLocale, err)
	}
	for _, o := range []struct {
		name string
		dst  **Layout
	}{{OptDateFormat, &p.Date}, {OptTimestampFormat, &p.Timestamp}, {OptTimestampNTZFormat, &p.TimestampNTZ}} {
		if v, ok := get(o.name); ok {
			l, err := Compile(v, locale)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", fileformat.ErrBadOption, o.name, err)
			}
			*o.dst = l
		}
	}
	if v, ok := get(OptFallback); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			p.Fallback = true
		case "false":
		default:
			return nil, fmt.Errorf("%w: %s=%q: want true or false", fileformat.ErrBadOption, OptFallback, v)
		}
	}
	if v, ok := get(OptTimeZone); ok {
		z, err := LoadZone(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", fileformat.ErrBadOption, OptTimeZone, err)
		}
		p.Zone = z
	}
	return p, nil
}

// Default reports whether p parses as Spark does without datetime options.
func (p *Parser) Default() bool {
	return p == nil || (p.Date == nil && p.Timestamp == nil && p.TimestampNTZ == nil && p.Zone == nil)
}

// ParseDate parses a DATE value.
func (p *Parser) ParseDate(s string) (schema.Date, bool) {
	if p == nil || p.Date == nil {
		return fileformat.ParseDate(s)
	}
	d, ok := p.Date.ParseDate(s)
	if !ok || d < -(1<<31) || d >= 1<<31 {
		if p.Fallback {
			return fileformat.ParseDate(s)
		}
		return 0, false
	}
	return schema.Date(d), true
}

// ParseTimestamp parses a TIMESTAMP (ntz false) or TIMESTAMP_NTZ value.
func (p *Parser) ParseTimestamp(s string, ntz bool) (time.Time, bool) {
	if p == nil {
		return fileformat.ParseTimestamp(s, ntz)
	}
	if ntz {
		if p.TimestampNTZ != nil {
			if t, ok := p.TimestampNTZ.ParseTimestamp(s, nil, true); ok || !p.Fallback {
				return t, ok
			}
		}
		return fileformat.ParseTimestamp(s, true)
	}
	if p.Timestamp != nil {
		if t, ok := p.Timestamp.ParseTimestamp(s, p.Zone, false); ok || !p.Fallback {
			return t, ok
		}
	}
	if p.Zone != nil && p.Zone != time.UTC {
		// A value without a zone is a wall clock in p.Zone.
		if wall, ok := fileformat.ParseTimestamp(s, true); ok {
			y, mo, d := wall.Date()
			h, mi, sec := wall.Clock()
			return time.Date(y, mo, d, h, mi, sec, wall.Nanosecond(), p.Zone).UTC(), true
		}
	}
	return fileformat.ParseTimestamp(s, false)
}
