// Package sqskick sends commit kicks to an SQS FIFO queue: one message group
// per stream, so the commit function runs at most once at a time per stream.
// A kick only asks for a commit attempt; correctness never depends on one
// arriving (backfill and the next kick recover a lost one), and a duplicate
// kick only repeats an idempotent, usually empty, run.
package sqskick

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/tributary-io/tributary/events"
)

// Sender is the part of *sqs.Client the kicker uses.
type Sender interface {
	SendMessage(ctx context.Context, in *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
}

// Kicker sends kicks to one FIFO queue.
type Kicker struct {
	// Client sends the messages.
	Client Sender
	// QueueURL is the FIFO queue's URL.
	QueueURL string
	// Window, when positive, collapses the kicks of files found
	// (events.ReasonDiscovered, events.ReasonBackfill) into one message per
	// stream and window: they share a deduplication id
	// (events.Kick.DeduplicationID(Window)), so SQS keeps the first. The
	// queue's delivery delay must be longer than Window: the kept kick is
	// then delivered after the window ends, so its commit run sees every
	// file registered within the window (the processingTime trigger of the
	// deployed stack: one commit run per interval). SQS remembers ids for 5
	// minutes, so Window must stay below that. Other kicks (continue,
	// manual) are never collapsed. Zero: every kick is its own message.
	Window time.Duration
}

// window is the deduplication window of k.
func (q *Kicker) window(k events.Kick) time.Duration {
	if q.Window > 0 && (k.Reason == events.ReasonDiscovered || k.Reason == events.ReasonBackfill) {
		return q.Window
	}
	return 0
}

// AttributesGetter is the part of *sqs.Client ApproximateDepth uses.
type AttributesGetter interface {
	GetQueueAttributes(ctx context.Context, in *sqs.GetQueueAttributesInput, optFns ...func(*sqs.Options)) (*sqs.GetQueueAttributesOutput, error)
}

// ApproximateDepth returns a queue's ApproximateNumberOfMessages (visible
// messages waiting to be received).
func ApproximateDepth(ctx context.Context, c AttributesGetter, queueURL string) (int64, error) {
	out, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl:       aws.String(queueURL),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages},
	})
	if err != nil {
		return 0, fmt.Errorf("reading the depth of %s: %w", queueURL, err)
	}
	v := out.Attributes[string(types.QueueAttributeNameApproximateNumberOfMessages)]
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("depth of %s: %q is not a number", queueURL, v)
	}
	return n, nil
}

// Kick sends k. Without Window every kick gets its own deduplication id:
// collapsing kicks by time window without a delivery delay could drop the
// one that follows a commit run's last look at the backlog and strand files
// until the next backfill. With Window (and the queue's delivery delay
// longer than it) kicks of found files collapse per window.
func (q *Kicker) Kick(ctx context.Context, k events.Kick) error {
	body, err := k.Marshal()
	if err != nil {
		return err
	}
	_, err = q.Client.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:               aws.String(q.QueueURL),
		MessageBody:            aws.String(string(body)),
		MessageGroupId:         aws.String(k.GroupID()),
		MessageDeduplicationId: aws.String(k.DeduplicationID(q.window(k))),
	})
	if err != nil {
		return fmt.Errorf("sending commit kick for stream %q to %s: %w", k.Stream, q.QueueURL, err)
	}
	return nil
}
