package events

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestKickRoundTrip(t *testing.T) {
	at := time.Date(2024, 6, 3, 9, 41, 27, 512000000, time.FixedZone("CEST", 2*3600))
	tests := []Kick{
		{Stream: "orders", Reason: ReasonDiscovered, At: at},
		{Stream: "clicks/eu west", Reason: "", At: at.Add(time.Nanosecond)},
		{Stream: "日本語", Reason: ReasonBackfill, At: at},
		{Stream: "orders", Reason: ReasonManual, At: at, Action: ActionRefresh},
		{Stream: "orders", Reason: ReasonManual, At: at, Action: ActionResetCheckpoint},
	}
	for _, k := range tests {
		b, err := k.Marshal()
		if err != nil {
			t.Fatalf("Marshal(%+v): %v", k, err)
		}
		got, err := UnmarshalKick(b)
		if err != nil {
			t.Fatalf("UnmarshalKick(%s): %v", b, err)
		}
		if got.Stream != k.Stream || got.Reason != k.Reason || got.Action != k.Action || !got.At.Equal(k.At) || got.At.Location() != time.UTC {
			t.Errorf("round trip of %+v gave %+v", k, got)
		}
	}
}

func TestKickWireFormat(t *testing.T) {
	k := Kick{Stream: "orders", Reason: ReasonContinue, At: time.Date(2024, 6, 3, 9, 41, 27, 0, time.UTC)}
	b, err := k.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"stream":"orders","reason":"continue","at":"2024-06-03T09:41:27Z"}`
	if string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
}

func TestKickErrors(t *testing.T) {
	if _, err := (Kick{At: time.Now()}).Marshal(); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "stream") {
		t.Errorf("Marshal without stream: %v", err)
	}
	if _, err := (Kick{Stream: "s"}).Marshal(); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "at") {
		t.Errorf("Marshal without time: %v", err)
	}
	bad := []struct{ body, want string }{
		{``, "invalid JSON"},
		{`[]`, "invalid JSON"},
		{`{"stream":1,"at":"2024-06-03T09:41:27Z"}`, "invalid JSON"},
		{`{"at":"2024-06-03T09:41:27Z"}`, "stream: missing"},
		{`{"stream":"s"}`, "at: missing"},
		{`{"stream":"s","at":"yesterday"}`, "invalid JSON"},
		{`{"stream":"s","at":"2024-06-03T09:41:27Z","action":"drop"}`, "action: \"drop\" is not"},
	}
	for _, tc := range bad {
		_, err := UnmarshalKick([]byte(tc.body))
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("UnmarshalKick(%q) = %v, want ErrMalformed mentioning %q", tc.body, err, tc.want)
		}
	}
	if k, err := UnmarshalKick([]byte(`{"stream":"s","at":"2024-06-03T09:41:27Z","future":true}`)); err != nil || k.Stream != "s" {
		t.Errorf("unknown field should be ignored: %+v, %v", k, err)
	}
}

func TestKickGroupID(t *testing.T) {
	long := strings.Repeat("x", 129)
	tests := []struct {
		stream   string
		wantSame bool
	}{
		{"orders", true},
		{"a-b_c.d:e/f", true},
		{strings.Repeat("y", 128), true},
		{"has space", false},
		{"日本語", false},
		{long, false},
	}
	for _, tc := range tests {
		got := Kick{Stream: tc.stream}.GroupID()
		if tc.wantSame && got != tc.stream {
			t.Errorf("GroupID(%q) = %q, want the stream id", tc.stream, got)
		}
		if !tc.wantSame {
			if got == tc.stream || !strings.HasPrefix(got, "sha256-") || len(got) != 71 {
				t.Errorf("GroupID(%q) = %q, want sha256- and 64 hex digits", tc.stream, got)
			}
			if again := (Kick{Stream: tc.stream}).GroupID(); again != got {
				t.Errorf("GroupID(%q) not stable: %q vs %q", tc.stream, got, again)
			}
		}
		if !validSQSID(got) {
			t.Errorf("GroupID(%q) = %q is not a valid SQS id", tc.stream, got)
		}
	}
	if (Kick{Stream: "has space"}).GroupID() == (Kick{Stream: "has  space"}).GroupID() {
		t.Error("different streams share a group id")
	}
}

func TestKickDeduplicationID(t *testing.T) {
	base := time.Date(2024, 6, 3, 9, 41, 0, 0, time.UTC)
	id := func(stream string, at time.Time, w time.Duration) string {
		return Kick{Stream: stream, At: at}.DeduplicationID(w)
	}
	w := time.Minute
	if id("s", base, w) != id("s", base.Add(59*time.Second), w) {
		t.Error("kicks in the same window have different ids")
	}
	if id("s", base, w) == id("s", base.Add(60*time.Second), w) {
		t.Error("kicks in consecutive windows share an id")
	}
	if id("s", base, w) == id("t", base, w) {
		t.Error("different streams share an id")
	}
	if id("s", base, 0) == id("s", base.Add(time.Nanosecond), 0) {
		t.Error("window 0 should not collapse distinct times")
	}
	loc := time.FixedZone("X", -7*3600)
	if id("s", base, w) != id("s", base.In(loc), w) {
		t.Error("id depends on the time zone")
	}
	if got := id("s", base, w); len(got) != 64 || !validSQSID(got) {
		t.Errorf("id %q is not 64 hex digits", got)
	}
}

// FuzzUnmarshalKick checks that UnmarshalKick never panics, fails only with
// ErrMalformed, and that what it accepts survives a round trip.
func FuzzUnmarshalKick(f *testing.F) {
	f.Add([]byte(`{"stream":"orders","reason":"continue","at":"2024-06-03T09:41:27Z"}`))
	f.Add([]byte(`{"stream":"","at":"2024-06-03T09:41:27Z"}`))
	f.Add([]byte(`{"stream":"x","at":"0001-01-01T00:00:00Z"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, body []byte) {
		k, err := UnmarshalKick(body)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		b, err := k.Marshal()
		if err != nil {
			t.Fatalf("accepted kick %+v does not marshal: %v", k, err)
		}
		k2, err := UnmarshalKick(b)
		if err != nil || k2.Stream != k.Stream || k2.Reason != k.Reason || !k2.At.Equal(k.At) {
			t.Fatalf("round trip changed %+v into %+v (%v)", k, k2, err)
		}
		if !validSQSID(k.GroupID()) || !validSQSID(k.DeduplicationID(time.Minute)) {
			t.Fatalf("invalid SQS ids for %+v", k)
		}
	})
}
