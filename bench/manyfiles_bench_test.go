package bench

import "testing"

// BenchmarkManyFiles ingests the two many-file shapes of
// scripts/bench-compare.sh in one batch each, through the CLI's adapters
// (as BenchmarkJSONToDelta), with inferColumnTypes=true:
//
//   - small: 10,000 NDJSON files of ~1 KB (the per-file costs: listing,
//     registering, planning, opening, reading, inference, decoding)
//   - mid:   100 NDJSON files of ~1 MB (pipelining across files)
//
// Compare cpu-s/op at GOMAXPROCS=1 and 2 (-cpu 1,2).
func BenchmarkManyFiles(b *testing.B) {
	for _, c := range []ingestCase{
		{name: "small", ds: ensure(b, Spec{Files: 10000, FileBytes: 1 << 10, Seed: 20240301}), infer: true, maxFiles: 100000, wantBatches: 1},
		{name: "mid", ds: ensure(b, Spec{Files: 100, FileBytes: 1 << 20, Seed: 20240301}), infer: true, maxFiles: 100000, wantBatches: 1},
	} {
		b.Run(c.name, func(b *testing.B) { benchIngest(b, c) })
	}
}
