package csvopt

import (
	"maps"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// parsed is what ParseReused leaves in a fileformat.Reuse: an options
// map (a copy) and what Parse made of it.
type parsed struct {
	m map[string]string
	o Options
}

// ParseReused is Parse for the readers of a batch's files, which are
// given equal options: the options parsed for one file are left in reuse
// and taken by the next file's reader when its map holds the same
// entries (Parse of a map of a few options takes microseconds, a
// comparison tens of nanoseconds). Options, Datetime included, are only
// read after Parse, so readers on several goroutines share them. A map
// that does not parse is parsed again, and fails again, every time.
func ParseReused(m map[string]string, reuse *fileformat.Reuse) (Options, error) {
	if p, ok := reuse.Take().(*parsed); ok {
		reuse.Leave(p)
		if maps.Equal(p.m, m) {
			return p.o, nil
		}
	}
	o, err := Parse(m)
	if err == nil {
		reuse.Leave(&parsed{m: maps.Clone(m), o: o})
	}
	return o, err
}
