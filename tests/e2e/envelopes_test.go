package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/eventbridge"
	ebtypes "github.com/aws/aws-sdk-go-v2/service/eventbridge/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sns"

	tevents "github.com/tributary-io/tributary/events"
	"github.com/tributary-io/tributary/infra/awstest"
	"github.com/tributary-io/tributary/infra/lambdafn"
)

// snsEnvelope is the part of the SNS-to-SQS envelope (no raw message
// delivery) the test checks.
type snsEnvelope struct {
	Type     string `json:"Type"`
	TopicArn string `json:"TopicArn"`
	Message  string `json:"Message"`
}

// decodeSNSEnvelope decodes body as an SNS envelope and fails the test if it
// is not a Notification from topicARN carrying JSON.
func decodeSNSEnvelope(t *testing.T, body, topicARN string) snsEnvelope {
	t.Helper()
	var env snsEnvelope
	if err := json.Unmarshal([]byte(body), &env); err != nil {
		t.Fatalf("events-queue body is not JSON: %v\n%s", err, body)
	}
	if env.Type != "Notification" || env.TopicArn != topicARN || !json.Valid([]byte(env.Message)) {
		t.Fatalf("events-queue body is not an SNS Notification from %s with a JSON Message:\n%s", topicARN, body)
	}
	return env
}

// TestSNSWrappedNotifications routes the bucket notifications through an
// SNS topic: S3 publishes its events to the topic (moto's real S3-to-SNS
// notification) and the topic fans them out to the events queue through a
// subscription without raw message delivery, so each SQS body is an SNS
// envelope whose Message is the S3 event JSON. Discovery unwraps it, keys
// with spaces and '+' decode correctly, and every row lands in the table
// exactly once.
func TestSNSWrappedNotifications(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	snsc := sns.NewFromConfig(awstest.Config(t, f.endpoint))

	topic, err := snsc.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(f.bucket + "-events")})
	if err != nil {
		t.Fatalf("create topic: %v", err)
	}
	topicARN := aws.ToString(topic.TopicArn)
	// The subscription as template.yaml creates it with Notifications=SNS.
	res := templateNotifications(t, f, "SNS", topicARN)
	tsub := res["SourceTopicSubscription"]
	if len(res) != 1 || tsub == nil || tsub["TopicArn"] != topicARN || tsub["Endpoint"] != f.eventsARN || tsub["Protocol"] != "sqs" {
		t.Fatalf("template with Notifications=SNS renders %v, want one subscription of the events queue to %s", res, topicARN)
	}
	sub, err := snsc.Subscribe(ctx, &sns.SubscribeInput{
		TopicArn:              aws.String(tsub["TopicArn"].(string)),
		Protocol:              aws.String(tsub["Protocol"].(string)),
		Endpoint:              aws.String(tsub["Endpoint"].(string)),
		Attributes:            map[string]string{"RawMessageDelivery": fmt.Sprint(tsub["RawMessageDelivery"])},
		ReturnSubscriptionArn: true,
	})
	if err != nil {
		t.Fatalf("subscribe %s to %s: %v", f.eventsARN, topicARN, err)
	}
	attrs, err := snsc.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn})
	if err != nil {
		t.Fatalf("subscription attributes: %v", err)
	}
	if raw := attrs.Attributes["RawMessageDelivery"]; raw == "true" {
		t.Fatalf("subscription has RawMessageDelivery=%s, want the SNS envelope", raw)
	}

	// Replace the fixture's direct S3-to-SQS notification with S3-to-SNS.
	_, err = f.s3.PutBucketNotificationConfiguration(ctx, &s3.PutBucketNotificationConfigurationInput{
		Bucket: aws.String(f.bucket),
		NotificationConfiguration: &s3types.NotificationConfiguration{
			TopicConfigurations: []s3types.TopicConfiguration{{
				TopicArn: aws.String(topicARN),
				Events:   []s3types.Event{"s3:ObjectCreated:*"},
				Filter: &s3types.NotificationConfigurationFilter{Key: &s3types.S3KeyFilter{
					FilterRules: []s3types.FilterRule{{Name: s3types.FilterRuleNamePrefix, Value: aws.String(sourcePrefix)}},
				}},
			}},
		},
	})
	if err != nil {
		t.Fatalf("put bucket notification configuration (SNS): %v", err)
	}

	// The new configuration's s3:TestEvent arrives through the topic, wrapped.
	// (Copies allowed, as for the fixture's own s3:TestEvent.)
	msgs := f.receive(f.eventsURL, 10)
	if len(msgs) == 0 {
		t.Fatal("after configuring SNS notifications the events queue is empty, want a wrapped s3:TestEvent")
	}
	for _, m := range msgs {
		if env := decodeSNSEnvelope(t, aws.ToString(m.Body), topicARN); !strings.Contains(env.Message, "s3:TestEvent") {
			t.Fatalf("after configuring SNS notifications the events queue holds %d messages, want wrapped s3:TestEvents only; one is: %s", len(msgs), env.Message)
		}
	}
	if resp := f.deliverEvents(msgs); len(resp.BatchItemFailures) != 0 {
		t.Fatalf("the wrapped s3:TestEvent failed: %+v", resp.BatchItemFailures)
	}
	if f.pumpKicks() {
		t.Fatal("the s3:TestEvent produced a commit kick")
	}
	f.bodies = nil
	f.resetCounts()

	// Plain, "with space", "plus+sign" (gzipped) and non-ASCII keys.
	f.ingestThroughEnvelope(makeInputs("sns", 6), tevents.SourceSNS, func(b string) {
		env := decodeSNSEnvelope(t, b, topicARN)
		var s3ev struct {
			Records []json.RawMessage `json:"Records"`
		}
		if err := json.Unmarshal([]byte(env.Message), &s3ev); err != nil || len(s3ev.Records) != 1 {
			t.Fatalf("SNS Message is not an S3 event with one record (%v): %s", err, env.Message)
		}
	})
}

