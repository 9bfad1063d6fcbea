package parquetio

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tributary-io/tributary/core/parquetio/filestats"
)

// The encoder. Write shreds a batch into one value buffer per leaf column
// (colBatch), each top-level field on its own goroutine, then hands every
// column its values in runs of rows and encodes the column chunks on up to
// GOMAXPROCS goroutines: the column encoders (pagew.Column) are independent
// of one another until the row group is flushed, which copies the encoded
// chunks out in column order. The pages end where parquet-go's ColumnWriter
// ended them on the same runs (the previous encoder, kept in the tests as
// the reference of TestColumnPathMatchesRowPath).

// defaultMinParallel is the fewest values a batch needs before it is
// shredded and encoded on more than one goroutine (below it the handoff
// costs more than it saves).
const defaultMinParallel = 2048

// writeRunRows is the most rows handed to a column encoder at once (as
// parquet-go's row path split larger writes into runs of 64 rows and could
// cut a page after each).
const writeRunRows = 64

// run is rows [from, to) of a batch, handed to every column encoder at
// once; full means the row group is full after it.
type run struct {
	from, to int
	full     bool
}

// Write appends rows. Each row is validated against the schema first; on a
// mismatch Write returns an error wrapping ErrInvalidValue that names the row
// (counted from the start of the file) and the column path, and writes none
// of the rows of this call. After an output error the Writer is unusable.
func (w *Writer) Write(rows [][]any) error {
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	if len(rows) == 0 {
		return nil
	}
	workers := w.parallelism(len(rows))
	err := w.shredBatch(rows, workers)
	if err == nil {
		err = w.batch.fits()
	}
	if err != nil {
		for c := range w.batch.cols {
			w.batch.release(c)
		}
		return err
	}
	w.row += int64(len(rows))
	if w.file == nil {
		if err := w.start(w.dictionaryColumns(&w.batch)); err != nil {
			return err
		}
	}
	// The file statistics come from the rows, on this goroutine, while the
	// workers encode.
	var stats sync.WaitGroup
	if workers > 1 {
		stats.Add(1)
		go func() {
			defer stats.Done()
			for _, r := range rows {
				w.stats.Add(r)
			}
		}()
	} else {
		for _, r := range rows {
			w.stats.Add(r)
		}
	}
	err = w.encodeBatch(workers)
	stats.Wait()
	return err
}

// parallelism is how many goroutines shred and encode a batch of n rows.
func (w *Writer) parallelism(n int) int {
	if w.workers <= 1 || n*len(w.tree.Leaves) < w.minParallel {
		return 1
	}
	return w.workers
}

// shredBatch shreds rows into w.batch, the top-level fields on up to
// workers goroutines. On a mismatch it returns the error of the first
// failing row (and of its first failing field), as shredding row after
// row would.
func (w *Writer) shredBatch(rows [][]any, workers int) error {
	b := &w.batch
	b.reset(len(rows))
	fields := w.tree.Children
	n := len(rows)
	var widthErr error
	for i, r := range rows {
		if len(r) != len(fields) {
			n = i
			widthErr = fmt.Errorf("%w: row %d has %d values, schema has %d fields", ErrInvalidValue, w.row+int64(i), len(r), len(fields))
			break
		}
	}
	workers = min(workers, len(fields))
	for len(w.shr) < workers {
		w.shr = append(w.shr, &shredder{tree: w.tree, b: b})
	}
	for _, s := range w.shr[:workers] {
		s.sizes = resetSizes(s.sizes, len(rows))
	}
	_ = w.forEachOn(len(fields), workers, func(k, f int) error {
		w.ferrs[f] = w.shr[k].field(f, rows[:n], w.row)
		return nil
	})
	first := -1
	for f, e := range w.ferrs {
		if e.err != nil && (first < 0 || e.row < w.ferrs[first].row) {
			first = f
		}
	}
	if first >= 0 {
		return w.ferrs[first].err
	}
	if widthErr != nil {
		return widthErr
	}
	for _, s := range w.shr[:workers] {
		for i, n := range s.sizes {
			b.sizes[i] += n
		}
	}
	return nil
}

