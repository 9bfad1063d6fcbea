package datetimefmt

import (
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSparkGolden compares every case of testdata/spark_golden.json —
// what Spark 4 parses with to_date, to_timestamp and to_timestamp_ntz
// (spark_golden.py) — with Layout's parsing. Dates of zoned patterns are
// not compared: to_date converts the instant to the session zone, while
// the readers' dateFormat takes the written date, as Spark's
// DateFormatter does.
func TestSparkGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/spark_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Pattern, Value, Zone string
		Date, Timestamp, NTZ *string
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 50 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		l, err := Compile(c.Pattern, "en-US")
		if err != nil {
			t.Errorf("%q: %v", c.Pattern, err)
			continue
		}
		zone, err := LoadZone(c.Zone)
		if err != nil {
			t.Fatal(err)
		}
		if !l.hasZone {
			got := "null"
			if d, ok := l.ParseDate(c.Value); ok {
				got = time.Unix(d*86400, 0).UTC().Format("2006-01-02")
			}
			if want := deref(c.Date); got != want {
				t.Errorf("date %q %q: %s, Spark %s", c.Pattern, c.Value, got, want)
			}
		}
		got := "null"
		if ts, ok := l.ParseTimestamp(c.Value, zone, false); ok {
			got = strconv.FormatInt(ts.UnixMicro(), 10)
		}
		if want := deref(c.Timestamp); got != want {
			t.Errorf("timestamp %q %q in %s: %s, Spark %s", c.Pattern, c.Value, c.Zone, got, want)
		}
		got = "null"
		if ts, ok := l.ParseTimestamp(c.Value, zone, true); ok {
			got = ts.Format("2006-01-02 15:04:05.999999")
		}
		if want := deref(c.NTZ); got != want {
			t.Errorf("ntz %q %q: %s, Spark %s", c.Pattern, c.Value, got, want)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

func TestCompileRefuses(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{"yyyy-MM-dd EEE", "day-of-week"},
		{"YYYY-ww", "week-based"},
		{"yyyy-MM-dd QQ", "quarter"},
		{"yyyy-MM-dd B", "unknown pattern letter 'B'"},
		{"MMMMM", "too many"},
		{"V", "too many"},
		{"yyyy-MM-dd'T", "unterminated quote"},
		{"yyyy[-MM", "'[' without ']'"},
		{"yyyy]", "']' without '['"},
		{"yyyy#", "reserved"},
		{"", "empty"},
	} {
		_, err := Compile(tc.pattern, "")
		if !errors.Is(err, ErrPattern) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile(%q) = %v, want an error saying %s", tc.pattern, err, tc.want)
		}
	}
}

func TestLocales(t *testing.T) {
	for _, tc := range []struct{ locale, pattern, value, want string }{
		{"fr-FR", "d MMMM yyyy", "4 mars 2021", "2021-03-04"},
		{"fr", "d MMM yyyy", "4 févr. 2021", "2021-02-04"},
		{"de-DE", "d. MMMM yyyy", "4. März 2021", "2021-03-04"},
		{"es-ES", "d 'de' MMMM 'de' yyyy", "4 de MARZO de 2021", "2021-03-04"},
		{"en-US", "d MMMM yyyy", "4 mars 2021", "null"},
		{"fr-FR", "d MMMM yyyy", "4 March 2021", "null"},
	} {
		l, err := Compile(tc.pattern, tc.locale)
		if err != nil {
			t.Fatal(err)
		}
		got := "null"
		if d, ok := l.ParseDate(tc.value); ok {
			got = time.Unix(d*86400, 0).UTC().Format("2006-01-02")
		}
		if got != tc.want {
			t.Errorf("%s %q %q: %s, want %s", tc.locale, tc.pattern, tc.value, got, tc.want)
		}
	}
	if err := CheckLocale("ja-JP"); !errors.Is(err, ErrPattern) {
		t.Errorf("ja-JP: %v", err)
	}
}

