package fileformat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/schema"
)

func TestDecompress(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("testdata", "plain.json"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file string
		want []byte
	}{
		{"plain.json", plain},
		{"plain.json.gz", plain},
		{"plain.json.bz2", plain},
		{"plain.json.zst", plain},
		{"plain.json.deflate", plain},
		{"multi.json.gz", append(append([]byte{}, plain...), plain...)}, // gzip members concatenate
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			// Extensions match case-insensitively, on the full object path.
			p := "s3://bucket/dir.gz/" + strings.ToUpper(tc.file)
			rc, err := Decompress(p, bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			if err := rc.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDecompressErrors(t *testing.T) {
	for _, name := range []string{"a.lzo", "a.LZO"} {
		if _, err := Decompress(name, strings.NewReader("x")); !errors.Is(err, ErrUnsupportedCompression) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	// Not gzip at all: fails at once, naming the file.
	if _, err := Decompress("k/f.json.gz", strings.NewReader("plain text")); err == nil || !strings.Contains(err.Error(), "k/f.json.gz") {
		t.Errorf("bad gzip header: err = %v", err)
	}
	// A corrupt stream fails on Read, naming codec and file.
	for _, name := range []string{"plain.json.zst", "plain.json.bz2", "plain.json.gz"} {
		raw, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		bad := append([]byte{}, raw...)
		for i := len(bad) / 2; i < len(bad); i++ {
			bad[i] ^= 0x5a
		}
		rc, err := Decompress(name, bytes.NewReader(bad))
		if err != nil {
			continue // rejected up front is fine too
		}
		if _, err := io.ReadAll(rc); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s corrupt: err = %v", name, err)
		}
		rc.Close()
	}
}

func TestRescueJSON(t *testing.T) {
	var r Rescue
	if _, ok := r.JSON("f"); ok || !r.Empty() {
		t.Fatal("empty rescue rendered")
	}
	r.AddJSON([]string{"id"}, []byte("2147483648"))
	r.AddJSON([]string{"age"}, []byte(" 25 "))
	r.AddJSON([]string{"user", "dob"}, []byte(`"17/05/1990"`))
	r.AddJSON([]string{"user", "extra"}, []byte("{ \"a\" : [1, 2],\n \"s\": \"x y\" }"))
	r.AddString([]string{"Name"}, "quote \" and \\ and \n and \x01 and <&> and é")
	r.AddJSON([]string{"nan"}, []byte("[NaN, -Infinity, 1e+5, \"NaN\"]"))
	got, ok := r.JSON("s3://b/k.json")
	want := `{"Name":"quote \" and \\ and \n and \u0001 and <&> and é","age":25,"id":2147483648,"nan":["NaN","-Infinity",1e+5,"NaN"],"user":{"dob":"17/05/1990","extra":{"a":[1,2],"s":"x y"}},"_file_path":"s3://b/k.json"}`
	if !ok || got != want {
		t.Errorf("JSON =\n%s\nwant\n%s", got, want)
	}
	if !json.Valid([]byte(got)) {
		t.Error("not valid JSON")
	}
	// Last value wins; a nested value replaces a scalar and vice versa.
	r.AddJSON([]string{"id"}, []byte("1"))
	r.AddJSON([]string{"age", "x"}, []byte("2"))
	r.AddJSON([]string{"user"}, []byte("3"))
	got, _ = r.JSON("")
	want = `{"Name":"quote \" and \\ and \n and \u0001 and <&> and é","age":{"x":2},"id":1,"nan":["NaN","-Infinity",1e+5,"NaN"],"user":3}`
	if got != want {
		t.Errorf("JSON after replace =\n%s\nwant\n%s", got, want)
	}
	r.Reset()
	if !r.Empty() {
		t.Error("Reset left entries")
	}
	r.AddString([]string{"_corrupt_record"}, "bad \xff")
	if got, _ := r.JSON("p"); got != `{"_corrupt_record":"bad `+"\ufffd"+`","_file_path":"p"}` {
		t.Errorf("invalid UTF-8: %s", got)
	}
}

func TestParseParseMode(t *testing.T) {
	for in, want := range map[string]ParseMode{"": Permissive, "permissive": Permissive, " FailFast ": FailFast, "dropMalformed": DropMalformed} {
		if got, err := ParseParseMode(in); err != nil || got != want {
			t.Errorf("ParseParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseParseMode("lenient"); !errors.Is(err, ErrBadOption) || !strings.Contains(err.Error(), "mode") {
		t.Errorf("err = %v", err)
	}
}

func day(s string) schema.Date {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return schema.Date(t.Unix() / 86400)
}

func TestParseDate(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" = invalid
	}{
		{"2021-02-28", "2021-02-28"},
		{" 2021-2-3 ", "2021-02-03"},
		{"2021", "2021-01-01"},
		{"2021-07", "2021-07-01"},
		{"2021-07-04T10:00:00Z", "2021-07-04"},
		{"2021-07-04 anything", "2021-07-04"},
		{"1969-12-31", "1969-12-31"},
		{"0001-01-01", "0001-01-01"},
		{"2020-02-29", "2020-02-29"},
		{"2021-02-29", ""},
		{"2021-13-01", ""},
		{"2021-00-10", ""},
		{"2021-01-32", ""},
		{"17/05/1990", ""},
		{"202", ""},
		{"2021-07-04x", ""},
		{"2021-123-01", ""},
		{"", ""},
	}
	for _, tc := range tests {
		got, ok := ParseDate(tc.in)
		if tc.want == "" {
			if ok {
				t.Errorf("ParseDate(%q) = %d, want invalid", tc.in, got)
			}
			continue
		}
		if !ok || got != day(tc.want) {
			t.Errorf("ParseDate(%q) = %d, %v; want %s", tc.in, got, ok, tc.want)
		}
	}
}

func TestParseTimestamp(t *testing.T) {
	tests := []struct {
		in   string
		ntz  bool
		want string // RFC 3339 in UTC; "" = invalid
	}{
		{"2021-02-28T10:11:12Z", false, "2021-02-28T10:11:12Z"},
		{"2021-02-28T10:11:12.1234567+01:00", false, "2021-02-28T09:11:12.123456Z"},
		{"2021-02-28 10:11:12", false, "2021-02-28T10:11:12Z"},
		{"2021-02-28 10:11", false, "2021-02-28T10:11:00Z"},
		{"2021-2-8T1:2:3", false, "2021-02-08T01:02:03Z"},
		{"2021-02-28", false, "2021-02-28T00:00:00Z"},
		{"2021-02-28T10:11:12-0530", false, "2021-02-28T15:41:12Z"},
		{"2021-02-28T10:11:12+5", false, "2021-02-28T05:11:12Z"},
		{"2021-02-28 10:11:12 UTC", false, "2021-02-28T10:11:12Z"},
		{"2021-02-28 10:11:12 GMT+01:00", false, "2021-02-28T09:11:12Z"},
		{"2021-02-28 UTC", false, "2021-02-28T00:00:00Z"},
		{"2021-02-28T10:11:12.5", true, "2021-02-28T10:11:12.5Z"},
		{"2021-02-28T10:11:12Z", true, ""},
		{"2021-02-28T24:00:00", false, ""},
		{"2021-02-28T10:60", false, ""},
		{"2021-02-28T10", false, ""},
		{"2021-02-28T", false, ""},
		{"2021-02-28T10:11:12.", false, ""},
		{"2021-02-28T10:11:12.1234567890", false, ""},
		{"2021-02-28T10:11:12+19:00", false, ""},
		{"2021-02-28T10:11:12 PST", false, ""},
		{"yesterday", false, ""},
	}
	for _, tc := range tests {
		got, ok := ParseTimestamp(tc.in, tc.ntz)
		if tc.want == "" {
			if ok {
				t.Errorf("ParseTimestamp(%q, %v) = %v, want invalid", tc.in, tc.ntz, got)
			}
			continue
		}
		want, err := time.Parse(time.RFC3339Nano, tc.want)
		if err != nil {
			t.Fatal(err)
		}
		if !ok || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseTimestamp(%q, %v) = %v, %v; want %v", tc.in, tc.ntz, got, ok, want)
		}
	}
}

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in       string
		p, s     int
		unscaled string // "" = does not fit
	}{
		{"12.345", 5, 2, "1235"},
		{"-12.345", 5, 2, "-1235"},
		{"12.344", 5, 2, "1234"},
		{"-99.995", 5, 2, "-10000"},
		{"999.995", 5, 2, ""},
		{"1e2", 5, 2, "10000"},
		{"1E-2", 5, 2, "1"},
		{"0.004", 5, 2, "0"},
		{"0.005", 5, 2, "1"},
		{"1e-400", 5, 2, "0"},
		{"1e400", 38, 0, ""},
		{"+7", 1, 0, "7"},
		{"10", 1, 0, ""},
		{".5", 2, 1, "5"},
		{"5.", 2, 1, "50"},
		{"000123", 3, 0, "123"},
		{"123456789012345678901234567890", 30, 0, "123456789012345678901234567890"},
		{" 1.5 ", 2, 1, "15"},
		{"", 5, 2, ""},
		{".", 5, 2, ""},
		{"1.2.3", 5, 2, ""},
		{"abc", 5, 2, ""},
		{"1e", 5, 2, ""},
		{"1e1234567", 5, 2, ""},
		{"0e0000000", 1, 0, "0"}, // BigDecimal reads leading zeros of an exponent
		{"1e-0000002", 5, 2, "1"},
		{"NaN", 5, 2, ""},
		{"--1", 5, 2, ""},
	}
	for _, tc := range tests {
		got, ok := ParseDecimal(tc.in, schema.DecimalType{Precision: tc.p, Scale: tc.s})
		if tc.unscaled == "" {
			if ok {
				t.Errorf("ParseDecimal(%q, %d,%d) = %v, want no fit", tc.in, tc.p, tc.s, got.Unscaled)
			}
			continue
		}
		want, _ := new(big.Int).SetString(tc.unscaled, 10)
		if !ok || got.Unscaled.Cmp(want) != 0 || got.Scale != tc.s {
			t.Errorf("ParseDecimal(%q, %d,%d) = %v e-%d, %v; want %s", tc.in, tc.p, tc.s, got.Unscaled, got.Scale, ok, tc.unscaled)
		}
	}
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"12.345", "-99.995", "1e2", "1E-2", ".5", "1e400", "abc", "0.005"} {
		f.Add(s, 5, 2)
	}
	f.Fuzz(func(t *testing.T, s string, p, sc int) {
		if p < 1 || p > 38 || sc < 0 || sc > p {
			return
		}
		d, ok := ParseDecimal(s, schema.DecimalType{Precision: p, Scale: sc})
		if !ok {
			return
		}
		if d.Scale != sc || len(new(big.Int).Abs(d.Unscaled).String()) > p {
			t.Fatalf("ParseDecimal(%q) = %v e-%d does not fit (%d,%d)", s, d.Unscaled, d.Scale, p, sc)
		}
		// The value formatted back parses to itself.
		text := decimalText(d)
		again, ok := ParseDecimal(text, schema.DecimalType{Precision: p, Scale: sc})
		if !ok || again.Unscaled.Cmp(d.Unscaled) != 0 {
			t.Fatalf("round trip of %q via %q: %v", s, text, again.Unscaled)
		}
	})
}

