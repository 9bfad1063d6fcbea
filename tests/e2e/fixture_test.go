package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/google/uuid"

	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/state"
	tevents "github.com/tributary-io/tributary/events"
	"github.com/tributary-io/tributary/infra/awsclient"
	"github.com/tributary-io/tributary/infra/awstest"
	"github.com/tributary-io/tributary/infra/dynamostate"
	"github.com/tributary-io/tributary/infra/inboxstate"
	"github.com/tributary-io/tributary/infra/lambdafn"
	"github.com/tributary-io/tributary/infra/s3store"
	"github.com/tributary-io/tributary/infra/sqskick"
	"github.com/tributary-io/tributary/infra/streams"
)

func TestMain(m *testing.M) { awstest.Main(m) }

// Deployment constants: the stream and where its data lives in the bucket.
const (
	streamID     = "events"
	sourcePrefix = "landing/"
	tablePrefix  = "tables/events"
	// eventsVisibility is the events queue's visibility timeout in seconds:
	// short, so a failed message comes back quickly.
	eventsVisibility = 1
	// externalEventsVisibility replaces it on an external emulator: longer
	// than receive's long poll (externalWait), so a message received at the
	// start of a receive call cannot come back within the same call.
	externalEventsVisibility = 3
	// maxReceiveCount is the events queue's redrive limit.
	maxReceiveCount = 2
	// kickVisibility is the kick queue's visibility timeout in seconds.
	kickVisibility = 30
)

// fixture is one fresh deployment on the emulator: bucket, queues, state
// table and an App wired to them as Boot would wire it.
type fixture struct {
	t        *testing.T
	endpoint string
	// raw serves the test's own calls (uploads, setup); they are not counted.
	s3  *s3.Client
	sqs *sqs.Client
	ddb *dynamodb.Client
	// pollerSQS is the client of the driver that plays the Lambda SQS poller.
	pollerSQS *sqs.Client

	bucket, stateTable                   string
	eventsURL, eventsARN, dlqURL, dlqARN string
	kickURL, kickARN                     string
	configJSON                           string

	// calls counts the functions' AWS calls; poller counts the driver's.
	calls, poller *awsclient.CallCounter
	// gets records the GetObject keys the functions read.
	gets    *getRecorder
	metrics *syncBuffer
	app     *lambdafn.App

	// bodies holds every events-queue body handed to HandleDiscovery.
	bodies []string
	// discoveryCalls and commitCalls count handler invocations.
	discoveryCalls, commitCalls int
	// extraOptions are added to the stream's options (see reconfigure).
	extraOptions map[string]any
	// meter prices the functions' and the poller's calls (TestCost).
	meter *costMeter
	// emptyCommits counts commit invocations that added no table version
	// (drainESM).
	emptyCommits int
}

