package csvpar

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// sharedText maps windows of a text as fileformat.SharedMapper does,
// counting the windows mapped and not unmapped yet.
type sharedText struct {
	t      *testing.T
	text   []byte
	mapped int
}

func (s *sharedText) mapShared(off int64, n int) ([]byte, func(), error) {
	end := int64(len(s.text))
	lo, hi := min(off, end), min(off+int64(n), end)
	if lo == hi {
		return nil, func() {}, nil
	}
	s.mapped++
	unmapped := false
	return s.text[lo:hi:hi], func() {
		if unmapped {
			s.t.Fatal("window unmapped twice")
		}
		unmapped = true
		s.mapped--
	}, nil
}

// checkInPlace cuts text with a Cutter (whole reads) and with an InPlace
// mapping windows of window bytes, and fails unless the blocks, last and
// stop agree, a stop's Offset is where Cutter's rest starts, and every
// window is unmapped once the blocks are released.
func checkInPlace(t *testing.T, text []byte, size, window int) {
	t.Helper()
	cut := NewCutter(bytes.NewReader(text), size)
	st := &sharedText{t: t, text: text}
	ip := NewInPlace(st.mapShared, 0, size)
	ip.window = max(window, 8*size)
	var releases []func()
	read := 0
	for n := 0; ; n++ {
		want, wlast, wstop, werr := cut.Next(nil)
		got, release, glast, gstop, gerr := ip.Next()
		if werr != nil || gerr != nil {
			t.Fatalf("block %d: errors %v, %v", n, werr, gerr)
		}
		if gstop != wstop {
			t.Fatalf("block %d: stop %v, Cutter's %v", n, gstop, wstop)
		}
		if wstop {
			rest, _ := io.ReadAll(cut.Rest(want, nil))
			if off := ip.Offset(); !bytes.Equal(text[off:], rest) {
				t.Fatalf("block %d: stopped at %d, Cutter's rest starts at %d", n, off, len(text)-len(rest))
			}
			break
		}
		if !bytes.Equal(got, want) || glast != wlast {
			t.Fatalf("block %d: %d bytes (last %v), Cutter's %d (last %v)", n, len(got), glast, len(want), wlast)
		}
		read += len(got)
		releases = append(releases, release)
		if wlast {
			break
		}
	}
	ip.Close()
	for _, r := range releases {
		r()
		r() // a second call does nothing
	}
	if st.mapped != 0 {
		t.Fatalf("%d windows left mapped", st.mapped)
	}
}

// randText is lines of random lengths (a few long ones), with "\r" and
// "\r\n" ends at random, ending with a line end or not.
func randText(r *rand.Rand, n, size int) []byte {
	var b []byte
	for len(b) < n {
		l := r.IntN(size)
		switch r.IntN(20) {
		case 0:
			l = size + r.IntN(9*size) // longer than a block, or than 8
		case 1:
			l = 0
		}
		for range l {
			b = append(b, 'a'+byte(r.IntN(26)))
		}
		switch r.IntN(10) {
		case 0:
			b = append(b, '\r')
		case 1:
			b = append(b, '\r', '\n')
		default:
			b = append(b, '\n')
		}
	}
	if r.IntN(2) == 0 && len(b) > 0 {
		b = b[:len(b)-1]
	}
	return b
}

// TestInPlaceMatchesCutter: the blocks cut in place are Cutter's.
func TestInPlaceMatchesCutter(t *testing.T) {
	for _, tc := range []struct {
		name         string
		text         string
		size, window int
	}{
		{"empty", "", 4, 0},
		{"one line", "abc\n", 4, 0},
		{"exactly a block", "abc\n", 4, 32},
		{"exactly a block, no end", "abcd", 4, 32},
		{"lines ending at the block's end", "ab\ncd\nef\n", 3, 24},
		{"no line end within 8 blocks", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nb\n", 4, 32},
		{"exactly 8 blocks, no line end", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 4, 32},
		{"a long line, then short ones", "aaaaaaaaaaaaa\nb\nc\nd\ne\n", 4, 32},
		{"windows of 8 blocks", "ab\ncd\nef\ngh\nij\nkl\nmn\nop\nqr\nst\nuv\nwx\nyz\n", 4, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkInPlace(t, []byte(tc.text), tc.size, tc.window)
		})
	}
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 3))
		size := 1 + r.IntN(64)
		text := randText(r, r.IntN(40*size), size)
		window := 8*size + r.IntN(8*size)
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			checkInPlace(t, text, size, window)
		})
	}
}

// FuzzInPlace checks InPlace against Cutter on any text, block size and
// window.
func FuzzInPlace(f *testing.F) {
	f.Add([]byte("a,b\nc,d\n"), uint8(3), uint16(0))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nb\r\nc\r"), uint8(4), uint16(40))
	f.Fuzz(func(t *testing.T, text []byte, size uint8, window uint16) {
		checkInPlace(t, text, 1+int(size%64), int(window))
	})
}

// TestDecoded: a block decoded without an error (or with io.EOF) gives
// its window back at once; one that failed keeps it for Done.
func TestDecoded(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		released bool
	}{
		{"no error", nil, true},
		{"end of the text", io.EOF, true},
		{"wrapped end", fmt.Errorf("chunk: %w", io.EOF), true},
		{"failed", io.ErrUnexpectedEOF, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			released := false
			rest := Decoded(func() { released = true }, tc.err)
			if released != tc.released || (rest == nil) != tc.released {
				t.Fatalf("released %v, release returned %v; want released %v", released, rest != nil, tc.released)
			}
			if Decoded(nil, tc.err) != nil {
				t.Fatal("a copied block got a release")
			}
		})
	}
}
