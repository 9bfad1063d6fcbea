package sqskick_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/tributary-io/tributary/events"
	"github.com/tributary-io/tributary/infra/awstest"
	"github.com/tributary-io/tributary/infra/sqskick"
)

func TestMain(m *testing.M) { awstest.Main(m) }

func TestKicksArriveGroupedByStream(t *testing.T) {
	ctx := context.Background()
	client := sqs.NewFromConfig(awstest.Config(t, awstest.Endpoint(t)))
	q, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{
		QueueName:  aws.String("kicks-" + time.Now().Format("150405.000000000")[7:] + ".fifo"),
		Attributes: map[string]string{"FifoQueue": "true"},
	})
	if err != nil {
		t.Fatal(err)
	}
	k := &sqskick.Kicker{Client: client, QueueURL: *q.QueueUrl}
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	// Two kicks in the same instant for the same stream are both kept: a
	// kick must never be collapsed into one that a running commit already saw.
	for _, kick := range []events.Kick{
		{Stream: "s1", Reason: events.ReasonDiscovered, At: at},
		{Stream: "s1", Reason: events.ReasonBackfill, At: at.Add(time.Nanosecond)},
		{Stream: "s2", Reason: events.ReasonDiscovered, At: at},
	} {
		if err := k.Kick(ctx, kick); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string][]string{}
	for i := 0; i < 5 && len(got["s1"])+len(got["s2"]) < 3; i++ {
		out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameMessageGroupId},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range out.Messages {
			kick, err := events.UnmarshalKick([]byte(*m.Body))
			if err != nil {
				t.Fatal(err)
			}
			if g := m.Attributes[string(types.MessageSystemAttributeNameMessageGroupId)]; g != kick.Stream {
				t.Errorf("kick for %s in group %q", kick.Stream, g)
			}
			got[kick.Stream] = append(got[kick.Stream], kick.Reason)
			client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle})
		}
	}
	if len(got["s1"]) != 2 || len(got["s2"]) != 1 || got["s1"][0] != events.ReasonDiscovered {
		t.Fatalf("received %v", got)
	}
}

func TestKickRejectsInvalid(t *testing.T) {
	k := &sqskick.Kicker{QueueURL: "unused"}
	if err := k.Kick(context.Background(), events.Kick{}); err == nil {
		t.Fatal("a kick without stream and time was sent")
	}
}

func TestApproximateDepth(t *testing.T) {
	ctx := context.Background()
	client := sqs.NewFromConfig(awstest.Config(t, awstest.Endpoint(t)))
	q, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("depth-" + time.Now().Format("150405.000000000")[7:])})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("x")}); err != nil {
			t.Fatal(err)
		}
	}
	n, err := sqskick.ApproximateDepth(ctx, client, *q.QueueUrl)
	if err != nil || n != 3 {
		t.Fatalf("depth %d, %v", n, err)
	}
	if _, err := sqskick.ApproximateDepth(ctx, client, *q.QueueUrl+"-missing"); err == nil {
		t.Fatal("depth of a missing queue")
	}
}

// TestKicksCollapsePerWindow: with a Window, the kicks of found files for
// one stream within one window become one message; a kick in the next
// window, another stream's kick and a continue kick are kept.
func TestKicksCollapsePerWindow(t *testing.T) {
	ctx := context.Background()
	client := sqs.NewFromConfig(awstest.Config(t, awstest.Endpoint(t)))
	q, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{
		QueueName:  aws.String("kickw-" + time.Now().Format("150405.000000000")[7:] + ".fifo"),
		Attributes: map[string]string{"FifoQueue": "true"},
	})
	if err != nil {
		t.Fatal(err)
	}
	k := &sqskick.Kicker{Client: client, QueueURL: *q.QueueUrl, Window: time.Minute}
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, kick := range []events.Kick{
		{Stream: "s1", Reason: events.ReasonDiscovered, At: at},
		{Stream: "s1", Reason: events.ReasonDiscovered, At: at.Add(10 * time.Second)}, // collapsed
		{Stream: "s1", Reason: events.ReasonBackfill, At: at.Add(59 * time.Second)},   // collapsed
		{Stream: "s1", Reason: events.ReasonContinue, At: at.Add(30 * time.Second)},   // kept
		{Stream: "s1", Reason: events.ReasonDiscovered, At: at.Add(time.Minute)},      // next window
		{Stream: "s2", Reason: events.ReasonDiscovered, At: at.Add(20 * time.Second)}, // other stream
	} {
		if err := k.Kick(ctx, kick); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for i := 0; i < 10; i++ {
		out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Messages) == 0 {
			break
		}
		for _, m := range out.Messages {
			kick, err := events.UnmarshalKick([]byte(*m.Body))
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, kick.Stream+"/"+kick.Reason+"@"+kick.At.Format("04:05"))
			if _, err := client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle}); err != nil {
				t.Fatal(err)
			}
		}
	}
	slices.Sort(got)
	want := []string{"s1/continue@00:30", "s1/discovered@00:00", "s1/discovered@01:00", "s2/discovered@00:20"}
	if !slices.Equal(got, want) {
		t.Fatalf("received %v, want %v", got, want)
	}
}
