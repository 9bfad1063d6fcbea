package awsclient

import (
	"context"
	"maps"
	"sync"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
)

// CallCounter is SDK middleware that counts API calls per "Service.Operation"
// (for example "S3.PutObject", "DynamoDB.TransactWriteItems"). A call is
// counted once however many attempts its retries take, and whether or not it
// fails; attempts are counted separately. It is safe for concurrent use.
//
// Attach it to every client of a config with
//
//	cfg.APIOptions = append(cfg.APIOptions, counter.AddTo)
//
// or to one client with s3.NewFromConfig(cfg, func(o *s3.Options) {
// o.APIOptions = append(o.APIOptions, counter.AddTo) }).
type CallCounter struct {
	mu       sync.Mutex
	calls    map[string]int
	attempts map[string]int
}

// NewCallCounter returns an empty counter.
func NewCallCounter() *CallCounter {
	return &CallCounter{calls: map[string]int{}, attempts: map[string]int{}}
}

const (
	callCounterID    = "tributary.CallCounter"
	attemptCounterID = "tributary.CallCounter.Attempt"
)

// AddTo registers the counter on an operation's middleware stack. Its
// signature matches aws.Config.APIOptions.
func (c *CallCounter) AddTo(stack *middleware.Stack) error {
	calls := middleware.InitializeMiddlewareFunc(callCounterID, func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		c.add(ctx, c.calls)
		return next.HandleInitialize(ctx, in)
	})
	if err := stack.Initialize.Add(calls, middleware.After); err != nil {
		return err
	}
	// Finalize middleware added after the retry middleware runs once per attempt.
	attempts := middleware.FinalizeMiddlewareFunc(attemptCounterID, func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
		c.add(ctx, c.attempts)
		return next.HandleFinalize(ctx, in)
	})
	return stack.Finalize.Add(attempts, middleware.After)
}

func (c *CallCounter) add(ctx context.Context, m map[string]int) {
	name := awsmiddleware.GetServiceID(ctx) + "." + awsmiddleware.GetOperationName(ctx)
	c.mu.Lock()
	m[name]++
	c.mu.Unlock()
}

// Snapshot returns a copy of the call counts by "Service.Operation".
func (c *CallCounter) Snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.calls)
}

// Attempts returns a copy of the attempt counts (calls plus retries) by
// "Service.Operation".
func (c *CallCounter) Attempts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.attempts)
}

// Total returns the number of calls counted so far.
func (c *CallCounter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.calls {
		n += v
	}
	return n
}

// Reset sets all counts to zero.
func (c *CallCounter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.calls)
	clear(c.attempts)
}
