package discovery

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// ErrBadGlob reports a pathGlobFilter that cannot be compiled.
var ErrBadGlob = errors.New("invalid pathGlobFilter")

// Glob is a compiled Hadoop-style glob on file names: '*', '?', '[...]'
// classes (with '^' or '!' negation), '\' escapes, and '{a,b}' alternation
// (nestable), as Spark's pathGlobFilter accepts.
type Glob struct {
	pattern      string
	alternatives []string
}

// maxAlternatives bounds brace expansion so a hostile pattern cannot explode.
const maxAlternatives = 1024

// CompileGlob compiles pattern; the error wraps ErrBadGlob and names it.
func CompileGlob(pattern string) (*Glob, error) {
	alts, err := expandBraces(pattern)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrBadGlob, pattern, err)
	}
	for i, a := range alts {
		a = strings.ReplaceAll(a, "[!", "[^")
		alts[i] = a
		if _, err := path.Match(a, ""); err != nil {
			return nil, fmt.Errorf("%w %q: %v", ErrBadGlob, pattern, err)
		}
	}
	return &Glob{pattern: pattern, alternatives: alts}, nil
}

// String returns the source pattern.
func (g *Glob) String() string { return g.pattern }

// Match reports whether name matches the glob.
func (g *Glob) Match(name string) bool {
	for _, a := range g.alternatives {
		if ok, _ := path.Match(a, name); ok {
			return true
		}
	}
	return false
}

// expandBraces turns "a{b,c{d,e}}f" into [abf acdf acef].
func expandBraces(p string) ([]string, error) {
	open := -1
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				return nil, errors.New("unmatched '}'")
			}
			depth--
			if depth == 0 {
				parts, err := splitTopLevel(p[open+1 : i])
				if err != nil {
					return nil, err
				}
				rest, err := expandBraces(p[i+1:])
				if err != nil {
					return nil, err
				}
				var out []string
				for _, part := range parts {
					inner, err := expandBraces(part)
					if err != nil {
						return nil, err
					}
					for _, in := range inner {
						for _, r := range rest {
							out = append(out, p[:open]+in+r)
							if len(out) > maxAlternatives {
								return nil, errors.New("too many {} alternatives")
							}
						}
					}
				}
				return out, nil
			}
		}
	}
	if depth != 0 {
		return nil, errors.New("unmatched '{'")
	}
	return []string{p}, nil
}

// splitTopLevel splits s on commas that are not nested in braces.
func splitTopLevel(s string) ([]string, error) {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:]), nil
}
