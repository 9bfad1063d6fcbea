package csvtok

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// checkSlow compares reading doc with c (the line fast paths on), read in
// place and with read(2), with reading it rune by rune (Slow).
func checkSlow(t testing.TB, doc []byte, c Config) {
	t.Helper()
	slow := c
	slow.Slow = true
	want := readAll(t, bytes.NewReader(doc), &slow, -1)
	if got := readAll(t, bytes.NewReader(doc), &c, -1); !reflect.DeepEqual(got, want) {
		t.Fatalf("doc %q config %+v:\nfast %s\nslow %s", short(doc), c, dump(got), dump(want))
	}
	if got := readAll(t, &viewMapper{bytes.NewReader(doc), doc}, &c, -1); !reflect.DeepEqual(got, want) {
		t.Fatalf("doc %q config %+v, in place:\nfast %s\nslow %s", short(doc), c, dump(got), dump(want))
	}
}

// TestSplitMaskedRandom: random documents of long and short lines (the
// bitmaps of one block and of several, lines past maxMaskedLine) made of
// the bytes the fast paths look for, under every option set, give the
// rune-by-rune path's records.
func TestSplitMaskedRandom(t *testing.T) {
	pieces := []string{"a", "bc", "12", "-1", ",", ",", ",", ";", "\"", "\"", "'", "\\", "#", " ", "\t", "\r", "\n", "\r\n", "é", "日本", "\xff", "\x00", "\",", ",\"", "\"\""}
	rng := rand.New(rand.NewPCG(21, 4))
	n := 800
	if testing.Short() {
		n = 100
	}
	for range n {
		var b strings.Builder
		long := []int{10, 40, 120, 400, 3000}[rng.IntN(5)]
		for k := rng.IntN(long); k > 0; k-- {
			p := pieces[rng.IntN(len(pieces))]
			if rng.IntN(3) == 0 {
				// Runs of plain values, as real lines have.
				p = strings.Repeat("xy,", rng.IntN(30))
			}
			b.WriteString(p)
		}
		for _, c := range mappedConfigs {
			checkSlow(t, []byte(b.String()), c)
		}
	}
}

// TestSplitMaskedQuotedLines: well-formed lines of quoted and unquoted
// values of every length around the block boundaries.
func TestSplitMaskedQuotedLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 7))
	for n := 0; n < 200; n++ {
		var b strings.Builder
		for line := range 40 {
			for v := 0; v < 1+line%20; v++ {
				if v > 0 {
					b.WriteByte(',')
				}
				s := strings.Repeat("v", rng.IntN(n+1))
				switch rng.IntN(4) {
				case 0:
					s = "\"" + s + ",日\""
				case 1:
					s = " " + s + " "
				}
				b.WriteString(s)
			}
			b.WriteByte('\n')
		}
		for _, c := range mappedConfigs {
			checkSlow(t, []byte(b.String()), c)
		}
	}
}

// FuzzSplitMasked: the fast paths give the rune-by-rune path's records.
func FuzzSplitMasked(f *testing.F) {
	f.Add([]byte("a,b\n1,\"2\"\r\n\"x\ny\",z"), uint8(0))
	f.Add([]byte(strings.Repeat("abc,\"d,e\",-1,日本,", 12)+"\n"+strings.Repeat("x,", 40)+"\"q\"\n"), uint8(1))
	f.Add([]byte(strings.Repeat(" a\t, b ,", 20)+"\n"), uint8(8))
	f.Fuzz(func(t *testing.T, doc []byte, cfg uint8) {
		checkSlow(t, doc, mappedConfigs[int(cfg)%len(mappedConfigs)])
	})
}

// TestSplitLongLines: lines around and past maxMaskedLine (split by
// splitMasked and by splitFields), with quoted values, and escapes, "\r"
// and stray quotes in some.
func TestSplitLongLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for range 30 {
		var b strings.Builder
		for range 12 {
			size := []int{100, 4000, 4100, 8100, 8300, 20000}[rng.IntN(6)]
			clean := rng.IntN(2) == 0 // no escapes, "\r" or stray quotes
			for start := b.Len(); b.Len()-start < size; {
				switch k := rng.IntN(8); {
				case k == 0:
					b.WriteString("\"q,日\",")
				case k == 1 && !clean:
					b.WriteString([]string{"\\", "\r", "\"", "é"}[rng.IntN(4)])
				case k == 2:
					b.WriteString("é")
				default:
					b.WriteString("abcdefgh,")
				}
			}
			b.WriteString([]string{"\n", "\r\n"}[rng.IntN(2)])
		}
		for _, c := range mappedConfigs {
			checkSlow(t, []byte(b.String()), c)
		}
	}
}
