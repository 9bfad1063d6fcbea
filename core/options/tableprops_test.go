package options

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestTableProperties(t *testing.T) {
	tests := []struct {
		opt, value, want string // want "" means refused
	}{
		{"delta.enableTypeWidening", "TRUE", "true"},
		{"DELTA.ENABLETYPEWIDENING", "false", "false"},
		{"delta.enableTypeWidening", "yes", ""},
		{"delta.checkpointInterval", "5", "5"},
		{"delta.checkpointInterval", "0", ""},
		{"delta.appendOnly", "true", "true"},
		{"delta.logRetentionDuration", "interval 30 days", "interval 30 days"},
		{"delta.logRetentionDuration", "2 weeks", "interval 14 days"},
		{"delta.deletedFileRetentionDuration", "36 hours", "interval 36 hours"},
		{"delta.deletedFileRetentionDuration", "interval 1 month", ""},
		{"delta.deletedFileRetentionDuration", "-1 days", ""},
		{"delta.dataSkippingNumIndexedCols", "-1", "-1"},
		{"delta.dataSkippingNumIndexedCols", "-2", ""},
		{"delta.dataSkippingStatsColumns", " a , b.c ", "a,b.c"},
		{"delta.dataSkippingStatsColumns", "a,,b", ""},
		{"delta.enableChangeDataFeed", "true", ""},
		{"delta.columnMapping.mode", "name", ""},
	}
	for _, tc := range tests {
		t.Run(tc.opt+"="+tc.value, func(t *testing.T) {
			s, err := Parse(map[string]string{"cloudFiles.format": "json", tc.opt: tc.value},
				Locations{StreamID: "s", Source: "/in", Table: "/t", CheckpointLocation: "/cp", SchemaLocation: "/cp"})
			if tc.want == "" {
				if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.opt)) {
					t.Fatalf("err %v, want one naming %s", err, tc.opt)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got string
			for k, v := range s.Sink.TableProperties {
				if strings.EqualFold(k, tc.opt) {
					got = k + "=" + v
				}
			}
			if want := registry()[strings.ToLower(tc.opt)].name + "=" + tc.want; got != want {
				t.Errorf("table property %q, want %q", got, want)
			}
		})
	}
}

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