// newFixture creates a deployment with fresh resource names.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := t.Context()
	endpoint := awstest.Endpoint(t)
	raw := awstest.Config(t, endpoint)
	name := "e2e-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	f := &fixture{
		t:          t,
		endpoint:   endpoint,
		s3:         awsclient.NewS3(raw),
		sqs:        sqs.NewFromConfig(raw),
		ddb:        dynamodb.NewFromConfig(raw),
		bucket:     name,
		stateTable: name + "-state",
		calls:      awsclient.NewCallCounter(),
		poller:     awsclient.NewCallCounter(),
		gets:       &getRecorder{keys: map[string]int{}},
		metrics:    &syncBuffer{},
		meter:      newCostMeter(),
	}
	pollerCfg := raw.Copy()
	pollerCfg.APIOptions = append(pollerCfg.APIOptions, f.poller.AddTo, f.meter.AddTo)
	f.pollerSQS = sqs.NewFromConfig(pollerCfg)

	if _, err := f.s3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(f.bucket)}); err != nil {
		t.Fatalf("create bucket %s: %v", f.bucket, err)
	}
	f.dlqURL, f.dlqARN = f.createQueue(name+"-events-dlq", nil)
	visibility := eventsVisibility
	if awstest.External() != "" {
		visibility = externalEventsVisibility
	}
	redrive, _ := json.Marshal(map[string]string{"deadLetterTargetArn": f.dlqARN, "maxReceiveCount": strconv.Itoa(maxReceiveCount)})
	f.eventsURL, f.eventsARN = f.createQueue(name+"-events", map[string]string{
		"VisibilityTimeout": strconv.Itoa(visibility),
		"RedrivePolicy":     string(redrive),
	})
	f.kickURL, f.kickARN = f.createQueue(name+"-kick.fifo", map[string]string{
		"FifoQueue":         "true",
		"VisibilityTimeout": strconv.Itoa(kickVisibility),
	})
	if err := dynamostate.CreateTable(ctx, f.ddb, f.stateTable); err != nil {
		t.Fatal(err)
	}
	f.configJSON = f.streamConfig()
	f.app = f.newApp()

	// Setting the notification configuration makes S3 send an
	// s3:TestEvent; it must be accepted and deleted like any message.
	// moto sends it synchronously but swallows a failed send (S3 treats
	// the send as asynchronous), which happened in a CI run with the
	// tests in parallel: the configuration is put again (a new
	// s3:TestEvent) up to twice before the fixture gives up.
	var msgs []sqstypes.Message
	for attempt := 1; ; attempt++ {
		_, err := f.s3.PutBucketNotificationConfiguration(ctx, &s3.PutBucketNotificationConfigurationInput{
			Bucket: aws.String(f.bucket),
			NotificationConfiguration: &s3types.NotificationConfiguration{
				QueueConfigurations: []s3types.QueueConfiguration{{
					QueueArn: aws.String(f.eventsARN),
					Events:   []s3types.Event{"s3:ObjectCreated:*"},
					Filter: &s3types.NotificationConfigurationFilter{Key: &s3types.S3KeyFilter{
						FilterRules: []s3types.FilterRule{{Name: s3types.FilterRuleNamePrefix, Value: aws.String(sourcePrefix)}},
					}},
				}},
			},
		})
		if err != nil {
			t.Fatalf("put bucket notification configuration: %v", err)
		}
		msgs = f.receive(f.eventsURL, 10)
		if len(msgs) != 0 || attempt == 3 {
			break
		}
		t.Logf("attempt %d: no s3:TestEvent after configuring notifications; configuring again", attempt)
	}
	// One s3:TestEvent, or copies of it (a configuration put twice, or a
	// request retried by the SDK, sends another); nothing else.
	if len(msgs) == 0 || slices.ContainsFunc(msgs, func(m sqstypes.Message) bool { return !strings.Contains(aws.ToString(m.Body), "s3:TestEvent") }) {
		t.Fatalf("after configuring notifications the events queue holds %d messages, want s3:TestEvents only (one, or copies): %v", len(msgs), bodiesOf(msgs))
	}
	if resp := f.deliverEvents(msgs); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("the s3:TestEvent message failed: %+v", resp.BatchItemFailures)
	}
	f.resetCounts()
	return f
}

// streamConfig is the TRIBUTARY_CONFIG of the deployment.
func (f *fixture) streamConfig() string {
	b := "s3://" + f.bucket + "/"
	cfg := map[string]any{"streams": []any{map[string]any{
		"id":                 streamID,
		"source":             b + sourcePrefix,
		"table":              b + tablePrefix,
		"checkpointLocation": b + "_checkpoints/" + streamID,
		"schemaLocation":     b + "_checkpoints/" + streamID + "/_schema",
		"options": map[string]any{
			"cloudFiles.format":           "json",
			"cloudFiles.useNotifications": true,
			"cloudFiles.inferColumnTypes": true,
		},
	}}}
	opts := cfg["streams"].([]any)[0].(map[string]any)["options"].(map[string]any)
	for k, v := range f.extraOptions {
		opts[k] = v
	}
	out, err := json.Marshal(cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	return string(out)
}

// reconfigure redeploys the functions with extra stream options (a cold
// start: no stream stays open).
func (f *fixture) reconfigure(extra map[string]any) {
	f.t.Helper()
	f.extraOptions = extra
	f.configJSON = f.streamConfig()
	f.app = f.newApp()
}

// newApp builds the App as lambdafn.Boot does, with counting middleware.
func (f *fixture) newApp() *lambdafn.App { return f.newAppCounting(f.calls) }

// newAppCounting is newApp with its AWS calls counted by calls.
func (f *fixture) newAppCounting(calls *awsclient.CallCounter) *lambdafn.App {
	t := f.t
	cfg, err := options.LoadConfig(strings.NewReader(f.configJSON))
	if err != nil {
		t.Fatalf("stream config %s: %v", f.configJSON, err)
	}
	awsCfg, err := awsclient.Load(t.Context(),
		awsclient.WithEndpoint(f.endpoint),
		awsclient.WithRegion("us-east-1"),
		awsclient.WithLoadOptions(config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("test", "test", ""))),
		awsclient.WithAPIOptions(calls.AddTo, f.gets.AddTo, f.meter.AddTo))
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	return &lambdafn.App{
		Config:  cfg,
		Env:     streams.Env{AWS: &awsCfg, StateTable: f.stateTable, Logger: logger, TempDir: t.TempDir(), Notifications: true, ScheduledListing: true},
		Kicker:  &sqskick.Kicker{Client: sqs.NewFromConfig(awsCfg), QueueURL: f.kickURL},
		Logger:  logger,
		Metrics: f.metrics,
	}
}

