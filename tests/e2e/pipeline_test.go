package e2e

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	tevents "github.com/tributary-io/tributary/events"
	"github.com/tributary-io/tributary/infra/dynamostate"
)

// TestNotificationsEndToEnd uploads files, lets S3 notify the events queue
// and runs discovery and commit until the queues are empty: every row lands
// in the table exactly once. The first wave is the initial load (the schema
// is inferred from a sample, so those files are read twice); the second is
// steady state, where each source file is read exactly once. Then the same
// events are delivered again: nothing changes.
func TestNotificationsEndToEnd(t *testing.T) {
	f := newFixture(t)
	initial := makeInputs("init", 4)
	files := makeInputs("a", 12)
	all := append(slices.Clone(initial), files...)
	report := callsFile{}

	ok := t.Run("initial load infers the schema", func(t *testing.T) {
		defer f.use(t)()
		f.upload(initial)
		if failed := f.drain(); len(failed) > 0 {
			t.Fatalf("discovery failed messages %q", failed)
		}
		snap := f.readTable()
		checkRows(t, snap, initial)
		f.checkCommitted(initial)
		// Inference samples every file of the first batch (fewer than the
		// sample caps), then the batch reads them again to write them.
		report.InitialLoad = phaseCalls(t, f, initial, 2)
	})
	if !ok {
		return
	}

	var before tableSnapshot
	ok = t.Run("every row once", func(t *testing.T) {
		defer f.use(t)()
		f.resetCounts()
		f.metrics.Reset()
		f.upload(files)
		if failed := f.drain(); len(failed) > 0 {
			t.Fatalf("discovery failed messages %q", failed)
		}
		before = f.readTable()
		checkRows(t, before, all)
		f.checkCommitted(all)
		if !strings.Contains(f.metrics.String(), `"_aws"`) {
			t.Errorf("no Embedded Metric Format line was written for the committed batches")
		}
		report.SteadyState = phaseCalls(t, f, files, 1)
		report.Note = "functionCalls: AWS API calls made by the discovery and commit handlers for the whole phase " +
			"(events delivered by real S3 notifications and polled 10 at a time; commit kicks one at a time as in template.yaml; " +
			"moto emulator). initialLoad includes schema inference, which samples the first files once more. " +
			"pollerCalls: SQS calls of the Lambda event source mapping the test plays (not billed as API calls on AWS)."
		writeOut(t, "e2e-calls.json", report)
	})
	if !ok {
		return
	}

	t.Run("redelivered events add nothing", func(t *testing.T) {
		defer f.use(t)()
		var replay []string
		for _, b := range f.bodies {
			if !strings.Contains(b, "s3:TestEvent") {
				replay = append(replay, b)
			}
		}
		if len(replay) != len(all) {
			t.Fatalf("captured %d event bodies, want one per file (%d)", len(replay), len(all))
		}
		f.resetCounts()
		for _, b := range replay {
			if _, err := f.sqs.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(f.eventsURL), MessageBody: aws.String(b)}); err != nil {
				t.Fatal(err)
			}
		}
		if failed := f.drain(); len(failed) > 0 {
			t.Fatalf("discovery failed messages %q", failed)
		}
		if f.discoveryCalls == 0 {
			t.Fatal("the redelivered events were not handled")
		}
		// Object-created events are registered without reading the files'
		// items (state.RegisterOptions.LikelyNew: a read per file would
		// cost more than the rare repeat), so the repeated files reach
		// batch plans (one per commit run the kicks make), whose claims
		// find every file held by an earlier batch and drop it: Delta
		// versions without data files, no row twice.
		after := f.readTable()
		if len(after.Rows) != len(before.Rows) || after.Version-before.Version > int64(f.commitCalls) {
			t.Errorf("after redelivery (%d commit runs): version %d with %d rows, want %d rows and at most one version per run after %d",
				f.commitCalls, after.Version, len(after.Rows), len(before.Rows), before.Version)
		}
		checkRows(t, after, all)
		f.checkCommitted(all)
	})
}