// ingestThroughEnvelope uploads files, drains the pipeline and checks that
// each file arrived as exactly one event body of the given envelope source
// (inspect adds per-body checks), then that every row landed exactly once
// and every state entry is committed.
func (f *fixture) ingestThroughEnvelope(files []inputFile, source tevents.Source, inspect func(body string)) {
	t := f.t
	t.Helper()
	f.upload(files)
	if failed := f.drain(); len(failed) > 0 {
		t.Fatalf("discovery failed messages %q", failed)
	}
	if f.commitCalls == 0 {
		t.Fatal("no commit ran")
	}
	var keys []string
	for _, b := range f.bodies {
		if inspect != nil {
			inspect(b)
		}
		notes, err := tevents.Parse([]byte(b))
		if err != nil || len(notes) != 1 {
			t.Fatalf("parse %s event: %v (%d notifications)\n%s", source, err, len(notes), b)
		}
		if n := notes[0]; n.Source != source || n.Kind != tevents.Created || n.Bucket != f.bucket {
			t.Fatalf("event parsed as source %q kind %s bucket %q, want %q Created %q:\n%s", n.Source, n.Kind, n.Bucket, source, f.bucket, b)
		}
		keys = append(keys, notes[0].Key)
	}
	// One event per file, or copies of it (SQS delivers at least once, and
	// a retried request adds a copy), and none of anything else.
	if !keysCover(t, keys, files) {
		t.Fatalf("discovery's events are of keys %q, want each uploaded key (copies allowed) and nothing else", keys)
	}
	checkRows(t, f.readTable(), files)
	f.checkCommitted(files)
}

