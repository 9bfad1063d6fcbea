package boltstate

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sameRecord compares records as json.Unmarshal fills them (times by
// instant and zone name).
func sameRecord(a, b record) bool {
	sameTime := func(x, y time.Time) bool {
		return x.Equal(y) && x.Location().String() == y.Location().String() && x.IsZero() == y.IsZero()
	}
	if !sameTime(a.ModTime, b.ModTime) || !sameTime(a.Discovery, b.Discovery) || !sameTime(a.ExpiresAt, b.ExpiresAt) {
		return false
	}
	a.ModTime, a.Discovery, a.ExpiresAt = time.Time{}, time.Time{}, time.Time{}
	b.ModTime, b.Discovery, b.ExpiresAt = time.Time{}, time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

func TestRecordCodecMatchesJSON(t *testing.T) {
	at := time.Date(2026, 12, 1, 18, 30, 0, 123456789, time.UTC)
	for _, tc := range []struct {
		name string
		r    record
	}{
		{"pending", record{Size: 1024, ETag: "1a2b-400-187d", ModTime: at, Discovery: at.Add(time.Second), Batch: -1}},
		{"claimed", record{Size: 0, ETag: "", ModTime: at.Truncate(time.Second), Discovery: at, Batch: 42}},
		{"expiring", record{Size: 7, ETag: "e", ModTime: at, Discovery: at, Batch: 3, ExpiresAt: at.Add(time.Hour)}},
		{"skipped", record{Size: 7, ETag: "e", ModTime: at, Discovery: at, Batch: -1, SkipReason: "corrupt: bad gzip header"}},
		{"escaped strings", record{Size: 1, ETag: `"quoted" <&>`, ModTime: at, Discovery: at, Batch: 1, SkipReason: "line\nbreak é \u2028"}},
		{"zoned time", record{ModTime: at.In(time.FixedZone("", 5*3600+1800)), Discovery: at.In(time.FixedZone("X", -7*3600)), Batch: -1}},
		{"zero times", record{Batch: -1}},
		{"extreme numbers", record{Size: 1<<63 - 1, Batch: -1 << 63, ModTime: at, Discovery: at}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(&tc.r)
			if err != nil {
				t.Fatal(err)
			}
			got, err := encodeRecord(&tc.r)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("encodeRecord = %s\nwant json.Marshal's %s", got, want)
			}
			var fast, slow record
			if err := decodeRecord(want, &fast); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(want, &slow); err != nil {
				t.Fatal(err)
			}
			if !sameRecord(fast, slow) {
				t.Errorf("decodeRecord = %+v\nwant json.Unmarshal's %+v", fast, slow)
			}
		})
	}
}

func TestDecodeRecordFallsBack(t *testing.T) {
	for _, in := range []string{
		`{"batch":3,"size":1,"etag":"x","mod_time":"2026-01-02T03:04:05Z","discovery_time":"2026-01-02T03:04:05Z"}`,
		`{"size":01,"etag":"x","mod_time":"2026-01-02T03:04:05Z","discovery_time":"2026-01-02T03:04:05Z","batch":3}`,
		`{"size":1,"etag":"x","mod_time":"2026-01-02T03:04:05.000Z","discovery_time":"2026-01-02T03:04:05Z","batch":3}`,
		`{"size":1,"etag":"x","mod_time":"2026-01-02T03:04:05Z","discovery_time":"2026-01-02T03:04:05Z","batch":3,"other":true}`,
		`{"size":1,"etag":"x","mod_time":"2026-01-02T03:04:05Z","discovery_time":"2026-01-02T03:04:05Z","batch":3} `,
		`{"size":1e3,"etag":"x","mod_time":"2026-01-02T03:04:05Z","discovery_time":"2026-01-02T03:04:05Z","batch":3}`,
		`{"size":1,"etag":"x","mod_time":"2026-01-02T03:04:05Z","discovery_time":"2026-01-02T03:04:05Z","batch":3`,
		`not json`,
	} {
		var fast, slow record
		ferr := decodeRecord([]byte(in), &fast)
		serr := json.Unmarshal([]byte(in), &slow)
		if (ferr == nil) != (serr == nil) || !sameRecord(fast, slow) {
			t.Errorf("decodeRecord(%s) = %+v, %v; json.Unmarshal: %+v, %v", in, fast, ferr, slow, serr)
		}
	}
}

