package jsonlex

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsontape"
)

// TestScanWords checks the 8-byte scans against a byte at a time.
func TestScanWords(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte("0123456789/:.eE+-\"\\ \x00\x1f\x7f\x80\xff\xc3\xa9ab")
	for range 20000 {
		b := make([]byte, r.IntN(20))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		i := r.IntN(len(b) + 1)
		want := i
		for want < len(b) && b[want] >= '0' && b[want] <= '9' {
			want++
		}
		if got := Digits(b, i); got != want {
			t.Fatalf("Digits(%q, %d) = %d, want %d", b, i, got, want)
		}
		if len(b) >= 8 {
			want := 8
			for j, c := range b[:8] {
				if c == '"' || c == '\\' || c < 0x20 {
					want = j
					break
				}
			}
			got := 8
			if m := Special8(binary.LittleEndian.Uint64(b)); m != 0 {
				got = bits.TrailingZeros64(m) >> 3
			}
			if got != want {
				t.Fatalf("Special8(%q): first at %d, want %d", b[:8], got, want)
			}
		}
	}
}

// TestNumber checks Number on the edges of RFC 8259's number grammar.
func TestNumber(t *testing.T) {
	for _, tc := range []struct {
		in       string
		end      int
		integral bool
		ok       bool
	}{
		{"0", 1, true, true},
		{"-0", 2, true, true},
		{"12,", 2, true, true},
		{"-1.5}", 4, false, true},
		{"1e5]", 3, false, true},
		{"1E+05", 5, false, true},
		{"2.5e-3", 6, false, true},
		{"007", 1, false, false}, // a leading zero
		{"-", 1, false, false},
		{"1.", 2, false, false},
		{"1e", 2, false, false},
		{"1e+", 3, false, false},
		{".5", 0, false, false},
		{"-Infinity", 1, false, false},
		{"+1", 0, false, false},
	} {
		end, integral, ok := Number([]byte(tc.in), 0)
		if ok != tc.ok || ok && (end != tc.end || integral != tc.integral) {
			t.Errorf("Number(%q) = %d, %v, %v; want %d, %v, %v", tc.in, end, integral, ok, tc.end, tc.integral, tc.ok)
		}
	}
}

// TestScanFastPaths checks the scanner's word-at-a-time shortcuts against
// the plain ones on random bytes: QuoteAt against String, the quoted
// name words of KeyWords against a string comparison, Load64 against
// encoding/binary.
func TestScanFastPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []byte("ab\"\\ \x00\x1f\x7f\x80\xff\xc3\xa9:,nu")
	for range 50000 {
		b := make([]byte, 1+r.IntN(24))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		checkFastPaths(t, b, string(b[1:1+r.IntN(len(b))]))
	}
}

// FuzzScanFastPaths is TestScanFastPaths on arbitrary bytes and names.
func FuzzScanFastPaths(f *testing.F) {
	f.Add([]byte(`"event_id":"x"`), "event_id")
	f.Add([]byte(`"ab\"c":1`), `ab"c`)
	f.Add([]byte(`"abcdefghijklmn":1`), "abcdefghijklmn")
	f.Add([]byte("\"a\x01b\""), "a")
	f.Fuzz(func(t *testing.T, b []byte, name string) {
		if len(b) == 0 {
			return
		}
		checkFastPaths(t, b, name)
	})
}

// checkFastPaths checks QuoteAt, KeyWords and Load64 on the string or
// name at b[0] (made a quote).
func checkFastPaths(t *testing.T, b []byte, name string) {
	t.Helper()
	b = bytes.Clone(b)
	b[0] = '"'
	if len(b) >= 9 {
		q, plain := QuoteAt(Load64(b, 1))
		end, esc, ok := String(b, 0)
		switch {
		case q >= 0:
			if !ok || esc || end != q+2 || plain {
				t.Fatalf("QuoteAt(%q) = %d, %v; String: end %d esc %v ok %v", b, q, plain, end, esc, ok)
			}
		case ok && !esc && end <= 9:
			t.Fatalf("QuoteAt(%q) missed the string ending at %d", b, end)
		case plain:
			if bytes.ContainsAny(b[1:9], "\\\"") || bytes.ContainsFunc(b[1:9], func(r rune) bool { return r < 0x20 }) {
				t.Fatalf("QuoteAt(%q): plain, but a byte is special", b)
			}
			if end2, esc2, ok2 := StringRest(b, 9); end2 != end || esc2 != esc || ok2 != ok {
				t.Fatalf("StringRest(%q, 9) = %d %v %v, String %d %v %v", b, end2, esc2, ok2, end, esc, ok)
			}
		}
	}
	for i := 0; i+8 <= len(b); i++ {
		if got, want := Load64(b, i), binary.LittleEndian.Uint64(b[i:]); got != want {
			t.Fatalf("Load64(%q, %d) = %#x, want %#x", b, i, got, want)
		}
	}
	if !jsontape.RawName(name) {
		return
	}
	k0, k1, m0, m1 := KeyWords(name)
	if m0 == 0 {
		if name != "" && len(name) <= 14 {
			t.Fatalf("KeyWords(%q): no words", name)
		}
		return
	}
	if len(b) < 16 {
		b = append(b, make([]byte, 16-len(b))...)
	}
	same := (Load64(b, 0)&m0^k0)|(Load64(b, 8)&m1^k1) == 0
	want := len(b) >= len(name)+2 && string(b[1:1+len(name)]) == name && b[1+len(name)] == '"'
	if same != want {
		t.Fatalf("KeyWords(%q) on %q: match %v, want %v", name, b, same, want)
	}
}
