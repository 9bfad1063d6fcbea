// Package parquetio writes table rows (the row representation of package
// schema) to Parquet files that Delta Lake readers accept — Spark, delta-rs,
// DuckDB, Athena — and collects the per-file statistics a Delta add action
// carries. It also reads Parquet files back into the same row
// representation.
//
// The Parquet layout follows what Spark writes: fields in schema order,
// nullable fields OPTIONAL, 3-level LIST groups (list/element), MAP groups
// (key_value/key/value), timestamps as INT64 TIMESTAMP(MICROS) (adjusted to
// UTC for timestamp, not adjusted for timestamp_ntz), decimals as INT32,
// INT64 or FIXED_LEN_BYTE_ARRAY by precision. Rows are shredded into Parquet
// repetition and definition levels here rather than through parquet-go's
// reflection, which mishandles []any values.
//
// Parquet statistics follow parquet-mr: no page header statistics, column
// indexes with min/max cut to 64 bytes, and a column chunk's min/max left
// out when together they take 4096 bytes or more (the null count stays), so
// a 64 MB string costs about 64 MB of file. Encoded pages past SpillBytes
// per column chunk wait in a temporary file rather than in memory.
package parquetio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/lz4"
	"github.com/parquet-go/parquet-go/format"

	"github.com/tributary-io/tributary/core/parquetio/filestats"
	"github.com/tributary-io/tributary/core/parquetio/internal/values"
	"github.com/tributary-io/tributary/core/schema"
)

// Contract errors.
var (
	// ErrInvalidValue means a row value does not match the schema: wrong Go
	// type, null in a non-nullable column, wrong struct width, decimal out of
	// range.
	ErrInvalidValue = errors.New("parquetio: value does not match schema")
	// ErrUnsupportedSchema means a schema cannot be written to or read from
	// Parquet.
	ErrUnsupportedSchema = errors.New("parquetio: unsupported schema")
	// ErrInvalidOption means a WriterOptions field is out of range.
	ErrInvalidOption = errors.New("parquetio: invalid writer option")
	// ErrClosed means the Writer was used after Close or after a failed
	// write to its output.
	ErrClosed = errors.New("parquetio: writer closed")
	// ErrCorrupt means a Parquet file could not be decoded.
	ErrCorrupt = errors.New("parquetio: corrupt parquet file")
)

// Defaults of WriterOptions.
const (
	// DefaultRowGroupBytes is the target uncompressed size of a row group.
	DefaultRowGroupBytes = 128 << 20
	// DefaultPageBytes is the target uncompressed size of a data page.
	DefaultPageBytes = 1 << 20
	// DefaultNumIndexedCols is delta.dataSkippingNumIndexedCols' default.
	DefaultNumIndexedCols = 32
	// DefaultStringPrefixLength is delta.dataSkippingStringPrefixLength's
	// default.
	DefaultStringPrefixLength = 32
)

// WriterOptions configures a Writer. The zero value is valid.
type WriterOptions struct {
	// Compression is the page codec: "snappy" (default), "zstd", "gzip",
	// "lz4" (LZ4_RAW) or "uncompressed" ("none").
	Compression string
	// RowGroupRows caps the rows in one row group; 0 means no cap besides
	// RowGroupBytes.
	RowGroupRows int
	// RowGroupBytes is the target uncompressed size of a row group
	// (estimated from the values written); 0 means DefaultRowGroupBytes. The
	// writer holds at most about one row group of compressed pages in
	// memory.
	RowGroupBytes int64
	// PageBytes is the target uncompressed size of a data page; 0 means
	// DefaultPageBytes.
	PageBytes int
	// NumIndexedCols is the number of leaf columns, in schema order, that
	// get statistics (delta.dataSkippingNumIndexedCols): 0 means
	// DefaultNumIndexedCols, negative means all columns.
	NumIndexedCols int
	// StatsColumns, when non-nil, are the column paths that get statistics
	// (delta.dataSkippingStatsColumns; a struct's path covers all its
	// fields); it overrides NumIndexedCols.
	StatsColumns [][]string
	// NoStats disables minValues, maxValues and nullCount (numRecords is
	// still counted), as delta.dataSkippingNumIndexedCols = 0 does.
	NoStats bool
	// StringPrefixLength is the length, in UTF-16 code units as Spark counts,
	// that string min/max statistics are truncated to; 0 means
	// DefaultStringPrefixLength.
	StringPrefixLength int
	// Metadata is written to the file footer's key/value metadata.
	Metadata map[string]string
	// SpillBytes is how many bytes of encoded pages a column chunk keeps in
	// memory before they move to a temporary file; 0 means
	// DefaultSpillBytes.
	SpillBytes int64
	// TempDir is the directory of those temporary files ("" means
	// os.TempDir()); they are unlinked as soon as they are created.
	TempDir string
}

