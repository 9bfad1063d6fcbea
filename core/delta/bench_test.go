package delta

import (
	"context"
	"fmt"
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

// BenchmarkCheckpointWrite writes the checkpoint of a 10,000-file snapshot
// (paths, empty partition values, stats) to an in-memory store.
func BenchmarkCheckpointWrite(b *testing.B) {
	ctx := context.Background()
	store := memstore.New()
	tbl := NewTable(store, WithClock(func() time.Time { return time.UnixMilli(0) }))
	t := &testing.T{}
	if _, err := tbl.Commit(ctx, -1, createActions(t)); err != nil {
		b.Fatal(err)
	}
	acts := make([]Action, 0, 10000)
	for i := range 10000 {
		acts = append(acts, addAction(fmt.Sprintf("p=x/part-%05d.parquet", i), 10))
	}
	if _, err := tbl.Commit(ctx, 0, acts); err != nil {
		b.Fatal(err)
	}
	s, err := tbl.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := tbl.Checkpoint(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
}
