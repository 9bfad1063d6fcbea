package e2e

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/tributary-io/tributary/infra/lambdafn"
)

// tickClock advances by step on every reading: a listing whose budget is
// measured on it stops after a known amount of work, whatever the machine's
// speed.
type tickClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *tickClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// stopNotifications removes the bucket's event notifications: files
// arrive without events (lost events, or a directory listing stream).
func (f *fixture) stopNotifications() {
	f.t.Helper()
	if _, err := f.s3.PutBucketNotificationConfiguration(f.t.Context(), &s3.PutBucketNotificationConfigurationInput{
		Bucket: aws.String(f.bucket), NotificationConfiguration: &s3types.NotificationConfiguration{},
	}); err != nil {
		f.t.Fatal(err)
	}
}

// backfillInvocation runs the backfill function as Lambda does, with a
// deadline budget past the function's time margin.
func (f *fixture) backfillInvocation(budget time.Duration) lambdafn.StreamBackfill {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(f.t.Context(), lambdafn.DefaultTimeMargin+budget)
	defer cancel()
	res, err := f.app.HandleBackfill(ctx, nil)
	if err != nil {
		f.t.Fatalf("HandleBackfill: %v (%+v)", err, res)
	}
	return res.Streams[streamID]
}

// TestBackfillResumesAcrossInvocations: a backfill whose listing does not
// fit in one invocation (here each invocation's budget allows about 15
// listed keys) stops before the deadline, keeps its position in the
// checkpoint and continues in the next invocation; the pass completes
// across several, its key ranges listed in parallel, and every file whose
// event was lost is registered and committed exactly once.
func TestBackfillResumesAcrossInvocations(t *testing.T) {
	f := newFixture(t)
	f.stopNotifications()
	var files []inputFile
	for _, tag := range []string{"bf-a", "bf-b", "bf-c"} {
		files = append(files, makeInputs(tag, 30)...)
	}
	f.upload(files)
	clock := &tickClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), step: time.Second}
	f.app.ListingClock = clock.now
	f.resetCounts()
	var invocations, found, maxParts, lists int
	for {
		invocations++
		if invocations > 100 {
			t.Fatal("the backfill pass never completed")
		}
		before := f.calls.Snapshot()["S3.ListObjectsV2"]
		got := f.backfillInvocation(15 * time.Second)
		lists += f.calls.Snapshot()["S3.ListObjectsV2"] - before
		if got.Error != "" || got.PassRuns != invocations {
			t.Fatalf("invocation %d: %+v", invocations, got)
		}
		found += got.NumNewListedFiles
		maxParts = max(maxParts, got.Parts)
		if !got.Stopped {
			if got.PartsLeft != 0 {
				t.Fatalf("complete pass with %d parts left", got.PartsLeft)
			}
			break
		}
	}
	t.Logf("a pass over %d files took %d invocations, %d key ranges, %d LIST requests", len(files), invocations, maxParts, lists)
	if invocations < 3 {
		t.Fatalf("the pass took %d invocations; the budget should need several", invocations)
	}
	if maxParts < 3 {
		t.Errorf("the listing was split into %d key ranges, want one per top-level prefix at least", maxParts)
	}
	if found != len(files) {
		t.Fatalf("the pass registered %d new files over %d invocations, want %d", found, invocations, len(files))
	}
	if failed := f.drain(); len(failed) > 0 {
		t.Fatalf("discovery failed messages %q", failed)
	}
	checkRows(t, f.readTable(), files)
	f.checkCommitted(files)

	// The next pass starts from the beginning: every file listed, none new.
	got := f.backfillInvocation(time.Hour)
	if got.Stopped || got.NumListedFiles != len(files) || got.NumNewListedFiles != 0 || got.PassRuns != 1 {
		t.Fatalf("next pass = %+v, want %d listed, none new", got, len(files))
	}
}

// TestListingModeStreamInFunctions: a directory listing stream
// (cloudFiles.useNotifications=false) runs in the deployed functions: the
// discovery function ignores its events and the scheduled function lists
// it; with cloudFiles.useIncrementalListing=true a listing starts after the
// last key the previous one saw (a file added under an earlier key is not
// found, as Auto Loader documents), and with false it lists everything.
func TestListingModeStreamInFunctions(t *testing.T) {
	f := newFixture(t)
	f.reconfigure(map[string]any{"cloudFiles.useNotifications": false, "cloudFiles.useIncrementalListing": "true"})
	first := makeInputs("2026-01", 5)
	f.upload(first)
	if failed := f.drain(); len(failed) > 0 {
		t.Fatalf("discovery failed messages %q", failed)
	}
	if f.commitCalls != 0 {
		t.Fatalf("the events of a listing stream started %d commit runs", f.commitCalls)
	}
	if got := f.backfillInvocation(time.Hour); got.NumNewListedFiles != len(first) || got.Stopped {
		t.Fatalf("first listing = %+v, want %d new", got, len(first))
	}
	f.drain()
	checkRows(t, f.readTable(), first)

	later, early := makeInputs("2026-02", 4), makeInputs("2025-12", 2)
	f.upload(append(later, early...))
	f.drain()
	f.resetCounts()
	got := f.backfillInvocation(time.Hour)
	if got.NumNewListedFiles != len(later) || got.NumListedFiles != len(later) {
		t.Fatalf("incremental listing = %+v, want only the %d later files", got, len(later))
	}
	if n := f.calls.Snapshot()["S3.ListObjectsV2"]; n != 1 {
		t.Errorf("incremental listing of %d new files made %d LIST requests, want 1", len(later), n)
	}
	f.drain()
	checkRows(t, f.readTable(), append(first, later...))

	f.reconfigure(map[string]any{"cloudFiles.useNotifications": false, "cloudFiles.useIncrementalListing": "false"})
	if got := f.backfillInvocation(time.Hour); got.NumNewListedFiles != len(early) {
		t.Fatalf("full listing = %+v, want the %d earlier files", got, len(early))
	}
	f.drain()
	all := append(append(first, later...), early...)
	checkRows(t, f.readTable(), all)
	f.checkCommitted(all)
}
