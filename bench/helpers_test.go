package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/infra/streams"
)

// cacheDir returns where generated datasets live: $TRIBUTARY_BENCH_CACHE,
// else <module root>/.cache/bench (gitignored), else a temp directory.
func cacheDir(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv("TRIBUTARY_BENCH_CACHE"); d != "" {
		return d
	}
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, ".cache", "bench")
		}
		if filepath.Dir(d) == d {
			return filepath.Join(os.TempDir(), "tributary-bench")
		}
	}
}

func ensure(tb testing.TB, spec Spec) Dataset {
	tb.Helper()
	start := time.Now()
	ds, err := Ensure(cacheDir(tb), spec)
	if err != nil {
		tb.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		tb.Logf("generated %s (%d rows, %.1f MB) in %s", ds.Dir, ds.Rows, float64(ds.RawBytes)/1e6, d.Round(time.Millisecond))
	}
	return ds
}

// ingestCase is one configuration of the JSON → Delta pipeline.
type ingestCase struct {
	name        string
	ds          Dataset
	format      string // cloudFiles.format ("" = json; csv is read with header=true)
	infer       bool
	maxFiles    int
	wantBatches int
}

// run ingests the dataset from scratch into a fresh Delta table through
// the CLI's wiring (infra/streams: localfs source/table/checkpoint +
// boltstate) and returns the run's summary.
func (c ingestCase) run(ctx context.Context, tb testing.TB, workDir string) ingest.Summary {
	tb.Helper()
	raw := map[string]string{
		"cloudFiles.format":             "json",
		"cloudFiles.inferColumnTypes":   strconv.FormatBool(c.infer),
		"cloudFiles.maxFilesPerTrigger": strconv.Itoa(c.maxFiles),
	}
	if c.format == "csv" {
		raw["cloudFiles.format"], raw["header"] = "csv", "true"
	} else if c.format != "" && c.format != "json" {
		raw["cloudFiles.format"] = c.format
		delete(raw, "cloudFiles.inferColumnTypes")
	}
	cp := filepath.Join(workDir, "checkpoint")
	opts, err := options.Parse(raw, options.Locations{
		StreamID:           "bench",
		Source:             c.ds.Dir,
		Table:              filepath.Join(workDir, "table"),
		CheckpointLocation: cp,
		SchemaLocation:     cp,
	})
	if err != nil {
		tb.Fatal(err)
	}
	tmp := filepath.Join(workDir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		tb.Fatal(err)
	}
	env := streams.Env{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), TempDir: tmp}
	s, err := env.Open(ctx, opts)
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	found, err := s.Discover(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	if found.New != c.ds.Files {
		tb.Fatalf("discovered %d new files, want %d", found.New, c.ds.Files)
	}
	sum, err := s.Engine.RunAvailableNow(ctx, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if got := sum.Rows(); got != c.ds.Rows {
		tb.Fatalf("ingested %d rows, want %d", got, c.ds.Rows)
	}
	if len(sum.Batches) != c.wantBatches {
		tb.Fatalf("ran %d batches, want %d", len(sum.Batches), c.wantBatches)
	}
	for _, p := range sum.Batches {
		if p.NumRescuedRows != 0 || p.NumSkippedFiles != 0 {
			tb.Fatalf("batch %d: %d rescued rows, %d skipped files; the generated data should be clean", p.BatchID, p.NumRescuedRows, p.NumSkippedFiles)
		}
	}
	return sum
}

// memWatch samples the Go heap while a measured section runs and reads
// the process's peak resident set (VmHWM) afterwards.
type memWatch struct {
	stop     chan struct{}
	done     sync.WaitGroup
	peakHeap uint64
	rssReset bool
}

// heapInuse is HeapInuse (bytes in in-use spans) via runtime/metrics,
// which, unlike runtime.ReadMemStats, does not stop the world.
func heapInuse(samples []metrics.Sample) uint64 {
	metrics.Read(samples)
	var n uint64
	for _, s := range samples {
		if s.Value.Kind() == metrics.KindUint64 {
			n += s.Value.Uint64()
		}
	}
	return n
}

// startMemWatch collects garbage and returns freed memory to the OS (so
// what earlier runs left resident does not count), resets the kernel's
// peak-RSS counter (writing 5 to /proc/self/clear_refs), and starts
// sampling the heap.
func startMemWatch() *memWatch {
	debug.FreeOSMemory()
	m := &memWatch{stop: make(chan struct{})}
	m.rssReset = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
	samples := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
	}
	m.peakHeap = heapInuse(samples)
	m.done.Add(1)
	go func() {
		defer m.done.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				m.peakHeap = max(m.peakHeap, heapInuse(samples))
				return
			case <-t.C:
				m.peakHeap = max(m.peakHeap, heapInuse(samples))
			}
		}
	}()
	return m
}

// finish stops sampling and returns the peak heap in use and the peak RSS
// (0 when /proc is unavailable). When the RSS counter could not be reset,
// the RSS figure is the process's lifetime peak.
func (m *memWatch) finish() (peakHeap, peakRSS uint64) {
	close(m.stop)
	m.done.Wait()
	return m.peakHeap, vmHWM()
}

// vmHWM reads the peak resident set size from /proc/self/status.
func vmHWM() uint64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 2 && f[1] == "kB" {
			kb, err := strconv.ParseUint(f[0], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// mb formats bytes as decimal megabytes for metrics.
func mb(n uint64) float64 { return float64(n) / 1e6 }

// describe renders one ingest summary for -v logs.
func describe(sum ingest.Summary) string {
	var out int64
	var files int
	steps := map[string]int64{}
	for _, p := range sum.Batches {
		out += p.NumOutputBytes
		files += p.NumOutputFiles
		for k, v := range p.DurationMs {
			steps[k] += v
		}
	}
	return fmt.Sprintf("%d batches, %d rows, %d Parquet files (%.1f MB), step ms %v", len(sum.Batches), sum.Rows(), files, mb(uint64(out)), steps)
}

// cpuTime is the process's user+system CPU time so far (0 if unavailable).
// Throughput per CPU-second stays comparable when other work shares the
// machine, where wall-clock MB/s does not.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