func decimalText(d schema.Decimal) string {
	s := new(big.Int).Abs(d.Unscaled).String()
	for len(s) <= d.Scale {
		s = "0" + s
	}
	out := s
	if d.Scale > 0 {
		out = s[:len(s)-d.Scale] + "." + s[len(s)-d.Scale:]
	}
	if d.Unscaled.Sign() < 0 {
		out = "-" + out
	}
	return out
}

func FuzzParseTimestamp(f *testing.F) {
	for _, s := range []string{"2021-02-28T10:11:12Z", "2021-02-28 10:11", "2021-2-8T1:2:3.5+01:00", "2021", "2021-02-28 UTC", "x"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, ntz bool) {
		ts, ok := ParseTimestamp(s, ntz)
		if d, dok := ParseDate(s); dok && !strings.ContainsAny(s, "T ") {
			// A bare date is midnight UTC of that date.
			if !ok || ts.Unix() != int64(d)*86400 {
				t.Fatalf("ParseTimestamp(%q) = %v, %v; ParseDate = %d", s, ts, ok, d)
			}
		}
		if !ok {
			return
		}
		if ts.Location() != time.UTC || ts.Nanosecond()%1000 != 0 {
			t.Fatalf("ParseTimestamp(%q) = %v: not UTC microseconds", s, ts)
		}
		if ts.Year() < 0 || ts.Year() > 10000 {
			return
		}
		again, ok := ParseTimestamp(ts.Format("2006-01-02T15:04:05.999999")+"Z", false)
		if !ok || !again.Equal(ts) {
			t.Fatalf("round trip of %q (%v): %v %v", s, ts, again, ok)
		}
	})
}

