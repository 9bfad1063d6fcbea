package tableopts

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestFormatDeltaInterval(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                       "interval 0 days",
		7 * 24 * time.Hour:      "interval 7 days",
		90 * time.Minute:        "interval 90 minutes",
		1500 * time.Millisecond: "interval 1500 milliseconds",
	} {
		if got := FormatDeltaInterval(d); got != want {
			t.Errorf("%v: %q, want %q", d, got, want)
		}
	}
}

func FuzzSplitStatsColumns(f *testing.F) {
	for _, s := range []string{"a", "a, b.c", "`a,b`.c", "`", ",", "a,,b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cols, err := SplitStatsColumns(s)
		if err != nil {
			return
		}
		if len(cols) == 0 {
			t.Fatalf("%q: no columns and no error", s)
		}
		for _, c := range cols {
			if strings.TrimSpace(c) == "" || len(StatsColumnPath(c)) == 0 {
				t.Fatalf("%q: empty column %q", s, c)
			}
		}
		if again, err := SplitStatsColumns(strings.Join(cols, ",")); err != nil || fmt.Sprint(again) != fmt.Sprint(cols) {
			t.Fatalf("%q: %q does not split back (%q, %v)", s, cols, again, err)
		}
	})
}
