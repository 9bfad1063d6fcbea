package convert

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/schema"
)

func TestAheadGate(t *testing.T) {
	for _, limit := range []int64{maxAheadBytes, smallAheadBytes, 1} {
		g := newAheadGate(limit)
		if err := g.wait(context.Background()); err != nil {
			t.Fatalf("limit %d, empty gate: %v", limit, err)
		}
		g.add(limit - 1)
		if !g.below(limit) {
			t.Errorf("limit %d: below after limit-1 bytes = false", limit)
		}
		if err := g.wait(context.Background()); err != nil {
			t.Fatalf("limit %d, gate below its limit: %v", limit, err)
		}
		g.add(1)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := g.wait(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("limit %d, full gate, cancelled context: %v, want context.Canceled", limit, err)
		}
		if err := g.waitUnless(context.Background(), func() bool { return true }); err != nil {
			t.Errorf("limit %d, full gate, exempt: %v", limit, err)
		}
		done := make(chan error, 1)
		go func() { done <- g.wait(context.Background()) }()
		g.done(limit)
		if err := <-done; err != nil {
			t.Errorf("limit %d, gate emptied: %v", limit, err)
		}
	}
}

func TestRowBytes(t *testing.T) {
	row := []any{strings.Repeat("x", 1000), nil, []byte("abc"), []any{"a", int64(1)},
		[]schema.MapEntry{{Key: "k", Value: strings.Repeat("v", 500)}}, time.Time{}}
	if n := rowBytes(row); n < 1503 || n > 2000 {
		t.Errorf("rowBytes = %d, want about the 1503 bytes of the values", n)
	}
}
