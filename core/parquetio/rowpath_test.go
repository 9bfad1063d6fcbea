package parquetio

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/tributary-io/tributary/core/parquetio/filestats"
	"github.com/tributary-io/tributary/core/parquetio/internal/chunkstats"
	"github.com/tributary-io/tributary/core/parquetio/internal/dictpick"
	"github.com/tributary-io/tributary/core/parquetio/internal/ptree"
	"github.com/tributary-io/tributary/core/schema"
)

// rowPath is the writer's previous encoder, kept as the reference of
// TestColumnPathMatchesRowPath: rows shredded one
// after another into one buffer, handed to parquet-go's row path
// (Writer.WriteRows) on one goroutine, its byte-array statistics followed
// run by run and its footer rewritten by chunkstats, as the Writer did
// before it encoded the pages itself (pagew). It uses its Writer w only for
// the schema tree, the options, the row-group cut and the file statistics.
type rowPath struct {
	w      *Writer
	out    *legacyOut
	pw     *parquet.Writer
	track  []*chunkstats.Track
	groups []chunkstats.Group
	rgDone int64
	cols   [][]parquet.Value
	buf    []parquet.Value
	ends   []int
	size   []int64
	rows   []parquet.Row
	cur    int64 // the row being shredded
	rsz    int64
}

// newRowPath returns the previous encoder writing to out.
func newRowPath(out io.Writer, s *schema.StructType, opts WriterOptions) (*rowPath, error) {
	w, err := NewWriter(io.Discard, s, opts)
	if err != nil {
		return nil, err
	}
	p := &rowPath{w: w, out: &legacyOut{bw: bufio.NewWriter(out)}}
	for _, c := range w.tracked {
		p.track = append(p.track, chunkstats.NewTrack(c))
	}
	return p, nil
}

// legacyOut is the previous Writer's output: buffered, with the bytes
// written after the last row group captured for rewriting.
type legacyOut struct {
	bw   *bufio.Writer
	n    int64
	tail *bytes.Buffer
}

func (o *legacyOut) Write(p []byte) (int, error) {
	if o.tail != nil {
		return o.tail.Write(p)
	}
	n, err := o.bw.Write(p)
	o.n += int64(n)
	return n, err
}

// start is the previous Writer.start: parquet-go's writer with the
// previous options and the columns in dict dictionary encoded.
func (p *rowPath) start(dict map[string]bool) error {
	w := p.w
	ps, err := ptree.ParquetSchema(w.schema, dict)
	if err != nil {
		return err
	}
	wopts := []parquet.WriterOption{ps,
		parquet.ColumnPageBuffers(w.pool),
		parquet.Compression(w.codec),
		parquet.PageBufferSize(w.opts.PageBytes),
		parquet.WriteBufferSize(0),
		parquet.CreatedBy("tributary", "1", ""),
		parquet.DataPageStatistics(false),
		parquet.ColumnIndexSizeLimit(func([]string) int { return filestats.ColumnIndexTruncateLength }),
		parquet.DictionaryMaxBytes(dictpick.FallbackBytes),
	}
	for _, c := range w.tracked {
		wopts = append(wopts, parquet.SkipPageBounds(w.plain.Columns()[c]...))
	}
	for k, v := range w.opts.Metadata {
		wopts = append(wopts, parquet.KeyValueMetadata(k, v))
	}
	p.pw = parquet.NewWriter(p.out, wopts...)
	return nil
}