// Writer streams rows into one Parquet file. It is not safe for concurrent
// use.
type Writer struct {
	tree    *tnode
	pw      *parquet.Writer // nil until the first batch chose the encodings
	schema  *schema.StructType
	plain   *parquet.Schema        // the schema without dictionary encoding
	wopts   []parquet.WriterOption // the writer options besides the schema
	out     *outWriter
	pool    *spillPool
	opts    WriterOptions
	tracked []int       // leaf columns of physical type BYTE_ARRAY
	trackOf []int       // leaf column -> index in tracked, or -1
	track   []*colTrack // byte-array statistics of the row group being written
	groups  []groupStat // byte-array statistics of the finished row groups
	rgDone  int64       // rows of the current row group handed to parquet-go
	stats   *filestats.Collector
	cols    [][]parquet.Value // per-column values of the row being shredded
	buf     []parquet.Value   // shredded values of the batch, row after row
	ends    []int             // end offset in buf of each row of the batch
	sizes   []int64           // estimated uncompressed bytes of each row
	rows    []parquet.Row
	rowSize int64
	row     int64 // index of the row being shredded, counted over the file
	rgRows  int64
	rgBytes int64
	closed  bool
	err     error
}

// NewWriter returns a Writer of rows of schema s to w.
func NewWriter(w io.Writer, s *schema.StructType, opts WriterOptions) (*Writer, error) {
	if s == nil || len(s.Fields) == 0 {
		return nil, fmt.Errorf("%w: schema has no fields", ErrUnsupportedSchema)
	}
	if opts.RowGroupRows < 0 || opts.RowGroupBytes < 0 || opts.PageBytes < 0 || opts.StringPrefixLength < 0 || opts.SpillBytes < 0 {
		return nil, fmt.Errorf("%w: negative size in %+v", ErrInvalidOption, opts)
	}
	if opts.RowGroupBytes == 0 {
		opts.RowGroupBytes = DefaultRowGroupBytes
	}
	if opts.PageBytes == 0 {
		opts.PageBytes = DefaultPageBytes
	}
	if opts.NumIndexedCols == 0 {
		opts.NumIndexedCols = DefaultNumIndexedCols
	}
	if opts.StringPrefixLength == 0 {
		opts.StringPrefixLength = DefaultStringPrefixLength
	}
	if opts.SpillBytes == 0 {
		opts.SpillBytes = DefaultSpillBytes
	}
	codec, err := codecOf(opts.Compression)
	if err != nil {
		return nil, err
	}
	ps, err := parquetSchema(s, nil)
	if err != nil {
		return nil, err
	}
	tree, err := buildTree(ps)
	if err != nil {
		return nil, err
	}
	out := newOutWriter(w)
	pool := newSpillPool(opts.TempDir, opts.SpillBytes)
	wopts := []parquet.WriterOption{
		parquet.ColumnPageBuffers(pool),
		parquet.Compression(codec),
		parquet.PageBufferSize(opts.PageBytes),
		parquet.WriteBufferSize(0), // out buffers; the footer must not linger in parquet-go
		parquet.CreatedBy("tributary", "1", ""),
		// parquet-mr writes no page header statistics (the column index
		// replaces them) and truncates column-index bounds to 64 bytes.
		parquet.DataPageStatistics(false),
		parquet.ColumnIndexSizeLimit(func([]string) int { return filestats.ColumnIndexTruncateLength }),
	}
	trackOf := make([]int, len(tree.leaves))
	var tracked []int
	for i, path := range ps.Columns() {
		trackOf[i] = -1
		if leaf, ok := ps.Lookup(path...); ok && leaf.ColumnIndex == i && leaf.Node.Type().Kind() == parquet.ByteArray {
			trackOf[i] = len(tracked)
			tracked = append(tracked, i)
			wopts = append(wopts, parquet.SkipPageBounds(path...))
		}
	}
	for k, v := range opts.Metadata {
		wopts = append(wopts, parquet.KeyValueMetadata(k, v))
	}
	track := make([]*colTrack, len(tracked))
	for k, c := range tracked {
		track[k] = newColTrack(c)
	}
	return &Writer{
		tree:    tree,
		schema:  s,
		plain:   ps,
		wopts:   wopts,
		out:     out,
		pool:    pool,
		opts:    opts,
		tracked: tracked,
		trackOf: trackOf,
		track:   track,
		stats:   filestats.New(s, filestats.Options{NoStats: opts.NoStats, NumIndexedCols: opts.NumIndexedCols, StringPrefixLength: opts.StringPrefixLength, StatsColumns: opts.StatsColumns}),
		cols:    make([][]parquet.Value, len(tree.leaves)),
	}, nil
}

