// Package csvopt resolves the values of Spark's CSV options that name
// characters (sep, quote, escape, charToEscapeQuoteEscaping, comment), as
// Spark's CSVOptions does; package csvfmt resolves the others.
package csvopt

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Delimiter resolves the sep (delimiter) option as Spark's
// CSVExprUtils.toDelimiterStr does: any non-empty string; a backslash
// starts an escape (\t, \r, \b, \f, \", \', \\, \u0000 as written);
// a single backslash, or one before another character, is refused.
func Delimiter(v string) (string, error) {
	if v == "" {
		return "", fmt.Errorf("delimiter cannot be empty string")
	}
	if v == `\` {
		return "", fmt.Errorf("single backslash is prohibited: it starts an escape sequence; to get the backslash character, pass two backslashes")
	}
	var b strings.Builder
	for i := 0; i < len(v); {
		if v[i] != '\\' || i+1 == len(v) {
			r, n := utf8.DecodeRuneInString(v[i:])
			b.WriteRune(r)
			i += n
			continue
		}
		if strings.HasPrefix(v[i:], `\u0000`) {
			b.WriteByte(0)
			i += 6
			continue
		}
		switch v[i+1] {
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case '"':
			b.WriteByte('"')
		case '\'':
			b.WriteByte('\'')
		case '\\':
			b.WriteByte('\\')
		default:
			return "", fmt.Errorf("unsupported special character for delimiter: %s", v[i:i+2])
		}
		i += 2
	}
	return b.String(), nil
}

// Char resolves a one-character option (quote, escape,
// charToEscapeQuoteEscaping, comment) as Spark's getChar does: "" is the
// character \u0000, which turns the feature off (0); more than one
// character is refused.
func Char(name, v string) (rune, error) {
	if v == "" {
		return 0, nil
	}
	if utf8.RuneCountInString(v) != 1 {
		return 0, fmt.Errorf("%s cannot be more than one character", name)
	}
	r, _ := utf8.DecodeRuneInString(v)
	return r, nil
}
