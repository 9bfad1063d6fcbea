package sink

import (
	"context"
	"fmt"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/sink/predicate"
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

// BenchmarkReplaceWhere plans a selective overwrite of a table of 100
// files of 1,000 rows (ids in file order) by a batch of 100 rows: a range
// predicate decided on the files' min/max (10 files removed whole, none
// read), one whose bounds straddle files (2 files read and rewritten), and
// a string predicate that reads every file.
func BenchmarkReplaceWhere(b *testing.B) {
	for _, tc := range []struct{ name, where string }{
		{"stats-whole", "id >= 10000 AND id < 20000"},
		{"stats-straddle", "id >= 10500 AND id < 11500"},
		{"read-all", "v = 'none'"},
	} {
		b.Run(tc.name, func(b *testing.B) {
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
			where, err := predicate.Parse(tc.where)
			if err != nil {
				b.Fatal(err)
			}
			rows := make([]string, 100)
			for i := range rows {
				rows[i] = fmt.Sprintf("%d=none", 10500+i)
				if tc.name == "read-all" {
					rows[i] = fmt.Sprintf("%d=none", i)
				}
			}
			batch := w.file("", rows...)
			r := &Replace{Where: where, Files: w.files}
			b.ResetTimer()
			var plan *ReplacePlan
			for range b.N {
				if plan, err = r.Plan(context.Background(), snap, testSchema, []delta.Add{batch}); err != nil {
					b.Fatal(err)
				}
				plan.Discard(context.Background(), w.files)
			}
			b.ReportMetric(float64(plan.Metrics.NumTargetFilesSkipped), "files-decided-unread")
			b.ReportMetric(float64(plan.Metrics.NumRemovedFiles), "files-removed")
			b.ReportMetric(float64(plan.Metrics.NumFiles-1), "files-rewritten")
		})
	}
}