// CodecInfix is the codec part of a data file's name, as Spark names them
// (part-…-c000.snappy.parquet, .zstd., .gz., .lz4raw.; none uncompressed),
// for a WriterOptions.Compression value.
func CodecInfix(codec string) string {
	switch codec {
	case "", "snappy":
		return ".snappy"
	case "gzip":
		return ".gz"
	case "lz4":
		return ".lz4raw"
	case "uncompressed":
		return ""
	}
	return "." + codec
}

func codecOf(name string) (compress.Codec, error) {
	switch name {
	case "", "snappy":
		return fastSnappy{}, nil
	case "zstd":
		return &parquet.Zstd, nil
	case "gzip":
		return &parquet.Gzip, nil
	case "lz4", "lz4_raw":
		// parquet-go's Lz4Raw compresses with LZ4 HC (about 4x the CPU of
		// snappy); Fastest is the plain LZ4 block compressor, as Spark and
		// Arrow write.
		return &lz4.Codec{Level: lz4.Fastest}, nil
	case "uncompressed", "none":
		return &parquet.Uncompressed, nil
	}
	return nil, fmt.Errorf("%w: Compression %q (want snappy, zstd, gzip, lz4 or uncompressed)", ErrInvalidOption, name)
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
	w.buf, w.ends, w.sizes = w.buf[:0], w.ends[:0], w.sizes[:0]
	first := w.row
	for i, r := range rows {
		w.row = first + int64(i)
		if err := w.shredRow(r); err != nil {
			for c := range w.cols {
				w.cols[c] = w.cols[c][:0]
			}
			w.row = first
			return err
		}
	}
	w.row = first + int64(len(rows))
	for _, r := range rows {
		w.stats.Add(r)
	}
	if w.pw == nil && len(rows) > 0 {
		if err := w.start(w.dictionaryColumns(w.buf)); err != nil {
			return err
		}
	}
	w.rows = w.rows[:0]
	start := 0
	for _, end := range w.ends {
		w.rows = append(w.rows, parquet.Row(w.buf[start:end:end]))
		start = end
	}
	// Hand rows to parquet-go in runs of at most writeRunRows rows and
	// about PageBytes bytes that end where a row group fills up. parquet-go
	// cuts a page only at the end of a run, which lets the byte-array
	// statistics follow the pages, and buffers a whole run before it does:
	// a run of several huge values would be held (and encoded) at once. A
	// huge row takes the next row along when that one is small: parquet-go
	// copies the values of a page holding a single byte-array value once
	// more (byteArrayColumnBuffer.page).
	from := 0
	var runBytes int64
	page := int64(w.opts.PageBytes)
	for i := range w.rows {
		w.rgRows++
		w.rgBytes += w.sizes[i]
		runBytes += w.sizes[i]
		full := w.rgBytes >= w.opts.RowGroupBytes ||
			(w.opts.RowGroupRows > 0 && w.rgRows >= int64(w.opts.RowGroupRows))
		last := i == len(w.rows)-1
		big := runBytes >= page && (i > from || last || w.sizes[i+1] >= page)
		if !full && !last && i+1-from < writeRunRows && !big {
			continue
		}
		if err := w.writeRun(from, i+1); err != nil {
			return err
		}
		from, runBytes = i+1, 0
		if full {
			if err := w.flushRowGroup(); err != nil {
				return err
			}
		}
	}
	clear(w.rows)
	clear(w.buf) // drop the references to the rows' strings
	return nil
}