func TestParserOptions(t *testing.T) {
	p, err := FromOptions(map[string]string{"timezone": "America/New_York"})
	if err != nil {
		t.Fatal(err)
	}
	ts, ok := p.ParseTimestamp("2021-03-04T05:06:07", false)
	if !ok || ts.Format(time.RFC3339) != "2021-03-04T10:06:07Z" {
		t.Errorf("default pattern in New York: %v %v", ts, ok)
	}
	if ts, ok := p.ParseTimestamp("2021-03-04T05:06:07Z", false); !ok || ts.Hour() != 5 {
		t.Errorf("a zone in the value wins: %v %v", ts, ok)
	}
	if ts, ok := p.ParseTimestamp("2021-03-04T05:06:07", true); !ok || ts.Hour() != 5 {
		t.Errorf("ntz ignores timeZone: %v %v", ts, ok)
	}
	for opts, want := range map[string]string{"dateFormat": "dateFormat", "timestampFormat": "timestampFormat", "timestampNTZFormat": "timestampNTZFormat", "timeZone": "timeZone", "locale": "locale"} {
		_, err := FromOptions(map[string]string{opts: "EEE!"})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=EEE!: %v, want an error naming the option", opts, err)
		}
	}
	strict, err := FromOptions(map[string]string{"dateFormat": "dd/MM/yyyy", "timestampFormat": "dd/MM/yyyy HH:mm"})
	if err != nil {
		t.Fatal(err)
	}
	lenient, err := FromOptions(map[string]string{"dateFormat": "dd/MM/yyyy", "timestampFormat": "dd/MM/yyyy HH:mm", "enableDateTimeParsingFallback": "true"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := strict.ParseDate("2021-03-04"); ok {
		t.Errorf("no fallback: 2021-03-04 parsed with dd/MM/yyyy")
	}
	if d, ok := lenient.ParseDate("2021-03-04"); !ok || d != 18690 {
		t.Errorf("fallback: 2021-03-04: %v %v", d, ok)
	}
	if d, ok := lenient.ParseDate("04/03/2021"); !ok || d != 18690 {
		t.Errorf("fallback: the pattern first: %v %v", d, ok)
	}
	if _, ok := strict.ParseTimestamp("2021-03-04T05:06:07Z", false); ok {
		t.Errorf("no fallback: an ISO timestamp parsed with the pattern")
	}
	if ts, ok := lenient.ParseTimestamp("2021-03-04T05:06:07Z", false); !ok || ts.Hour() != 5 {
		t.Errorf("fallback timestamp: %v %v", ts, ok)
	}
	for _, z := range []string{"UTC", "Z", "+01:00", "-08", "GMT+05:30", "UTC+1", "Europe/Lisbon"} {
		if _, err := LoadZone(z); err != nil {
			t.Errorf("LoadZone(%q): %v", z, err)
		}
	}
	for _, z := range []string{"Mars/Olympus", "+25:00", "../etc", ""} {
		if _, err := LoadZone(z); err == nil {
			t.Errorf("LoadZone(%q) accepted", z)
		}
	}
}

// FuzzPattern: compiling and parsing with any pattern and value never
// panics; a parsed timestamp's wall clock is a valid date and time.
func FuzzPattern(f *testing.F) {
	for _, s := range []string{"yyyy-MM-dd", "yyyy-MM-dd'T'HH:mm:ss[.SSS][XXX]", "dd MMM yyyy h:mm a", "yyyyMMddHHmmss", "yyyy.DDD G", "[[x]]VV''"} {
		f.Add(s, "2021-03-04T05:06:07.5+01:00")
	}
	f.Fuzz(func(t *testing.T, pattern, value string) {
		l, err := Compile(pattern, "")
		if err != nil {
			if !errors.Is(err, ErrPattern) {
				t.Fatalf("error without ErrPattern: %v", err)
			}
			return
		}
		l.ParseDate(value)
		if ts, ok := l.ParseTimestamp(value, time.UTC, false); ok && ts.Location() != time.UTC {
			t.Fatalf("not UTC: %v", ts)
		}
		if ts, ok := l.ParseTimestamp(value, nil, true); ok && ts.Nanosecond()%1000 != 0 {
			t.Fatalf("more precise than microseconds: %v", ts)
		}
	})
}
