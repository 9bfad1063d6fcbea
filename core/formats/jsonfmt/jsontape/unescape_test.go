package jsontape

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// unescapeRef is AppendUnescaped as it was before it copied valid runs in
// bulk: byte by byte, rune by rune.
func unescapeRef(out, s []byte) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			if c < utf8.RuneSelf {
				out = append(out, c)
				i++
				continue
			}
			r, size := utf8.DecodeRune(s[i:])
			out = utf8.AppendRune(out, r)
			i += size
			continue
		}
		switch s[i+1] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(s[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					r2 = hex4(s[i+2 : i+6])
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					i += 6
					r = dec
				} else {
					r = utf8.RuneError
				}
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			if s[i+1] >= utf8.RuneSelf {
				i++
				continue
			}
			out = append(out, s[i+1])
		}
		i += 2
	}
	return out
}

// escapable cuts data into the inside of a string AppendUnescaped
// accepts: every backslash starts a whole escape (a \u escape takes the
// next 4 bytes as hex digits, a backslash at the end is dropped).
func escapable(data []byte) []byte {
	var s []byte
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c != '\\' {
			s = append(s, c)
			continue
		}
		if i+1 >= len(data) {
			break
		}
		i++
		switch e := data[i]; {
		case e == 'u':
			h := []byte("0123456789abcdefABCDEF")
			s = append(s, '\\', 'u')
			for k := range 4 {
				v := byte(0)
				if i+1+k < len(data) {
					v = data[i+1+k]
				}
				s = append(s, h[int(v)%len(h)])
			}
			i += 4
		default:
			s = append(s, '\\', e)
		}
	}
	return s
}

func checkUnescape(t *testing.T, s []byte) {
	t.Helper()
	want := unescapeRef([]byte("pre"), s)
	if got := AppendUnescaped([]byte("pre"), s); !bytes.Equal(got, want) {
		t.Fatalf("AppendUnescaped(%q) = %q, byte by byte %q", s, got, want)
	}
	var tp Tape
	for range 3 { // into fresh and partly filled arena blocks
		if got := tp.KeepUnescaped(s); got != string(want[3:]) {
			t.Fatalf("KeepUnescaped(%q) = %q, want %q", s, got, want[3:])
		}
	}
}

// FuzzUnescape checks AppendUnescaped against the byte-by-byte decoder
// and KeepUnescaped against AppendUnescaped on any escaped text.
func FuzzUnescape(f *testing.F) {
	for _, s := range []string{"", `a\"b`, `\ud83d\ude00x`, `\ud83dx\u00e9`, "Gr\xc3\xbc\xc3\x9fe \\\"q\\\"", "\xff\\n\xed\xa0\x80\\/", `\\`, "\\\xc3\xa9z", "a\xe2\x82\\tb"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkUnescape(t, escapable(data)) })
}

// TestUnescapeRandom checks AppendUnescaped and KeepUnescaped on random
// texts of ASCII, multi-byte, invalid bytes and escapes, of every length
// up to past the arena's limit.
func TestUnescapeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	parts := []string{"a", "xyz", "é", "✓", "😀", "\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80", `\"`, `\\`, `\n`, `\/`, `\u00e9`, `\ud83d\ude00`, `\ud83d`, `\ude00`, `\u0000`, "\\\xc3\xa9"}
	for range 5000 {
		var s []byte
		for n := r.IntN(40); n > 0; n-- {
			s = append(s, parts[r.IntN(len(parts))]...)
		}
		if r.IntN(20) == 0 {
			s = bytes.Repeat(s, 40) // past arenaMaxString
		}
		checkUnescape(t, s)
	}
}
