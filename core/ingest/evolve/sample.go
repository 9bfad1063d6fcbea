package evolve

import (
	"context"
	"runtime"
	"sync"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"github.com/tributary-io/tributary/core/ingest/convert"
)

// sampleFiles adds files to inf in order, as Auto Loader samples them:
// until maxFiles files were passed (maxFiles <= 0: all of them) or inf's
// byte budget is used up (checked before each file: the file that crosses
// it is read whole). An error of s.Sample (a file that fails the
// inference) ends it.
//
// When inf can fork (fileformat.ForkInferrer), more than one core is
// available and no file holds most of the sample's bytes (a big file
// is better read by the format's own parallel inference), the files are
// sampled on GOMAXPROCS workers, in runs of consecutive files each into a
// fork of its own as trials (convert.SampleFile.Trial), and the forks are
// merged in file order. A fork is merged only when inf is not full before
// any of its files; a run the budget ends inside, or with a file whose
// trial read failed, is sampled again into inf itself, in its turn, with
// ctx: so the files read, the bytes and records counted, the schema, and
// what is retried, skipped, logged or fails are the serial loop's. Workers
// read at most sampleAhead runs per worker past the one being merged.
func (s *Schemas) sampleFiles(ctx context.Context, inf formats.Inferrer, files []batchplan.PlanFile, maxFiles int) error {
	if maxFiles > 0 && len(files) > maxFiles {
		files = files[:maxFiles]
	}
	fk, ok := inf.(fileformat.ForkInferrer)
	workers := runtime.GOMAXPROCS(0)
	if !ok || workers < 2 || len(files) < 2 || dominated(files) {
		for _, f := range files {
			if inf.Full() {
				break
			}
			if err := s.Sample(ctx, inf, convert.SampleFile{Path: f.Path, Size: f.Size}); err != nil {
				return err
			}
		}
		return nil
	}
	return s.sampleParallel(ctx, fk, files, workers, runFiles, runBytes)
}

// sampleAhead bounds, per worker, the runs read ahead of the merge. A
// run holds only a fork (inferred types), never the files' bytes, so a
// deep window costs little memory: it keeps the other workers busy while
// the run being merged is late (its thread descheduled on a loaded
// machine: with 4 runs per worker one worker sat idle for 35 ms of a
// 55 ms sample), and bounds what is read past the end of the sample.
const sampleAhead = 16

// runBytes is about how many listed bytes a worker samples in one run
// of files, and runFiles the most files in a run: a run is handed over
// and merged with one synchronisation, where a 1 KiB file alone takes less
// time to sample than a goroutine takes to wake.
const (
	runBytes = 64 << 10
	runFiles = 64
)

// dominated reports whether one file holds more than half of the files'
// listed bytes.
func dominated(files []batchplan.PlanFile) bool {
	var total, most int64
	for _, f := range files {
		total += f.Size
		most = max(most, f.Size)
	}
	return most > total-most
}

// sampleRun is a run of files sampled ahead into one fork.
type sampleRun struct {
	paths []string
	sizes []int64 // listed
	fork  formats.Inferrer
	// cum[k] is the bytes the fork sampled from the run's first k+1 files.
	cum []int64
	// failed: a trial read failed; the fork holds part of that file.
	failed bool
	done   chan struct{}
}

// sampleParallel is sampleFiles on workers (see there): each worker
// samples a run of files (up to runFiles, about runBytes listed bytes)
// into a fork; the forks are merged in order. A
// run that the byte budget ends inside, or that holds a file whose trial
// read failed, is sampled again file by file into inf, as the serial loop
// does (the fork cannot be cut at a file).
func (s *Schemas) sampleParallel(ctx context.Context, inf fileformat.ForkInferrer, files []batchplan.PlanFile, workers, runFiles int, runBytes int64) error {
	tctx, cancel := context.WithCancel(ctx)
	window := sampleAhead * workers
	jobs := make(chan *sampleRun, window)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				for k, p := range r.paths {
					if tctx.Err() != nil || s.Sample(tctx, r.fork, convert.SampleFile{Path: p, Size: r.sizes[k], Trial: true}) != nil {
						r.failed = true
						break
					}
					r.cum = append(r.cum, r.fork.Sampled().Bytes)
				}
				close(r.done)
			}
		}()
	}
	defer func() {
		cancel() // files read ahead past the end are not needed
		close(jobs)
		wg.Wait()
	}()
	var queue []*sampleRun // sent, not merged yet, in file order
	next := 0              // files[next] is the next to send
	send := func() {
		for next < len(files) && len(queue) < window {
			f := inf.Fork()
			if f == nil {
				return // the inferrer cannot fork now
			}
			r := &sampleRun{fork: f, done: make(chan struct{})}
			var size int64
			for next < len(files) && len(r.paths) < runFiles && (len(r.paths) == 0 || size < runBytes) {
				r.paths, r.sizes = append(r.paths, files[next].Path), append(r.sizes, files[next].Size)
				size += files[next].Size
				next++
			}
			r.cum = make([]int64, 0, len(r.paths))
			queue = append(queue, r)
			jobs <- r
		}
	}
	// serial samples files into inf as the serial loop does.
	serial := func(files []batchplan.PlanFile) (bool, error) {
		for _, f := range files {
			if inf.Full() {
				return true, nil
			}
			if err := s.Sample(ctx, inf, convert.SampleFile{Path: f.Path, Size: f.Size}); err != nil {
				return true, err
			}
		}
		return false, nil
	}
	for i := 0; i < len(files); {
		if inf.Full() {
			return nil
		}
		send()
		if len(queue) == 0 {
			// The inferrer cannot fork now: this file is sampled into it.
			if stop, err := serial(files[i : i+1]); stop || err != nil {
				return err
			}
			i++
			next = i
			continue
		}
		r := queue[0]
		queue[0], queue = nil, queue[1:]
		<-r.done
		run := files[i : i+len(r.paths)]
		i += len(r.paths)
		// The budget ends inside the run if it is used up before its
		// last file.
		if r.failed || (len(r.cum) > 1 && inf.FullWith(r.cum[len(r.cum)-2])) {
			// Judged (retried, skipped, logged or failing) in
			// its turn, as the serial loop does.
			if stop, err := serial(run); stop || err != nil {
				return err
			}
			continue
		}
		inf.Merge(r.fork)
	}
	return nil
}