// FuzzDecodeRecord checks decodeRecord against json.Unmarshal on any
// input, and that encodeRecord writes what json.Marshal writes.
func FuzzDecodeRecord(f *testing.F) {
	at := time.Date(2026, 12, 1, 18, 30, 0, 123456789, time.UTC)
	for _, r := range []record{
		{Size: 1024, ETag: "1a2b-400-187d", ModTime: at, Discovery: at, Batch: -1},
		{Size: 7, ETag: "e", ModTime: at, Discovery: at, Batch: 3, ExpiresAt: at, SkipReason: "corrupt"},
	} {
		b, _ := json.Marshal(&r)
		f.Add(b)
	}
	f.Add([]byte(`{"size":-0,"etag":"","mod_time":"0001-01-01T00:00:00Z","discovery_time":"2026-01-02T03:04:05+01:00","batch":-1}`))
	f.Add([]byte(`{"size":9223372036854775807,"etag":"","mod_time":"0001-01-01T00:00:00Z","discovery_time":"2026-01-02T03:04:05Z","batch":-9223372036854775808}`))
	f.Add([]byte(`{"size":9223372036854775808,"etag":"","mod_time":"0001-01-01T00:00:00Z","discovery_time":"2026-01-02T03:04:05Z","batch":01}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		var fast, slow record
		ferr := decodeRecord(in, &fast)
		serr := json.Unmarshal(in, &slow)
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("decodeRecord(%q) error %v, json.Unmarshal's %v", in, ferr, serr)
		}
		if ferr != nil {
			return
		}
		if !sameRecord(fast, slow) {
			t.Fatalf("decodeRecord(%q) = %+v, json.Unmarshal's %+v", in, fast, slow)
		}
		want, werr := json.Marshal(&fast)
		got, gerr := encodeRecord(&fast)
		if (werr == nil) != (gerr == nil) || string(got) != string(want) {
			t.Fatalf("encodeRecord(%+v) = %s, %v; json.Marshal: %s, %v", fast, got, gerr, want, werr)
		}
	})
}

// recordScanner.int takes exactly the integers strconv.AppendInt writes
// (the fast path of decodeRecord; anything else falls back to
// json.Unmarshal), and stops at the first byte after them.
func TestScannerInt(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"7,", 7, true}, {"-1}", -1, true}, {"1024", 1024, true},
		{"9223372036854775807", math.MaxInt64, true}, {"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false},
		{"99999999999999999999", 0, false}, {"18446744073709551616", 0, false},
		{"-0", 0, false}, {"00", 0, false}, {"01", 0, false}, {"-01", 0, false},
		{"", 0, false}, {"-", 0, false}, {"+1", 0, false}, {"x", 0, false}, {"--1", 0, false},
	} {
		s := recordScanner{v: []byte(c.in), ok: true}
		got := s.int()
		if s.ok != c.ok || got != c.want {
			t.Errorf("int(%q) = %d, ok %v; want %d, %v", c.in, got, s.ok, c.want, c.ok)
		}
		if s.ok && string(s.v) != strings.TrimLeft(c.in, "-0123456789") {
			t.Errorf("int(%q) left %q", c.in, s.v)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		n := int64(rng.Uint64()) >> rng.IntN(64)
		in := strconv.AppendInt(nil, n, 10)
		s := recordScanner{v: in, ok: true}
		if got := s.int(); !s.ok || got != n || len(s.v) != 0 {
			t.Fatalf("int(%q) = %d, ok %v", in, got, s.ok)
		}
	}
}

// canonicalByParse is recordScanner.time's general path: time.Parse, then
// the time formatted again must give v back.
func canonicalByParse(v string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil || t.Year() < 0 || t.Year() > 9999 || t.Format(time.RFC3339Nano) != v {
		return time.Time{}, false
	}
	return t, true
}

// checkParseUTC requires parseUTC to accept only what the general path
// accepts, giving the same time (same instant and representation), and
// to accept every UTC time in the general path's canonical form.
func checkParseUTC(t *testing.T, v string) {
	t.Helper()
	got, ok := parseUTC([]byte(v))
	want, wok := canonicalByParse(v)
	if ok && (!wok || got != want) {
		t.Fatalf("parseUTC(%q) = %v, true; time.Parse: %v, %v", v, got, want, wok)
	}
	if !ok && wok && want.Location() == time.UTC && strings.HasSuffix(v, "Z") {
		t.Fatalf("parseUTC(%q) refused a canonical UTC time (%v)", v, want)
	}
}

func TestParseUTC(t *testing.T) {
	for _, v := range []string{
		"2026-12-01T18:30:00.123456789Z", "2026-12-01T18:30:00Z", "2026-12-01T18:30:00.1Z", "0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59.999999999Z", "2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
		"2000-02-29T12:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z",
		"2026-12-00T00:00:00Z", "2026-12-01T24:00:00Z", "2026-12-01T23:60:00Z", "2026-12-01T23:59:60Z",
		"2026-12-01T18:30:00.120Z", "2026-12-01T18:30:00.Z", "2026-12-01T18:30:00.0Z", "2026-12-01T18:30:00.1234567891Z",
		"2026-12-01T18:30:00,1Z", "2026-12-01t18:30:00Z", "2026-12-01T18:30:00z", "2026-12-01T18:30:00+00:00",
		"2026-12-01T18:30:00+01:00", "2026-12-01 18:30:00Z", "+026-12-01T18:30:00Z", "2026-1a-01T18:30:00Z",
		"2026-12-01T18:30:00.12a4Z", "2026-12-01T18:30:00", "", "Z", "2026-12-01T18:30:00.123456789ZZ",
	} {
		checkParseUTC(t, v)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		sec := rng.Int64N(253402300800+62135596800) - 62135596800
		ns := []int64{0, rng.Int64N(1e9), rng.Int64N(1000) * 1e6, rng.Int64N(10) * 1e8}[rng.IntN(4)]
		v := time.Unix(sec, ns).UTC().Format(time.RFC3339Nano)
		if _, ok := parseUTC([]byte(v)); !ok {
			t.Fatalf("parseUTC(%q) refused it", v)
		}
		checkParseUTC(t, v)
	}
}

// FuzzParseUTC checks parseUTC against time.Parse on any input.
func FuzzParseUTC(f *testing.F) {
	for _, v := range []string{"2026-12-01T18:30:00.123456789Z", "2024-02-29T00:00:00Z", "2026-12-01T18:30:00.10Z", "2026-12-01T18:30:00+01:00"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) { checkParseUTC(t, v) })
}

// checkClaimInPlace fails unless claimInPlace(v, batch), when it takes v,
// writes what decoding v, setting its batch and encoding it again writes,
// and gives its discovery time; it must take only pending records (batch
// -1, no skip reason). It reports whether it took v.
func checkClaimInPlace(t *testing.T, v []byte, batch int64) bool {
	t.Helper()
	nv, discovery, ok := claimInPlace(v, batch)
	if !ok {
		return false
	}
	var r record
	if err := decodeRecord(v, &r); err != nil {
		t.Fatalf("claimInPlace took %q, which does not decode: %v", v, err)
	}
	if r.Batch != -1 || r.SkipReason != "" {
		t.Fatalf("claimInPlace took %q, not a pending record (batch %d, skip reason %q)", v, r.Batch, r.SkipReason)
	}
	if !discovery.Equal(r.Discovery) {
		t.Fatalf("claimInPlace(%q): discovery %v, want %v", v, discovery, r.Discovery)
	}
	r.Batch = batch
	want, err := encodeRecord(&r)
	if err != nil {
		t.Fatal(err)
	}
	var got record
	if err := decodeRecord(nv, &got); err != nil || !sameRecord(got, r) {
		t.Fatalf("claimInPlace(%q, %d) = %q, decoding to %+v (%v); want %+v", v, batch, nv, got, err, r)
	}
	if string(nv) != string(want) && string(v) == string(mustEncode(t, r, -1)) {
		t.Fatalf("claimInPlace(%q, %d) = %q, want %q", v, batch, nv, want)
	}
	return true
}

// mustEncode is r's encoding with batch b.
func mustEncode(t *testing.T, r record, b int64) []byte {
	t.Helper()
	r.Batch = b
	v, err := encodeRecord(&r)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A claim sets a pending record's batch in place: only in the records
// encodeRecord writes for a pending file, and to what encoding the
// claimed record writes.
func TestClaimInPlace(t *testing.T) {
	at := time.Date(2026, 12, 1, 18, 30, 0, 123456789, time.UTC)
	for _, tc := range []struct {
		name string
		r    record
		take bool
	}{
		{"pending", record{Size: 1024, ETag: "1a2b-400-187d", ModTime: at, Discovery: at.Add(time.Second), Batch: -1}, true},
		{"pending, expiring", record{Size: 7, ETag: "e", ModTime: at, Discovery: at, Batch: -1, ExpiresAt: at.Add(time.Hour)}, true},
		{"pending, zero times", record{Batch: -1}, true},
		{"pending, zoned time", record{ModTime: at.In(time.FixedZone("", 5*3600+1800)), Discovery: at.In(time.FixedZone("X", -7*3600)), Batch: -1}, true},
		{"in a batch", record{Size: 7, ETag: "e", ModTime: at, Discovery: at, Batch: 3}, false},
		{"skipped at discovery", record{Size: 7, ETag: "e", ModTime: at, Discovery: at, Batch: -1, SkipReason: "corrupt"}, false},
		{"escaped etag", record{Size: 1, ETag: `"quoted" <&>`, ModTime: at, Discovery: at, Batch: -1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, batch := range []int64{0, 7, 1<<63 - 1} {
				v := mustEncode(t, tc.r, tc.r.Batch)
				if took := checkClaimInPlace(t, v, batch); took != tc.take {
					t.Fatalf("claimInPlace took %q: %v, want %v", v, took, tc.take)
				}
			}
		})
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		r := record{Size: rng.Int64N(1 << 40), ETag: strconv.FormatUint(rng.Uint64(), 16), Batch: -1,
			ModTime: time.Unix(rng.Int64N(4e9), rng.Int64N(1e9)).UTC(), Discovery: time.Unix(rng.Int64N(4e9), rng.Int64N(1e9)).UTC()}
		if rng.IntN(2) == 0 {
			r.ExpiresAt = r.Discovery.Add(time.Duration(rng.Int64N(1e15)))
		}
		if !checkClaimInPlace(t, mustEncode(t, r, -1), rng.Int64N(1<<40)) {
			t.Fatalf("claimInPlace did not take the pending record %+v", r)
		}
	}
}

// FuzzClaimInPlace: on any input, claimInPlace takes only pending
// records, and writes them claimed.
func FuzzClaimInPlace(f *testing.F) {
	f.Add([]byte(`{"size":1024,"etag":"1a2b-400-187d","mod_time":"2026-12-01T18:30:00.123456789Z","discovery_time":"2026-12-01T18:30:01.123456789Z","batch":-1}`), int64(3))
	f.Add([]byte(`{"size":7,"etag":"e","mod_time":"2026-12-01T18:30:00Z","discovery_time":"2026-12-01T18:30:00Z","batch":-1,"expires_at":"2026-12-01T19:30:00Z"}`), int64(0))
	f.Add([]byte(`{"size":7,"etag":"e","mod_time":"2026-12-01T18:30:00Z","discovery_time":"2026-12-01T18:30:00Z","batch":-1,"skip_reason":"x"}`), int64(1))
	f.Add([]byte(`{"size":7,"etag":"e","mod_time":"2026-12-01T18:30:00.000Z","discovery_time":"2026-12-01T18:30:00Z","batch":-1}`), int64(1))
	f.Fuzz(func(t *testing.T, v []byte, batch int64) {
		if batch < 0 {
			batch = -(batch + 1) // claims name batches from 0
		}
		checkClaimInPlace(t, v, batch)
	})
}
