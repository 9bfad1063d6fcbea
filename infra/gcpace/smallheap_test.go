package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercentFor(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{{0, SmallHeapPercent}, {SmallHeapRoom / 2, SmallHeapPercent}, {SmallHeapRoom/2 + 1, 199}, {SmallHeapRoom * 2 / 3, 150},
		{SmallHeapRoom - 1, 100}, {SmallHeapRoom, 100}, {1 << 30, 100}} {
		if got := percentFor(tc.live); got != tc.want {
			t.Errorf("percentFor(%d) = %d, want %d", tc.live, got, tc.want)
		}
	}
}

// gcPercent reads the GC percent without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// waitPercent collects until the GC percent is want (the sentinel's
// finalizer runs on the finalizer goroutine after a collection), or fails
// after many tries.
func waitPercent(t *testing.T, want int) {
	t.Helper()
	for range 200 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		if gcPercent() == want {
			return
		}
	}
	t.Fatalf("GC percent %d, want %d", gcPercent(), want)
}

var live []byte

// TestSmallHeap runs at SmallHeapPercent while the live heap is small,
// at 100 while it holds more than SmallHeapBytes, and back; stop
// restores 100 for good. GOGC or GOMEMLIMIT in the environment leave the
// pacing alone.
func TestSmallHeap(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	if stop, started := SmallHeap(func(k string) string { return map[string]string{"GOGC": "50"}[k] }); started {
		stop()
		t.Fatal("started with GOGC set")
	}
	if stop, started := SmallHeap(func(k string) string { return map[string]string{"GOMEMLIMIT": "1GiB"}[k] }); started {
		stop()
		t.Fatal("started with GOMEMLIMIT set")
	}
	if gcPercent() != 100 {
		t.Fatalf("GC percent %d after declining to start", gcPercent())
	}
	stop, started := SmallHeap(func(string) string { return "" })
	if !started {
		t.Fatal("not started")
	}
	waitPercent(t, SmallHeapPercent)
	live = make([]byte, 2*SmallHeapRoom)
	for i := range live {
		live[i] = byte(i)
	}
	waitPercent(t, 100)
	live = nil
	waitPercent(t, SmallHeapPercent)
	stop()
	if gcPercent() != 100 {
		t.Fatalf("GC percent %d after stop", gcPercent())
	}
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	runtime.GC()
	if gcPercent() != 100 {
		t.Fatalf("GC percent %d after stop and collections", gcPercent())
	}
}
