package sparkvalue

import (
	"strings"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"1 day", Day},
		{"14 days", 14 * Day},
		{"2 hours", 2 * time.Hour},
		{"30 minutes", 30 * time.Minute},
		{"interval 1 week", Week},
		{"INTERVAL 2 Weeks", 2 * Week},
		{"1 day 2 hours 30 minutes", Day + 2*time.Hour + 30*time.Minute},
		{"  10   seconds ", 10 * time.Second},
		{"1.5 seconds", 1500 * time.Millisecond},
		{"0.000000001 seconds", time.Nanosecond},
		{"250 milliseconds", 250 * time.Millisecond},
		{"7 microseconds", 7 * time.Microsecond},
		{"1 month", 31 * Day},
		{"1 year", 372 * Day},
		{"-1 day", -Day},
		{"+3 days", 3 * Day},
		{"1 day -1 hour", 23 * time.Hour},
		{"0 seconds", 0},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseDurationErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "want"},
		{"interval", "want"},
		{"14", "no unit"},
		{"days", "no unit"},
		{"14 fortnights", "unknown unit"},
		{"1.5 days", "only seconds"},
		{"x days", "not a number"},
		{"1.0000000001 seconds", "9 fractional"},
		{"106752 days", "out of range"},
		{"106751 days 106751 days", "out of range"},
		{"10s", "no unit"},
		{"- days", "not a number"},
	}
	for _, tt := range tests {
		_, err := ParseDuration(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseDuration(%q) error = %v; want it to contain %q", tt.in, err, tt.want)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		in   time.Duration
		want string
	}{
		{0, "0 seconds"},
		{14 * Day, "14 days"},
		{Day, "1 day"},
		{Day + 2*time.Hour, "1 day 2 hours"},
		{90 * time.Minute, "1 hour 30 minutes"},
		{time.Second, "1 second"},
		{1500 * time.Millisecond, "1.5 seconds"},
		{-Day, "-1 day"},
	}
	for _, tt := range tests {
		if got := FormatDuration(tt.in); got != tt.want {
			t.Errorf("FormatDuration(%v) = %q; want %q", tt.in, got, tt.want)
		}
		if back, err := ParseDuration(FormatDuration(tt.in)); err != nil || back != tt.in {
			t.Errorf("ParseDuration(FormatDuration(%v)) = %v, %v", tt.in, back, err)
		}
	}
}

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"1024", 1024},
		{"0", 0},
		{"10k", 10 << 10},
		{"10kb", 10 << 10},
		{"512m", 512 << 20},
		{"512MB", 512 << 20},
		{"1g", 1 << 30},
		{"1gb", 1 << 30},
		{"10G", 10 << 30},
		{"2t", 2 << 40},
		{"1p", 1 << 50},
		{"100b", 100},
		{" 7m ", 7 << 20},
	}
	for _, tt := range tests {
		got, err := ParseBytes(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for in, want := range map[string]string{
		"":                     "want a number",
		"g":                    "want a number",
		"1.5g":                 "fractional",
		"10 g":                 "unknown unit",
		"10x":                  "unknown unit",
		"-1g":                  "want a number",
		"9999999999999999999":  "out of range",
		"8388608t":             "out of range",
		"10gib":                "unknown unit",
		"99999999999999999999": "out of range",
	} {
		if _, err := ParseBytes(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseBytes(%q) error = %v; want %q", in, err, want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 1: "1", 1536: "1536", 10 << 30: "10g", 50 << 30: "50g", 512 << 20: "512m", 3 << 10: "3k", 1 << 50: "1p"} {
		if got := FormatBytes(in); got != want {
			t.Errorf("FormatBytes(%d) = %q; want %q", in, got, want)
		}
	}
}

func TestParseBool(t *testing.T) {
	for in, want := range map[string]bool{"true": true, "TRUE": true, " True ": true, "false": false, "FaLsE": false} {
		if got, err := ParseBool(in); err != nil || got != want {
			t.Errorf("ParseBool(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "1", "yes", "t", "on"} {
		if _, err := ParseBool(in); err == nil {
			t.Errorf("ParseBool(%q) accepted", in)
		}
	}
}

func TestParsePositiveInt(t *testing.T) {
	if n, err := ParsePositiveInt(" 500 "); err != nil || n != 500 {
		t.Errorf("ParsePositiveInt(500) = %d, %v", n, err)
	}
	for _, in := range []string{"0", "-1", "1.5", "", "abc", "99999999999"} {
		if _, err := ParsePositiveInt(in); err == nil {
			t.Errorf("ParsePositiveInt(%q) accepted", in)
		}
	}
}