// start creates the parquet-go writer, with the top-level columns in dict
// dictionary encoded.
func (w *Writer) start(dict map[string]bool) error {
	ps := w.plain
	if len(dict) > 0 {
		var err error
		if ps, err = parquetSchema(w.schema, dict); err != nil {
			return err
		}
	}
	w.pw = parquet.NewWriter(w.out, append([]parquet.WriterOption{ps}, w.wopts...)...)
	return nil
}

// Dictionary encoding, decided once per file from its first batch of rows
// (parquet-go fixes a column's encoding for the whole file): a leaf column
// (booleans aside) is dictionary encoded when its sampled non-null values
// number at least dictMinValues and at most half of them are distinct, and
// its distinct values are at most dictMaxEntries and dictMaxBytes — a
// low-cardinality column, for which the dictionary pays (parquet-mr tries a
// dictionary for every column and falls back to plain when it outgrows its
// page; parquet-go cannot fall back mid-file, so the sample decides).
const (
	dictMinValues  = 16
	dictMaxEntries = 1 << 16
	dictMaxBytes   = 1 << 20
)

// dictionaryColumns picks the dictionary-encoded leaf columns (by Parquet
// path) from a shredded batch.
func (w *Writer) dictionaryColumns(batch []parquet.Value) map[string]bool {
	type sample struct {
		values   int
		bytes    int
		distinct map[string]struct{}
		over     bool
	}
	paths := w.plain.Columns()
	cols := make([]*sample, len(paths))
	for i, path := range paths {
		if leaf, ok := w.plain.Lookup(path...); ok && leaf.Node.Type().Kind() != parquet.Boolean {
			cols[i] = &sample{distinct: map[string]struct{}{}}
		}
	}
	var key []byte
	for _, v := range batch {
		c := v.Column()
		if c < 0 || c >= len(cols) || cols[c] == nil || v.IsNull() || cols[c].over {
			continue
		}
		s := cols[c]
		s.values++
		key = v.AppendBytes(key[:0])
		if _, seen := s.distinct[string(key)]; seen {
			continue
		}
		s.distinct[string(key)] = struct{}{}
		s.bytes += len(key)
		if len(s.distinct) > dictMaxEntries || s.bytes > dictMaxBytes {
			s.over = true
		}
	}
	dict := map[string]bool{}
	for i, s := range cols {
		if s != nil && !s.over && s.values >= dictMinValues && 2*len(s.distinct) <= s.values {
			dict[strings.Join(paths[i], ".")] = true
		}
	}
	return dict
}

// writeRunRows is the most rows handed to parquet-go at once (parquet-go
// splits larger writes into runs of 64 rows and may cut a page after each).
const writeRunRows = 64

// writeRun writes rows [from, to) of the shredded batch, following the
// byte-array statistics.
func (w *Writer) writeRun(from, to int) error {
	start := 0
	if from > 0 {
		start = w.ends[from-1]
	}
	for _, v := range w.buf[start:w.ends[to-1]] {
		if k := w.trackOf[v.Column()]; k >= 0 && !v.IsNull() {
			w.track[k].page.Add(v.ByteArray())
		}
	}
	if _, err := w.pw.WriteRows(w.rows[from:to]); err != nil {
		w.err = fmt.Errorf("parquetio: writing rows: %w", err)
		return w.err
	}
	w.rgDone += int64(to - from)
	if len(w.track) == 0 {
		return nil
	}
	// Find the pages parquet-go finished during this run.
	var idx []format.OffsetIndex
	if f := w.pw.File(); f != nil {
		idx = f.OffsetIndexes()
	}
	for _, ct := range w.track {
		n := -1
		if ct.col < len(idx) {
			n = len(idx[ct.col].PageLocations)
		}
		switch {
		case n == len(ct.pages):
		case n == len(ct.pages)+1 && idx[ct.col].PageLocations[n-1].FirstRowIndex == ct.pageStart:
			ct.endPage(w.rgDone)
		default:
			ct.broken = true
		}
	}
	return nil
}

// flushRowGroup ends the row group being written.
func (w *Writer) flushRowGroup() error {
	for _, ct := range w.track {
		if w.rgDone > ct.pageStart {
			ct.endPage(w.rgDone) // parquet-go writes the rest as one page
		}
	}
	if err := w.pw.Flush(); err != nil {
		w.err = fmt.Errorf("parquetio: flushing row group: %w", err)
		return w.err
	}
	g := groupStat{rows: w.rgDone, chunk: make([]chunkStat, len(w.track))}
	for k, ct := range w.track {
		g.chunk[k] = ct.finish()
	}
	w.groups = append(w.groups, g)
	w.rgRows, w.rgBytes, w.rgDone = 0, 0, 0
	return nil
}