func (f *fixture) createQueue(name string, attrs map[string]string) (url, arn string) {
	f.t.Helper()
	ctx := f.t.Context()
	out, err := f.sqs.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	if err != nil {
		f.t.Fatalf("create queue %s: %v", name, err)
	}
	a, err := f.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: out.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn},
	})
	if err != nil {
		f.t.Fatalf("queue %s attributes: %v", name, err)
	}
	return aws.ToString(out.QueueUrl), a.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
}

// use makes t the fixture's test (for a subtest) and returns a function
// that restores the previous one.
func (f *fixture) use(t *testing.T) func() {
	prev := f.t
	f.t = t
	return func() { f.t = prev }
}

func (f *fixture) resetCounts() {
	f.calls.Reset()
	f.poller.Reset()
	f.gets.reset()
	f.meter.reset()
	f.discoveryCalls, f.commitCalls = 0, 0
}

// ---- the driver: the Lambda SQS poller around the real handlers ----

// receive polls a queue. moto delivers S3 events synchronously with the
// PutObject, so against it one poll without a wait is exact. LocalStack
// (an external endpoint, see awstest.External) delivers them from a worker
// thread after the PutObject has returned: there receive long-polls
// (externalWait) and keeps polling until it has max messages or a poll
// comes back empty.
func (f *fixture) receive(queueURL string, max int32) []sqstypes.Message {
	f.t.Helper()
	var wait int32
	if awstest.External() != "" {
		wait = externalWait
	}
	var all []sqstypes.Message
	for {
		out, err := f.pollerSQS.ReceiveMessage(f.t.Context(), &sqs.ReceiveMessageInput{
			QueueUrl:                    aws.String(queueURL),
			MaxNumberOfMessages:         max - int32(len(all)),
			WaitTimeSeconds:             wait,
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
		})
		if err != nil {
			f.t.Fatalf("receive from %s: %v", queueURL, err)
		}
		all = append(all, out.Messages...)
		if wait == 0 || len(out.Messages) == 0 || len(all) >= int(max) {
			return all
		}
	}
}

// externalWait is the long-poll wait (seconds) against an external
// emulator, whose S3 notifications arrive asynchronously.
const externalWait = 1

// deleteMessages deletes msgs except those whose ids are in keep.
func (f *fixture) deleteMessages(queueURL string, msgs []sqstypes.Message, keep map[string]bool) {
	f.t.Helper()
	var entries []sqstypes.DeleteMessageBatchRequestEntry
	for i, m := range msgs {
		if keep[aws.ToString(m.MessageId)] {
			continue
		}
		entries = append(entries, sqstypes.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
	}
	if len(entries) == 0 {
		return
	}
	out, err := f.pollerSQS.DeleteMessageBatch(f.t.Context(), &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(queueURL), Entries: entries})
	if err != nil {
		f.t.Fatalf("delete messages from %s: %v", queueURL, err)
	}
	if len(out.Failed) > 0 {
		f.t.Fatalf("delete messages from %s: %d failed: %+v", queueURL, len(out.Failed), out.Failed)
	}
}

// sqsEvent wraps received messages as the Lambda SQS event source does.
func sqsEvent(queueARN string, msgs []sqstypes.Message) events.SQSEvent {
	var ev events.SQSEvent
	for _, m := range msgs {
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId:      aws.ToString(m.MessageId),
			ReceiptHandle:  aws.ToString(m.ReceiptHandle),
			Body:           aws.ToString(m.Body),
			Md5OfBody:      aws.ToString(m.MD5OfBody),
			Attributes:     m.Attributes,
			EventSource:    "aws:sqs",
			EventSourceARN: queueARN,
			AWSRegion:      "us-east-1",
		})
	}
	return ev
}

