package jsonfast

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/tributary-io/tributary/core/formats/jsonfmt/internal/jsonlex"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsonnum"
)

// The references numberDigits is checked against: the conversions the
// decoder made after number before it read the digits in the same pass.

// exactFloat converts a standard JSON number token without an exponent
// whose digits, read as an integer m, are below 2^52 and which has at most
// 22 digits after the point: m and 10^k are then exact float64s, and one
// IEEE division rounds m/10^k correctly, which is strconv.ParseFloat's
// result (its own exact path, under the same bounds). ok is false for any
// other token.
func exactFloat(raw []byte) (float64, bool) {
	i, neg := 0, raw[0] == '-'
	if neg {
		i++
	}
	var m uint64
	frac, dot := 0, false
	for ; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c >= '0' && c <= '9':
			m = m*10 + uint64(c-'0')
			if m >= 1<<52 {
				return 0, false
			}
			if dot {
				frac++
			}
		case c == '.':
			dot = true
		default:
			return 0, false // an exponent
		}
	}
	if frac >= len(pow10) {
		return 0, false
	}
	f := float64(m) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// checkDigits checks numberDigits on b against jsonlex.Number, and the values the
// decoder takes from it against parseLong and exactFloat.
func checkDigits(t *testing.T, b []byte) {
	t.Helper()
	if len(b) == 0 || !(b[0] == '-' || b[0] >= '0' && b[0] <= '9') {
		return
	}
	end, integral, ok := jsonlex.Number(b, 0)
	dend, nm, dok := numberDigits(b, 0)
	if z := bytes.TrimPrefix(b, []byte("-")); len(z) > 1 && z[0] == '0' && z[1] >= '0' && z[1] <= '9' {
		// A leading zero: Number refuses it; numberDigits takes the "0"
		// and leaves the digit after it to its caller, which refuses it.
		if ok || !dok || dend != len(b)-len(z)+1 {
			t.Fatalf("numberDigits(%q) = %d %v, jsonlex.Number %v: want the 0 taken alone and the number refused", b, dend, dok, ok)
		}
		return
	}
	if ok != dok || ok && (end != dend || integral != (nm.frac == 0 && !nm.exp)) {
		t.Fatalf("numberDigits(%q) = %d %+v %v, jsonlex.Number %d %v %v", b, dend, nm, dok, end, integral, ok)
	}
	if !ok {
		return
	}
	raw := b[:end]
	want, wok := jsonnum.ParseLong(raw)
	gok := integral && nm.digits <= 18
	if gok != (integral && wok) {
		t.Fatalf("numberDigits(%q): a long %v, jsonnum.ParseLong %v", raw, gok, wok)
	}
	if got := int64(nm.m); gok {
		if b[0] == '-' {
			got = -got
		}
		if got != want {
			t.Fatalf("numberDigits(%q) = %d, parseLong %d", raw, got, want)
		}
	}
	wf, fok := exactFloat(raw)
	exact := !nm.exp && nm.m < 1<<52 && nm.frac < len(pow10)
	if exact != fok {
		t.Fatalf("numberDigits(%q): exact %v, exactFloat %v", raw, exact, fok)
	}
	if exact {
		f := float64(nm.m) / pow10[nm.frac]
		if b[0] == '-' {
			f = -f
		}
		if math.Float64bits(f) != math.Float64bits(wf) {
			t.Fatalf("numberDigits(%q) gives %v, exactFloat %v", raw, f, wf)
		}
	}
}

// FuzzNumberDigits checks numberDigits against number, parseLong and
// exactFloat on any input.
func FuzzNumberDigits(f *testing.F) {
	for _, s := range []string{"0", "-0", "-0.0", "9488.56", "1e5", "-12.5E+3", "4503599627370495", "4503599627370496", "0.0000000000000000000001", "0.00000000000000000000001", "999999999999999999", "1000000000000000000", "-999999999999999999", "18446744073709551616", "12345678901234567890123.5", "1.", "-", "01"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkDigits(t, b) })
}

// TestNumberDigitsRandom checks numberDigits on random numbers around the
// bounds: 1 to 25 digits, fractions, exponents, signs, leading zeros.
func TestNumberDigitsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	digits := func(n int) string {
		var b bytes.Buffer
		for range n {
			b.WriteByte('0' + byte(r.IntN(10)))
		}
		return b.String()
	}
	for range 200000 {
		s := ""
		if r.IntN(2) == 0 {
			s = "-"
		}
		if r.IntN(8) == 0 {
			s += "0"
		} else {
			s += strconv.Itoa(1+r.IntN(9)) + digits(r.IntN(25))
		}
		if r.IntN(2) == 0 {
			s += "." + digits(r.IntN(25))
		}
		if r.IntN(6) == 0 {
			s += "e" + []string{"", "+", "-"}[r.IntN(3)] + digits(r.IntN(3))
		}
		checkDigits(t, []byte(s+[]string{"", ",", "}", "x"}[r.IntN(4)]))
	}
}
