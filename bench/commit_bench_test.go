package bench

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/infra/localfs"
)

// BenchmarkCommitCurve makes one local table of N streaming commits
// (N = $TRIBUTARY_BENCH_COMMITS, default 10,000) through the engine's
// path — CommitTxnFrom on a kept snapshot with one add and a txn, then
// MaybeCheckpoint (a checkpoint every 10 commits, or every
// $TRIBUTARY_BENCH_CHECKPOINT_INTERVAL: the table's
// delta.checkpointInterval) — and reports the mean
// time per commit over the first and the last 100 commits (ms/first100,
// ms/last100) and their ratio (last/first): flat per-commit cost means a
// ratio near 1. The same windows are also reported in CPU time
// (cpu-ms/first100, cpu-ms/last100): on a shared machine the wall time of
// a commit is mostly its fsyncs' wait), and the part of that CPU time
// spent writing checkpoints (ckpt-cpu-ms/first100, ckpt-cpu-ms/last100:
// one every 10 commits, each holding every live file). Run with
// -benchtime 1x.
func BenchmarkCommitCurve(b *testing.B) {
	n := 10000
	if s := os.Getenv("TRIBUTARY_BENCH_COMMITS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 200 {
			b.Fatalf("TRIBUTARY_BENCH_COMMITS=%q: want a number >= 200", s)
		}
	}
	interval := ""
	if s := os.Getenv("TRIBUTARY_BENCH_CHECKPOINT_INTERVAL"); s != "" {
		if v, err := strconv.Atoi(s); err != nil || v < 1 {
			b.Fatalf("TRIBUTARY_BENCH_CHECKPOINT_INTERVAL=%q: want a positive number", s)
		}
		interval = s
	}
	for i := 0; i < b.N; i++ {
		c := commitCurve(b, n, interval)
		b.ReportMetric(c.first, "ms/first100")
		b.ReportMetric(c.last, "ms/last100")
		b.ReportMetric(c.last/c.first, "last/first")
		b.ReportMetric(c.cpuFirst, "cpu-ms/first100")
		b.ReportMetric(c.cpuLast, "cpu-ms/last100")
		b.ReportMetric(c.ckptFirst, "ckpt-cpu-ms/first100")
		b.ReportMetric(c.ckptLast, "ckpt-cpu-ms/last100")
	}
}

// curve is the mean wall and CPU milliseconds per commit of the first and
// the last 100 commits, and the CPU milliseconds of checkpoint writing
// among them.
type curve struct{ first, last, cpuFirst, cpuLast, ckptFirst, ckptLast float64 }

func commitCurve(b *testing.B, n int, interval string) (c curve) {
	ctx := context.Background()
	store, err := localfs.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	tbl := delta.NewTable(store)
	p := delta.ProtocolFor(false, nil)
	create := []delta.Action{{Protocol: &p}, {Metadata: &delta.Metadata{
		ID: "bench", Format: delta.Format{Provider: "parquet", Options: map[string]string{}},
		SchemaString:     `{"type":"struct","fields":[{"name":"a","type":"long","nullable":true,"metadata":{}}]}`,
		PartitionColumns: []string{}, Configuration: map[string]string{},
	}}}
	if interval != "" {
		create[1].Metadata.Configuration[delta.PropCheckpointInterval] = interval
	}
	if _, err := tbl.Commit(ctx, -1, create); err != nil {
		b.Fatal(err)
	}
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var t0 time.Time
	var cpu0, ckpt time.Duration
	for batch := int64(1); batch <= int64(n); batch++ {
		switch batch {
		case 1, int64(n) - 99:
			t0, cpu0, ckpt = time.Now(), cpuTime(), 0
		}
		build := func(*delta.Snapshot) ([]delta.Action, error) {
			return []delta.Action{{Add: &delta.Add{Path: fmt.Sprintf("part-%06d.parquet", batch), Size: 1000,
				ModificationTime: 1, DataChange: true, Stats: `{"numRecords":10}`}}}, nil
		}
		res, err := tbl.CommitTxnFrom(ctx, snap, "bench-stream", batch, build)
		if err != nil {
			b.Fatal(err)
		}
		c0 := cpuTime()
		if _, err := tbl.MaybeCheckpoint(ctx, snap, res.Version); err != nil {
			b.Fatal(err)
		}
		ckpt += cpuTime() - c0
		switch batch {
		case 100:
			c.first = float64(time.Since(t0).Microseconds()) / 1000 / 100
			c.cpuFirst = float64((cpuTime() - cpu0).Microseconds()) / 1000 / 100
			c.ckptFirst = float64(ckpt.Microseconds()) / 1000 / 100
		case int64(n):
			c.last = float64(time.Since(t0).Microseconds()) / 1000 / 100
			c.cpuLast = float64((cpuTime() - cpu0).Microseconds()) / 1000 / 100
			c.ckptLast = float64(ckpt.Microseconds()) / 1000 / 100
		}
	}
	return c
}