// encodeBatch hands the shredded batch to the column writers in runs of at
// most writeRunRows rows and about PageBytes bytes that end where a row
// group fills up. parquet-go cuts a page only at the end of a run, which
// lets the byte-array statistics follow the pages, and buffers a whole run
// before it does: a run of several huge values would be held (and encoded)
// at once. A huge row takes the next row along when that one is small:
// parquet-go copies the values of a page holding a single byte-array value
// once more (byteArrayColumnBuffer.page).
func (w *Writer) encodeBatch(workers int) error {
	b := &w.batch
	w.runs = w.runs[:0]
	from := 0
	var runBytes int64
	page := int64(w.opts.PageBytes)
	for i, size := range b.sizes {
		w.rgRows++
		w.rgBytes += size
		runBytes += size
		full := w.rgBytes >= w.opts.RowGroupBytes ||
			(w.opts.RowGroupRows > 0 && w.rgRows >= int64(w.opts.RowGroupRows))
		last := i == b.rows-1
		big := runBytes >= page && (i > from || last || b.sizes[i+1] >= page)
		if !full && !last && i+1-from < writeRunRows && !big {
			continue
		}
		w.runs = append(w.runs, run{from: from, to: i + 1, full: full})
		from, runBytes = i+1, 0
		if full {
			w.rgRows, w.rgBytes = 0, 0
		}
	}
	// Segments of runs that end with a full row group (or the batch).
	for start := 0; start < len(w.runs); {
		end := start + 1
		for end < len(w.runs) && !w.runs[end-1].full {
			end++
		}
		last := end == len(w.runs)
		if err := w.writeRuns(w.runs[start:end], workers, last); err != nil {
			return err
		}
		if w.runs[end-1].full {
			if err := w.flushRowGroup(); err != nil {
				return err
			}
		}
		start = end
	}
	return nil
}

// writeRuns writes runs to every column encoder, the columns on up to
// workers goroutines, the costliest first (so that a large column does not
// start last and leave the other workers idle); release drops the batch's
// values afterwards. The error is the lowest failing column's.
func (w *Writer) writeRuns(runs []run, workers int, release bool) error {
	base := w.rgDone
	write := func(c int) error {
		if w.preStats {
			w.columnStats(c, &w.batch.cols[c])
		}
		err := w.writeColumn(c, runs)
		if release {
			w.batch.release(c)
		}
		return err
	}
	var err error
	if workers = min(workers, len(w.cols)); workers <= 1 {
		err = w.forEach(len(w.cols), 1, write)
	} else {
		order := w.costliestFirst()
		w.colErrs = append(w.colErrs[:0], make([]error, len(w.cols))...)
		_ = w.forEach(len(order), workers, func(i int) error {
			w.colErrs[order[i]] = write(order[i])
			return nil
		})
		for _, e := range w.colErrs {
			if e != nil {
				err = e
				break
			}
		}
	}
	w.preStats = false
	w.rgDone = base + int64(runs[len(runs)-1].to-runs[0].from)
	if err != nil {
		w.err = fmt.Errorf("parquetio: writing rows: %w", err)
		return w.err
	}
	return nil
}

// costliestFirst orders the leaf columns by the bytes of their values in
// the batch (8 per value, plus byte arrays' bytes), largest first.
func (w *Writer) costliestFirst() []int {
	cols := w.batch.cols
	w.order = w.order[:0]
	for c := range w.cols {
		w.order = append(w.order, c)
	}
	cost := func(c int) int { return 8*len(cols[c].Defs) + len(cols[c].Data) }
	slices.SortStableFunc(w.order, func(a, b int) int { return cmp.Compare(cost(b), cost(a)) })
	return w.order
}

// writeColumn writes runs of column c; a string column whose file
// statistics come from the runs (lstats inRuns) gets them from the
// encoder's min and max.
func (w *Writer) writeColumn(c int, runs []run) error {
	col := w.cols[c]
	var fs *filestats.Leaf
	if w.runStats && w.lstats[c].inRuns {
		fs = w.lstats[c].h
	}
	// Room for the values first (not a page grown a quarter at a time).
	all := w.batch.rowValues(c, runs[0].from, runs[len(runs)-1].to)
	bytes := 0
	if n := len(all.Offs); n > 0 {
		bytes = int(all.Offs[n-1] - all.Offs[0])
	}
	col.Reserve(len(all.Defs), bytes)
	for _, r := range runs {
		run := w.batch.rowValues(c, r.from, r.to)
		if err := col.Write(&run, r.to-r.from, fs); err != nil {
			return err
		}
	}
	return nil
}

// forEach calls f(i) for i in [0, n) on up to workers goroutines (the
// caller's among them) and returns the error of the lowest i that failed.
func (w *Writer) forEach(n, workers int, f func(i int) error) error {
	return w.forEachOn(n, workers, func(_, i int) error { return f(i) })
}

// forEachOn is forEach that also tells f which worker (0 ≤ k < workers)
// runs it.
func (w *Writer) forEachOn(n, workers int, f func(k, i int) error) error {
	workers = min(workers, n)
	if workers <= 1 {
		for i := range n {
			if err := f(0, i); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, n)
	var next atomic.Int64
	work := func(k int) {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			errs[i] = f(k, i)
		}
	}
	var wg sync.WaitGroup
	for k := 1; k < workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(k)
		}()
	}
	work(0)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
