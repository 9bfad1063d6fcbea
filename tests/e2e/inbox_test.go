package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/inboxstate"
)

// checkpointPrefix is the fixture's stream's checkpoint location in the bucket.
const checkpointPrefix = "_checkpoints/" + streamID + "/"

// inboxObjects lists the stream's inbox objects (the uncounted client).
func (f *fixture) inboxObjects() []string {
	f.t.Helper()
	out, err := f.s3.ListObjectsV2(f.t.Context(), &s3.ListObjectsV2Input{
		Bucket: aws.String(f.bucket), Prefix: aws.String(checkpointPrefix + inboxstate.Prefix),
	})
	if err != nil {
		f.t.Fatal(err)
	}
	var keys []string
	for _, o := range out.Contents {
		if k := aws.ToString(o.Key); strings.HasSuffix(k, ".json") {
			keys = append(keys, k)
		}
	}
	return keys
}

// putJSON writes v as a JSON object of the bucket.
func (f *fixture) putJSON(key string, v any) {
	f.t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.s3.PutObject(f.t.Context(), &s3.PutObjectInput{
		Bucket: aws.String(f.bucket), Key: aws.String(key), Body: strings.NewReader(string(data)),
	}); err != nil {
		f.t.Fatal(err)
	}
}

// sourceFile returns a source object's facts as a plan records them.
func (f *fixture) sourceFile(in inputFile) map[string]any {
	f.t.Helper()
	h, err := f.s3.HeadObject(f.t.Context(), &s3.HeadObjectInput{Bucket: aws.String(f.bucket), Key: aws.String(in.Key)})
	if err != nil {
		f.t.Fatal(err)
	}
	return map[string]any{
		"path": strings.TrimPrefix(in.Key, sourcePrefix),
		"size": aws.ToInt64(h.ContentLength),
		"etag": strings.Trim(aws.ToString(h.ETag), `"`),
	}
}

// TestInboxDuplicatesIngestedOnce: the inbox hands files over at least
// once; each is ingested once.
//   - A discovery invocation that wrote the inbox and crashed before its
//     messages were acknowledged: the events come again, the files are in
//     two inbox objects, and one batch ingests them.
//   - A stale inbox record of a committed file (an eventually consistent
//     read missed its claim) is dropped by the next plan's Pending.
//   - A sealed plan that lists a file another batch committed (a
//     duplicate hand-over of a committed file) commits without it, and
//     without failing.
func TestInboxDuplicatesIngestedOnce(t *testing.T) {
	f := newFixture(t)
	first := makeInputs("a", 4)
	f.upload(first)
	// SQS delivers at least once, and an SDK retry of a put or a send
	// whose response was lost adds a copy: the checks below ask for every
	// file's event and allow copies, which the inbox must absorb too.
	msgs := f.receive(f.eventsURL, 10)
	if !coversKeys(t, msgs, first) {
		t.Fatalf("received events %q, want one for each of %d files", bodiesOf(msgs), len(first))
	}
	// The invocation registers, then "crashes": nothing is acknowledged.
	if resp, err := f.app.HandleDiscovery(t.Context(), sqsEvent(f.eventsARN, msgs)); err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("HandleDiscovery = %+v, %v", resp, err)
	}
	for _, m := range msgs { // SQS delivers them again
		if _, err := f.sqs.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(f.eventsURL), MessageBody: m.Body}); err != nil {
			t.Fatal(err)
		}
	}
	f.deleteMessages(f.eventsURL, msgs, nil)
	again := f.receive(f.eventsURL, 10)
	if !coversKeys(t, again, first) {
		t.Fatalf("received redelivered events %q, want one for each of %d files", bodiesOf(again), len(first))
	}
	if resp := f.deliverEvents(again); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("redelivered events failed: %+v", resp.BatchItemFailures)
	}
	if objs := f.inboxObjects(); len(objs) != 2 {
		t.Fatalf("inbox objects after a redelivery = %q, want 2 (each file recorded twice)", objs)
	}
	ps, err := f.state().Pending(t.Context(), streamID, 100)
	if err != nil || len(ps) != len(first) {
		t.Fatalf("Pending = %d entries, %v; want each of the %d files once", len(ps), err, len(first))
	}
	if failed := f.drain(); len(failed) > 0 {
		t.Fatalf("discovery failed messages %q", failed)
	}
	checkRows(t, f.readTable(), first)
	f.checkCommitted(first)
	if objs := f.inboxObjects(); len(objs) != 0 {
		t.Fatalf("inbox objects left after the commit: %q", objs)
	}
	committed, err := f.state().Get(t.Context(), streamID, strings.TrimPrefix(first[0].Key, sourcePrefix))
	if err != nil || committed.State != state.Committed {
		t.Fatalf("state of %s = %+v, %v", first[0].Key, committed, err)
	}

	// A stale inbox record of a committed file, and a sealed plan listing
	// another committed file beside new ones.
	more := makeInputs("b", 3)
	f.upload(more)
	f.putJSON(fmt.Sprintf("%s%s%020d-stale.json", checkpointPrefix, inboxstate.Prefix, time.Now().UnixNano()), map[string]any{
		"stream": streamID, "discoveryNanos": time.Now().UnixNano(),
		"files": []any{f.sourceFile(first[1])},
	})
	next := committed.BatchID + 1
	for v, err := range f.state().Entries(t.Context(), streamID) {
		if err != nil {
			t.Fatal(err)
		}
		next = max(next, v.BatchID+1)
	}
	planFiles := []any{f.sourceFile(first[2])}
	for _, in := range more {
		planFiles = append(planFiles, f.sourceFile(in))
	}
	f.putJSON(fmt.Sprintf("%soffsets/%020d.json", checkpointPrefix, next), map[string]any{
		"batchId": next, "stream": streamID, "createdAt": time.Now().UTC(), "files": planFiles,
	})
	if failed := f.drain(); len(failed) > 0 {
		t.Fatalf("discovery failed messages %q", failed)
	}
	all := append(first, more...)
	checkRows(t, f.readTable(), all)
	f.checkCommitted(all)
	for _, in := range first {
		e, err := f.state().Get(t.Context(), streamID, strings.TrimPrefix(in.Key, sourcePrefix))
		if err != nil || e.BatchID != committed.BatchID {
			t.Errorf("%s: %+v, %v; want it in batch %d still", in.Key, e, err, committed.BatchID)
		}
	}
	for _, in := range more {
		e, err := f.state().Get(t.Context(), streamID, strings.TrimPrefix(in.Key, sourcePrefix))
		if err != nil || e.BatchID != next {
			t.Errorf("%s: %+v, %v; want it in batch %d (the sealed plan)", in.Key, e, err, next)
		}
	}
	if objs := f.inboxObjects(); len(objs) != 0 {
		t.Fatalf("inbox objects left: %q", objs)
	}
}
