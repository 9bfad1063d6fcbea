// Package datetimefmt parses dates and timestamps with Spark's datetime
// patterns (the dateFormat, timestampFormat and timestampNTZFormat reader
// options, with timeZone and locale), shared by the JSON and CSV readers.
//
// The pattern subset is the one Spark documents for parsing
// (https://spark.apache.org/docs/latest/sql-ref-datetime-pattern.html):
//
//	G        era (AD, BC)
//	y        year (yy: two digits, 2000-2099; y, yyy, yyyy...: at least
//	         that many digits)
//	D        day of year
//	M, L     month: M and MM numbers, MMM short name, MMMM full name
//	d        day of month
//	a        am-pm marker
//	h        clock hour of am-pm (1-12)
//	K        hour of am-pm (0-11)
//	k        clock hour of day (1-24)
//	H        hour of day (0-23)
//	m, s     minute, second
//	S        fraction of second (up to 9 letters; 1 to that many digits are
//	         read, beyond microseconds truncated)
//	VV       zone id (America/Los_Angeles, UTC, +01:00)
//	z        zone name (UTC, GMT, UT or a zone id)
//	O        localized offset (GMT+8, OOOO: GMT+08:00)
//	X, x, Z  offsets (+08, +0830, +08:30; X and ZZZZZ also take Z)
//	'text'   literal text ('' is a quote); other non-letters are literal
//	[ ]      optional section
//
// Parsing is case-insensitive (as Spark builds its formatters) and must
// consume the whole value. Letters Spark refuses for parsing (E, F, q, Q,
// the week-based Y, w, W, u, e, c) and any other letter are refused when
// the pattern is compiled, so a bad option fails at load time. Month and
// am-pm names follow the locale option; English, French, German, Spanish,
// Italian, Portuguese and Dutch are known.
package datetimefmt

import (
	"errors"
	"fmt"
	"strings"
)

// ErrPattern marks a datetime pattern Tributary cannot parse with.
var ErrPattern = errors.New("unsupported datetime pattern")

// elem is one element of a compiled pattern.
type elem struct {
	letter byte   // 0: literal
	count  int    // how many times the letter repeats
	lit    string // literal text
	opt    []elem // an optional section (letter 0, lit "")
	isOpt  bool
}

// Layout is a compiled datetime pattern.
type Layout struct {
	pattern string
	elems   []elem
	names   *names
	// hasZone says the pattern has a zone or offset field.
	hasZone bool
	// hasTime says the pattern has an hour field.
	hasTime bool
}

// String returns the pattern as given.
func (l *Layout) String() string { return l.pattern }

// maxCount is the most repetitions Spark's formatter allows per letter.
var maxCount = map[byte]int{
	'G': 3, 'y': 9, 'D': 3, 'M': 4, 'L': 4, 'd': 2, 'a': 1, 'h': 2, 'K': 2, 'k': 2, 'H': 2, 'm': 2, 's': 2,
	'S': 9, 'V': 2, 'z': 4, 'O': 4, 'X': 5, 'x': 5, 'Z': 5,
}

// refusedLetters explains the letters Spark does not parse with.
var refusedLetters = map[byte]string{
	'E': "day-of-week text is only for formatting in Spark",
	'F': "aligned week of month is only for formatting in Spark",
	'q': "quarter is only for formatting in Spark",
	'Q': "quarter is only for formatting in Spark",
	'Y': "week-based patterns are not supported since Spark 3.0",
	'w': "week-based patterns are not supported since Spark 3.0",
	'W': "week-based patterns are not supported since Spark 3.0",
	'u': "week-based patterns are not supported since Spark 3.0",
	'e': "week-based patterns are not supported since Spark 3.0",
	'c': "week-based patterns are not supported since Spark 3.0",
}

// Compile compiles a Spark datetime pattern for parsing with the names of
// locale (a BCP 47 tag such as en-US; "" is en-US).
func Compile(pattern, locale string) (*Layout, error) {
	nm, err := localeNames(locale)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(pattern) == "" {
		return nil, fmt.Errorf("%w: empty pattern", ErrPattern)
	}
	l := &Layout{pattern: pattern, names: nm}
	p := &compiler{s: pattern, l: l}
	elems, err := p.seq(0)
	if err != nil {
		return nil, err
	}
	if p.i < len(p.s) {
		return nil, fmt.Errorf("%w: %q: unbalanced ']' at offset %d", ErrPattern, pattern, p.i)
	}
	l.elems = elems
	return l, nil
}

type compiler struct {
	s string
	i int
	l *Layout
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// seq compiles elements up to the end or a closing ']' (depth > 0).
func (p *compiler) seq(depth int) ([]elem, error) {
	var out []elem
	addLit := func(s string) {
		if n := len(out); n > 0 && out[n-1].letter == 0 && !out[n-1].isOpt {
			out[n-1].lit += s
			return
		}
		out = append(out, elem{lit: s})
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '[':
			p.i++
			inner, err := p.seq(depth + 1)
			if err != nil {
				return nil, err
			}
			if p.i >= len(p.s) || p.s[p.i] != ']' {
				return nil, fmt.Errorf("%w: %q: '[' without ']'", ErrPattern, p.s)
			}
			p.i++
			out = append(out, elem{opt: inner, isOpt: true})
		case c == ']':
			if depth == 0 {
				return nil, fmt.Errorf("%w: %q: ']' without '['", ErrPattern, p.s)
			}
			return out, nil
		case c == '\'':
			j := p.i + 1
			var lit strings.Builder
			for {
				if j >= len(p.s) {
					return nil, fmt.Errorf("%w: %q: unterminated quote", ErrPattern, p.s)
				}
				if p.s[j] == '\'' {
					if j+1 < len(p.s) && p.s[j+1] == '\'' {
						lit.WriteByte('\'')
						j += 2
						continue
					}
					break
				}
				lit.WriteByte(p.s[j])
				j++
			}
			if j == p.i+1 {
				addLit("'") // '' outside quotes is a quote
			} else {
				addLit(lit.String())
			}
			p.i = j + 1
		case isLetter(c):
			n := 1
			for p.i+n < len(p.s) && p.s[p.i+n] == c {
				n++
			}
			if why, ok := refusedLetters[c]; ok {
				return nil, fmt.Errorf("%w: %q: pattern letter '%c': %s", ErrPattern, p.s, c, why)
			}
			max, ok := maxCount[c]
			if !ok {
				return nil, fmt.Errorf("%w: %q: unknown pattern letter '%c'", ErrPattern, p.s, c)
			}
			if n > max || (c == 'V' && n != 2) || (c == 'O' && n != 1 && n != 4) {
				return nil, fmt.Errorf("%w: %q: too many (or too few) pattern letters '%c' (%d)", ErrPattern, p.s, c, n)
			}
			switch c {
			case 'V', 'z', 'O', 'X', 'x', 'Z':
				p.l.hasZone = true
			case 'h', 'K', 'k', 'H':
				p.l.hasTime = true
			}
			out = append(out, elem{letter: c, count: n})
			p.i += n
		case c == '#' || c == '{' || c == '}':
			return nil, fmt.Errorf("%w: %q: reserved character '%c'", ErrPattern, p.s, c)
		default:
			addLit(string(c))
			p.i++
		}
	}
	return out, nil
}
