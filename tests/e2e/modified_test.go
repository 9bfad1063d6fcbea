package e2e

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/tributary-io/tributary/core/state"
)

// TestModifiedFiltersNotifications: modifiedAfter and modifiedBefore
// apply to files discovered from S3 events, on the object's LastModified
// (what a listing sees), not on the event's time.
func TestModifiedFiltersNotifications(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	eventTime := regexp.MustCompile(`"eventTime"\s*:\s*"[^"]*"`)
	// upload puts an object and delivers its event, with the event's time
	// rewritten to 1999 (a late or replayed notification).
	upload := func(key string) {
		t.Helper()
		_, err := f.s3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(f.bucket), Key: aws.String(sourcePrefix + key), Body: strings.NewReader(`{"msg":"x"}` + "\n")})
		if err != nil {
			t.Fatal(err)
		}
		msgs := f.receive(f.eventsURL, 10)
		if !coversKeys(t, msgs, []inputFile{{Key: sourcePrefix + key}}) { // copies allowed
			t.Fatalf("event messages for %s: %q, want its event", key, bodiesOf(msgs))
		}
		for i := range msgs {
			body := eventTime.ReplaceAllString(aws.ToString(msgs[i].Body), `"eventTime":"1999-06-01T00:00:00.000Z"`)
			if body == aws.ToString(msgs[i].Body) {
				t.Fatalf("no eventTime in %s", body)
			}
			msgs[i].Body = aws.String(body)
		}
		if resp := f.deliverEvents(msgs); len(resp.BatchItemFailures) != 0 {
			t.Fatalf("event of %s failed: %+v", key, resp.BatchItemFailures)
		}
	}
	registered := func() map[string]state.Entry {
		t.Helper()
		out := map[string]state.Entry{}
		for e, err := range f.state().Entries(ctx, streamID) {
			if err != nil {
				t.Fatal(err)
			}
			out[e.Path] = e
		}
		return out
	}
	hourAgo := time.Now().UTC().Add(-time.Hour).Format("2006-01-02T15:04:05")
	inAnHour := time.Now().UTC().Add(time.Hour).Format("2006-01-02T15:04:05")

	// Event time inside the window, object modified after it: ignored.
	f.reconfigure(map[string]any{"modifiedBefore": "2000-01-01T00:00:00"})
	upload("before-2000.json")
	// Object modified after the bound, event time before it: registered
	// with its LastModified.
	f.reconfigure(map[string]any{"modifiedAfter": hourAgo})
	upload("recent.json")
	// Object modified before the bound: ignored.
	f.reconfigure(map[string]any{"modifiedAfter": inAnHour})
	upload("too-early.json")
	// Both bounds around now: registered.
	f.reconfigure(map[string]any{"modifiedAfter": hourAgo, "modifiedBefore": inAnHour})
	upload("window.json")

	got := registered()
	var paths []string
	for p := range got {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	if !slices.Equal(paths, []string{"recent.json", "window.json"}) {
		t.Fatalf("registered %q, want [recent.json window.json]", paths)
	}
	for _, p := range paths {
		if mod := got[p].ModTime; mod.Year() < 2020 {
			t.Errorf("%s registered with ModTime %v (the event time), want its LastModified", p, mod)
		}
	}
}