func failedIDs(resp events.SQSEventResponse) map[string]bool {
	ids := map[string]bool{}
	for _, f := range resp.BatchItemFailures {
		ids[f.ItemIdentifier] = true
	}
	return ids
}

// deliverEvents hands msgs to HandleDiscovery in one invocation and deletes
// the messages it did not report as failures.
func (f *fixture) deliverEvents(msgs []sqstypes.Message) events.SQSEventResponse {
	f.t.Helper()
	ev := sqsEvent(f.eventsARN, msgs)
	for _, r := range ev.Records {
		f.bodies = append(f.bodies, r.Body)
	}
	f.discoveryCalls++
	resp, err := f.app.HandleDiscovery(f.t.Context(), ev)
	if err != nil {
		f.t.Fatalf("HandleDiscovery returned an error (the whole batch would be retried): %v", err)
	}
	f.deleteMessages(f.eventsURL, msgs, failedIDs(resp))
	return resp
}

// pumpKicks takes one kick (the commit function's batch size is 1, as in
// template.yaml) and runs HandleCommit on it. It reports whether there was one.
func (f *fixture) pumpKicks() bool {
	f.t.Helper()
	msgs := f.receive(f.kickURL, 1)
	if len(msgs) == 0 {
		return false
	}
	f.commitCalls++
	resp, err := f.app.HandleCommit(f.t.Context(), sqsEvent(f.kickARN, msgs))
	if err != nil {
		f.t.Fatalf("HandleCommit returned an error: %v", err)
	}
	if len(resp.BatchItemFailures) > 0 {
		f.t.Fatalf("HandleCommit failed kicks %+v (see the log)", resp.BatchItemFailures)
	}
	f.deleteMessages(f.kickURL, msgs, nil)
	return true
}

// drain runs discovery and commit until both queues are empty and returns
// the ids of event messages discovery reported as failed (they stay on the
// queue, invisible for the visibility timeout).
func (f *fixture) drain() []string {
	f.t.Helper()
	var failed []string
	for {
		busy := false
		for {
			msgs := f.receive(f.eventsURL, 10)
			if len(msgs) == 0 {
				break
			}
			busy = true
			for _, fl := range f.deliverEvents(msgs).BatchItemFailures {
				failed = append(failed, fl.ItemIdentifier)
			}
		}
		for f.pumpKicks() {
			busy = true
		}
		if !busy {
			return failed
		}
	}
}

// approxMessages returns a queue's ApproximateNumberOfMessages (visible).
func (f *fixture) approxMessages(queueURL string) int {
	f.t.Helper()
	out, err := f.sqs.GetQueueAttributes(f.t.Context(), &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(queueURL),
		AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessages},
	})
	if err != nil {
		f.t.Fatal(err)
	}
	n, err := strconv.Atoi(out.Attributes[string(sqstypes.QueueAttributeNameApproximateNumberOfMessages)])
	if err != nil {
		f.t.Fatal(err)
	}
	return n
}

func bodiesOf(msgs []sqstypes.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, aws.ToString(m.Body))
	}
	return out
}

// coversKeys reports whether msgs hold an S3 object-created event for
// each of files and for nothing else, read by events.Parse as discovery
// reads them; copies of an event are allowed (and logged), as SQS and SDK
// retries make them.
func coversKeys(t *testing.T, msgs []sqstypes.Message, files []inputFile) bool {
	t.Helper()
	var keys []string
	for _, m := range msgs {
		ns, err := tevents.Parse([]byte(aws.ToString(m.Body))) // the discovery function's own reading
		if err != nil || len(ns) != 1 || ns[0].Kind != tevents.Created {
			t.Logf("not one object-created event: %s (%v)", aws.ToString(m.Body), err)
			return false
		}
		keys = append(keys, ns[0].Key)
	}
	return keysCover(t, keys, files)
}

// keysCover reports whether keys (one per event) name each of files and
// nothing else; a key may come more than once (copies of an event, logged).
func keysCover(t *testing.T, keys []string, files []inputFile) bool {
	t.Helper()
	want := map[string]int{}
	for _, in := range files {
		want[in.Key] = 0
	}
	for _, key := range keys {
		if _, known := want[key]; !known {
			t.Logf("an event of an unexpected key %q", key)
			return false
		}
		want[key]++
	}
	for key, n := range want {
		switch {
		case n == 0:
			t.Logf("no event of %s", key)
			return false
		case n > 1:
			t.Logf("%d events of %s (copies)", n, key)
		}
	}
	return true
}

