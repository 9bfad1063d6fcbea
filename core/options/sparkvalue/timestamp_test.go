package sparkvalue

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseTimestamp(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	tests := []struct {
		in   string
		want time.Time
	}{
		// Spark's documented form (YYYY-MM-DDTHH:mm:ss) is in the session time zone: UTC.
		{"2020-06-01T13:00:00", utc(2020, 6, 1, 13, 0, 0, 0)},
		{"2020-06-01 13:00:00", utc(2020, 6, 1, 13, 0, 0, 0)},
		{"  2020-06-01T13:00:00\t", utc(2020, 6, 1, 13, 0, 0, 0)},
		{"2019-01-01T00:00:00.000Z", utc(2019, 1, 1, 0, 0, 0, 0)},
		{"2019-01-01", utc(2019, 1, 1, 0, 0, 0, 0)},
		{"2019-01", utc(2019, 1, 1, 0, 0, 0, 0)},
		{"2019", utc(2019, 1, 1, 0, 0, 0, 0)},
		{"2019-1-2 3:4:5", utc(2019, 1, 2, 3, 4, 5, 0)},
		{"2019-01-01 12:30", utc(2019, 1, 1, 12, 30, 0, 0)},
		{"2019-01-01 12", utc(2019, 1, 1, 12, 0, 0, 0)},
		{"2019-01-01T12:30:00.5", utc(2019, 1, 1, 12, 30, 0, 5e8)},
		{"2019-01-01T12:30:00.123456789", utc(2019, 1, 1, 12, 30, 0, 123456000)},
		{"2019-01-01T12:30:00.", utc(2019, 1, 1, 12, 30, 0, 0)},
		// Explicit zones.
		{"2019-01-01T09:00:00+09:00", utc(2019, 1, 1, 0, 0, 0, 0)},
		{"2019-01-01T09:00:00+0900", utc(2019, 1, 1, 0, 0, 0, 0)},
		{"2019-01-01T09:00:00+09", utc(2019, 1, 1, 0, 0, 0, 0)},
		{"2019-01-01T09:00:00+9", utc(2019, 1, 1, 0, 0, 0, 0)},
		{"2019-01-01T09:00:00+9:00", utc(2019, 1, 1, 0, 0, 0, 0)},
		{"2019-01-01T00:00:00-01:30:15", utc(2019, 1, 1, 1, 30, 15, 0)},
		{"2019-01-01T00:00:00-013015", utc(2019, 1, 1, 1, 30, 15, 0)},
		{"2021-01-01 00:00:00.000000 UTC+0", utc(2021, 1, 1, 0, 0, 0, 0)}, // the Databricks docs' example
		{"2021-01-01 01:00:00 GMT+1", utc(2021, 1, 1, 0, 0, 0, 0)},
		{"2021-01-01 00:00:00UT-02:00", utc(2021, 1, 1, 2, 0, 0, 0)},
		{"2021-01-01 00:00:00 UTC", utc(2021, 1, 1, 0, 0, 0, 0)},
		{"2021-01-01 00:00:00Z", utc(2021, 1, 1, 0, 0, 0, 0)},
		{"2021-07-01 02:00:00 Europe/Paris", utc(2021, 7, 1, 0, 0, 0, 0)},
		{"2021-01-01 09:00:00 JST", utc(2021, 1, 1, 0, 0, 0, 0)},
		{"2021-01-01 00:00:00 EST", utc(2021, 1, 1, 5, 0, 0, 0)},
		{"+2021-01-01", utc(2021, 1, 1, 0, 0, 0, 0)},
	}
	for _, tt := range tests {
		got, err := ParseTimestamp(tt.in)
		if err != nil || !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("ParseTimestamp(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{
		"", "  ", "2019-13-01", "2019-02-30", "2019-01-32", "yesterday", "2019/01/01", "1546300800",
		"19-01-01", "2019-001-01", "2019-01-01T", "2019-01-01T25:00:00", "2019-01-01T12:60:00",
		"2019-01-01T12:00:61", "2019-01T12:00:00", "2019 12:00:00", "12:00:00", "T12:00:00",
		"2019-01-01T12:00:00+19:00", "2019-01-01T12:00:00+1:2", "2019-01-01T12:00:00 Mars/Base",
		"2019-01-01T12:00:00 PDT", "2019-01-01T12:00Z", "-2019-01-01", "0000-01-01", "2019-01-01x",
		"2019-01-01T12:00:00 ../../etc/passwd",
	} {
		if got, err := ParseTimestamp(in); err == nil {
			t.Errorf("ParseTimestamp(%q) = %v, want an error", in, got)
		} else if !strings.Contains(err.Error(), "invalid timestamp") {
			t.Errorf("ParseTimestamp(%q): %v does not say what is invalid", in, err)
		}
	}
	if _, err := ParseTimestamp("12:00:00"); err == nil || !strings.Contains(err.Error(), "without a date") {
		t.Errorf("time only: %v, want an error about the missing date", err)
	}
	if _, err := ParseTimestamp("nonsense"); !errors.Is(err, ErrTimestamp) {
		t.Errorf("nonsense: %v, want ErrTimestamp", err)
	}
}

func TestFormatTimestampRoundTrips(t *testing.T) {
	for _, in := range []time.Time{
		time.Date(2020, 6, 1, 13, 0, 0, 0, time.UTC),
		time.Date(2020, 6, 1, 13, 0, 0, 123456000, time.FixedZone("x", 3600)),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		s := FormatTimestamp(in)
		back, err := ParseTimestamp(s)
		if err != nil || !back.Equal(in) {
			t.Errorf("FormatTimestamp(%v) = %q parses to %v, %v", in, s, back, err)
		}
	}
}

func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{"2020-06-01T13:00:00", "2019-01-01", "2021-01-01 00:00:00.000000 UTC+0", "2019-01-01T09:00:00+09:00",
		"2021-07-01 02:00:00 Europe/Paris", "12:00:00", "2019-01-01T12:00:00.123456789-013015", "+99999-1-1", "9999-12-31T23:59:59.999999-18"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := ParseTimestamp(s)
		if err != nil {
			return
		}
		if ts.Location() != time.UTC || ts.Nanosecond()%1000 != 0 {
			t.Fatalf("ParseTimestamp(%q) = %v: want UTC with microsecond precision", s, ts)
		}
		back, err := ParseTimestamp(FormatTimestamp(ts))
		if err != nil || !back.Equal(ts) {
			t.Fatalf("ParseTimestamp(%q) = %v; FormatTimestamp gives %q which parses to %v, %v", s, ts, FormatTimestamp(ts), back, err)
		}
	})
}