// Close flushes the last row group, writes the footer and returns the
// file's statistics. It does not close the underlying io.Writer.
func (w *Writer) Close() (FileStats, error) {
	if w.closed {
		return FileStats{}, ErrClosed
	}
	w.closed = true
	defer w.pool.close()
	if w.err != nil {
		return FileStats{}, w.err
	}
	if w.pw == nil { // no rows
		if err := w.start(nil); err != nil {
			return FileStats{}, err
		}
	}
	if w.rgDone > 0 {
		if err := w.flushRowGroup(); err != nil {
			return FileStats{}, err
		}
	}
	base := w.out.n
	w.out.tail = new(bytes.Buffer)
	err := w.pw.Close()
	tail := w.out.tail.Bytes()
	w.out.tail = nil
	if err != nil {
		return FileStats{}, fmt.Errorf("parquetio: closing parquet file: %w", err)
	}
	if tail, err = rewriteTail(tail, base, w.tracked, w.groups); err != nil {
		return FileStats{}, err
	}
	if _, err := w.out.Write(tail); err != nil {
		return FileStats{}, fmt.Errorf("parquetio: writing footer: %w", err)
	}
	if err := w.out.bw.Flush(); err != nil {
		return FileStats{}, fmt.Errorf("parquetio: writing parquet file: %w", err)
	}
	return w.stats.Result(), nil
}

// shredRow turns one row into column values with repetition and definition
// levels (Dremel encoding), appending them to w.buf in column order.
func (w *Writer) shredRow(r []any) error {
	if len(r) != len(w.tree.children) {
		return fmt.Errorf("%w: row %d has %d values, schema has %d fields", ErrInvalidValue, w.row, len(r), len(w.tree.children))
	}
	w.rowSize = 0
	for i, c := range w.tree.children {
		if err := w.shred(c, r[i], 0, 0); err != nil {
			return err
		}
	}
	for c := range w.cols {
		w.buf = append(w.buf, w.cols[c]...)
		clear(w.cols[c])
		w.cols[c] = w.cols[c][:0]
	}
	w.ends = append(w.ends, len(w.buf))
	w.sizes = append(w.sizes, w.rowSize)
	return nil
}

func (w *Writer) fail(t *tnode, format string, args ...any) error {
	return fmt.Errorf("%w: row %d, column %s (%s): %s", ErrInvalidValue, w.row, t.path, t.typ, fmt.Sprintf(format, args...))
}

// shred writes value v of node t; r is the repetition level of its first
// value and d the definition level of its parent.
func (w *Writer) shred(t *tnode, v any, r, d int) error {
	if v == nil {
		if !t.nullable {
			return w.fail(t, "null in a non-nullable column")
		}
		w.nulls(t, r, d)
		return nil
	}
	switch t.kind {
	case kindLeaf:
		pv, n, err := leafValue(t, v)
		if err != nil {
			return w.fail(t, "%v", err)
		}
		w.cols[t.col] = append(w.cols[t.col], pv.Level(r, t.def, t.col))
		w.rowSize += n + 1
	case kindStruct:
		fields, ok := v.([]any)
		if !ok {
			return w.fail(t, "want []any, got %T", v)
		}
		if len(fields) != len(t.children) {
			return w.fail(t, "struct value has %d fields, want %d", len(fields), len(t.children))
		}
		for i, c := range t.children {
			if err := w.shred(c, fields[i], r, t.def); err != nil {
				return err
			}
		}
	case kindList:
		elems, ok := v.([]any)
		if !ok {
			return w.fail(t, "want []any, got %T", v)
		}
		if len(elems) == 0 {
			w.nulls(t, r, t.def)
			return nil
		}
		e := t.children[0]
		for i, x := range elems {
			rr := r
			if i > 0 {
				rr = t.elemRep
			}
			if err := w.shred(e, x, rr, t.elemDef); err != nil {
				return err
			}
		}
	case kindMap:
		entries, ok := v.([]schema.MapEntry)
		if !ok {
			return w.fail(t, "want []schema.MapEntry, got %T", v)
		}
		if len(entries) == 0 {
			w.nulls(t, r, t.def)
			return nil
		}
		k, val := t.children[0], t.children[1]
		for i, me := range entries {
			rr := r
			if i > 0 {
				rr = t.elemRep
			}
			if me.Key == nil {
				return w.fail(k, "null map key")
			}
			if err := w.shred(k, me.Key, rr, t.elemDef); err != nil {
				return err
			}
			if err := w.shred(val, me.Value, rr, t.elemDef); err != nil {
				return err
			}
		}
	}
	return nil
}

