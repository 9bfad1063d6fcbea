package csvopt

import (
	"maps"
	"sync/atomic"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// parsed is what ParseReused leaves in a fileformat.Reuse: an options
// map (a copy), what Parse made of it, and the readers' memo.
type parsed struct {
	m    map[string]string
	o    Options
	memo Memo
}

// Memo holds one value that the readers given equal options in a batch
// share besides the options (ParseReused returns it): what one reader
// worked out that the next may use, such as the column map of a header
// row. It is safe for concurrent use; a value stored must not be changed
// afterwards, and every value stored in one Memo must be of the same type.
// A nil Memo holds nothing and keeps nothing.
type Memo struct{ v atomic.Value }

// Load returns the value stored last (nil: none).
func (m *Memo) Load() any {
	if m == nil {
		return nil
	}
	return m.v.Load()
}

// Store replaces the value.
func (m *Memo) Store(v any) {
	if m != nil {
		m.v.Store(v)
	}
}

// ParseReused is Parse for the readers of a batch's files, which are
// given equal options: the options parsed for one file are left in reuse
// and taken by the next file's reader when its map holds the same
// entries (Parse of a map of a few options takes microseconds, a
// comparison tens of nanoseconds). Options, Datetime included, are only
// read after Parse, so readers on several goroutines share them. A map
// that does not parse is parsed again, and fails again, every time. The
// Memo returned is the one of the options returned (nil when there is no
// reuse or they do not parse).
func ParseReused(m map[string]string, reuse *fileformat.Reuse) (Options, *Memo, error) {
	if p, ok := reuse.Take().(*parsed); ok {
		reuse.Leave(p)
		if maps.Equal(p.m, m) {
			return p.o, &p.memo, nil
		}
	}
	o, err := Parse(m)
	if err != nil || reuse == nil {
		return o, nil, err
	}
	p := &parsed{m: maps.Clone(m), o: o}
	reuse.Leave(p)
	return o, &p.memo, nil
}