func (p *rowPath) write(rows [][]any) error {
	w := p.w
	if w.closed {
		return ErrClosed
	}
	if w.err != nil {
		return w.err
	}
	if p.cols == nil {
		p.cols = make([][]parquet.Value, len(w.tree.Leaves))
	}
	p.buf, p.ends, p.size = p.buf[:0], p.ends[:0], p.size[:0]
	first := w.row
	for i, r := range rows {
		p.cur = first + int64(i)
		if err := p.shredRow(r); err != nil {
			for c := range p.cols {
				p.cols[c] = p.cols[c][:0]
			}
			return err
		}
	}
	w.row = first + int64(len(rows))
	for _, r := range rows {
		w.stats.Add(r)
	}
	if p.pw == nil && len(rows) > 0 {
		// The previous dictionary sample: the batch as the new path sees it.
		b := newColBatch(w.tree)
		for _, v := range p.buf {
			b.cols[v.Column()].Value(v, v.RepetitionLevel(), v.DefinitionLevel())
		}
		if err := p.start(w.dictionaryColumns(&b)); err != nil {
			return err
		}
	}
	p.rows = p.rows[:0]
	start := 0
	for _, end := range p.ends {
		p.rows = append(p.rows, parquet.Row(p.buf[start:end:end]))
		start = end
	}
	from := 0
	var runBytes int64
	page := int64(w.opts.PageBytes)
	for i := range p.rows {
		w.rgRows++
		w.rgBytes += p.size[i]
		runBytes += p.size[i]
		full := w.rgBytes >= w.opts.RowGroupBytes ||
			(w.opts.RowGroupRows > 0 && w.rgRows >= int64(w.opts.RowGroupRows))
		last := i == len(p.rows)-1
		big := runBytes >= page && (i > from || last || p.size[i+1] >= page)
		if !full && !last && i+1-from < writeRunRows && !big {
			continue
		}
		if err := p.writeRun(from, i+1); err != nil {
			return err
		}
		from, runBytes = i+1, 0
		if full {
			if err := p.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *rowPath) writeRun(from, to int) error {
	w := p.w
	start := 0
	if from > 0 {
		start = p.ends[from-1]
	}
	for _, v := range p.buf[start:p.ends[to-1]] {
		if k := w.trackOf[v.Column()]; k >= 0 && !v.IsNull() {
			p.track[k].Add(v.ByteArray())
		}
	}
	if _, err := p.pw.WriteRows(p.rows[from:to]); err != nil {
		w.err = fmt.Errorf("parquetio: writing rows: %w", err)
		return w.err
	}
	p.rgDone += int64(to - from)
	var idx []format.OffsetIndex
	if f := p.pw.File(); f != nil {
		idx = f.OffsetIndexes()
	}
	for _, ct := range p.track {
		n, first := -1, int64(-1)
		if c := ct.Col(); c < len(idx) {
			if n = len(idx[c].PageLocations); n > 0 {
				first = idx[c].PageLocations[n-1].FirstRowIndex
			}
		}
		ct.AfterRun(n, first, p.rgDone)
	}
	return nil
}

// flush is the previous flushRowGroup: parquet-go encodes the last pages.
func (p *rowPath) flush() error {
	w := p.w
	if err := p.pw.Flush(); err != nil {
		return err
	}
	g := chunkstats.Group{Rows: p.rgDone, Chunks: make([]chunkstats.Chunk, len(p.track))}
	for k, ct := range p.track {
		g.Chunks[k] = ct.EndGroup(p.rgDone)
	}
	p.groups = append(p.groups, g)
	w.rgRows, w.rgBytes, p.rgDone = 0, 0, 0
	return nil
}

// close is the previous Writer.Close.
func (p *rowPath) close() (FileStats, error) {
	w := p.w
	defer w.pool.Close()
	if w.err != nil {
		return FileStats{}, w.err
	}
	if p.pw == nil {
		if err := p.start(nil); err != nil {
			return FileStats{}, err
		}
	}
	if p.rgDone > 0 {
		if err := p.flush(); err != nil {
			return FileStats{}, err
		}
	}
	base := p.out.n
	p.out.tail = new(bytes.Buffer)
	err := p.pw.Close()
	tail := p.out.tail.Bytes()
	p.out.tail = nil
	if err != nil {
		return FileStats{}, err
	}
	if tail, err = chunkstats.RewriteTail(tail, base, w.tracked, p.groups); err != nil {
		return FileStats{}, err
	}
	if _, err := p.out.Write(tail); err != nil {
		return FileStats{}, err
	}
	if err := p.out.bw.Flush(); err != nil {
		return FileStats{}, err
	}
	return w.stats.Result(), nil
}

func (p *rowPath) shredRow(r []any) error {
	w := p.w
	if len(r) != len(w.tree.Children) {
		return fmt.Errorf("%w: row %d has %d values, schema has %d fields", ErrInvalidValue, p.cur, len(r), len(w.tree.Children))
	}
	p.rsz = 0
	for i, c := range w.tree.Children {
		if err := p.shred(c, r[i], 0, 0); err != nil {
			return err
		}
	}
	for c := range p.cols {
		p.buf = append(p.buf, p.cols[c]...)
		p.cols[c] = p.cols[c][:0]
	}
	p.ends = append(p.ends, len(p.buf))
	p.size = append(p.size, p.rsz)
	return nil
}

func (p *rowPath) fail(t *ptree.Node, format string, args ...any) error {
	return fmt.Errorf("%w: row %d, column %s (%s): %s", ErrInvalidValue, p.cur, t.Path, t.Type, fmt.Sprintf(format, args...))
}

func (p *rowPath) shred(t *ptree.Node, v any, r, d int) error {
	if v == nil {
		if !t.Nullable {
			return p.fail(t, "null in a non-nullable column")
		}
		p.nulls(t, r, d)
		return nil
	}
	switch t.Kind {
	case ptree.KindLeaf:
		pv, n, err := leafValue(t, v)
		if err != nil {
			return p.fail(t, "%v", err)
		}
		p.cols[t.Col] = append(p.cols[t.Col], pv.Level(r, t.Def, t.Col))
		p.rsz += n + 1
	case ptree.KindStruct:
		fields, ok := v.([]any)
		if !ok {
			return p.fail(t, "want []any, got %T", v)
		}
		if len(fields) != len(t.Children) {
			return p.fail(t, "struct value has %d fields, want %d", len(fields), len(t.Children))
		}
		for i, c := range t.Children {
			if err := p.shred(c, fields[i], r, t.Def); err != nil {
				return err
			}
		}
	case ptree.KindList:
		elems, ok := v.([]any)
		if !ok {
			return p.fail(t, "want []any, got %T", v)
		}
		if len(elems) == 0 {
			p.nulls(t, r, t.Def)
			return nil
		}
		for i, x := range elems {
			rr := r
			if i > 0 {
				rr = t.ElemRep
			}
			if err := p.shred(t.Children[0], x, rr, t.ElemDef); err != nil {
				return err
			}
		}
	case ptree.KindMap:
		entries, ok := v.([]schema.MapEntry)
		if !ok {
			return p.fail(t, "want []schema.MapEntry, got %T", v)
		}
		if len(entries) == 0 {
			p.nulls(t, r, t.Def)
			return nil
		}
		k, val := t.Children[0], t.Children[1]
		for i, me := range entries {
			rr := r
			if i > 0 {
				rr = t.ElemRep
			}
			if me.Key == nil {
				return p.fail(k, "null map key")
			}
			if err := p.shred(k, me.Key, rr, t.ElemDef); err != nil {
				return err
			}
			if err := p.shred(val, me.Value, rr, t.ElemDef); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *rowPath) nulls(t *ptree.Node, r, d int) {
	for _, c := range t.Leaves {
		p.cols[c] = append(p.cols[c], parquet.NullValue().Level(r, d, c))
	}
	p.rsz += int64(len(t.Leaves))
}

// corrupt returns a copy of row with one value replaced by a value of the
// wrong type (or nil), somewhere in the tree.
func corrupt(g gen, row []any) []any {
	out := append([]any(nil), row...)
	if len(out) == 0 { // corrupted before down to no values
		return append(out, struct{}{})
	}
	i := g.r.IntN(len(out))
	switch g.r.IntN(3) {
	case 0:
		out[i] = nil
	case 1:
		out[i] = struct{}{}
	default:
		out = out[:len(out)-1]
	}
	return out
}

// writeBoth writes batches with the column path (forced onto workers
// goroutines) and with the row path, and returns both files, statistics
// and the first Write error of each.
func writeBoth(t *testing.T, s *schema.StructType, batches [][][]any, opts WriterOptions, workers int) (cols, rows []byte, cst, rst FileStats, cerr, rerr error, written [][]any) {
	t.Helper()
	var cb, rb bytes.Buffer
	cw, err := NewWriter(&cb, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	cw.workers, cw.minParallel = workers, 0
	ref, err := newRowPath(&rb, s, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		e1, e2 := cw.Write(b), ref.write(b)
		if e1 == nil {
			written = append(written, b...)
		}
		if cerr == nil {
			cerr = e1
		}
		if rerr == nil {
			rerr = e2
		}
	}
	cst, err = cw.Close()
	if err != nil {
		t.Fatalf("Close (columns): %v", err)
	}
	rst, err = ref.close()
	if err != nil {
		t.Fatalf("Close (rows): %v", err)
	}
	return cb.Bytes(), rb.Bytes(), cst, rst, cerr, rerr, written
}

// TestColumnPathMatchesRowPath writes random schemas (every type, nested
// lists, maps and structs, nulls, NaN) and rows with random page and
// row-group sizes and codecs, with the column-parallel encoder (pagew, 2
// and 4 goroutines, every batch parallel) and with the previous row-by-row
// path through parquet-go's WriteRows (rowPath). The files must hold the
// same rows (read by pqarrow and by ReadFile), say the same in their
// footers and page indexes (sameContent: statistics, dictionaries, page
// boundaries, null counts, level histograms; checkBounds checks the min/max
// against the values), the new one must be no larger, the file statistics
// equal, and a batch with a bad value must fail with the same error (the
// first bad row, its first bad column) and write nothing in both.
func TestColumnPathMatchesRowPath(t *testing.T) {
	for seed := range uint64(80) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) { checkRowPathSeed(t, seed) })
	}
}

// FuzzColumnPathMatchesRowPath is TestColumnPathMatchesRowPath for any
// seed.
func FuzzColumnPathMatchesRowPath(f *testing.F) {
	f.Add(uint64(80))
	f.Fuzz(func(t *testing.T, seed uint64) { checkRowPathSeed(t, seed) })
}

// checkRowPathSeed draws a schema, batches of rows and writer options from
// seed and compares the two encoders' files.
func checkRowPathSeed(t *testing.T, seed uint64) {
	codecs := []string{"snappy", "zstd", "uncompressed", "gzip", "lz4"}
	g := gen{rand.New(rand.NewPCG(seed, 7))}
	s := g.structType(0, 1+g.r.IntN(10))
	var batches [][][]any
	for range 1 + g.r.IntN(5) {
		b := make([][]any, g.r.IntN(150))
		for i := range b {
			b[i] = g.value(s, false).([]any)
		}
		if len(b) > 0 && g.r.IntN(3) == 0 {
			for range 1 + g.r.IntN(3) {
				i := g.r.IntN(len(b))
				b[i] = corrupt(g, b[i])
			}
		}
		batches = append(batches, b)
	}
	opts := WriterOptions{PageBytes: 64 + g.r.IntN(8192), Compression: codecs[g.r.IntN(len(codecs))]}
	if g.r.IntN(2) == 0 {
		opts.RowGroupRows = 1 + g.r.IntN(100)
	} else {
		opts.RowGroupBytes = 256 + int64(g.r.IntN(32<<10))
	}
	workers := 2 + 2*g.r.IntN(2)
	cols, rows, cst, rst, cerr, rerr, written := writeBoth(t, s, batches, opts, workers)
	if fmt.Sprint(cerr) != fmt.Sprint(rerr) {
		t.Fatalf("Write errors differ:\ncolumns: %v\n   rows: %v", cerr, rerr)
	}
	if cerr != nil && !errors.Is(cerr, ErrInvalidValue) {
		t.Fatalf("Write: %v", cerr)
	}
	// The pages must not grow (the page indexes may: a page of nulls in a
	// fixed-length column gets its zero bounds, see meaningOf).
	if c, r := pageBytes(t, cols), pageBytes(t, rows); c > r {
		t.Errorf("pages grew: %d bytes, the row path's %d; schema %s, opts %+v", c, r, s, opts)
	}
	sameContent(t, s, cols, rows, written)
	cj, _ := json.Marshal(cst)
	rj, _ := json.Marshal(rst)
	if !bytes.Equal(cj, rj) {
		t.Fatalf("stats differ:\ncolumns %s\n   rows %s", cj, rj)
	}
}
