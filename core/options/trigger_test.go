package options

import (
	"errors"
	"testing"
	"time"
)

func TestParseTrigger(t *testing.T) {
	tests := []struct {
		in   string
		want Trigger
	}{
		{"availableNow", Trigger{Kind: TriggerAvailableNow}},
		{"AvailableNow=True", Trigger{Kind: TriggerAvailableNow}},
		{"once", Trigger{Kind: TriggerOnce}},
		{"once=true", Trigger{Kind: TriggerOnce}},
		{"processingTime=5 minutes", Trigger{Kind: TriggerProcessingTime, Interval: 5 * time.Minute}},
		{"processingTime='10 seconds'", Trigger{Kind: TriggerProcessingTime, Interval: 10 * time.Second}},
		{"processingTime = interval 1 hour", Trigger{Kind: TriggerProcessingTime, Interval: time.Hour}},
	}
	for _, tt := range tests {
		got, err := ParseTrigger(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseTrigger(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if back, err := ParseTrigger(got.String()); err != nil || back != got {
			t.Errorf("ParseTrigger(%q.String()) = %v, %v", tt.in, back, err)
		}
	}
	for _, in := range []string{"", "now", "availableNow=false", "availableNow=maybe", "processingTime", "processingTime=1 month", "processingTime=-1 second", "processingTime=5"} {
		if _, err := ParseTrigger(in); err == nil {
			t.Errorf("ParseTrigger(%q) accepted", in)
		}
	}
	for _, in := range []string{"realTime=5 minutes", "continuous=1 second"} {
		if _, err := ParseTrigger(in); !errors.Is(err, ErrUnsupportedOption) {
			t.Errorf("ParseTrigger(%q) = %v; want ErrUnsupportedOption", in, err)
		}
	}
}
