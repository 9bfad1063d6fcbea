package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/infra/localfs"
)

// openShapes are the tables BenchmarkOpenTable opens: the same 10,000 live
// files written by 10 commits of 1,000 files or by 10,000 streaming
// commits of one file (a checkpoint every 10 commits, as the engine writes
// them).
var openShapes = []struct {
	name           string
	commits, files int // commits after the table's creation, files per commit
}{
	{"commits=10/files=10000", 10, 1000},
	{"commits=10000/files=10000", 10000, 1},
}

// openTableDir returns a cached table of the shape under the bench cache
// (.cache/bench/open-<commits>x<files>), creating it on first use. Its path
// is printed so that scripts/bench-open.sh can open it with delta-rs.
func openTableDir(b *testing.B, commits, files int) string {
	b.Helper()
	dir := filepath.Join(cacheDir(b), fmt.Sprintf("open-%dx%d", commits, files))
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil {
		return dir
	}
	if err := os.RemoveAll(dir); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	store, err := localfs.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	tbl := delta.NewTable(store)
	p := delta.ProtocolFor(false, nil)
	create := []delta.Action{{Protocol: &p}, {Metadata: &delta.Metadata{
		ID: "bench-open", Format: delta.Format{Provider: "parquet", Options: map[string]string{}},
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
	n := 0
	for batch := int64(0); batch < int64(commits); batch++ {
		build := func(*delta.Snapshot) ([]delta.Action, error) {
			acts := make([]delta.Action, files)
			for i := range acts {
				acts[i] = delta.Action{Add: &delta.Add{Path: fmt.Sprintf("part-%06d-%04d.parquet", batch, i), Size: 1000,
					ModificationTime: 1, DataChange: true, Stats: `{"numRecords":10,"minValues":{"a":1},"maxValues":{"a":10},"nullCount":{"a":0}}`}}
				n++
			}
			return acts, nil
		}
		res, err := tbl.CommitTxnFrom(ctx, snap, "bench-open", batch, build)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tbl.MaybeCheckpoint(ctx, snap, res.Version); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkOpenTable loads the latest snapshot (every live add in memory)
// of tables with the same 10,000 live files and 10 or 10,000 commits:
// ns/op should be close (the snapshot starts from the newest checkpoint
// and lists the log from it), and B/op is bounded by the live files, not
// the commits. scripts/bench-open.sh opens the same tables with delta-rs.
func BenchmarkOpenTable(b *testing.B) {
	for _, sh := range openShapes {
		b.Run(sh.name, func(b *testing.B) {
			dir := openTableDir(b, sh.commits, sh.files)
			b.Logf("table %s", dir)
			ctx := context.Background()
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				st, err := localfs.New(dir)
				if err != nil {
					b.Fatal(err)
				}
				snap, err := delta.NewTable(st).Snapshot(ctx)
				if err != nil || snap.NumFiles() != 10000 {
					b.Fatalf("%v, %d files", err, snap.NumFiles())
				}
				st.Close()
			}
			// CPU time is what counts on a loaded machine (wall time
			// includes waiting for a core).
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
