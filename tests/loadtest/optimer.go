package main

import (
	"context"
	"fmt"
	"io"
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
	mu       sync.Mutex
	calls    map[string]int
	attempts map[string]int
	total    map[string]time.Duration
	log      io.Writer // when set: one line per call, "start_us duration_us op"
}

func newOpTimer() *opTimer {
	return &opTimer{calls: map[string]int{}, attempts: map[string]int{}, total: map[string]time.Duration{}}
}

// addTo registers the timer on an operation's middleware stack (the
// signature of aws.Config.APIOptions).
func (t *opTimer) addTo(stack *middleware.Stack) error {
	// Finalize middleware after the retry middleware runs once per attempt.
	err := stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("loadtest.opTimer.attempt", func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
		name := awsmiddleware.GetServiceID(ctx) + "." + awsmiddleware.GetOperationName(ctx)
		t.mu.Lock()
		t.attempts[name]++
		t.mu.Unlock()
		return next.HandleFinalize(ctx, in)
	}), middleware.After)
	if err != nil {
		return err
	}
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("loadtest.opTimer", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		start := time.Now()
		out, md, err := next.HandleInitialize(ctx, in)
		name := awsmiddleware.GetServiceID(ctx) + "." + awsmiddleware.GetOperationName(ctx)
		t.mu.Lock()
		t.calls[name]++
		t.total[name] += time.Since(start)
		if t.log != nil {
			fmt.Fprintf(t.log, "%d %d %s\n", start.UnixMicro(), time.Since(start).Microseconds(), name)
		}
		t.mu.Unlock()
		return out, md, err
	}), middleware.Before)
}

func (t *opTimer) reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.calls)
	clear(t.total)
	clear(t.attempts)
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
		retries := ""
		if r := t.attempts[op] - c; r > 0 {
			retries = fmt.Sprintf(", %d retries", r)
		}
		parts = append(parts, fmt.Sprintf("%s=%d (%s, %.1fms each%s)", op, c, t.total[op].Round(time.Millisecond), float64(t.total[op].Microseconds())/1000/float64(c), retries))
	}
	fmt.Printf("  %s calls: %d (%.3f per file): %s\n", phase, n, float64(n)/float64(files), strings.Join(parts, " "))
}
