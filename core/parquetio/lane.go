package parquetio

import (
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/tributary-io/tributary/core/parquetio/internal/lane"
)

// asyncLane encodes a fixed share of the leaf columns of the batches
// written with WriteBatchOwned on another goroutine, one job per batch on
// a lane.Queue (in order: a column's runs stay in order), while the
// writing goroutine encodes the other columns and returns without
// waiting: the per-batch wait for a helper goroutine (forEach) left the
// encoding on the writing goroutine whenever the other core was busy
// decoding, and the decoders then waited for it. drain waits for the jobs
// before anything else touches the lane's columns (a synchronous write, a
// row group flush, Close).
type asyncLane struct {
	own []bool      // by leaf column: encoded by the lane (nil: not split yet)
	q   *lane.Queue // nil until the first job
}

// laneJobs is the most batches whose lane columns are not encoded yet.
const laneJobs = 4

func (l *asyncLane) failed() bool { return l.q != nil && l.q.Err() != nil }

// drain waits for the lane's jobs and returns the Writer's error (a job's
// error becomes it).
func (w *Writer) drain() error {
	if w.lane.q == nil {
		return w.err
	}
	if err := w.lane.q.Wait(); err != nil && w.err == nil {
		w.err = fmt.Errorf("parquetio: writing rows: %w", err)
	}
	return w.err
}

// writeAsync writes w.runs (one segment: no row group fills up) of
// w.batch, the lane's columns in a job; release is called once both sides
// are done with the batch.
func (w *Writer) writeAsync(release func()) error {
	l := &w.lane
	if l.own == nil {
		l.own, l.q = w.splitColumns(), lane.New(laneJobs)
	}
	batch, runs := w.batch, slices.Clone(w.runs)
	runStats, preStats := w.runStats, w.preStats
	w.rgDone += int64(runs[len(runs)-1].to - runs[0].from)
	var left atomic.Int32
	left.Store(2)
	done := func() {
		if left.Add(-1) == 0 {
			release()
		}
	}
	write := func(b *colBatch, lane bool) (err error) {
		for c := range w.cols {
			if l.own[c] != lane {
				continue
			}
			if preStats {
				w.columnStats(c, &b.cols[c])
			}
			if e := w.writeColumnOf(c, b, runs, runStats); e != nil && err == nil {
				err = e
			}
			b.release(c)
		}
		return err
	}
	l.q.Submit(func() error {
		defer done()
		return write(&batch, true)
	})
	err := write(&w.batch, false)
	done()
	if err != nil {
		w.err = fmt.Errorf("parquetio: writing rows: %w", err)
	}
	return w.err
}

// splitColumns gives the lane about half the cost of w.batch's columns
// (costliestFirst's measure), the costliest columns dealt to the side with
// less so far.
func (w *Writer) splitColumns() []bool {
	own := make([]bool, len(w.cols))
	var mine, lanes int
	for _, c := range w.costliestFirst() {
		cost := 8*len(w.batch.cols[c].Defs) + len(w.batch.cols[c].Data) + 1
		if lanes < mine {
			own[c], lanes = true, lanes+cost
		} else {
			mine += cost
		}
	}
	return own
}
