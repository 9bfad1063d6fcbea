package csvfmt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
)

// checkISOMicros: what isoMicros reads, fileformat.ParseTimestamp reads
// to the same instant (microseconds).
func checkISOMicros(t *testing.T, s string) bool {
	t.Helper()
	got, ok := isoMicros(s)
	if !ok {
		return false
	}
	want, wok := fileformat.ParseTimestamp(s, false)
	if !wok || want.UnixMicro() != got {
		t.Fatalf("isoMicros(%q) = %d; ParseTimestamp %v (%d), %v", s, got, want, want.UnixMicro(), wok)
	}
	return true
}

// FuzzISOMicros checks the timestamp fast path against ParseTimestamp.
func FuzzISOMicros(f *testing.F) {
	for _, s := range []string{"2024-03-01T00:00:00.037527Z", "2024-02-29T23:59:59Z", "1900-02-29T00:00:00Z", "0000-01-01T00:00:00.123456789Z",
		"9999-12-31T23:59:59.999999Z", "2024-13-01T00:00:00Z", "2024-03-01T24:00:00Z", "2024-03-01 00:00:00Z", "2024-03-01T00:00:00.Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkISOMicros(t, s) })
}

// TestISOMicrosRandom: random timestamps of the common form (any year,
// days past the month's end, hours, minutes and seconds out of range,
// fractions of 0 to 10 digits) read the same both ways, and the fast path
// takes the valid ones.
func TestISOMicrosRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 24))
	taken := 0
	for i := 0; i < 200000; i++ {
		s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", r.IntN(10000), r.IntN(14), r.IntN(33), r.IntN(26), r.IntN(62), r.IntN(62))
		if k := r.IntN(11); k > 0 {
			s += "."
			for ; k > 1; k-- {
				s += string(rune('0' + r.IntN(10)))
			}
		}
		s += "Z"
		if checkISOMicros(t, s) {
			taken++
		} else if _, ok := fileformat.ParseTimestamp(s, false); ok && len(s) >= 22 && s[19] == '.' && len(s) <= 30 {
			t.Fatalf("isoMicros refused %q, which ParseTimestamp reads", s)
		}
	}
	if taken < 50000 {
		t.Fatalf("the fast path took %d of 200000", taken)
	}
	for _, s := range []string{"2024-03-01T00:00:00Z", "2024-03-01T00:00:00.1Z"} {
		if !checkISOMicros(t, s) {
			t.Fatalf("isoMicros refused %q", s)
		}
	}
}

// TestTimestampMicrosOptions: under option sets with and without the
// fast path, timestampMicros and tryTimestamp agree with
// Datetime.ParseTimestamp on random values.
func TestTimestampMicrosOptions(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for _, c := range []struct {
		opts map[string]string
		fast bool
	}{
		{map[string]string{"header": "true"}, true},
		{map[string]string{"timeZone": "UTC"}, true},
		{map[string]string{"timeZone": "America/New_York"}, false},
		{map[string]string{"timestampFormat": "yyyy-MM-dd'T'HH:mm:ss.SSSSSSX"}, false},
		{map[string]string{"dateFormat": "dd/MM/yyyy"}, true},
	} {
		o, err := ParseOptions(c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if o.defaultTimestamps() != c.fast {
			t.Fatalf("options %v: defaultTimestamps %v", c.opts, !c.fast)
		}
		for i := 0; i < 20000; i++ {
			s := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d.%dZ", 1900+r.IntN(200), 1+r.IntN(12), 1+r.IntN(31), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1000000))
			if r.IntN(5) == 0 {
				s = s[:19] + []string{"", "+01:00", " ", "Z "}[r.IntN(4)]
			}
			for _, ntz := range []bool{false, true} {
				got, ok := o.timestampMicros(s, ntz)
				want, wok := o.Datetime.ParseTimestamp(s, ntz)
				if ok != wok || (ok && got != want.UnixMicro()) {
					t.Fatalf("options %v ntz %v: timestampMicros(%q) = %d, %v; ParseTimestamp %v, %v", c.opts, ntz, s, got, ok, want, wok)
				}
			}
			want := o.Datetime.ParseTimestamp
			if _, ok := want(s, false); (o.tryTimestamp(s).k == kTimestamp) != (ok && s == strings.TrimSpace(s)) {
				t.Fatalf("options %v: tryTimestamp(%q) = %v", c.opts, s, o.tryTimestamp(s))
			}
		}
	}
}
