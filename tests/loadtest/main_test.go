package main

import (
	"context"
	"testing"
)

// TestSmallLoad runs the load test at 400 files in 2 batches on moto (the
// quick version in `make test`; `make loadtest` runs 100,000): every file
// COMMITTED once, one Delta row each, file items over all 32 shards. At
// 12.5 files per shard on average the spread bound is loose; the 100,000
// run holds the 1.25 default.
func TestSmallLoad(t *testing.T) {
	p := params{files: 400, batch: 100, uploadWorkers: 4, discoveryWorkers: 2, maxFilesPerTrigger: 200, maxSkew: 2}
	if err := run(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}
