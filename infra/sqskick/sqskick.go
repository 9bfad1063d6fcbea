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

// Kick sends k. Every kick gets its own deduplication id: collapsing kicks
// by time window could drop the one that follows a commit run's last look
// at the backlog and strand files until the next backfill.
func (q *Kicker) Kick(ctx context.Context, k events.Kick) error {
	body, err := k.Marshal()
	if err != nil {
		return err
	}
	_, err = q.Client.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:               aws.String(q.QueueURL),
		MessageBody:            aws.String(string(body)),
		MessageGroupId:         aws.String(k.GroupID()),
		MessageDeduplicationId: aws.String(k.DeduplicationID(0)),
	})
	if err != nil {
		return fmt.Errorf("sending commit kick for stream %q to %s: %w", k.Stream, q.QueueURL, err)
	}
	return nil
}
