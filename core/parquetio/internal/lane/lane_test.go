package lane

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// TestQueueOrderAndBound submits random jobs: they run in order, one at a
// time, never more than max pending, and Wait returns the first error.
func TestQueueOrderAndBound(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 3))
		max := 1 + r.IntN(4)
		n := r.IntN(50)
		failAt := -1
		if r.IntN(2) == 0 && n > 0 {
			failAt = r.IntN(n)
		}
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			q := New(max)
			var next, running, submitted, ran atomic.Int64
			for i := range n {
				sleep := time.Duration(r.IntN(200)) * time.Microsecond
				q.Submit(func() error {
					if running.Add(1) != 1 {
						t.Errorf("job %d runs beside another", i)
					}
					defer running.Add(-1)
					if got := next.Add(1) - 1; got != int64(i) {
						t.Errorf("job %d ran as number %d", i, got)
					}
					if p := submitted.Load() - ran.Load(); p > int64(max) {
						t.Errorf("%d jobs pending, at most %d", p, max)
					}
					time.Sleep(sleep)
					ran.Add(1)
					if i == failAt || (failAt >= 0 && i > failAt && i%2 == 0) {
						return fmt.Errorf("job %d: %w", i, errBoom)
					}
					return nil
				})
				submitted.Add(1)     // after Submit returned: at most max pending then
				if r.IntN(10) == 0 { // the queue may empty and start again
					time.Sleep(time.Millisecond)
				}
			}
			err := q.Wait()
			if ran.Load() != int64(n) {
				t.Fatalf("%d of %d jobs ran", ran.Load(), n)
			}
			switch {
			case failAt < 0 && err != nil:
				t.Fatalf("Wait: %v, want nil", err)
			case failAt >= 0 && (!errors.Is(err, errBoom) || err.Error() != fmt.Sprintf("job %d: boom", failAt)):
				t.Fatalf("Wait: %v, want job %d's error", err, failAt)
			}
		})
	}
}

var errBoom = errors.New("boom")