// ---- input files ----

// inputFile is one NDJSON source file.
type inputFile struct {
	// Key is the full object key (under sourcePrefix).
	Key  string
	Rows []inputRow
}

// inputRow is one record of an input file.
type inputRow struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Msg  string `json:"msg"`
}

// keyTemplates exercise the URL encoding of keys in S3 events: S3 encodes
// spaces as '+', so a literal '+' arrives as %2B and a literal '%' as %25.
var keyTemplates = []string{
	"plain-%02d.json",
	"with space %02d.json",
	"plus+sign %02d.json",
	"ünïcødé ✓ %02d.json",
	"日本語/データ %02d.json",
	"nested dir/a=b&c;d %02d.json",
	"percent%%20literal %02d.json",
	"q?mark (paren) %02d.json",
}

// makeInputs returns n files with distinct keys (every third gzipped).
func makeInputs(tag string, n int) []inputFile {
	files := make([]inputFile, n)
	for i := range files {
		name := fmt.Sprintf(keyTemplates[i%len(keyTemplates)], i)
		if i%3 == 2 {
			name += ".gz"
		}
		key := sourcePrefix + tag + "/" + name
		rows := make([]inputRow, 3+i%4)
		for j := range rows {
			rows[j] = inputRow{File: key, Line: j, Msg: fmt.Sprintf("héllo ✓ %d/%d «%s»", i, j, tag)}
		}
		files[i] = inputFile{Key: key, Rows: rows}
	}
	return files
}

// upload puts the files; S3 sends one event per object.
func (f *fixture) upload(files []inputFile) {
	f.t.Helper()
	for _, in := range files {
		var buf bytes.Buffer
		var w io.Writer = &buf
		var gz *gzip.Writer
		if strings.HasSuffix(in.Key, ".gz") {
			gz = gzip.NewWriter(&buf)
			w = gz
		}
		enc := json.NewEncoder(w)
		for _, r := range in.Rows {
			if err := enc.Encode(r); err != nil {
				f.t.Fatal(err)
			}
		}
		if gz != nil {
			if err := gz.Close(); err != nil {
				f.t.Fatal(err)
			}
		}
		_, err := f.s3.PutObject(f.t.Context(), &s3.PutObjectInput{
			Bucket: aws.String(f.bucket), Key: aws.String(in.Key), Body: bytes.NewReader(buf.Bytes()),
		})
		if err != nil {
			f.t.Fatalf("put %q: %v", in.Key, err)
		}
	}
}

// ---- checks ----

// tableSnapshot is what the independent reader saw.
type tableSnapshot struct {
	Version int64            `json:"version"`
	Columns []string         `json:"columns"`
	Rows    []map[string]any `json:"rows"`
}

// readTable reads the Delta table with delta-rs (tests/e2e/testdata/read_table.py).
func (f *fixture) readTable() tableSnapshot {
	f.t.Helper()
	return readDeltaTable(f.t, f.endpoint, "s3://"+f.bucket+"/"+tablePrefix)
}

func readDeltaTable(t *testing.T, endpoint, uri string) tableSnapshot {
	t.Helper()
	out, err := exec.Command(filepath.Join(repoRoot(t), "scripts", "pyenv.sh")).Output()
	if err != nil {
		t.Fatalf("scripts/pyenv.sh: %v", err)
	}
	py := filepath.Join(strings.TrimSpace(string(out)), "python")
	cmd := exec.CommandContext(t.Context(), py, filepath.Join("testdata", "read_table.py"), endpoint, uri)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("reading %s with delta-rs: %v\n%s", uri, err, stderr.String())
	}
	var snap tableSnapshot
	if err := json.Unmarshal(raw, &snap); err != nil {
		t.Fatalf("reader output: %v\n%s", err, raw)
	}
	return snap
}

// rowKey identifies a row by its content.
func rowKey(file string, line int, msg string) string {
	return file + "\x00" + strconv.Itoa(line) + "\x00" + msg
}

