package convert

import (
	"context"
	"runtime"
	"sync"
)

// Lanes. A batch of many small files at more than one CPU is split into
// lanes: consecutive runs of its files, each converted by a pipeline of
// its own (one decoder, one encoder) into data files of its own, the lanes
// side by side. A single pipeline hands every small file from a decoder to
// the one encoder, and on small files those hand-offs, not the decoding,
// bound two CPUs; lanes share nothing but the batch.
const (
	// laneMinFiles is the fewest files a lane takes: below it, the
	// hand-offs cost less than a second data file is worth. Batches of
	// 1,000 files of 1 KB (maxFilesPerTrigger's default) at two CPUs
	// gained nothing measurable in lanes of 500 (10 alternated runs of
	// 10,000 files: -1 ms, 6 of 10 lower), and each batch wrote, and a
	// reader opens, a second data file; 10,000 files in one batch gain
	// 8-10 ms.
	laneMinFiles = 1024
	// laneMaxBytes bounds the batch's input that lanes convert: each lane
	// buffers its own row group, so the lanes together hold no more than
	// one pipeline's row group would.
	laneMaxBytes = 128 << 20
)

// lanes returns how many lanes b is converted in (1: one pipeline). Lanes
// need the files' sizes (a bound on the lanes' row groups together), no
// badRecordsPath (its exception files list bad records in file order) and
// no partitions (each lane would write a file per partition).
func (c *Converter) lanes(b Batch) int {
	if b.Bad != nil || len(c.PartitionBy) > 0 || len(c.Partitions.Names) > 0 || len(b.Sizes) != len(b.Files) {
		return 1
	}
	var total int64
	for _, n := range b.Sizes {
		if n < 0 {
			return 1
		}
		total += n
	}
	if total > laneMaxBytes {
		return 1
	}
	per := laneMinFiles
	if c.laneFiles > 0 {
		per = c.laneFiles
	}
	return max(1, min(runtime.GOMAXPROCS(0), maxDecoders, len(b.Files)/per))
}

// writeLanes converts b in n lanes of consecutive files and joins their
// outputs in file order: the adds, rows and skipped files of the first
// lane, then the next. Judging a failed file is serialised (failures is
// one map). The first lane's error in file order is the batch's, as with
// one pipeline (a lane after it is cancelled; one before it is waited
// for, since its error would come first); on any error every lane's
// uploaded files are removed.
func (c *Converter) writeLanes(ctx context.Context, b Batch, failures Failures, n int) (*Output, error) {
	var mu sync.Mutex
	judge := func(fe *FileError) (Verdict, error) {
		mu.Lock()
		defer mu.Unlock()
		return c.Policy.Judge(failures, fe)
	}
	type result struct {
		out *Output
		fw  *fileWriter
		err error
	}
	res := make([]result, n)
	ctxs := make([]context.Context, n)
	cancels := make([]context.CancelFunc, n)
	for i := range n {
		ctxs[i], cancels[i] = context.WithCancel(ctx)
		defer cancels[i]()
	}
	var wg sync.WaitGroup
	for i := range n {
		lo, hi := i*len(b.Files)/n, (i+1)*len(b.Files)/n
		lb := b
		lb.Files, lb.Sizes = b.Files[lo:hi], b.Sizes[lo:hi]
		wg.Go(func() {
			out, fw, err := c.writeLane(ctxs[i], lb, judge, true)
			res[i] = result{out, fw, err}
			if err != nil {
				for _, cancel := range cancels[i+1:] {
					cancel()
				}
			}
		})
	}
	wg.Wait()
	out := &Output{}
	var err error
	for _, r := range res {
		if r.err != nil && err == nil {
			err = r.err
		}
	}
	if err != nil {
		for _, r := range res {
			if r.fw != nil {
				r.fw.discardAll(ctx)
			}
		}
		return nil, err
	}
	for _, r := range res {
		out.Adds = append(out.Adds, r.out.Adds...)
		out.Rows += r.out.Rows
		out.Rescued += r.out.Rescued
		out.OutBytes += r.out.OutBytes
		out.Skipped = append(out.Skipped, r.out.Skipped...)
	}
	return out, nil
}
