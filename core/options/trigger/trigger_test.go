package trigger

import (
	"errors"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/options/opterr"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Trigger
	}{
		{"availableNow", Trigger{Kind: AvailableNow}},
		{"AvailableNow=True", Trigger{Kind: AvailableNow}},
		{"once", Trigger{Kind: Once}},
		{"once=true", Trigger{Kind: Once}},
		{"processingTime=5 minutes", Trigger{Kind: ProcessingTime, Interval: 5 * time.Minute}},
		{"processingTime='10 seconds'", Trigger{Kind: ProcessingTime, Interval: 10 * time.Second}},
		{"processingTime = interval 1 hour", Trigger{Kind: ProcessingTime, Interval: time.Hour}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if back, err := Parse(got.String()); err != nil || back != got {
			t.Errorf("Parse(%q.String()) = %v, %v", tt.in, back, err)
		}
	}
	for _, in := range []string{"", "now", "availableNow=false", "availableNow=maybe", "processingTime", "processingTime=1 month", "processingTime=-1 second", "processingTime=5"} {
		if _, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) accepted", in)
		}
	}
	for _, in := range []string{"realTime=5 minutes", "continuous=1 second"} {
		if _, err := Parse(in); !errors.Is(err, opterr.ErrUnsupportedOption) {
			t.Errorf("Parse(%q) = %v; want opterr.ErrUnsupportedOption", in, err)
		}
	}
}
