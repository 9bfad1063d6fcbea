package jsonfast

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/tributary-io/tributary/core/formats/jsonfmt/internal/jsonlex"
)

// checkNumber checks jsonlex.Number (the scan the decoder takes numbers
// with) and exactFloat on b: a token Number accepts is a JSON number, and
// exactFloat, when it converts it, gives strconv.ParseFloat's bits.
func checkNumber(t *testing.T, b []byte) {
	t.Helper()
	if len(b) == 0 {
		return
	}
	end, integral, ok := jsonlex.Number(b, 0)
	if !ok {
		return
	}
	raw := b[:end]
	if !json.Valid(raw) {
		t.Fatalf("jsonlex.Number accepted %q, not a JSON number", raw)
	}
	if integral != !bytes.ContainsAny(raw, ".eE") {
		t.Fatalf("jsonlex.Number(%q): integral %v", raw, integral)
	}
	want, _ := strconv.ParseFloat(string(raw), 64)
	if got, ok := exactFloat(raw); ok && math.Float64bits(got) != math.Float64bits(want) {
		t.Fatalf("exactFloat(%q) = %v (%x), strconv %v (%x)", raw, got, math.Float64bits(got), want, math.Float64bits(want))
	}
}

// checkStr checks str on b: a string it accepts is a JSON string, and
// esc and ascii are right.
func checkStr(t *testing.T, b []byte) {
	t.Helper()
	if len(b) == 0 || b[0] != '"' {
		return
	}
	end, esc, ascii, ok := str(b, 0)
	if !ok {
		if json.Valid(b) && bytes.IndexByte(b[1:], '"') == len(b)-2 && utf8.Valid(b) {
			t.Fatalf("str refused %q, a JSON string", b)
		}
		return
	}
	raw := b[:end]
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("str accepted %q: %v", raw, err)
	}
	if esc != bytes.ContainsRune(raw, '\\') {
		t.Fatalf("str(%q): esc %v", raw, esc)
	}
	if hasHigh := bytes.ContainsFunc(raw, func(r rune) bool { return r >= utf8.RuneSelf }); !esc && ascii == hasHigh {
		t.Fatalf("str(%q): ascii %v", raw, ascii)
	}
}

func TestExactFloat(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"0", true}, {"-0", true}, {"-0.0", true}, {"9488.56", true}, {"0.1", true}, {"84.967023", true},
		{"4503599627370495", true}, {"4503599627370496", false}, {"0.0000000000000000000001", true},
		{"0.00000000000000000000001", false}, {"1e5", false}, {"12345678901234567890", false},
	} {
		f, ok := exactFloat([]byte(tc.in))
		if ok != tc.ok {
			t.Errorf("exactFloat(%q): ok %v, want %v", tc.in, ok, tc.ok)
		}
		want, _ := strconv.ParseFloat(tc.in, 64)
		if ok && math.Float64bits(f) != math.Float64bits(want) {
			t.Errorf("exactFloat(%q) = %v, want %v", tc.in, f, want)
		}
	}
	// Every 2-decimal amount and 6-decimal coordinate in a range.
	for m := int64(-300000); m <= 300000; m += 7 {
		checkNumber(t, []byte(strconv.FormatFloat(float64(m)/100, 'f', 2, 64)))
		checkNumber(t, []byte(strconv.FormatFloat(float64(m)/1e6, 'f', 6, 64)))
	}
}

func TestStr(t *testing.T) {
	for _, tc := range []struct {
		in         string
		end        int
		esc, ascii bool
		ok         bool
	}{
		{`"abc"`, 5, false, true, true},
		{`""`, 2, false, true, true},
		{`"0123456789abcdefghij":1`, 22, false, true, true},
		{`"Grüße"`, 9, false, false, true},
		{`"a\"b\\c\/\b\f\n\r\t\u00e9"`, 27, true, false, true},
		{`"unterminated`, 0, false, false, false},
		{`"bad \q escape"`, 0, false, false, false},
		{`"bad \u12 escape"`, 0, false, false, false},
		{"\"tab\tinside\"", 0, false, false, false},
		{"\"long string with a tab\tafter eight bytes\"", 0, false, false, false},
		{`"ends in backslash\`, 0, false, false, false},
	} {
		end, esc, ascii, ok := str([]byte(tc.in), 0)
		if ok != tc.ok || ok && (end != tc.end || esc != tc.esc || ascii != tc.ascii && !esc) {
			t.Errorf("str(%q) = %d, %v, %v, %v; want %d, %v, %v, %v", tc.in, end, esc, ascii, ok, tc.end, tc.esc, tc.ascii, tc.ok)
		}
	}
}

// FuzzScan checks the scanners on fuzzed tokens against encoding/json and
// strconv.
func FuzzScan(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\u00e9\n"`, "\"Gr\xc3\xbc\xc3\x9fe\"", `-12.5e3`, `9488.56`, `0.1`, `4503599627370497`, `"\ud83d\ude00"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkNumber(t, b)
		checkStr(t, b)
	})
}
