package sink

import (
	"context"
	"fmt"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
)

// BenchmarkMergeIntoTable merges a batch of 100 keys into a table of 100
// files of 1,000 rows (ids in file order): with keys in one file's range
// the other files are skipped on their min/max; with keys spread over
// every file each file is read and rewritten.
func BenchmarkMergeIntoTable(b *testing.B) {
	for _, spread := range []bool{false, true} {
		b.Run(fmt.Sprintf("spread=%v", spread), func(b *testing.B) {
			w := newWorld(b)
			var adds []delta.Add
			for f := range 100 {
				rows := make([]string, 1000)
				for r := range rows {
					rows[r] = fmt.Sprintf("%d=old", f*1000+r)
				}
				adds = append(adds, w.file("", rows...))
			}
			snap := w.commit(adds...)
			keys := make([]string, 100)
			for i := range keys {
				id := 5000 + i
				if spread {
					id = i * 1000
				}
				keys[i] = fmt.Sprintf("%d=new", id)
			}
			batch := w.file("", keys...)
			m := &Merge{Keys: []string{"id"}, Files: w.files}
			b.ResetTimer()
			var plan *MergePlan
			for range b.N {
				var err error
				if plan, err = m.Plan(context.Background(), snap, []delta.Add{batch}); err != nil {
					b.Fatal(err)
				}
				plan.Discard(context.Background(), w.files)
			}
			b.ReportMetric(float64(plan.Metrics.NumTargetFilesSkipped), "files-skipped")
			b.ReportMetric(float64(plan.Metrics.NumTargetFilesRemoved), "files-rewritten")
		})
	}
}
