package csvtok

import (
	"bytes"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestResetRandom: one tokenizer reset from document to document (a
// batch's files, the configuration kept or changed, each document read to
// its end, part way, or up to Rest, through read(2) or in place, and
// dropped in between or not) reads each exactly as a new tokenizer does.
func TestResetRandom(t *testing.T) {
	pieces := []string{"a", "bc", "12", ",", ",", ";", "::", "\"", "\"", "'", "\\", "#", " ", "\t", "\r", "\n", "\n", "\r\n", "é", "\xff", "\uFEFF"}
	rng := rand.New(rand.NewPCG(21, 5))
	n := 3000
	if testing.Short() {
		n = 300
	}
	configs := make([]*Config, len(mappedConfigs))
	for i := range mappedConfigs {
		configs[i] = &mappedConfigs[i]
	}
	source := func(doc []byte) io.Reader {
		if rng.IntN(2) == 0 {
			return bytes.NewReader(doc)
		}
		return newBytesMapper(doc)
	}
	var tk *Tokenizer
	c := configs[0]
	for i := range n {
		var b strings.Builder
		for k := rng.IntN(120); k > 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		doc := []byte(b.String())
		switch rng.IntN(4) {
		case 0: // another configuration
			c = configs[rng.IntN(len(configs))]
		case 1: // an equal one at another address: derived again
			cc := *c
			c = &cc
		}
		rest := -1
		if rng.IntN(4) == 0 {
			rest = rng.IntN(6)
		}
		want := readAll(t, bytes.NewReader(doc), c, rest)
		switch {
		case tk == nil:
			tk = New(source(doc), c)
		case rng.IntN(3) == 0: // kept for later, as a batch's memo keeps it
			tk.Drop()
			fallthrough
		default:
			tk.Reset(source(doc), c)
		}
		if rng.IntN(5) == 0 { // some readers stop part way, some skip the UTF-8 check
			tk.SkipUTF8Check()
			fresh := New(bytes.NewReader(doc), c)
			fresh.SkipUTF8Check()
			want = readOn(t, fresh, rest)
		}
		if got := readOn(t, tk, rest); !reflect.DeepEqual(got, want) {
			t.Fatalf("document %d %q config %+v rest %d, after a reset:\ngot  %s\nwant %s", i, short(doc), *c, rest, dump(got), dump(want))
		}
		if rng.IntN(3) == 0 {
			tk.Reset(source(doc), c)
			for k := rng.IntN(3); k > 0; k-- {
				if tk.Next() != nil {
					break
				}
			}
		}
	}
}
