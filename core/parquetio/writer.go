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
// reflection, which mishandles []any values, and the column chunks are
// encoded here too (internal/pagew: data pages v2, PLAIN, DELTA_LENGTH_
// BYTE_ARRAY or dictionary encoded, as parquet-go's writer encodes them)
// rather than value by value through parquet-go's column writers.
//
// Parquet statistics follow parquet-mr: no page header statistics, column
// indexes with min/max cut to 64 bytes, and a column chunk's min/max left
// out when together they take 4096 bytes or more (the null count stays), so
// a 64 MB string costs about 64 MB of file. Encoded pages past SpillBytes
// per column chunk wait in a temporary file rather than in memory.
package parquetio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/lz4"

	"github.com/tributary-io/tributary/core/parquetio/filestats"
	"github.com/tributary-io/tributary/core/parquetio/internal/chunkstats"
	"github.com/tributary-io/tributary/core/parquetio/internal/codec"
	"github.com/tributary-io/tributary/core/parquetio/internal/dictpick"
	"github.com/tributary-io/tributary/core/parquetio/internal/pagew"
	"github.com/tributary-io/tributary/core/parquetio/internal/ptree"
	"github.com/tributary-io/tributary/core/parquetio/internal/spill"
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
	ErrUnsupportedSchema = ptree.ErrUnsupportedSchema
	// ErrInvalidOption means a WriterOptions field is out of range.
	ErrInvalidOption = errors.New("parquetio: invalid writer option")
	// ErrClosed means the Writer was used after Close or after a failed
	// write to its output.
	ErrClosed = errors.New("parquetio: writer closed")
	// ErrCorrupt means a Parquet file could not be decoded.
	ErrCorrupt = ptree.ErrCorrupt
	// ErrUnsupportedCodec means a Parquet file uses a compression codec
	// Tributary cannot read yet (LZ4_RAW: see pqread).
	ErrUnsupportedCodec = ptree.ErrUnsupportedCodec
)

