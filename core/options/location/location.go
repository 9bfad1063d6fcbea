// Package location provides the storage locations of a stream (S3 prefixes
// and local directories) as options sees them: parsed, compared (one inside
// another) and resolved through symbolic links.
package location

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Location is a parsed storage location: an S3 prefix or a local directory.
// options.Parse and (*options.Config).Validate compare locations with it;
// the original strings stay in options.Stream.
type Location struct {
	// Scheme is "s3" (also for s3a:// and s3n://) or "file".
	Scheme string
	// Bucket is the S3 bucket ("" for local paths).
	Bucket string
	// Path is the cleaned key prefix without leading or trailing slash for S3
	// ("" is the bucket root), or the cleaned absolute path for local
	// directories.
	Path string
}

// Parse parses "s3://bucket/prefix/" (s3a and s3n too),
// "file:///dir", "file:/dir" or a local path (made absolute against the
// working directory). Other schemes are refused.
func Parse(s string) (Location, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return Location{}, fmt.Errorf("empty location")
	}
	if scheme, rest, ok := strings.Cut(t, "://"); ok && !strings.ContainsAny(scheme, "/") {
		switch strings.ToLower(scheme) {
		case "s3", "s3a", "s3n":
			bucket, key, _ := strings.Cut(rest, "/")
			if bucket == "" {
				return Location{}, fmt.Errorf("location %q has no bucket", s)
			}
			key = strings.Trim(path.Clean("/"+key), "/")
			return Location{Scheme: "s3", Bucket: bucket, Path: key}, nil
		case "file":
			if !strings.HasPrefix(rest, "/") {
				return Location{}, fmt.Errorf("location %q: file URLs need an absolute path (file:///dir)", s)
			}
			return Location{Scheme: "file", Path: filepath.Clean(rest)}, nil
		default:
			return Location{}, fmt.Errorf("location %q: scheme %q is not supported (want s3:// or a local path)", s, scheme)
		}
	}
	if scheme, rest, ok := strings.Cut(t, ":"); ok && isScheme(scheme) {
		if !strings.EqualFold(scheme, "file") {
			return Location{}, fmt.Errorf("location %q: scheme %q is not supported (want s3:// or a local path)", s, scheme)
		}
		t = rest
	}
	abs, err := filepath.Abs(t)
	if err != nil {
		return Location{}, fmt.Errorf("location %q: %w", s, err)
	}
	return Location{Scheme: "file", Path: abs}, nil
}

// Real returns l with symbolic links resolved in its local path:
// the longest existing prefix of the path is replaced by its real path and
// the rest (not created yet) is kept. S3 locations, and paths that cannot
// be resolved, are returned unchanged.
func Real(l Location) Location {
	if l.Scheme != "file" {
		return l
	}
	rest := ""
	for p := l.Path; ; {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			l.Path = filepath.Join(real, rest)
			return l
		}
		parent := filepath.Dir(p)
		if parent == p {
			return l
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// String writes the location as a URL (s3://bucket/key) or a local path.
func (l Location) String() string {
	if l.Scheme == "s3" {
		if l.Path == "" {
			return "s3://" + l.Bucket + "/"
		}
		return "s3://" + l.Bucket + "/" + l.Path
	}
	return l.Path
}

// Contains reports whether o is l or lies inside it.
func (l Location) Contains(o Location) bool {
	_, ok := l.Rel(o)
	return ok
}

// Rel returns o's path relative to l ("" when equal) and whether o is inside l.
func (l Location) Rel(o Location) (string, bool) {
	if l.Scheme != o.Scheme || l.Bucket != o.Bucket {
		return "", false
	}
	if o.Path == l.Path {
		return "", true
	}
	base := l.Path
	if base == "" || base == "/" {
		return strings.TrimPrefix(o.Path, "/"), true
	}
	if r, ok := strings.CutPrefix(o.Path, base+"/"); ok {
		return r, true
	}
	return "", false
}

// Child returns the location of the directory child inside l, written as
// String writes it.
func (l Location) Child(child string) string {
	c := l
	if c.Path == "" {
		c.Path = child
	} else {
		c.Path += "/" + child
	}
	return c.String()
}

// Overlaps reports whether one of l and o contains the other.
func (l Location) Overlaps(o Location) bool { return l.Contains(o) || o.Contains(l) }

// SafeInTable reports whether a location inside a Delta table directory is
// safe from VACUUM: its first segment below the table starts with "_" and is
// not the transaction log. VACUUM never touches such directories (seed 000:
// "<table-name>/_checkpoints").
func SafeInTable(rel string) bool {
	first, _, _ := strings.Cut(rel, "/")
	return strings.HasPrefix(first, "_") && first != "_delta_log"
}

// isScheme reports whether s is a URL scheme (RFC 3986: a letter, then
// letters, digits, +, - or .).
func isScheme(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return true
}
