package csvfmt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

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
			if _, ok := want(s, false); (o.tryTimestamp(s).K == kTimestamp) != (ok && s == strings.TrimSpace(s)) {
				t.Fatalf("options %v: tryTimestamp(%q) = %v", c.opts, s, o.tryTimestamp(s))
			}
		}
	}
}