// nulls writes one null at levels (r, d) to every leaf column under t.
func (w *Writer) nulls(t *tnode, r, d int) {
	for _, c := range t.leaves {
		w.cols[c] = append(w.cols[c], parquet.NullValue().Level(r, d, c))
	}
	w.rowSize += int64(len(t.leaves))
}

// leafValue converts a row value to a Parquet value and its estimated
// uncompressed size.
func leafValue(t *tnode, v any) (parquet.Value, int64, error) {
	switch t.conv {
	case convBool:
		if x, ok := v.(bool); ok {
			return parquet.BooleanValue(x), 1, nil
		}
	case convInt8:
		if x, ok := v.(int8); ok {
			return parquet.Int32Value(int32(x)), 4, nil
		}
	case convInt16:
		if x, ok := v.(int16); ok {
			return parquet.Int32Value(int32(x)), 4, nil
		}
	case convInt32:
		if x, ok := v.(int32); ok {
			return parquet.Int32Value(x), 4, nil
		}
	case convInt64:
		if x, ok := v.(int64); ok {
			return parquet.Int64Value(x), 8, nil
		}
	case convFloat:
		if x, ok := v.(float32); ok {
			return parquet.FloatValue(x), 4, nil
		}
	case convDouble:
		if x, ok := v.(float64); ok {
			return parquet.DoubleValue(x), 8, nil
		}
	case convString:
		if x, ok := v.(string); ok {
			return parquet.ByteArrayValue(values.UnsafeBytes(x)), int64(len(x)) + 4, nil
		}
	case convBinary:
		if x, ok := v.([]byte); ok {
			if x == nil {
				x = []byte{}
			}
			return parquet.ByteArrayValue(x), int64(len(x)) + 4, nil
		}
	case convDate:
		if x, ok := v.(schema.Date); ok {
			return parquet.Int32Value(int32(x)), 4, nil
		}
	case convTimestampMicros:
		if x, ok := v.(time.Time); ok {
			return parquet.Int64Value(x.UnixMicro()), 8, nil
		}
	case convDecimal32, convDecimal64, convDecimalBytes:
		x, ok := v.(schema.Decimal)
		if !ok {
			break
		}
		u, err := values.Rescale(x, t.scale, t.limit)
		if err != nil {
			return parquet.Value{}, 0, err
		}
		switch t.conv {
		case convDecimal32:
			return parquet.Int32Value(int32(u.Int64())), 4, nil
		case convDecimal64:
			return parquet.Int64Value(u.Int64()), 8, nil
		default:
			return parquet.FixedLenByteArrayValue(twosComplement(u, t.width)), int64(t.width), nil
		}
	}
	return parquet.Value{}, 0, fmt.Errorf("want %s, got %T", goTypeName(t), v)
}

func goTypeName(t *tnode) string {
	switch t.conv {
	case convBool:
		return "bool"
	case convInt8:
		return "int8"
	case convInt16:
		return "int16"
	case convInt32:
		return "int32"
	case convInt64:
		return "int64"
	case convFloat:
		return "float32"
	case convDouble:
		return "float64"
	case convString:
		return "string"
	case convBinary:
		return "[]byte"
	case convDate:
		return "schema.Date"
	case convTimestampMicros:
		return "time.Time"
	}
	return "schema.Decimal"
}

// twosComplement encodes u big-endian in width bytes.
func twosComplement(u *big.Int, width int) []byte {
	b := make([]byte, width)
	if u.Sign() >= 0 {
		u.FillBytes(b)
		return b
	}
	m := new(big.Int).Lsh(big.NewInt(1), uint(8*width))
	m.Add(m, u)
	m.FillBytes(b)
	return b
}

// fromTwosComplement decodes a big-endian two's complement integer.
func fromTwosComplement(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}