// callsFile is written to out/e2e-calls.json.
type callsFile struct {
	InitialLoad phaseReport `json:"initialLoad"`
	SteadyState phaseReport `json:"steadyState"`
	Note        string      `json:"note"`
}

// phaseReport counts the AWS calls of one phase of the pipeline.
type phaseReport struct {
	Files              int                `json:"files"`
	Rows               int                `json:"rows"`
	TableVersion       int64              `json:"tableVersion"`
	DiscoveryInvokes   int                `json:"discoveryInvocations"`
	CommitInvokes      int                `json:"commitInvocations"`
	FunctionCalls      map[string]int     `json:"functionCalls"`
	FunctionCallsTotal int                `json:"functionCallsTotal"`
	PerFile            map[string]float64 `json:"functionCallsPerFile"`
	PerFileTotal       float64            `json:"functionCallsPerFileTotal"`
	PollerCalls        map[string]int     `json:"pollerCalls"`
	SourceGetObject    int                `json:"sourceGetObject"`
	OtherGetObject     map[string]int     `json:"otherGetObject"`
}

// phaseCalls logs the AWS calls the functions made for files and asserts
// that each source file was read readsPerFile times.
func phaseCalls(t *testing.T, f *fixture, files []inputFile, readsPerFile int) phaseReport {
	t.Helper()
	n := len(files)
	calls := f.calls.Snapshot()
	rep := phaseReport{
		Files:            n,
		TableVersion:     f.readTable().Version,
		DiscoveryInvokes: f.discoveryCalls,
		CommitInvokes:    f.commitCalls,
		FunctionCalls:    calls,
		PerFile:          map[string]float64{},
		PollerCalls:      f.poller.Snapshot(),
		OtherGetObject:   map[string]int{},
	}
	for _, in := range files {
		rep.Rows += len(in.Rows)
	}
	for _, op := range slices.Sorted(maps.Keys(calls)) {
		rep.FunctionCallsTotal += calls[op]
		rep.PerFile[op] = float64(calls[op]) / float64(n)
		t.Logf("%-36s %4d calls  %6.2f per file", op, calls[op], rep.PerFile[op])
	}
	rep.PerFileTotal = float64(rep.FunctionCallsTotal) / float64(n)
	t.Logf("%-36s %4d calls  %6.2f per file (%d files, %d discovery + %d commit invocations)",
		"total", rep.FunctionCallsTotal, rep.PerFileTotal, n, f.discoveryCalls, f.commitCalls)
	for _, op := range slices.Sorted(maps.Keys(rep.PollerCalls)) {
		t.Logf("poller %-29s %4d calls", op, rep.PollerCalls[op])
	}

	gets := f.gets.snapshot()
	srcPrefix := f.bucket + "/" + sourcePrefix
	for key, c := range gets {
		if strings.HasPrefix(key, srcPrefix) {
			rep.SourceGetObject += c
		} else {
			rep.OtherGetObject[strings.TrimPrefix(key, f.bucket+"/")] = c
		}
	}
	for _, in := range files {
		if c := gets[f.bucket+"/"+in.Key]; c != readsPerFile {
			t.Errorf("source file %q was read %d times, want %d", in.Key, c, readsPerFile)
		}
	}
	if rep.SourceGetObject != readsPerFile*n {
		t.Errorf("GetObject on source files = %d, want %d (%d per file)", rep.SourceGetObject, readsPerFile*n, readsPerFile)
	}
	t.Logf("GetObject: %d on source files, other keys %v", rep.SourceGetObject, rep.OtherGetObject)
	return rep
}

