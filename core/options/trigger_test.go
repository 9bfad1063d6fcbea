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

func TestLocation(t *testing.T) {
	tests := []struct {
		in   string
		want Location
	}{
		{"s3://bucket/a/b/", Location{"s3", "bucket", "a/b"}},
		{"s3a://bucket/a//b", Location{"s3", "bucket", "a/b"}},
		{"S3://bucket", Location{"s3", "bucket", ""}},
		{"file:///tmp/x/", Location{"file", "", "/tmp/x"}},
		{"file:/tmp/x", Location{"file", "", "/tmp/x"}},
		{"/tmp/x/../y", Location{"file", "", "/tmp/y"}},
	}
	for _, tt := range tests {
		got, err := ParseLocation(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseLocation(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "s3:///x", "gs://b/x", "abfss://c@a/x", "file://relative"} {
		if _, err := ParseLocation(in); err == nil {
			t.Errorf("ParseLocation(%q) accepted", in)
		}
	}
	contains := []struct {
		a, b string
		want bool
	}{
		{"s3://b/t", "s3://b/t/_checkpoints", true},
		{"s3://b/t", "s3://b/t", true},
		{"s3://b/t", "s3://b/tx", false},
		{"s3://b/", "s3://b/anything", true},
		{"s3://b/t", "s3://c/t/x", false},
		{"/data/t", "/data/t/x", true},
		{"/data/t", "s3://data/t/x", false},
		{"/", "/x", true},
	}
	for _, tt := range contains {
		a, _ := ParseLocation(tt.a)
		b, _ := ParseLocation(tt.b)
		if got := a.Contains(b); got != tt.want {
			t.Errorf("%s.Contains(%s) = %v; want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
