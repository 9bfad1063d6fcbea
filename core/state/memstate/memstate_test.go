package memstate_test

import (
	"context"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/core/state/memstate"
	"github.com/tributary-io/tributary/core/state/statetest"
)

func TestConformance(t *testing.T) {
	statetest.RunConformanceTests(t, func(t *testing.T) statetest.Harness {
		return statetest.NewHarness(memstate.New(), nil)
	})
}

func TestConformanceFrozenClock(t *testing.T) {
	frozen := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	statetest.RunConformanceTests(t, func(t *testing.T) statetest.Harness {
		return statetest.NewHarness(memstate.New(memstate.WithClock(func() time.Time { return frozen })), nil)
	})
}

func TestWithClock(t *testing.T) {
	ctx := context.Background()
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		clock []time.Time // successive clock readings, one per Register call
		want  []time.Time // discovery times of the files registered by each call
	}{
		{"advancing", []time.Time{base, base.Add(time.Second)}, []time.Time{base, base.Add(time.Second)}},
		{"frozen", []time.Time{base, base, base}, []time.Time{base, base.Add(1), base.Add(2)}},
		{"backwards", []time.Time{base, base.Add(-time.Hour)}, []time.Time{base, base.Add(1)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			i := 0
			s := memstate.New(memstate.WithClock(func() time.Time { i++; return tc.clock[i-1] }))
			for j := range tc.clock {
				p := string(rune('a' + j))
				if _, err := s.Register(ctx, "s", []state.File{{Path: p}}, state.RegisterOptions{}); err != nil {
					t.Fatal(err)
				}
				e, err := s.Get(ctx, "s", p)
				if err != nil {
					t.Fatal(err)
				}
				if !e.DiscoveryTime.Equal(tc.want[j]) {
					t.Errorf("call %d: DiscoveryTime %v, want %v", j, e.DiscoveryTime, tc.want[j])
				}
			}
		})
	}
}

func TestInvalidArguments(t *testing.T) {
	ctx := context.Background()
	s := memstate.New()
	if _, err := s.Register(ctx, "", []state.File{{Path: "a"}}, state.RegisterOptions{}); err == nil {
		t.Error("Register with empty stream succeeded")
	}
	if _, err := s.Register(ctx, "s", []state.File{{Path: ""}}, state.RegisterOptions{}); err == nil {
		t.Error("Register with empty path succeeded")
	}
	if err := s.Claim(ctx, "s", -1, []string{"a"}); err == nil {
		t.Error("Claim with negative batch succeeded")
	}
}