// TestReadStatsMerge: counts add up; a later part's paths follow st's,
// each once, and stop at MaxReportedPaths.
func TestReadStatsMerge(t *testing.T) {
	st := ReadStats{RowsRead: 2, CorruptRecords: 1, UnknownFields: []string{"a"}}
	seenU, seenM := map[string]bool{"a": true}, map[string]bool{}
	st.Merge(ReadStats{RowsRead: 3, RowsRescued: 1, CorruptRecords: 2, ValuesDropped: 4,
		UnknownFields: []string{"b", "a", "c"}, MismatchedFields: []string{"x", "x"}}, seenU, seenM)
	want := ReadStats{RowsRead: 5, RowsRescued: 1, CorruptRecords: 3, ValuesDropped: 4,
		UnknownFields: []string{"a", "b", "c"}, MismatchedFields: []string{"x"}}
	if !reflect.DeepEqual(st, want) {
		t.Fatalf("merged %+v, want %+v", st, want)
	}
	many := make([]string, MaxReportedPaths+5)
	for i := range many {
		many[i] = fmt.Sprint("p", i)
	}
	st.Merge(ReadStats{MismatchedFields: many}, seenU, seenM)
	if n := len(st.MismatchedFields); n != MaxReportedPaths || st.MismatchedFields[1] != "p0" {
		t.Fatalf("%d mismatched paths (second %q), want %d with p0 after x", n, st.MismatchedFields[1], MaxReportedPaths)
	}
}
