package jsoninfer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/schema"
)

// benchFile is one ~5 MB file of the end-to-end benchmark's dataset (make
// bench generates it under .cache/bench, or TRIBUTARY_BENCH_CACHE); the
// benchmarks skip without it.
func benchFile(b *testing.B) []byte {
	dir := os.Getenv("TRIBUTARY_BENCH_CACHE")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "..", ".cache", "bench")
	}
	data, err := os.ReadFile(filepath.Join(dir, "ndjson-v1-20x5242880-seed20240301-json", "part-00000.json"))
	if err != nil {
		b.Skipf("no benchmark dataset (run make bench once): %v", err)
	}
	return data
}

// cpuTime is the process's CPU time (user + system) so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkInferDataset infers one ~5 MB file of the end-to-end dataset
// (serially unless GOMAXPROCS > 1) with the type scanner and with the
// tape alone: typed (inferColumnTypes), all strings (Auto Loader's
// default) and typed with schema hints (serial). cpu-s/100MB is the
// process's CPU time (user + system) per 100 MB inferred, which a loaded
// machine disturbs less than the time per operation.
func BenchmarkInferDataset(b *testing.B) {
	data := benchFile(b)
	hints, err := schema.ParseDDL("device.os STRING, amount DECIMAL(10,2)")
	if err != nil {
		b.Fatal(err)
	}
	for _, o := range []struct {
		name string
		opts fileformat.InferOptions
	}{
		{"", fileformat.InferOptions{InferColumnTypes: true}},
		{"strings/", fileformat.InferOptions{}},
		{"hints/", fileformat.InferOptions{InferColumnTypes: true, Hints: hints}},
	} {
		for _, c := range []struct {
			name string
			off  bool
		}{{"scan", false}, {"tape", true}} {
			b.Run(o.name+c.name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				start := cpuTime(b)
				for b.Loop() {
					in := newInferrer(o.opts)
					in.sc.off = c.off
					if err := in.Add(context.Background(), "bench.json", bytes.NewReader(data)); err != nil {
						b.Fatal(err)
					}
				}
				cpu := cpuTime(b) - start
				b.ReportMetric(cpu.Seconds()/float64(b.N)/float64(len(data))*100e6, "cpu-s/100MB")
			})
		}
	}
}
