package jsonfmt

import (
	"bytes"
	"context"
	"errors"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/parquetio"
)

// BenchmarkDatasetReadBatch is the reading side of the columnar path alone:
// one ~5 MB file of the end-to-end dataset decoded with ReadBatch into a
// reused ColumnBatch (schema inferred once, outside the loop), serially
// (one worker) or in chunks by two workers, with no Parquet writer.
func BenchmarkDatasetReadBatch(b *testing.B) {
	data := benchFile(b)
	inf := Format{}.NewInferrer(fileformat.InferOptions{InferColumnTypes: true, RescuedDataColumn: "_rescued_data"})
	if err := inf.Add(context.Background(), "bench.json", bytes.NewReader(data)); err != nil {
		b.Fatal(err)
	}
	s := inf.Schema()
	opts := fileformat.ReadOptions{RescuedDataColumn: "_rescued_data", FilePath: "bench.json"}
	cb, err := parquetio.NewColumnBatch(s)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		noFast  bool
		workers int
	}{{"fast", false, 1}, {"tape", true, 1}, {"fast-2workers", false, 2}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			cpu0 := cpuTime()
			var tries, misses int
			for b.Loop() {
				rr, err := Format{}.Open(context.Background(), bytes.NewReader(data), s, opts)
				if err != nil {
					b.Fatal(err)
				}
				rd := rr.(*reader)
				rd.parWorkers, rd.noFast = c.workers, c.noFast
				for {
					rerr := rd.ReadBatch(cb, 4096, 32<<20)
					cb.Reset()
					if errors.Is(rerr, io.EOF) {
						break
					} else if rerr != nil {
						b.Fatal(rerr)
					}
				}
				tries, misses = rd.fastTries, rd.fastMisses
				rr.Close()
			}
			// CPU seconds per 100 MB (user+sys of the process, GC included).
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N)*100e6/float64(len(data)), "cpu-s/100MB")
			if !c.noFast && c.workers == 1 {
				b.ReportMetric(float64(misses)/float64(max(tries, 1)), "fast-miss")
			}
		})
	}
}

// cpuTime is the process's user+sys CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
