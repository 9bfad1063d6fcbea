package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
)

// opTimer is SDK middleware that sums the wall time of the calls per
// "Service.Operation" (retries included): where a phase waits on the
// emulator. Concurrent calls each count their own time.
type opTimer struct {
	mu    sync.Mutex
	calls map[string]int
	total map[string]time.Duration
}

func newOpTimer() *opTimer {
	return &opTimer{calls: map[string]int{}, total: map[string]time.Duration{}}
}

// addTo registers the timer on an operation's middleware stack (the
// signature of aws.Config.APIOptions).
func (t *opTimer) addTo(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("loadtest.opTimer", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		start := time.Now()
		out, md, err := next.HandleInitialize(ctx, in)
		name := awsmiddleware.GetServiceID(ctx) + "." + awsmiddleware.GetOperationName(ctx)
		t.mu.Lock()
		t.calls[name]++
		t.total[name] += time.Since(start)
		t.mu.Unlock()
		return out, md, err
	}), middleware.Before)
}

func (t *opTimer) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.calls)
	clear(t.total)
}

// print writes one line per phase: the calls by operation, per file, and
// the summed wall time with the mean latency of each.
func (t *opTimer) print(phase string, files int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ops := slices.Sorted(maps.Keys(t.calls))
	parts := make([]string, 0, len(ops))
	n := 0
	for _, op := range ops {
		c := t.calls[op]
		n += c
		parts = append(parts, fmt.Sprintf("%s=%d (%s, %.1fms each)", op, c, t.total[op].Round(time.Millisecond), float64(t.total[op].Microseconds())/1000/float64(c)))
	}
	fmt.Printf("  %s calls: %d (%.3f per file): %s\n", phase, n, float64(n)/float64(files), strings.Join(parts, " "))
}