// TestBackfillFindsDroppedEvents loses the events of some files: the
// backfill listing registers exactly those, and the next commit adds their
// rows once.
func TestBackfillFindsDroppedEvents(t *testing.T) {
	f := newFixture(t)
	files := makeInputs("c", 9)
	dropped := map[string]bool{}
	for i, in := range files {
		if i%3 == 1 {
			dropped[strings.TrimPrefix(in.Key, sourcePrefix)] = true
		}
	}
	f.upload(files)

	// Receive every event; delete the dropped ones unhandled, deliver the rest.
	var keep []sqstypes.Message
	seenDropped := 0
	for {
		msgs := f.receive(f.eventsURL, 10)
		if len(msgs) == 0 {
			break
		}
		var lost []sqstypes.Message
		for _, m := range msgs {
			notes, err := tevents.Parse([]byte(aws.ToString(m.Body)))
			if err != nil || len(notes) != 1 {
				t.Fatalf("event body %s: %v (%d notifications)", aws.ToString(m.Body), err, len(notes))
			}
			if dropped[strings.TrimPrefix(notes[0].Key, sourcePrefix)] {
				lost = append(lost, m)
				seenDropped++
			} else {
				keep = append(keep, m)
			}
		}
		f.deleteMessages(f.eventsURL, lost, nil)
	}
	if seenDropped != len(dropped) {
		t.Fatalf("dropped %d events, want %d", seenDropped, len(dropped))
	}
	for len(keep) > 0 {
		batch := keep[:min(10, len(keep))]
		keep = keep[len(batch):]
		if resp := f.deliverEvents(batch); len(resp.BatchItemFailures) > 0 {
			t.Fatalf("discovery failed %+v", resp.BatchItemFailures)
		}
	}
	if failed := f.drain(); len(failed) > 0 {
		t.Fatalf("discovery failed messages %q", failed)
	}
	var delivered, lost []inputFile
	for _, in := range files {
		if dropped[strings.TrimPrefix(in.Key, sourcePrefix)] {
			lost = append(lost, in)
		} else {
			delivered = append(delivered, in)
		}
	}
	checkRows(t, f.readTable(), delivered)

	res, err := f.app.HandleBackfill(t.Context(), nil)
	if err != nil {
		t.Fatalf("HandleBackfill: %v (%+v)", err, res)
	}
	got := res.Streams[streamID]
	if got.NumNewListedFiles != len(lost) || got.NumListedFiles != len(files) || got.Error != "" {
		t.Fatalf("backfill = %+v, want %d listed and %d new", got, len(files), len(lost))
	}
	if failed := f.drain(); len(failed) > 0 {
		t.Fatalf("discovery failed messages %q", failed)
	}
	if f.commitCalls == 0 {
		t.Fatal("backfill registered files but no commit ran")
	}
	checkRows(t, f.readTable(), files)
	f.checkCommitted(files)

	// A second backfill finds nothing new and kicks nobody.
	f.resetCounts()
	res, err = f.app.HandleBackfill(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Streams[streamID]; got.NumNewListedFiles != 0 || got.NumListedFiles != len(files) {
		t.Fatalf("second backfill = %+v, want %d listed and none new", got, len(files))
	}
	if n := f.calls.Snapshot()["SQS.SendMessage"]; n != 0 {
		t.Fatalf("second backfill sent %d kicks", n)
	}
}

// TestMalformedMessagesReachDLQ sends unparseable messages in the same
// batch as valid S3 events: the valid ones are processed in that
// invocation, the bad ones are reported as batch item failures and, after
// the redrive limit, sit in the dead-letter queue.
func TestMalformedMessagesReachDLQ(t *testing.T) {
	f := newFixture(t)
	bad := []string{
		"garbage, not JSON",
		`{"Records":[{"eventName":"ObjectCreated:Put"}]}`,
		`{"Records":[]}`,
	}
	for _, b := range bad {
		if _, err := f.sqs.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(f.eventsURL), MessageBody: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	files := makeInputs("d", 4)
	f.upload(files)

	// One poll holds every message: each malformed one and each file's
	// event, copies allowed (SQS delivers at least once, and a retried
	// send adds a copy with an id of its own), and nothing else.
	msgs := f.receive(f.eventsURL, 10)
	badIDs := map[string]string{} // message id → body, copies included
	var valid []sqstypes.Message
	for _, m := range msgs {
		if slices.Contains(bad, aws.ToString(m.Body)) {
			badIDs[aws.ToString(m.MessageId)] = aws.ToString(m.Body)
		} else {
			valid = append(valid, m)
		}
	}
	if seen := slices.Compact(slices.Sorted(maps.Values(badIDs))); len(seen) != len(bad) || !coversKeys(t, valid, files) {
		t.Fatalf("received %d messages in one poll, want the %d malformed ones and an event per file (%d), copies allowed: %q", len(msgs), len(bad), len(files), bodiesOf(msgs))
	}
	resp := f.deliverEvents(msgs)
	failed := failedIDs(resp)
	if len(failed) != len(badIDs) || len(resp.BatchItemFailures) != len(badIDs) {
		t.Fatalf("batch item failures %+v, want exactly the %d malformed messages %v", resp.BatchItemFailures, len(badIDs), badIDs)
	}
	for id := range failed {
		if _, ok := badIDs[id]; !ok {
			t.Fatalf("valid message %s reported as failed", id)
		}
	}
	// The valid events were registered and kicked in that same invocation.
	for f.pumpKicks() {
	}
	checkRows(t, f.readTable(), files)
	f.checkCommitted(files)

	// The failed messages come back after the visibility timeout, fail
	// again, and after maxReceiveCount receives SQS moves them to the DLQ,
	// each under its own message id.
	deadline := time.Now().Add(30 * time.Second)
	inDLQ := map[string]string{} // message id → body (a DLQ message seen twice counts once)
	for len(inDLQ) < len(badIDs) {
		if time.Now().After(deadline) {
			t.Fatalf("after 30s the DLQ holds %d of %d malformed messages (events queue: %d visible)",
				len(inDLQ), len(badIDs), f.approxMessages(f.eventsURL))
		}
		time.Sleep(200 * time.Millisecond)
		msgs := f.receive(f.eventsURL, 10)
		if len(msgs) > 0 {
			resp := f.deliverEvents(msgs)
			if len(resp.BatchItemFailures) != len(msgs) {
				t.Fatalf("redelivered malformed messages: %d of %d failed, want all", len(resp.BatchItemFailures), len(msgs))
			}
			for _, m := range msgs {
				if _, ok := badIDs[aws.ToString(m.MessageId)]; !ok {
					t.Fatalf("unexpected message on the events queue: %s", aws.ToString(m.Body))
				}
			}
		}
		for _, m := range f.receive(f.dlqURL, 10) {
			id, body := aws.ToString(m.MessageId), aws.ToString(m.Body)
			if want, ok := badIDs[id]; !ok || body != want {
				t.Fatalf("DLQ message %s with body %q, want one of the malformed messages %v", id, body, badIDs)
			}
			if n := m.Attributes[string(sqstypes.MessageSystemAttributeNameApproximateReceiveCount)]; n == "" {
				t.Errorf("DLQ message without receive count: %v", m.Attributes)
			}
			inDLQ[id] = body
		}
	}
	if n := f.approxMessages(f.eventsURL); n != 0 {
		t.Fatalf("events queue still holds %d messages", n)
	}
	checkRows(t, f.readTable(), files)
}

// TestDiscoveryRefusesAForeignCheckpoint: the discovery function checks the
// stream's identity against its checkpoint before registering anything: a
// checkpoint made for another source fails the messages (they are retried,
// then reach the dead-letter queue) and no file enters the state.
func TestDiscoveryRefusesAForeignCheckpoint(t *testing.T) {
	f := newFixture(t)
	record := `{"version":2,"source":"s3://elsewhere/landing","streamId":"` + streamID + `","table":"s3://` + f.bucket + `/` + tablePrefix + `","format":"json","txnAppId":"` + streamID + `"}`
	if _, err := f.s3.PutObject(t.Context(), &s3.PutObjectInput{
		Bucket: aws.String(f.bucket), Key: aws.String("_checkpoints/" + streamID + "/source.json"), Body: strings.NewReader(record),
	}); err != nil {
		t.Fatal(err)
	}
	files := makeInputs("f", 3)
	f.upload(files)
	msgs := f.receive(f.eventsURL, 10)
	if !coversKeys(t, msgs, files) { // copies allowed (coversKeys)
		t.Fatalf("received events %q, want one for each of %d files", bodiesOf(msgs), len(files))
	}
	resp := f.deliverEvents(msgs)
	if len(resp.BatchItemFailures) != len(msgs) {
		t.Fatalf("%d of %d messages failed, want all: the checkpoint belongs to another source", len(resp.BatchItemFailures), len(msgs))
	}
	st := f.state()
	for e, err := range st.Entries(t.Context(), streamID) {
		if err != nil {
			t.Fatal(err)
		}
		t.Errorf("registered %s despite the foreign checkpoint", e.Path)
	}
}

// TestNewStateTableIsAdopted points the functions at a new, empty state
// table after a first ingest (a stack redeployed, or a point-in-time
// restore, which is always a new table). The first function to start
// registers the files of the checkpoint's batch plans in it as committed,
// so a backfill listing every file and redelivered events ingest nothing
// twice, and new files are ingested once.
func TestNewStateTableIsAdopted(t *testing.T) {
	f := newFixture(t)
	first := makeInputs("r", 6)
	f.upload(first)
	if failed := f.drain(); len(failed) > 0 {
		t.Fatalf("discovery failed messages %q", failed)
	}
	checkRows(t, f.readTable(), first)
	oldTable := f.stateTable
	oldID, err := dynamostate.New(f.ddb, oldTable).StoreID(t.Context())
	if err != nil {
		t.Fatal(err)
	}

	f.stateTable = oldTable + "-new"
	if err := dynamostate.CreateTable(t.Context(), f.ddb, f.stateTable); err != nil {
		t.Fatal(err)
	}
	f.app = f.newApp() // redeployed functions: a cold start on the new table
	f.resetCounts()
	res, err := f.app.HandleBackfill(t.Context(), nil)
	if err != nil {
		t.Fatalf("HandleBackfill: %v (%+v)", err, res)
	}
	if got := res.Streams[streamID]; got.NumNewListedFiles != 0 || got.NumListedFiles != len(first) || got.Error != "" {
		t.Fatalf("backfill on the new table = %+v, want %d listed and none new", got, len(first))
	}
	if failed := f.drain(); len(failed) > 0 {
		t.Fatalf("discovery failed messages %q", failed)
	}
	checkRows(t, f.readTable(), first)
	f.checkCommitted(first)

	// Redelivered events of the first files add nothing; new files once.
	for _, b := range f.bodies {
		if strings.Contains(b, "s3:TestEvent") {
			continue
		}
		if _, err := f.sqs.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(f.eventsURL), MessageBody: aws.String(b)}); err != nil {
			t.Fatal(err)
		}
	}
	more := makeInputs("s", 2)
	f.upload(more)
	if failed := f.drain(); len(failed) > 0 {
		t.Fatalf("discovery failed messages %q", failed)
	}
	all := append(slices.Clone(first), more...)
	checkRows(t, f.readTable(), all)
	f.checkCommitted(all)

	// The checkpoint now names the new table's store.
	obj, err := f.s3.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(f.bucket), Key: aws.String("_checkpoints/" + streamID + "/source.json")})
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Body.Close()
	var rec struct {
		StateStore string `json:"stateStore"`
	}
	if err := json.NewDecoder(obj.Body).Decode(&rec); err != nil {
		t.Fatal(err)
	}
	newID, err := dynamostate.New(f.ddb, f.stateTable).StoreID(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if rec.StateStore != newID || newID == oldID {
		t.Errorf("checkpoint records state store %q, want the new table's %q (old %q)", rec.StateStore, newID, oldID)
	}
}