// TestEventBridgeNotifications routes the bucket notifications through
// EventBridge: the bucket sends its events to the default event bus (moto's
// real S3-to-EventBridge notification) and a rule matching "Object Created"
// events of this bucket under the source prefix targets the events queue, so each SQS body is the
// EventBridge event, whose key is not URL-encoded. Every row lands in the
// table exactly once.
func TestEventBridgeNotifications(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	eb := eventbridge.NewFromConfig(awstest.Config(t, f.endpoint))

	// The rule as template.yaml creates it with Notifications=EventBridge
	// on an existing bucket: the bucket sends every object to EventBridge
	// (no key filter on its side); the rule keeps the source prefix.
	res := templateNotifications(t, f, "EventBridge", "")
	trule := res["ObjectCreatedRule"]
	if len(res) != 1 || trule == nil {
		t.Fatalf("template with Notifications=EventBridge renders %v, want the one rule", res)
	}
	targets := trule["Targets"].([]any)
	if len(targets) != 1 || targets[0].(map[string]any)["Arn"] != f.eventsARN {
		t.Fatalf("rule targets %v, want the events queue %s", targets, f.eventsARN)
	}
	pattern, err := json.Marshal(trule["EventPattern"])
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("event pattern from template.yaml: %s", pattern)
	rule := f.bucket + "-created"
	if _, err := eb.PutRule(ctx, &eventbridge.PutRuleInput{Name: aws.String(rule), EventPattern: aws.String(string(pattern))}); err != nil {
		t.Fatalf("put rule %s: %v", rule, err)
	}
	// The emulator is shared by the package's tests: remove the rule.
	t.Cleanup(func() {
		bg := context.Background()
		if _, err := eb.RemoveTargets(bg, &eventbridge.RemoveTargetsInput{Rule: aws.String(rule), Ids: []string{"events"}}); err != nil {
			t.Errorf("remove targets of rule %s: %v", rule, err)
		}
		if _, err := eb.DeleteRule(bg, &eventbridge.DeleteRuleInput{Name: aws.String(rule)}); err != nil {
			t.Errorf("delete rule %s: %v", rule, err)
		}
	})
	out, err := eb.PutTargets(ctx, &eventbridge.PutTargetsInput{
		Rule:    aws.String(rule),
		Targets: []ebtypes.Target{{Id: aws.String("events"), Arn: aws.String(f.eventsARN)}},
	})
	if err != nil || out.FailedEntryCount != 0 {
		t.Fatalf("put target %s on rule %s: %v (%+v)", f.eventsARN, rule, err, out)
	}

	// Replace the fixture's direct S3-to-SQS notification with EventBridge.
	_, err = f.s3.PutBucketNotificationConfiguration(ctx, &s3.PutBucketNotificationConfigurationInput{
		Bucket: aws.String(f.bucket),
		NotificationConfiguration: &s3types.NotificationConfiguration{
			EventBridgeConfiguration: &s3types.EventBridgeConfiguration{},
		},
	})
	if err != nil {
		t.Fatalf("put bucket notification configuration (EventBridge): %v", err)
	}
	if msgs := f.receive(f.eventsURL, 10); len(msgs) != 0 {
		t.Fatalf("after configuring EventBridge notifications the events queue holds %d messages, want none: %q", len(msgs), bodiesOf(msgs))
	}
	f.bodies = nil
	f.resetCounts()

	f.ingestThroughEnvelope(makeInputs("eb", 6), tevents.SourceEventBridge, nil)
}

// The fixture's S3-to-SQS notification is the one template.yaml gives a
// bucket it creates with Notifications=S3 (all object-created events under
// the source prefix, to the events queue), and that mode creates no rule
// or subscription; a created bucket with Notifications=EventBridge sends
// its events to EventBridge instead.
func TestTemplateS3Notifications(t *testing.T) {
	f := newFixture(t)
	res := templateNotifications(t, f, "S3", "")
	if len(res) != 1 || res["SourceBucket"] == nil {
		t.Fatalf("template with Notifications=S3 renders %v, want only the bucket", res)
	}
	got, err := json.Marshal(res["SourceBucket"]["NotificationConfiguration"])
	if err != nil {
		t.Fatal(err)
	}
	want := `{"QueueConfigurations":[{"Event":"s3:ObjectCreated:*","Filter":{"S3Key":{"Rules":[{"Name":"prefix","Value":"` + sourcePrefix + `"}]}},"Queue":"` + f.eventsARN + `"}]}`
	if string(got) != want {
		t.Errorf("template's notification configuration\n%s\nwant the fixture's\n%s", got, want)
	}
	out, err := f.s3.GetBucketNotificationConfiguration(t.Context(), &s3.GetBucketNotificationConfigurationInput{Bucket: aws.String(f.bucket)})
	if err != nil {
		t.Fatal(err)
	}
	if q := out.QueueConfigurations; len(q) != 1 || aws.ToString(q[0].QueueArn) != f.eventsARN || len(q[0].Events) != 1 || q[0].Events[0] != "s3:ObjectCreated:*" ||
		len(q[0].Filter.Key.FilterRules) != 1 || aws.ToString(q[0].Filter.Key.FilterRules[0].Value) != sourcePrefix {
		t.Errorf("the fixture's bucket notification configuration differs from the template's: %+v", out.QueueConfigurations)
	}

	s := newStack(t, loadTemplate(t), map[string]string{
		"StreamId": streamID, "SourceBucketName": f.bucket, "SourcePrefix": sourcePrefix, "Format": "json",
		"Notifications": "EventBridge", "CreateSourceBucket": "true",
	}, map[string]string{"EventsQueue": f.eventsURL}, map[string]string{"EventsQueue.Arn": f.eventsARN})
	nc, _ := json.Marshal(s.render(s.resource("SourceBucket")["Properties"].(map[string]any)["NotificationConfiguration"]))
	if string(nc) != `{"EventBridgeConfiguration":{"EventBridgeEnabled":true}}` {
		t.Errorf("a created bucket with Notifications=EventBridge has notification configuration %s", nc)
	}
}

