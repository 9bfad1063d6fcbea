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
// MaybeCheckpoint (a checkpoint every 10 commits) — and reports the mean
// time per commit over the first and the last 100 commits (ms/first100,
// ms/last100) and their ratio (last/first): flat per-commit cost means a
// ratio near 1. Run with -benchtime 1x.
func BenchmarkCommitCurve(b *testing.B) {
	n := 10000
	if s := os.Getenv("TRIBUTARY_BENCH_COMMITS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 200 {
			b.Fatalf("TRIBUTARY_BENCH_COMMITS=%q: want a number >= 200", s)
		}
	}
	for i := 0; i < b.N; i++ {
		first, last := commitCurve(b, n)
		b.ReportMetric(first, "ms/first100")
		b.ReportMetric(last, "ms/last100")
		b.ReportMetric(last/first, "last/first")
	}
}

func commitCurve(b *testing.B, n int) (first, last float64) {
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
	if _, err := tbl.Commit(ctx, -1, create); err != nil {
		b.Fatal(err)
	}
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var t0 time.Time
	for batch := int64(1); batch <= int64(n); batch++ {
		switch batch {
		case 1, int64(n) - 99:
			t0 = time.Now()
		}
		build := func(*delta.Snapshot) ([]delta.Action, error) {
			return []delta.Action{{Add: &delta.Add{Path: fmt.Sprintf("part-%06d.parquet", batch), Size: 1000,
				ModificationTime: 1, DataChange: true, Stats: `{"numRecords":10}`}}}, nil
		}
		res, err := tbl.CommitTxnFrom(ctx, snap, "bench-stream", batch, build)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tbl.MaybeCheckpoint(ctx, snap, res.Version); err != nil {
			b.Fatal(err)
		}
		switch batch {
		case 100:
			first = float64(time.Since(t0).Microseconds()) / 1000 / 100
		case int64(n):
			last = float64(time.Since(t0).Microseconds()) / 1000 / 100
		}
	}
	return first, last
}
