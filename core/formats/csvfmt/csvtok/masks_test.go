package csvtok

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// naiveMasks is blockMasks byte by byte: the oracle of maskBlocks.
func naiveMasks(src []byte, sep, quote, esc1, esc2 byte) (s, q, sp, h []uint64) {
	n := len(src) / 64
	s, q, sp, h = make([]uint64, n), make([]uint64, n), make([]uint64, n), make([]uint64, n)
	for i, c := range src[:n*64] {
		bit := uint64(1) << (i & 63)
		if c == sep {
			s[i>>6] |= bit
		}
		if c == quote {
			q[i>>6] |= bit
		}
		if c == '\r' || c == esc1 || c == esc2 {
			sp[i>>6] |= bit
		}
		if c >= 0x80 {
			h[i>>6] |= bit
		}
	}
	return s, q, sp, h
}

func equalWords(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkMaskBlocks compares maskBlocks and maskBlocksGo with naiveMasks.
func checkMaskBlocks(t *testing.T, src []byte, sep, quote, esc1, esc2 byte) {
	t.Helper()
	ws, wq, wsp, wh := naiveMasks(src, sep, quote, esc1, esc2)
	n := len(src) / 64
	type fn func([]byte, uint64, uint64, uint64, uint64, []uint64, []uint64, []uint64, []uint64)
	for name, f := range map[string]fn{"maskBlocks": maskBlocks, "maskBlocksGo": maskBlocksGo} {
		s, q, sp, h := make([]uint64, n), make([]uint64, n), make([]uint64, n), make([]uint64, n)
		f(src, lows*uint64(sep), lows*uint64(quote), lows*uint64(esc1), lows*uint64(esc2), s, q, sp, h)
		if !equalWords(s, ws) || !equalWords(q, wq) || !equalWords(sp, wsp) || !equalWords(h, wh) {
			t.Fatalf("%s(%q, %q, %q, %q, %q) = %x %x %x %x, want %x %x %x %x", name, src, sep, quote, esc1, esc2, s, q, sp, h, ws, wq, wsp, wh)
		}
	}
}

// TestMaskBlocksRandom: random blocks of the bytes next to the delimiter
// and the quote (where a has-zero-byte test borrows) and of every byte
// value, under every delimiter and quote.
func TestMaskBlocksRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for c := 0; c < 256; c++ {
		sep, quote, esc1, esc2 := byte(c), byte(rng.IntN(256)), byte(rng.IntN(256)), byte(rng.IntN(256))
		near := []byte{sep, sep - 1, sep + 1, sep ^ 1, sep ^ 0x80, quote, quote + 1, quote - 1, esc1, esc2 ^ 1, 0, 0x80, 0xff, 0x7f, '\n', '\r', '\r' + 1}
		for range 20 {
			src := make([]byte, 64*rng.IntN(4))
			for i := range src {
				if rng.IntN(3) == 0 {
					src[i] = byte(rng.IntN(256))
				} else {
					src[i] = near[rng.IntN(len(near))]
				}
			}
			checkMaskBlocks(t, src, sep, quote, esc1, esc2)
		}
	}
}

// FuzzMaskBlocks: the assembly and the Go masks are the bytes'.
func FuzzMaskBlocks(f *testing.F) {
	f.Add([]byte("abc,def,,\"ghijklmnop\",-1,日本,\x00\x01\x2d\x2c\x2b\x80\xff\r\\#"), byte(','), byte('"'), byte('\\'), byte('#'))
	f.Fuzz(func(t *testing.T, src []byte, sep, quote, esc1, esc2 byte) {
		for len(src)%64 != 0 {
			src = append(src, src[len(src)%len(src)]^byte(len(src)))
		}
		checkMaskBlocks(t, src, sep, quote, esc1, esc2)
	})
}

// TestLineMasks: lineMasks of every length of line, whether or not the
// buffer holds whole blocks past it, against the bytes.
func TestLineMasks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 1))
	var m blockMasks
	for n := 0; n <= 300; n++ {
		for _, extra := range []int{0, 1, 63, 64, 200} {
			b := make([]byte, n+extra)
			for i := range b {
				b[i] = ",\"a\xc3\xa9 \x00\r\\"[rng.IntN(9)]
			}
			line := b[:n]
			first, special := m.lineMasks(line, b, ',', '"', [2]uint64{lows * '\\', lows * '\r'})
			wantSpecial := bytes.ContainsAny(line, "\r\\")
			if special != wantSpecial {
				t.Fatalf("line %q: special %v, want %v", line, special, wantSpecial)
			}
			wantFirst := n
			for i := n - 1; i >= 0; i-- {
				if line[i] >= 0x80 {
					wantFirst = i
				}
			}
			if first != wantFirst {
				t.Fatalf("line %q: first non-ASCII %d, want %d", line, first, wantFirst)
			}
			for i := 0; i <= n; i++ {
				ws, wq := n, n
				for j := n - 1; j >= i; j-- {
					if line[j] == ',' {
						ws = j
					}
					if line[j] == '"' {
						wq = j
					}
				}
				if s, q := min(nextBit(m.sep, i), n), min(nextBit(m.quote, i), n); s != ws || q != wq {
					t.Fatalf("line %q from %d: sep %d quote %d, want %d %d", line, i, s, q, ws, wq)
				}
			}
		}
	}
}

// FuzzValidRuns: validRuns is utf8.Valid.
func FuzzValidRuns(f *testing.F) {
	f.Add([]byte("abc日本語 Grüße\xff\xc3"))
	f.Add([]byte("\xe6\x97,\xa5"))
	f.Fuzz(func(t *testing.T, line []byte) {
		var m blockMasks
		m.lineMasks(line, line, ',', '"', [2]uint64{lows * '\r', lows * '\r'})
		if got, want := validRuns(line, m.high), utf8.Valid(line); got != want {
			t.Fatalf("validRuns(%q) = %v, want %v", line, got, want)
		}
	})
}

// TestValidRunsRandom: validRuns is utf8.Valid on random lines of ASCII,
// valid and cut multi-byte sequences and invalid bytes.
func TestValidRunsRandom(t *testing.T) {
	pieces := []string{"a", ", ", "é", "日", "日本語", "\U0001F600", "\xff", "\xc3", "\xe6\x97", "\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf"}
	rng := rand.New(rand.NewPCG(6, 6))
	var m blockMasks
	for range 20000 {
		var b []byte
		for k := rng.IntN(90); k > 0; k-- {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		m.lineMasks(b, b, ',', '"', [2]uint64{lows * '\r', lows * '\r'})
		if got, want := validRuns(b, m.high), utf8.Valid(b); got != want {
			t.Fatalf("validRuns(%q) = %v, want %v", b, got, want)
		}
	}
}