// TestTemplateListingModeWiresNoEvents: with Notifications=None (directory
// listing streams) the template wires no object events — a created bucket
// has no notification configuration, there is no rule and no subscription
// — and the events queue's policy lets nothing send; the functions' stream
// defaults to directory listing.
func TestTemplateListingModeWiresNoEvents(t *testing.T) {
	const queueARN = "arn:aws:sqs:us-east-1:123456789012:events"
	for _, created := range []string{"true", "false"} {
		s := newStack(t, loadTemplate(t), map[string]string{
			"StreamId": streamID, "SourceBucketName": "landing-none", "SourcePrefix": sourcePrefix, "Format": "json",
			"Notifications": "None", "CreateSourceBucket": created,
		}, map[string]string{"EventsQueue": "https://sqs.us-east-1.amazonaws.com/123456789012/events", "StateTable": "state",
			"KickQueue": "https://sqs.us-east-1.amazonaws.com/123456789012/kick.fifo", "SourceBucket": "landing-none"},
			map[string]string{"EventsQueue.Arn": queueARN})
		for _, id := range []string{"ObjectCreatedRule", "SourceTopicSubscription"} {
			if s.resource(id) != nil {
				t.Errorf("CreateSourceBucket=%s: Notifications=None creates %s", created, id)
			}
		}
		if b := s.resource("SourceBucket"); b != nil {
			if nc, ok := s.render(b["Properties"]).(map[string]any)["NotificationConfiguration"]; ok {
				t.Errorf("a created bucket with Notifications=None has notification configuration %v", nc)
			}
		}
		doc := s.render(s.resource("EventsQueuePolicy")["Properties"]).(map[string]any)["PolicyDocument"].(map[string]any)
		for _, raw := range doc["Statement"].([]any) {
			if st := raw.(map[string]any); st["Effect"] != "Deny" {
				t.Errorf("Notifications=None: the events queue policy allows %v", st)
			}
		}
		env := s.render(loadTemplate(t)["Globals"].(map[string]any)["Function"].(map[string]any)["Environment"]).(map[string]any)["Variables"].(map[string]any)
		if got := s.str(env[lambdafn.EnvNotifications]); got != lambdafn.NotificationsNone {
			t.Errorf("%s=%q, want %q", lambdafn.EnvNotifications, got, lambdafn.NotificationsNone)
		}
	}
}

// TestTemplateDiscoveryPollsOnlyWithEvents: the discovery function's
// mapping from the events queue is enabled when events are wired and
// disabled under Notifications=None, where nothing sends to the queue and
// Lambda's pollers would bill empty receives for nothing.
func TestTemplateDiscoveryPollsOnlyWithEvents(t *testing.T) {
	tpl := loadTemplate(t)
	for _, c := range []struct {
		notifications, created string
		enabled                bool
	}{
		{"S3", "true", true},
		{"EventBridge", "false", true},
		{"SNS", "false", true},
		{"None", "false", false},
		{"None", "true", false},
	} {
		params := map[string]string{
			"StreamId": streamID, "SourceBucketName": "landing", "SourcePrefix": sourcePrefix, "Format": "json",
			"Notifications": c.notifications, "CreateSourceBucket": c.created,
		}
		if c.notifications == "SNS" {
			params["SourceTopicArn"] = "arn:aws:sns:us-east-1:123456789012:landing"
		}
		s := newStack(t, tpl, params, map[string]string{}, map[string]string{"EventsQueue.Arn": "arn:aws:sqs:us-east-1:123456789012:events"})
		ev := s.resource("DiscoveryFunction")["Properties"].(map[string]any)["Events"].(map[string]any)["ObjectEvents"].(map[string]any)["Properties"].(map[string]any)
		if got := s.render(ev["Enabled"]); got != c.enabled {
			t.Errorf("Notifications=%s CreateSourceBucket=%s: the discovery mapping's Enabled is %v, want %v", c.notifications, c.created, got, c.enabled)
		}
	}
}
