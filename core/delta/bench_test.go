package delta

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta/internal/dirstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
)

// BenchmarkSnapshotFromCheckpoint loads a 20,000-file table from its
// checkpoint plus 10 JSON commits.
func BenchmarkSnapshotFromCheckpoint(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	tbl := NewTable(dirstore.New(dir), WithClock(func() time.Time { return time.UnixMilli(0) }))
	t := &testing.T{}
	if _, err := tbl.Commit(ctx, -1, createActions(t)); err != nil {
		b.Fatal(err)
	}
	acts := make([]Action, 0, 20000)
	for i := range 20000 {
		acts = append(acts, addAction(fmt.Sprintf("p=x/f-%05d.parquet", i), 10))
	}
	if _, err := tbl.Commit(ctx, 0, acts); err != nil {
		b.Fatal(err)
	}
	s, err := tbl.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if err := tbl.Checkpoint(ctx, s); err != nil {
		b.Fatal(err)
	}
	for v := int64(1); v <= 10; v++ {
		if _, err := tbl.Commit(ctx, v, []Action{addAction(fmt.Sprintf("late-%d", v), 1)}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		s, err := NewTable(dirstore.New(dir)).Snapshot(ctx)
		if err != nil || s.NumFiles() != 20010 || s.CheckpointVersion() != 1 {
			b.Fatalf("%v %d", err, s.NumFiles())
		}
	}
}

// BenchmarkCheckpointWrite writes the checkpoint of a snapshot of 1,000,
// 10,000 and 100,000 live files (paths, empty partition values, stats) to
// an in-memory store. Besides wall time it reports the process CPU time per
// checkpoint (cpu-ms/op: on a shared machine the wall time mostly measures
// the other tenants).
func BenchmarkCheckpointWrite(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			ctx := context.Background()
			store := memstore.New()
			tbl := NewTable(store, WithClock(func() time.Time { return time.UnixMilli(0) }))
			t := &testing.T{}
			if _, err := tbl.Commit(ctx, -1, createActions(t)); err != nil {
				b.Fatal(err)
			}
			acts := make([]Action, 0, n)
			for i := range n {
				acts = append(acts, addAction(fmt.Sprintf("p=x/part-%06d.parquet", i), 10))
			}
			if _, err := tbl.Commit(ctx, 0, acts); err != nil {
				b.Fatal(err)
			}
			s, err := tbl.Snapshot(ctx)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu0 := cpuTime(b)
			for b.Loop() {
				if err := tbl.Checkpoint(ctx, s); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime(b)-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime returns the CPU time the process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
