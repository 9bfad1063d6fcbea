package csvtok

import (
	"bytes"
	"testing"
)

// FuzzSepFrom: the word-at-a-time search finds what bytes.IndexByte finds.
func FuzzSepFrom(f *testing.F) {
	f.Add([]byte("abc,def,,ghijklmnop,"), 3, byte(','))
	f.Add([]byte("\x00\x01,\xff\x80\x2b\x2d\x2c"), 0, byte(','))
	f.Add([]byte("0123456789abcdef\t"), 1, byte('\t'))
	f.Fuzz(func(t *testing.T, line []byte, from int, c byte) {
		if from < 0 || from > len(line) {
			return
		}
		want := len(line)
		if i := bytes.IndexByte(line[from:], c); i >= 0 {
			want = from + i
		}
		if got := sepFrom(line, from, c); got != want {
			t.Fatalf("sepFrom(%q, %d, %q) = %d, want %d", line, from, c, got, want)
		}
	})
}

// TestSepFromEveryPlace: every byte value at every place of a word (and
// after bytes one below it, where the has-zero-byte trick borrows).
func TestSepFromEveryPlace(t *testing.T) {
	for c := 0; c < 256; c++ {
		for n := 0; n <= 20; n++ {
			for at := 0; at <= n; at++ {
				line := make([]byte, n)
				for i := range line {
					line[i] = byte(c + 1 + i%3)
					if i%2 == 0 {
						line[i] = byte(c - 1)
					}
				}
				want := n
				if at < n {
					line[at], want = byte(c), at
				}
				if got := sepFrom(line, 0, byte(c)); got != want {
					t.Fatalf("sepFrom(%q, 0, %q) = %d, want %d", line, byte(c), got, want)
				}
			}
		}
	}
}
