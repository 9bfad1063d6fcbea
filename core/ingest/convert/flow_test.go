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
	g := newAheadGate()
	if err := g.wait(context.Background()); err != nil {
		t.Fatalf("empty gate: %v", err)
	}
	g.add(maxAheadBytes)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := g.wait(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("full gate, cancelled context: %v, want context.Canceled", err)
	}
	done := make(chan error, 1)
	go func() { done <- g.wait(context.Background()) }()
	g.done(maxAheadBytes)
	if err := <-done; err != nil {
		t.Errorf("gate emptied: %v", err)
	}
}

func TestRowBytes(t *testing.T) {
	row := []any{strings.Repeat("x", 1000), nil, []byte("abc"), []any{"a", int64(1)},
		[]schema.MapEntry{{Key: "k", Value: strings.Repeat("v", 500)}}, time.Time{}}
	if n := rowBytes(row); n < 1503 || n > 2000 {
		t.Errorf("rowBytes = %d, want about the 1503 bytes of the values", n)
	}
}