// checkRows asserts that the table holds exactly the rows of files, each once.
func checkRows(t *testing.T, snap tableSnapshot, files []inputFile) {
	t.Helper()
	want := map[string]bool{}
	for _, in := range files {
		for _, r := range in.Rows {
			want[rowKey(r.File, r.Line, r.Msg)] = true
		}
	}
	got := map[string]int{}
	for i, r := range snap.Rows {
		file, _ := r["file"].(string)
		line, lok := r["line"].(float64)
		msg, _ := r["msg"].(string)
		if !lok {
			t.Fatalf("row %d: line = %#v (%T), want a number; row %v", i, r["line"], r["line"], r)
		}
		if v, ok := r["_rescued_data"]; ok && v != nil {
			t.Errorf("row %d has rescued data %v", i, v)
		}
		got[rowKey(file, int(line), msg)]++
	}
	var missing, extra, dup []string
	for k := range want {
		if got[k] == 0 {
			missing = append(missing, k)
		}
	}
	for k, n := range got {
		switch {
		case !want[k]:
			extra = append(extra, k)
		case n > 1:
			dup = append(dup, fmt.Sprintf("%s (x%d)", k, n))
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	slices.Sort(dup)
	if len(missing)+len(extra)+len(dup) > 0 {
		t.Fatalf("table version %d has %d rows, want %d distinct rows each once:\nmissing %d: %q\nunexpected %d: %q\nduplicated %d: %q",
			snap.Version, len(snap.Rows), len(want), len(missing), head(missing), len(extra), head(extra), len(dup), head(dup))
	}
}

func head(s []string) []string {
	if len(s) > 5 {
		return s[:5]
	}
	return s
}

// stateOf opens the file state of the stream whose checkpoint is at
// prefix cp of the bucket, as the functions open it (the table's items and
// the checkpoint's inbox of pending files).
func (f *fixture) stateOf(cp string) *inboxstate.Store {
	f.t.Helper()
	store, err := s3store.New(f.s3, f.bucket, cp)
	if err != nil {
		f.t.Fatal(err)
	}
	return inboxstate.New(dynamostate.New(f.ddb, f.stateTable), store)
}

// state opens the file state of the fixture's stream.
func (f *fixture) state() *inboxstate.Store { return f.stateOf("_checkpoints/" + streamID + "/") }

// checkCommitted asserts that the file state holds exactly files, all
// committed, under their decoded keys relative to the source prefix.
func (f *fixture) checkCommitted(files []inputFile) {
	f.t.Helper()
	st := f.state()
	var got []string
	for e, err := range st.Entries(f.t.Context(), streamID) {
		if err != nil {
			f.t.Fatal(err)
		}
		if e.State != state.Committed {
			f.t.Errorf("file %q is %s, want %s", e.Path, e.State, state.Committed)
		}
		got = append(got, e.Path)
	}
	var want []string
	for _, in := range files {
		want = append(want, strings.TrimPrefix(in.Key, sourcePrefix))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		f.t.Fatalf("file state paths:\n got %q\nwant %q", got, want)
	}
}

// ---- helpers ----

// getRecorder is SDK middleware recording the bucket/key of every GetObject.
type getRecorder struct {
	mu   sync.Mutex
	keys map[string]int
}

// AddTo registers the recorder on a stack (aws.Config.APIOptions).
func (g *getRecorder) AddTo(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("e2e.GetRecorder",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			if p, ok := in.Parameters.(*s3.GetObjectInput); ok {
				g.mu.Lock()
				g.keys[aws.ToString(p.Bucket)+"/"+aws.ToString(p.Key)]++
				g.mu.Unlock()
			}
			return next.HandleInitialize(ctx, in)
		}), middleware.After)
}

func (g *getRecorder) snapshot() map[string]int {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(map[string]int, len(g.keys))
	for k, v := range g.keys {
		out[k] = v
	}
	return out
}

func (g *getRecorder) reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	clear(g.keys)
}

// syncBuffer is a goroutine-safe bytes.Buffer.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Reset empties the buffer.
func (b *syncBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testWriter sends log lines to t.Log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// repoRoot is the module root (tests run in tests/e2e).
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from %s: %v", root, err)
	}
	return root
}

// writeOut writes v as indented JSON to out/<name> at the repository root.
func writeOut(t testing.TB, name string, v any) {
	t.Helper()
	dir := filepath.Join(repoRoot(t), "out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", filepath.Join(dir, name))
}
