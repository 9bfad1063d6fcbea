package jsonfast

import (
	"math/rand/v2"
	"testing"
)

// strBytewise is str one byte at a time (no 8-byte steps): the reference
// its steps must agree with.
func strBytewise(b []byte, i int) (end int, esc, ascii, ok bool) {
	i++
	ascii = true
	for i < len(b) {
		switch c := b[i]; {
		case c == '"':
			return i + 1, esc, ascii, true
		case c == '\\':
			esc = true
			if i+1 >= len(b) {
				return i, false, false, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !hex4(b[i+2:i+6]) {
					return i, false, false, false
				}
				i += 6
			default:
				return i, false, false, false
			}
		case c < 0x20:
			return i, false, false, false
		default:
			if c >= 0x80 {
				ascii = false
			}
			i++
		}
	}
	return i, false, false, false
}

func checkStrBytewise(t *testing.T, b []byte) {
	t.Helper()
	if len(b) == 0 || b[0] != '"' {
		return
	}
	end, esc, ascii, ok := str(b, 0)
	wend, wesc, wascii, wok := strBytewise(b, 0)
	if ok != wok || ok && (end != wend || esc != wesc || !esc && ascii != wascii) {
		t.Fatalf("str(%q) = %d %v %v %v, byte by byte %d %v %v %v", b, end, esc, ascii, ok, wend, wesc, wascii, wok)
	}
}

// FuzzStrBytewise checks str's 8-byte steps against strBytewise.
func FuzzStrBytewise(f *testing.F) {
	for _, s := range []string{`"abc"`, `"0123456789abcdef\"x"`, "\"Gr\xc3\xbc\xc3\x9fe quoted \\\"q\\\" end\"", "\"abcdefg\x01\"", "\"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\\n\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkStrBytewise(t, b) })
}

// TestStrBytewise checks str against strBytewise on random strings with a
// quote, backslash, control or non-ASCII byte at every position of an
// 8-byte step.
func TestStrBytewise(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alpha := []byte("ab\"\\\x00\x1f \x7f\x80\xc3\xa9\xffnu0")
	for range 200000 {
		b := make([]byte, 1+r.IntN(40))
		b[0] = '"'
		for j := 1; j < len(b); j++ {
			if r.IntN(4) == 0 {
				b[j] = alpha[r.IntN(len(alpha))]
			} else {
				b[j] = 'a' + byte(r.IntN(26))
			}
		}
		checkStrBytewise(t, b)
	}
}