// Defaults of WriterOptions.
const (
	// DefaultSpillBytes is the default of WriterOptions.SpillBytes.
	DefaultSpillBytes = spill.DefaultBytes
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
	tree    *ptree.Node
	file    *pagew.File // nil until the first batch chose the encodings
	schema  *schema.StructType
	plain   *parquet.Schema        // the schema (encodings are the columns')
	wopts   []parquet.WriterOption // created_by and key/value metadata of the footer
	codec   compress.Codec
	out     *bufio.Writer
	pool    *spill.Pool
	opts    WriterOptions
	tracked []int               // leaf columns of physical type BYTE_ARRAY
	trackOf []int               // leaf column -> index in tracked, or -1
	track   []*chunkstats.Track // byte-array page statistics of the row group being written
	rgDone  int64               // rows of the current row group encoded
	stats   *filestats.Collector
	lstats  []leafStat // per leaf column, for WriteBatch (built on first use)
	// runStats: the batch being encoded feeds the file statistics of its
	// lstats columns marked inRuns (WriteBatch).
	runStats bool
	// preStats: writeRuns first adds each column's values of the whole
	// batch to the file statistics (columnStats; WriteBatch's first segment
	// of runs).
	preStats bool
	row      int64 // rows written so far (the next row's index in the file)
	rgRows   int64
	rgBytes  int64
	// The encoder: a batch is shredded into columns and its column chunks
	// are encoded on up to workers goroutines (see encode.go).
	batch   colBatch
	shr     []*shredder
	ferrs   []fieldErr
	runs    []run
	order   []int           // writeRuns: the columns, costliest first
	colErrs []error         // writeRuns: by column
	cols    []*pagew.Column // the column chunk encoders, by leaf column
	workers int
	// minParallel is the fewest values a batch must hold to be shredded and
	// encoded on more than one goroutine.
	minParallel int
	closed      bool
	err         error
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
	ps, err := ptree.ParquetSchema(s, nil)
	if err != nil {
		return nil, err
	}
	tree, err := ptree.BuildTree(ps)
	if err != nil {
		return nil, err
	}
	if err := levelsFit(tree); err != nil {
		return nil, err
	}
	out := bufio.NewWriterSize(w, 64<<10)
	pool := spill.NewPool(opts.TempDir, opts.SpillBytes)
	wopts := []parquet.WriterOption{parquet.CreatedBy("tributary", "1", "")}
	trackOf := make([]int, len(tree.Leaves))
	var tracked []int
	for i, path := range ps.Columns() {
		trackOf[i] = -1
		if leaf, ok := ps.Lookup(path...); ok && leaf.ColumnIndex == i && leaf.Node.Type().Kind() == parquet.ByteArray {
			trackOf[i] = len(tracked)
			tracked = append(tracked, i)
		}
	}
	for k, v := range opts.Metadata {
		wopts = append(wopts, parquet.KeyValueMetadata(k, v))
	}
	track := make([]*chunkstats.Track, len(tracked))
	for k, c := range tracked {
		track[k] = chunkstats.NewTrack(c)
	}
	return &Writer{
		tree:    tree,
		schema:  s,
		plain:   ps,
		wopts:   wopts,
		codec:   codec,
		out:     out,
		pool:    pool,
		opts:    opts,
		tracked: tracked,
		trackOf: trackOf,
		track:   track,
		stats:   filestats.New(s, filestats.Options{NoStats: opts.NoStats, NumIndexedCols: opts.NumIndexedCols, StringPrefixLength: opts.StringPrefixLength, StatsColumns: opts.StatsColumns}),
		batch:   newColBatch(tree),
		ferrs:   make([]fieldErr, len(tree.Children)),
		workers: runtime.GOMAXPROCS(0),

		minParallel: defaultMinParallel,
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
		return codec.FastSnappy{}, nil
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

// start creates the file and its column encoders, with the leaf columns
// in dict (by dotted path) dictionary encoded.
func (w *Writer) start(dict map[string]bool) error {
	meta, err := pagew.Template(w.plain, w.wopts...)
	if err != nil {
		return err
	}
	paths := w.plain.Columns()
	if len(paths) != len(w.tree.Leaves) {
		return fmt.Errorf("%w: parquet-go has %d leaf columns, the tree %d", ErrUnsupportedSchema, len(paths), len(w.tree.Leaves))
	}
	cols := make([]*pagew.Column, len(paths))
	for i, path := range paths {
		leaf, ok := w.plain.Lookup(path...)
		if !ok || leaf.ColumnIndex != i {
			return fmt.Errorf("%w: leaf column %d (%s) not found", ErrUnsupportedSchema, i, strings.Join(path, "."))
		}
		o := pagew.Options{
			Path:           path,
			Type:           leaf.Node.Type(),
			MaxRep:         leaf.MaxRepetitionLevel,
			MaxDef:         leaf.MaxDefinitionLevel,
			Dict:           dict[strings.Join(path, ".")],
			DictMaxBytes:   dictpick.FallbackBytes,
			PageBytes:      w.opts.PageBytes,
			Codec:          w.codec,
			Pool:           w.pool,
			IndexSizeLimit: filestats.ColumnIndexTruncateLength,
		}
		if k := w.trackOf[i]; k >= 0 {
			o.Track = w.track[k]
		}
		cols[i] = pagew.NewColumn(o)
	}
	w.cols = cols
	w.file = pagew.NewFile(w.out, meta)
	return nil
}

// Dictionary encoding is decided once per file from its first batch of
// rows (dictpick).
// dictionaryColumns picks the dictionary-encoded leaf columns (by Parquet
// path) from a shredded batch.
func (w *Writer) dictionaryColumns(b *colBatch) map[string]bool {
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
	for c, s := range cols {
		if s == nil || c >= len(b.cols) {
			continue
		}
		d := &b.cols[c]
		for i, l := range d.Defs {
			if l < d.MaxDef {
				continue
			}
			v := d.At(i)
			s.values++
			key = v.AppendBytes(key[:0])
			if _, seen := s.distinct[string(key)]; seen {
				continue
			}
			s.distinct[string(key)] = struct{}{}
			s.bytes += len(key)
			if len(s.distinct) > dictpick.MaxEntries || s.bytes > dictpick.MaxBytes {
				s.over = true
				break
			}
		}
	}
	dict := map[string]bool{}
	for i, s := range cols {
		if s != nil && !s.over && dictpick.Pays(s.values, len(s.distinct), s.bytes) {
			dict[strings.Join(paths[i], ".")] = true
		}
	}
	return dict
}

// flushRowGroup ends the row group being written: the columns encode
// their last pages and dictionaries, then the chunks are copied out in
// column order. With several workers the columns flush on workers
// goroutines, in column order, while this one copies out each chunk as
// soon as it is flushed (the copy, a system call per 256 KiB of pages,
// is most of the time at the end of a file).
func (w *Writer) flushRowGroup() error {
	var err error
	if n := len(w.cols); w.workers <= 1 || n <= 1 {
		err = w.forEach(n, 1, func(c int) error { return w.cols[c].Flush() })
		if err == nil {
			err = w.file.WriteRowGroup(w.cols, nil)
		}
	} else {
		err = w.flushWhileWriting()
	}
	if err != nil {
		w.err = fmt.Errorf("parquetio: flushing row group: %w", err)
		return w.err
	}
	w.rgDone = 0
	return nil
}

// flushWhileWriting flushes the columns on w.workers goroutines (this one
// among them), taking them in column order, and lays out each chunk as
// soon as it is flushed: before copying out chunk i this goroutine flushes
// the columns up to i that no other has taken yet. After a failed flush
// no more columns are flushed; it returns once the others stopped.
func (w *Writer) flushWhileWriting() error {
	n := len(w.cols)
	done := make([]chan struct{}, n)
	errs := make([]error, n)
	for i := range done {
		done[i] = make(chan struct{})
	}
	var next atomic.Int64
	var stop atomic.Bool
	// take flushes the next column not taken yet; false: none is left.
	take := func() bool {
		i := int(next.Add(1)) - 1
		if i >= n {
			return false
		}
		if !stop.Load() {
			if errs[i] = w.cols[i].Flush(); errs[i] != nil {
				stop.Store(true)
			}
		}
		close(done[i])
		return true
	}
	var wg sync.WaitGroup
	for range min(w.workers, n) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for take() {
			}
		}()
	}
	err := w.file.WriteRowGroup(w.cols, func(i int) error {
		for int(next.Load()) <= i && take() {
		}
		<-done[i]
		return errs[i]
	})
	stop.Store(true)
	wg.Wait()
	return err
}

// Close flushes the last row group, writes the footer and returns the
// file's statistics. It does not close the underlying io.Writer.
func (w *Writer) Close() (FileStats, error) {
	if w.closed {
		return FileStats{}, ErrClosed
	}
	w.closed = true
	defer w.pool.Close()
	if w.err != nil {
		return FileStats{}, w.err
	}
	if w.file == nil { // no rows
		if err := w.start(nil); err != nil {
			return FileStats{}, err
		}
	}
	if w.rgDone > 0 {
		if err := w.flushRowGroup(); err != nil {
			return FileStats{}, err
		}
	}
	if err := w.file.Close(); err != nil {
		return FileStats{}, fmt.Errorf("parquetio: writing footer: %w", err)
	}
	for _, c := range w.cols {
		c.Release()
	}
	if err := w.out.Flush(); err != nil {
		return FileStats{}, fmt.Errorf("parquetio: writing parquet file: %w", err)
	}
	return w.stats.Result(), nil
}
