package trigger

import "testing"

func FuzzParse(f *testing.F) {
	for _, s := range []string{"availableNow", "once", "processingTime=5 minutes", "realTime=1 minute", "processingTime="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tr, err := Parse(s)
		if err != nil {
			return
		}
		if back, err := Parse(tr.String()); err != nil || back != tr {
			t.Fatalf("Parse(%q) = %v; String round trip = %v, %v", s, tr, back, err)
		}
	})
}
