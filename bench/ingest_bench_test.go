package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// mainSpec is the ~100 MB dataset: 20 NDJSON files of ~5 MB.
func mainSpec(gzip bool) Spec {
	return Spec{Files: 20, FileBytes: 5 << 20, Seed: 20240301, Gzip: gzip}
}

// BenchmarkJSONToDelta ingests ~100 MB of NDJSON from scratch into a fresh
// local Delta table per iteration, through the CLI's adapters (localfs
// source, table and checkpoint; boltstate) and RunAvailableNow, discovery
// included. MB/s counts uncompressed NDJSON bytes (for gzip too); cpu-s/op
// and MB/cpu-s count the process's CPU time (all goroutines, GC included),
// which stays meaningful when the machine is shared.
//
//   - infer:     cloudFiles.inferColumnTypes=true, maxFilesPerTrigger=1000 (one batch)
//   - strings:   inference off: every column a string
//   - gzip:      as infer, input files .json.gz
//   - maxFiles1: as infer, maxFilesPerTrigger=1 (20 batches, 20 commits)
func BenchmarkJSONToDelta(b *testing.B) {
	plain := ensure(b, mainSpec(false))
	gz := ensure(b, mainSpec(true))
	cases := []ingestCase{
		{name: "infer", ds: plain, infer: true, maxFiles: 1000, wantBatches: 1},
		{name: "strings", ds: plain, infer: false, maxFiles: 1000, wantBatches: 1},
		{name: "gzip", ds: gz, infer: true, maxFiles: 1000, wantBatches: 1},
		{name: "maxFiles1", ds: plain, infer: true, maxFiles: 1, wantBatches: plain.Files},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { benchIngest(b, c) })
	}
}

// csvSpec is the ~100 MB CSV dataset: 20 files of ~5 MB, the events of
// mainSpec flattened (16 columns, a header line per file).
func csvSpec() Spec {
	return Spec{Files: 20, FileBytes: 5 << 20, Seed: 20240301, CSV: true}
}

// BenchmarkCSVToDelta ingests ~100 MB of CSV (header=true) from scratch,
// as BenchmarkJSONToDelta does NDJSON:
//
//   - infer:   cloudFiles.inferColumnTypes=true (Spark's CSV inference)
//   - strings: inference off: every column a string
func BenchmarkCSVToDelta(b *testing.B) {
	ds := ensure(b, csvSpec())
	for _, c := range []ingestCase{
		{name: "infer", ds: ds, format: "csv", infer: true, maxFiles: 1000, wantBatches: 1},
		{name: "strings", ds: ds, format: "csv", infer: false, maxFiles: 1000, wantBatches: 1},
	} {
		b.Run(c.name, func(b *testing.B) { benchIngest(b, c) })
	}
}

// BenchmarkCommitOverhead isolates the fixed cost of a batch: 200 small
// files (~20 KB each) ingested in one batch versus one batch per file. The
// difference in ns/op divided by 199 is the per-commit overhead (plan,
// claim, Parquet file, log commit, finish); ms/batch is reported directly.
func BenchmarkCommitOverhead(b *testing.B) {
	ds := ensure(b, Spec{Files: 200, FileBytes: 20 << 10, Seed: 7})
	cases := []ingestCase{
		{name: "maxFiles1000", ds: ds, infer: true, maxFiles: 1000, wantBatches: 1},
		{name: "maxFiles1", ds: ds, infer: true, maxFiles: 1, wantBatches: ds.Files},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) { benchIngest(b, c) })
	}
}

func benchIngest(b *testing.B, c ingestCase) {
	ctx := context.Background()
	root := b.TempDir()
	b.SetBytes(c.ds.RawBytes)
	b.ReportAllocs()
	var elapsed, cpu time.Duration
	var peakHeap, peakRSS uint64
	var batches int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		work := filepath.Join(root, "run")
		if err := os.RemoveAll(work); err != nil {
			b.Fatal(err)
		}
		mw := startMemWatch()
		start, cpu0 := time.Now(), cpuTime()
		b.StartTimer()
		sum := c.run(ctx, b, work)
		b.StopTimer()
		elapsed += time.Since(start)
		cpu += cpuTime() - cpu0
		heap, rss := mw.finish()
		peakHeap, peakRSS = max(peakHeap, heap), max(peakRSS, rss)
		batches += len(sum.Batches)
		if i == 0 {
			b.Logf("%s: %s", c.name, describe(sum))
			if !mw.rssReset {
				b.Logf("could not reset VmHWM: peak-RSS-MB is the process lifetime peak")
			}
		}
	}
	secs := elapsed.Seconds()
	b.ReportMetric(float64(c.ds.Rows)*float64(b.N)/secs, "rows/s")
	b.ReportMetric(mb(peakHeap), "peak-heap-MB")
	if peakRSS > 0 {
		b.ReportMetric(mb(peakRSS), "peak-RSS-MB")
	}
	b.ReportMetric(secs*1000/float64(batches), "ms/batch")
	if cpu > 0 {
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(c.ds.RawBytes)*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
	if c.ds.DiskBytes != c.ds.RawBytes {
		b.ReportMetric(float64(c.ds.DiskBytes)*float64(b.N)/secs/1e6, "disk-MB/s")
	}
}
