package traceidle

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/trace"
	"sync/atomic"
	"testing"
	"time"
)

// spin keeps a processor busy for d.
func spin(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

// traced runs f under runtime/trace with two processors and returns the
// trace.
func traced(t *testing.T, f func(ctx context.Context)) *bytes.Buffer {
	t.Helper()
	return tracedOn(t, 2, f)
}

// tracedOn is traced with procs processors.
func tracedOn(t *testing.T, procs int, f func(ctx context.Context)) *bytes.Buffer {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatalf("starting a trace (not under go test -trace): %v", err)
	}
	f(t.Context())
	trace.Stop()
	return &buf
}

func span(t *testing.T, res Result, name string) Span {
	t.Helper()
	for _, s := range res.Spans {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no span %q in %+v", name, res.Spans)
	return Span{}
}

// TestIdleBySerialAndParallelRegions: a region where one goroutine works
// leaves one of two processors idle; a region where two work leaves
// almost none; nested regions are named outer/inner; the time before the
// root's beginning is not counted.
func TestIdleBySerialAndParallelRegions(t *testing.T) {
	const d = 40 * time.Millisecond
	buf := traced(t, func(ctx context.Context) {
		spin(d) // before the root: not counted
		trace.WithRegion(ctx, "root", func() {
			trace.WithRegion(ctx, "serial", func() { spin(d) })
			// The helper is running before the region begins and until
			// after it ends, and main never blocks meanwhile: a goroutine's
			// start or a wait would leave a processor idle on a loaded
			// machine.
			var running, stop, done atomic.Bool
			go func() {
				running.Store(true)
				for !stop.Load() {
				}
				done.Store(true)
			}()
			for !running.Load() {
			}
			trace.WithRegion(ctx, "parallel", func() { spin(d) })
			stop.Store(true)
			for !done.Load() {
			}
		})
	})
	res, err := Read(buf, Options{Procs: 2, Root: "root", Bucket: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	serial, parallel := span(t, res, "root/serial"), span(t, res, "root/parallel")
	if serial.Wall < d || serial.Idle < serial.Wall*3/4 || serial.Idle > serial.Wall*11/10 || serial.Ready > serial.Wall/4 {
		t.Errorf("serial region: %+v, want wall ≥ %v and one processor idle, with nothing to run", serial, d)
	}
	if parallel.Wall < d || parallel.Idle > parallel.Wall/4 {
		t.Errorf("parallel region: %+v, want wall ≥ %v and both processors busy", parallel, d)
	}
	if res.Wall > 4*d {
		t.Errorf("total wall %v: the spin before the root was counted", res.Wall)
	}
	if res.Spans[0].Name != "root/serial" {
		t.Errorf("first span %q, want the most idle (root/serial)", res.Spans[0].Name)
	}
	var sum time.Duration
	for _, b := range res.Buckets {
		sum += b
	}
	if sum != res.Idle || len(res.Buckets) < 8 {
		t.Errorf("buckets %v sum to %v (%d of them), want the idle total %v in ≥ 8 buckets", res.Buckets, sum, len(res.Buckets), res.Idle)
	}
}

// TestReadyWhileIdle: idle processor time with a goroutine runnable is
// counted as ready. The run has one processor and is read as if it had
// two: while two goroutines spin, one of them always waits runnable for
// the processor the second would have been. (That idle time with nothing
// to run is not counted is TestIdleBySerialAndParallelRegions' serial
// region.)
func TestReadyWhileIdle(t *testing.T) {
	const d = 40 * time.Millisecond
	buf := tracedOn(t, 1, func(ctx context.Context) {
		trace.WithRegion(ctx, "root", func() {
			var stop, done atomic.Bool
			go func() {
				for !stop.Load() {
				}
				done.Store(true)
			}()
			trace.WithRegion(ctx, "crowded", func() { spin(d) })
			stop.Store(true)
			for !done.Load() {
				runtime.Gosched()
			}
		})
	})
	res, err := Read(buf, Options{Procs: 2, Root: "root"})
	if err != nil {
		t.Fatal(err)
	}
	crowded := span(t, res, "root/crowded")
	if crowded.Ready < crowded.Wall*3/4 || crowded.Ready > crowded.Idle {
		t.Errorf("crowded: %+v, want the idle processor's time ready (a goroutine runnable)", crowded)
	}
	if res.Ready < crowded.Ready {
		t.Errorf("total ready %v, less than the region's %v", res.Ready, crowded.Ready)
	}
}

// TestSyncWait: the root goroutine's fsyncs are counted in the region
// that makes them, and nothing else is.
func TestSyncWait(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "synced"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var syncErr error
	buf := traced(t, func(ctx context.Context) {
		trace.WithRegion(ctx, "root", func() {
			trace.WithRegion(ctx, "spin", func() { spin(10 * time.Millisecond) })
			trace.WithRegion(ctx, "write", func() {
				for range 20 {
					if _, err := f.Write(make([]byte, 64<<10)); err != nil {
						syncErr = err
					}
					if err := f.Sync(); err != nil {
						syncErr = err
					}
				}
			})
		})
	})
	if syncErr != nil {
		t.Fatal(syncErr)
	}
	res, err := Read(buf, Options{Procs: 2, Root: "root"})
	if err != nil {
		t.Fatal(err)
	}
	spun, written := span(t, res, "root/spin"), span(t, res, "root/write")
	if written.Sync <= 0 || written.Sync > written.Wall {
		t.Errorf("write region: %+v, want its 20 fsyncs counted, within its wall time", written)
	}
	if spun.Sync != 0 {
		t.Errorf("spin region: %+v, want no fsync time", spun)
	}
	if res.Sync != written.Sync {
		t.Errorf("total fsync %v, want the write region's %v", res.Sync, written.Sync)
	}
}

func TestReadErrors(t *testing.T) {
	buf := traced(t, func(ctx context.Context) {
		trace.WithRegion(ctx, "other", func() {})
	})
	data := buf.Bytes()
	if _, err := Read(bytes.NewReader(data), Options{Procs: 2, Root: "root"}); !errors.Is(err, ErrNoRoot) {
		t.Errorf("no root region: %v, want ErrNoRoot", err)
	}
	if _, err := Read(bytes.NewReader(data), Options{Procs: 0, Root: "other"}); err == nil {
		t.Error("Procs 0 accepted")
	}
	if _, err := Read(bytes.NewReader([]byte("not a trace")), Options{Procs: 1, Root: "other"}); err == nil {
		t.Error("a file that is not a trace was read")
	}
}
