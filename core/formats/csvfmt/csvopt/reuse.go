package csvopt

import (
	"io"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/tributary-io/tributary/core/formats/csvfmt/csvtok"
	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// parsed is what ParseReused leaves in a fileformat.Reuse: an options
// map (a copy), what Parse made of it, and the readers' memo.
type parsed struct {
	m    map[string]string
	o    Options
	memo Memo
}

// Memo holds what the readers given equal options in a batch share
// besides the options (ParseReused returns it): one value that a reader
// worked out and the next may use, such as the column map of a header row
// (Load, Store), and the tokenizers of readers that are done (Tokenizer,
// Recycle). It is safe for concurrent use; a value stored must not be
// changed afterwards, and every value stored in one Memo must be of the
// same type. A nil Memo holds nothing and keeps nothing.
type Memo struct {
	v atomic.Value
	// tok is the tokenizer configuration of the line separator asked for
	// last: one pointer for the batch's files, so that a tokenizer reset
	// from one file to the next keeps what it derived from it.
	tok atomic.Pointer[tokConfig]
	// free holds the tokenizers handed back, at most maxFree.
	mu   sync.Mutex
	free []*csvtok.Tokenizer
}

// maxFree bounds the tokenizers a Memo keeps: one per reader open at once
// (a decoder's), as many as a fileformat.Reuse keeps readers' state for.
const maxFree = 8

// tokConfig is a tokenizer configuration and the line separator it is of.
type tokConfig struct {
	lineSep string
	c       *csvtok.Config
}

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

// Tokenizer returns a tokenizer of o's syntax reading r (lineSep: the
// text options' line separator, "" for any line end): one that a reader
// of the batch handed back (Recycle), reset, when there is one; else a
// new one. o must be the options m came with (ParseReused). A nil Memo
// returns a new tokenizer.
func (m *Memo) Tokenizer(o *Options, lineSep string, r io.Reader) *csvtok.Tokenizer {
	if m == nil {
		return csvtok.New(r, o.TokConfig(lineSep))
	}
	tc := m.tok.Load()
	if tc == nil || tc.lineSep != lineSep {
		tc = &tokConfig{lineSep: lineSep, c: o.TokConfig(lineSep)}
		m.tok.Store(tc)
	}
	m.mu.Lock()
	var t *csvtok.Tokenizer
	if n := len(m.free); n > 0 {
		t, m.free = m.free[n-1], m.free[:n-1]
	}
	m.mu.Unlock()
	if t == nil {
		return csvtok.New(r, tc.c)
	}
	t.Reset(r, tc.c)
	return t
}

// Recycle hands t back for a later Tokenizer call (it holds on to no
// file meanwhile: csvtok's Drop). The caller must use neither t nor
// anything t returned again, and must not have handed its input on
// (Rest). A nil Memo drops t.
func (m *Memo) Recycle(t *csvtok.Tokenizer) {
	if m == nil || t == nil {
		return
	}
	t.Drop()
	m.mu.Lock()
	if len(m.free) < maxFree {
		m.free = append(m.free, t)
	}
	m.mu.Unlock()
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
