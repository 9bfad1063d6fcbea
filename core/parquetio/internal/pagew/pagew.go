// Package pagew encodes Parquet column chunks from shredded values (a leaf
// column's parquet.Values with their repetition and definition levels) and
// lays them out in a file. It replaces parquet-go's ColumnWriter, whose
// per-value column buffers cost more than the encoding itself: one pass per
// run of rows appends the levels and the values straight into the page
// being filled (PLAIN, or RLE_DICTIONARY indexes into a dictionary kept per
// column chunk, with parquet-go's fallback to PLAIN once the dictionary
// passes DictMaxBytes) and collects the page's null count and min/max for
// the column index.
//
// The pages are the ones parquet-go writes with the Writer's options: data
// pages v2 (levels RLE, uncompressed; values compressed), a CRC on every
// page, no page header statistics, a PLAIN dictionary page before the data
// pages of a dictionary-encoded chunk; column and offset indexes and the
// footer follow the row groups (see File). Statistics of non-BYTE_ARRAY
// columns follow parquet-go (its ColumnIndexer and Type.Compare); those of
// BYTE_ARRAY columns follow parquet-mr through chunkstats.Track.
package pagew

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/encoding/plain"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/tributary-io/tributary/core/parquetio/filestats"
	"github.com/tributary-io/tributary/core/parquetio/internal/chunkstats"
)

// BufferPool hands out the buffers a column chunk's data pages wait in
// until the row group is laid out (spill.Pool).
type BufferPool interface {
	GetBuffer() io.ReadWriteSeeker
	PutBuffer(io.ReadWriteSeeker)
}

// Options configures a Column.
type Options struct {
	// Path is the column's path in the schema.
	Path []string
	// Type is the leaf's type (physical kind, order, column indexer).
	Type parquet.Type
	// MaxRep and MaxDef are the column's maximum levels.
	MaxRep, MaxDef int
	// Dict: dictionary encode the column (each chunk until its dictionary
	// passes DictMaxBytes; 0 means no limit).
	Dict         bool
	DictMaxBytes int64
	// PageBytes is the target uncompressed size of a data page: a page
	// ends after the run of rows that filled it to 98% of PageBytes, as
	// parquet-go's ColumnWriter cuts it.
	PageBytes int
	// Codec compresses the pages.
	Codec compress.Codec
	// Track follows a BYTE_ARRAY column's page statistics (required for
	// BYTE_ARRAY, unused otherwise).
	Track *chunkstats.Track
	// Pool gives the buffer of a chunk's data pages.
	Pool BufferPool
	// IndexSizeLimit truncates column-index bounds of fixed-length byte
	// arrays (parquet-go's ColumnIndexSizeLimit).
	IndexSizeLimit int
}

// ErrValue means a value of the wrong kind or level was written.
var ErrValue = errors.New("pagew: value does not fit the column")

// Column encodes the column chunks of one leaf column, one row group
// after the other: Write runs of rows, Flush at the end of the row group
// (columns may flush on different goroutines), then File.WriteRowGroup
// lays the chunks out in column order.
type Column struct {
	o          Options
	kind       parquet.Kind
	size       int // FIXED_LEN_BYTE_ARRAY length
	compressed bool
	limit      int // page bytes that end a page

	// The page being filled.
	*pageBufs
	bools int   // booleans in vals (bit count)
	idxOr int32 // the page's dictionary indexes or'ed (their bit width)
	// DELTA_LENGTH_BYTE_ARRAY pages: the values' bytes start gap bytes
	// into vals, room for the lengths that flushPage encodes in front of
	// them (no copy of the values when they fit); gapWant is the next
	// page's gap, from this chunk's last page.
	gap, gapWant int
	nvals        int // levels in the page
	nulls        int
	rows         int
	// The page's bounds (not BYTE_ARRAY: those go to o.Track).
	has      bool
	ilo, ihi int64
	flo, fhi float64
	nan      bool // NaN seen (floats)
	nanBits  uint64
	blo, bhi []byte // FIXED_LEN_BYTE_ARRAY bounds (copies)
	page     int32  // page number in the chunk, from 1

	// The chunk's dictionary.
	dictOn  bool
	bd      bytesDict // BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY
	id      intDict   // the other types, by the values' bits
	dictBuf []byte    // PLAIN encoded dictionary values (id)
	dictN   int
	seen    []int32 // dictionary entry -> last page its value was bounded in

	// The chunk.
	buf        io.ReadWriteSeeker
	pos        int64
	numValues  int64
	chunkRows  int64
	uncomp     int64
	comp       int64
	nullCount  int64
	statMin    parquet.Value
	statMax    parquet.Value
	statHas    bool
	indexer    parquet.ColumnIndexer
	nullPages  []bool
	nullCounts []int64
	locs       []format.PageLocation
	encStats   []format.PageEncodingStats
	repHist    []int64
	defHist    []int64
	pageRep    []int64
	pageDef    []int64
	unencoded  int64
	dictPage   []byte // header and body, built by Flush
	dictUncomp int64

	// The page header's encoder.
	hdr   bytes.Buffer
	enc   thrift.Encoder
	proto thrift.CompactProtocol
}

// scratch holds a page's encoded levels, values and compressed values
// while flushPage writes it; the columns (of all writers) share them
// through scratchPool rather than each keeping about two pages of them.
type scratch struct{ lev, data, cmp []byte }

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// pageBufs holds the levels and values of the page being filled. A
// Column's come from pagePool and go back by Release, so that the next
// writer (the next file) does not grow them again from nothing.
type pageBufs struct {
	reps, defs []byte
	idx        []int32  // dictionary indexes
	vals       []byte   // PLAIN values; BYTE_ARRAY: the values' bytes back to back
	offs       []uint32 // BYTE_ARRAY: where each value starts in vals, and the end
}

var pagePool = sync.Pool{New: func() any { return new(pageBufs) }}

// Release gives the Column's page buffers back for other Columns; the
// Column must not be used afterwards.
func (c *Column) Release() {
	if c.pageBufs != nil {
		pagePool.Put(c.pageBufs)
		c.pageBufs = nil
	}
}

// NewColumn returns the Column of o.
func NewColumn(o Options) *Column {
	c := &Column{o: o, kind: o.Type.Kind(), size: o.Type.Length(), pageBufs: pagePool.Get().(*pageBufs)}
	c.compressed = o.Codec != nil && o.Codec.CompressionCodec() != format.Uncompressed
	c.limit = int(float64(o.PageBytes) * 0.98)
	if c.kind != parquet.ByteArray {
		c.indexer = o.Type.NewColumnIndexer(o.IndexSizeLimit)
	}
	if o.MaxRep > 0 {
		c.repHist = make([]int64, o.MaxRep+1)
	}
	if o.MaxDef > 0 {
		c.defHist = make([]int64, o.MaxDef+1)
	}
	c.enc.Reset(c.proto.NewWriter(&c.hdr))
	c.resetChunk()
	return c
}

// resetChunk starts a new column chunk.
func (c *Column) resetChunk() {
	c.dictOn = c.o.Dict && c.kind != parquet.Boolean
	if c.dictOn {
		switch c.kind {
		case parquet.ByteArray, parquet.FixedLenByteArray:
			c.bd.reset()
		default:
			c.id.reset()
		}
	}
	c.dictBuf, c.dictN, c.seen = c.dictBuf[:0], 0, c.seen[:0]
	c.buf, c.pos = nil, 0
	c.numValues, c.chunkRows, c.uncomp, c.comp, c.nullCount = 0, 0, 0, 0, 0
	c.statMin, c.statMax, c.statHas = parquet.Value{}, parquet.Value{}, false
	if c.indexer != nil {
		c.indexer.Reset()
	}
	c.nullPages, c.nullCounts, c.locs, c.encStats = c.nullPages[:0], c.nullCounts[:0], c.locs[:0], c.encStats[:0]
	clear(c.repHist)
	clear(c.defHist)
	c.pageRep, c.pageDef = c.pageRep[:0], c.pageDef[:0]
	c.unencoded = 0
	c.dictPage, c.dictUncomp = c.dictPage[:0], 0
	c.page = 1
	c.resetPage()
}

func (c *Column) resetPage() {
	c.reps, c.defs, c.idx, c.vals = c.reps[:0], c.defs[:0], c.idx[:0], c.vals[:0]
	c.offs = append(c.offs[:0], 0)
	c.gap = 0
	if c.kind == parquet.ByteArray && !c.o.Dict && c.gapWant > 0 {
		c.gap = c.gapWant
		c.vals = slices.Grow(c.vals, c.gap)[:c.gap]
		c.offs[0] = uint32(c.gap)
	}
	c.bools, c.nvals, c.nulls, c.rows, c.idxOr = 0, 0, 0, 0, 0
	c.has, c.nan = false, false
}

// Run is a run of a leaf column's values as a column batch keeps them:
// per value its levels and a slot in the typed slice of the column's
// physical kind (a null's slot is there and ignored), so that value i is
// Defs[i], Reps[i] and slot i of every slice.
type Run struct {
	// Reps are the repetition levels (read only when MaxRep > 0).
	Reps []byte
	// Defs are the definition levels, one per value: their number is the
	// run's.
	Defs []byte
	// The values, in the slice of the column's kind.
	Bools []bool
	I32   []int32
	I64   []int64
	F32   []float32
	F64   []float64
	// Data holds BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY values back to back:
	// value i is Data[Offs[i]:Offs[i+1]] (Offs has one more entry than
	// Defs).
	Data []byte
	Offs []uint32
}

// Write appends a run of values holding rows rows. A page ends after the
// run when it reached the page size. fs, when not nil, is the file
// statistics column of a BYTE_ARRAY, INT32, INT64, FLOAT or DOUBLE column:
// it gets the run's null count and min/max (a float run's NaN first, as
// one Float(NaN) before the bounds).
func (c *Column) Write(run *Run, rows int, fs *filestats.Leaf) error {
	n := len(run.Defs)
	if c.o.MaxRep > 0 {
		c.reps = append(c.reps, run.Reps[:n]...)
	}
	// The definition levels of a required column are all 0 and unused.
	nulls := 0
	if c.o.MaxDef > 0 {
		c.defs = append(c.defs, run.Defs...)
		nulls = countBelow(run.Defs, byte(c.o.MaxDef))
	}
	var err error
	switch c.kind {
	case parquet.ByteArray:
		c.writeByteArrays(run, nulls, fs)
	case parquet.Boolean:
		c.writeBooleans(run)
	case parquet.Int32, parquet.Int64:
		c.writeInts(run, nulls, fs)
	case parquet.Float, parquet.Double:
		c.writeFloats(run, nulls, fs)
	case parquet.FixedLenByteArray:
		err = c.writeFixed(run)
	default:
		err = fmt.Errorf("%w: %s has physical type %s", ErrValue, c.o.Path, c.kind)
	}
	if err != nil {
		return err
	}
	c.nvals += n
	c.nulls += nulls
	c.rows += rows
	if c.pageSize() >= c.limit {
		return c.flushPage()
	}
	return nil
}

// Reserve makes room in the page buffers for the values about to be
// written (values values, bytes bytes of byte-array data), up to about a
// page: Go grows a large slice by a quarter at a time, and a page that
// grows from nothing to PageBytes would be copied (and fresh memory
// faulted in) several times over. Reserve changes no output.
func (c *Column) Reserve(values, bytes int) {
	page := c.o.PageBytes + c.o.PageBytes/8
	size := bytes // the values' bytes in a page
	switch {
	case c.dictOn:
		size = 4 * values
	case c.kind == parquet.Int32, c.kind == parquet.Float:
		size = 4 * values
	case c.kind == parquet.Int64, c.kind == parquet.Double:
		size = 8 * values
	case c.kind == parquet.Boolean:
		size = values / 8
	}
	// The share of the values that fits in a page (about: levels and
	// offsets count 4 or 5 bytes a value).
	est := size + 5*values
	part := func(n int) int {
		if est <= page {
			return n
		}
		return int(int64(n)*int64(page)/int64(est)) + 64
	}
	switch {
	case c.kind == parquet.Boolean:
	case c.dictOn:
		c.idx = reserve(c.idx, part(values), page/4)
	case c.kind == parquet.ByteArray:
		c.vals = reserve(c.vals, part(size), c.gap+page)
		c.offs = reserve(c.offs, part(values), page/4)
	default:
		c.vals = reserve(c.vals, part(size), page)
	}
	if c.o.MaxDef > 0 {
		c.defs = reserve(c.defs, part(values), page/4)
	}
	if c.o.MaxRep > 0 {
		c.reps = reserve(c.reps, part(values), page/4)
	}
}

// reserve grows s's capacity to len(s)+n elements, or limit if less. It
// grows to at least twice the capacity (up to limit): a page filled batch
// by batch would otherwise grow by Go's quarter at a time, each time
// copying (and clearing) the page so far, about four times the page in
// all; doubling copies it at most once.
func reserve[T any](s []T, n, limit int) []T {
	if want := min(len(s)+n, limit); want > cap(s) {
		want = max(want, min(2*cap(s), limit))
		return slices.Grow(s, want-len(s))
	}
	return s
}

// countBelow counts the levels below max.
func countBelow(levels []byte, max byte) int {
	n := 0
	for _, l := range levels {
		if l < max {
			n++
		}
	}
	return n
}

// pageSize is the size of the page being filled as parquet-go's column
// buffers count it (Size), so that pages end where its ColumnWriter ends
// them.
func (c *Column) pageSize() int {
	var n int
	switch {
	case c.dictOn:
		n = 4 * len(c.idx)
	case c.kind == parquet.ByteArray:
		n = len(c.vals) - c.gap + 4*(len(c.offs)-1) // offs holds one more: the end
	case c.kind == parquet.Boolean:
		n = (c.bools + 7) / 8
	default:
		n = len(c.vals)
	}
	switch {
	case c.o.MaxRep > 0:
		n += len(c.reps) + len(c.defs) + 8*c.rows
	case c.o.MaxDef > 0:
		n += len(c.defs) + 4*c.nvals
	}
	return n
}

// writeByteArrays appends the non-null values of a BYTE_ARRAY run
// holding nulls nulls, gives their min and max to the Track and fs, and
// gives fs the run's nulls.
func (c *Column) writeByteArrays(run *Run, nulls int, fs *filestats.Leaf) {
	maxDef := byte(c.o.MaxDef)
	defs, data, offs := run.Defs, run.Data, run.Offs
	n := len(defs)
	var lo, hi []byte
	has := false
	bound := func(b []byte) {
		if !has {
			lo, hi, has = b, b, true
		} else if bytes.Compare(b, lo) < 0 {
			lo = b
		} else if bytes.Compare(b, hi) > 0 {
			hi = b
		}
	}
	if c.dictOn {
		// A value's bounds count once per page (seen); the file
		// statistics see them through the page's first run of the value.
		idx, or := slices.Grow(c.idx, n-nulls), c.idxOr
		for i := range n {
			if nulls > 0 && defs[i] < maxDef {
				continue
			}
			b := data[offs[i]:offs[i+1]]
			x, added := c.bd.index(b)
			if added {
				c.dictN++
				c.seen = append(c.seen, 0)
			}
			idx = append(idx, x)
			or |= x
			if c.seen[x] != c.page {
				c.seen[x] = c.page
				bound(b)
			}
		}
		c.idx, c.idxOr = idx, or
	} else if n > 0 {
		// The values' bytes are back to back in data: nulls take none.
		base := uint32(len(c.vals)) - offs[0]
		c.vals = append(c.vals, data[offs[0]:offs[n]]...)
		pageOffs := slices.Grow(c.offs, n-nulls)
		for i := range n {
			if nulls > 0 && defs[i] < maxDef {
				continue
			}
			pageOffs = append(pageOffs, offs[i+1]+base)
			bound(data[offs[i]:offs[i+1]])
		}
		c.offs = pageOffs
	}
	all := func(f func([]byte)) {
		for i := range n {
			if nulls == 0 || defs[i] >= maxDef {
				f(data[offs[i]:offs[i+1]])
			}
		}
	}
	if fs != nil {
		fs.Nulls(int64(nulls))
		if has && !fs.BytesSpan(lo, hi) {
			all(fs.Bytes)
		}
	}
	if ct := c.o.Track; ct != nil && has && !ct.AddSpan(lo, hi) {
		all(func(b []byte) { ct.Add(b) })
	}
}

func (c *Column) writeBooleans(run *Run) {
	maxDef := byte(c.o.MaxDef)
	for i, x := range run.Bools[:len(run.Defs)] {
		if run.Defs[i] < maxDef {
			continue
		}
		// PLAIN booleans: bit-packed, first value in the lowest bit, the
		// last byte's unused bits zero.
		if c.bools%8 == 0 {
			c.vals = append(c.vals, 0)
		}
		b := int64(0)
		if x {
			b = 1
			c.vals[len(c.vals)-1] |= 1 << (c.bools % 8)
		}
		c.bools++
		if !c.has {
			c.ilo, c.ihi, c.has = b, b, true
		} else {
			c.ilo, c.ihi = min(c.ilo, b), max(c.ihi, b)
		}
	}
}

func (c *Column) writeInts(run *Run, nulls int, fs *filestats.Leaf) {
	if c.kind == parquet.Int32 {
		writeInts(c, run.Defs, run.I32[:len(run.Defs)], nulls, fs)
	} else {
		writeInts(c, run.Defs, run.I64[:len(run.Defs)], nulls, fs)
	}
}

// appendLE appends v's PLAIN encoding (little endian), as plain.AppendInt32
// and AppendInt64 do.
func appendLE[T int32 | int64 | uint32 | uint64](b []byte, v T) []byte {
	if unsafe.Sizeof(v) == 4 {
		return binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	return binary.LittleEndian.AppendUint64(b, uint64(v))
}

// writeInts appends the non-null values of an integer run holding nulls
// nulls (PLAIN, or dictionary indexes) and finds their min and max in the
// same loop, for the page and for fs.
func writeInts[T int32 | int64](c *Column, defs []byte, xs []T, nulls int, fs *filestats.Leaf) {
	maxDef := byte(c.o.MaxDef)
	var lo, hi int64
	has := false
	if c.dictOn {
		idx, or := slices.Grow(c.idx, len(xs)-nulls), c.idxOr
		for i, v := range xs {
			if nulls > 0 && defs[i] < maxDef {
				continue
			}
			k, added := c.id.index(uint64(v))
			if added {
				c.dictN++
				c.dictBuf = appendLE(c.dictBuf, v)
			}
			idx = append(idx, k)
			or |= k
			x := int64(v)
			if !has {
				lo, hi, has = x, x, true
			} else if x < lo {
				lo = x
			} else if x > hi {
				hi = x
			}
		}
		c.idx, c.idxOr = idx, or
	} else {
		vals := slices.Grow(c.vals, int(unsafe.Sizeof(T(0)))*(len(xs)-nulls))
		for i, v := range xs {
			if nulls > 0 && defs[i] < maxDef {
				continue
			}
			vals = appendLE(vals, v)
			x := int64(v)
			if !has {
				lo, hi, has = x, x, true
			} else if x < lo {
				lo = x
			} else if x > hi {
				hi = x
			}
		}
		c.vals = vals
	}
	if has {
		if !c.has {
			c.ilo, c.ihi, c.has = lo, hi, true
		} else {
			c.ilo, c.ihi = min(c.ilo, lo), max(c.ihi, hi)
		}
	}
	if fs != nil {
		fs.Nulls(int64(nulls))
		if has {
			fs.Int(lo)
			fs.Int(hi)
		}
	}
}

func (c *Column) writeFloats(run *Run, nulls int, fs *filestats.Leaf) {
	if c.kind == parquet.Float {
		writeFloats(c, run.Defs, run.F32[:len(run.Defs)], nulls, fs, func(f float32) uint64 { return uint64(math.Float32bits(f)) })
	} else {
		writeFloats(c, run.Defs, run.F64[:len(run.Defs)], nulls, fs, math.Float64bits)
	}
}

// appendFloat appends x's PLAIN encoding as a FLOAT (size 4, as
// plain.AppendFloat(float32(x)) does) or a DOUBLE.
func appendFloat(b []byte, x float64, size uintptr) []byte {
	if size == 4 {
		return binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(x)))
	}
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
}

// writeFloats is writeInts of a float run. The bounds skip NaN (as
// parquet-go's page bounds do); a page of NaNs only is bounded by its first
// value.
func writeFloats[T float32 | float64](c *Column, defs []byte, xs []T, nulls int, fs *filestats.Leaf, bitsOf func(T) uint64) {
	maxDef := byte(c.o.MaxDef)
	var lo, hi float64
	var nanBits uint64
	has, nan := false, false
	vals := c.vals
	if !c.dictOn {
		vals = slices.Grow(vals, int(unsafe.Sizeof(T(0)))*(len(xs)-nulls))
	}
	for i, v := range xs {
		if nulls > 0 && defs[i] < maxDef {
			continue
		}
		x, bits := float64(v), bitsOf(v)
		if c.dictOn {
			k, added := c.id.index(bits)
			if added {
				c.dictN++
				c.dictBuf = appendFloat(c.dictBuf, x, unsafe.Sizeof(v))
			}
			c.idx = append(c.idx, k)
			c.idxOr |= k
		} else {
			vals = appendFloat(vals, x, unsafe.Sizeof(v))
		}
		switch {
		case x != x:
			if !nan {
				nan, nanBits = true, bits
			}
		case !has:
			lo, hi, has = x, x, true
		case x < lo:
			lo = x
		case x > hi:
			hi = x
		}
	}
	c.vals = vals
	if nan && !c.nan {
		c.nan, c.nanBits = true, nanBits
	}
	if has {
		switch {
		case !c.has:
			c.flo, c.fhi, c.has = lo, hi, true
		default:
			if lo < c.flo {
				c.flo = lo
			}
			if hi > c.fhi {
				c.fhi = hi
			}
		}
	}
	if fs != nil {
		fs.Nulls(int64(nulls))
		if nan {
			fs.Float(math.NaN())
		}
		if has {
			fs.Float(lo)
			fs.Float(hi)
		}
	}
}

func (c *Column) writeFixed(run *Run) error {
	maxDef := byte(c.o.MaxDef)
	for i, d := range run.Defs {
		if d < maxDef {
			continue
		}
		b := run.Data[run.Offs[i]:run.Offs[i+1]]
		if len(b) != c.size {
			return fmt.Errorf("%w: %s holds %d-byte values, got %d bytes", ErrValue, c.o.Path, c.size, len(b))
		}
		if c.dictOn {
			k, added := c.bd.index(b)
			if added {
				c.dictN++
			}
			c.idx = append(c.idx, k)
			c.idxOr |= k
		} else {
			c.vals = append(c.vals, b...)
		}
		// The type's order (decimals compare signed, see pnodes).
		x, t := parquet.FixedLenByteArrayValue(b), c.o.Type
		if !c.has {
			c.blo, c.bhi, c.has = append(c.blo[:0], b...), append(c.bhi[:0], b...), true
		} else if t.Compare(x, parquet.FixedLenByteArrayValue(c.blo)) < 0 {
			c.blo = append(c.blo[:0], b...)
		} else if t.Compare(x, parquet.FixedLenByteArrayValue(c.bhi)) > 0 {
			c.bhi = append(c.bhi[:0], b...)
		}
	}
	return nil
}

// pageBounds returns the page's min and max as parquet-go's page Bounds
// does (ok false: no non-null value).
func (c *Column) pageBounds() (lo, hi parquet.Value, ok bool) {
	switch c.kind {
	case parquet.Boolean:
		if c.has {
			return parquet.BooleanValue(c.ilo == 1), parquet.BooleanValue(c.ihi == 1), true
		}
	case parquet.Int32:
		if c.has {
			return parquet.Int32Value(int32(c.ilo)), parquet.Int32Value(int32(c.ihi)), true
		}
	case parquet.Int64:
		if c.has {
			return parquet.Int64Value(c.ilo), parquet.Int64Value(c.ihi), true
		}
	case parquet.Float:
		if c.has {
			return parquet.FloatValue(float32(c.flo)), parquet.FloatValue(float32(c.fhi)), true
		}
		if c.nan {
			f := math.Float32frombits(uint32(c.nanBits))
			return parquet.FloatValue(f), parquet.FloatValue(f), true
		}
	case parquet.Double:
		if c.has {
			return parquet.DoubleValue(c.flo), parquet.DoubleValue(c.fhi), true
		}
		if c.nan {
			f := math.Float64frombits(c.nanBits)
			return parquet.DoubleValue(f), parquet.DoubleValue(f), true
		}
	case parquet.FixedLenByteArray:
		if c.has {
			return parquet.FixedLenByteArrayValue(bytes.Clone(c.blo)), parquet.FixedLenByteArrayValue(bytes.Clone(c.bhi)), true
		}
		// parquet-go's indexer appends a fixed-length bound's bytes as
		// they are: a page without values gets zeros (as an INT64 page
		// gets 0), not nothing, which would shift the later pages' bounds
		// (parquet-go's row path did that).
		z := parquet.FixedLenByteArrayValue(make([]byte, c.size))
		return z, z, false
	}
	return parquet.Value{}, parquet.Value{}, false
}

// bitWidth is the bit width of levels up to max.
func bitWidth(max int) int {
	n := 0
	for max > 0 {
		n++
		max >>= 1
	}
	return n
}

// flushPage writes the page being filled to the chunk's buffer.
func (c *Column) flushPage() error {
	if c.nvals == 0 {
		return nil
	}
	if c.buf == nil {
		c.buf = c.o.Pool.GetBuffer()
	}
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	var err error
	sc.lev = sc.lev[:0]
	if c.o.MaxRep > 0 {
		if sc.lev, err = (&rle.Encoding{BitWidth: bitWidth(c.o.MaxRep)}).EncodeLevels(sc.lev, c.reps); err != nil {
			return fmt.Errorf("pagew: encoding repetition levels of %s: %w", c.o.Path, err)
		}
	}
	repLen := len(sc.lev)
	if c.o.MaxDef > 0 {
		var d []byte
		if d, err = (&rle.Encoding{BitWidth: bitWidth(c.o.MaxDef)}).EncodeLevels(sc.lev[repLen:], c.defs); err != nil {
			return fmt.Errorf("pagew: encoding definition levels of %s: %w", c.o.Path, err)
		}
		sc.lev = append(sc.lev[:repLen], d...)
	}
	levLen := len(sc.lev)
	enc := format.Plain
	data := c.vals
	switch {
	case c.kind == parquet.ByteArray && !c.dictOn:
		// parquet-go's default for BYTE_ARRAY; PLAIN once a dictionary
		// fell back.
		if c.o.Dict {
			sc.data, err = (&plain.Encoding{}).EncodeByteArray(sc.data[:0], c.vals, c.offs)
			data = sc.data
		} else {
			enc = format.DeltaLengthByteArray
			data, err = c.deltaLengths(sc)
		}
		if err != nil {
			return fmt.Errorf("pagew: encoding a page of %s: %w", c.o.Path, err)
		}
	case c.dictOn:
		enc = format.RLEDictionary
		if sc.data, err = encodeIndexes(sc.data, c.idx, c.idxOr); err != nil {
			return fmt.Errorf("pagew: encoding dictionary indexes of %s: %w", c.o.Path, err)
		}
		data = sc.data
	}
	body := data
	if c.compressed {
		if sc.cmp, err = c.o.Codec.Encode(sc.cmp[:0], data); err != nil {
			return fmt.Errorf("pagew: compressing a page of %s: %w", c.o.Path, err)
		}
		body = sc.cmp
	}
	crc := crc32.Update(0, crc32.IEEETable, sc.lev)
	crc = crc32.Update(crc, crc32.IEEETable, body)
	h := format.PageHeader{
		Type:                 format.DataPageV2,
		UncompressedPageSize: int32(levLen + len(data)),
		CompressedPageSize:   int32(levLen + len(body)),
		CRC:                  int32(crc),
	}
	h.DataPageHeaderV2 = thrift.New(format.DataPageHeaderV2{
		NumValues:                  int32(c.nvals),
		NumNulls:                   int32(c.nulls),
		NumRows:                    int32(c.rows),
		Encoding:                   enc,
		DefinitionLevelsByteLength: int32(levLen - repLen),
		RepetitionLevelsByteLength: int32(repLen),
		IsCompressed:               thrift.New(c.compressed),
	})
	c.hdr.Reset()
	if err := c.enc.Encode(&h); err != nil {
		return fmt.Errorf("pagew: encoding a page header of %s: %w", c.o.Path, err)
	}
	hlen := int64(c.hdr.Len())
	for _, b := range [...][]byte{c.hdr.Bytes(), sc.lev, body} {
		if _, err := c.buf.Write(b); err != nil {
			return fmt.Errorf("pagew: buffering a page of %s: %w", c.o.Path, err)
		}
	}
	size := hlen + int64(levLen+len(body))
	c.locs = append(c.locs, format.PageLocation{Offset: c.pos, CompressedPageSize: int32(size), FirstRowIndex: c.chunkRows})
	c.pos += size
	c.uncomp += hlen + int64(levLen+len(data))
	c.comp += size
	c.encStats = addEncodingStat(c.encStats, format.DataPageV2, enc)

	// Statistics.
	c.numValues += int64(c.nvals)
	c.nullCount += int64(c.nulls)
	c.chunkRows += int64(c.rows)
	c.nullPages = append(c.nullPages, c.nvals == c.nulls)
	c.nullCounts = append(c.nullCounts, int64(c.nulls))
	if c.kind == parquet.ByteArray {
		if c.o.Track != nil {
			c.o.Track.EndPage(c.chunkRows)
		}
		if !c.dictOn {
			c.unencoded += int64(len(c.vals) - c.gap)
		}
	} else {
		lo, hi, ok := c.pageBounds()
		c.indexer.IndexPage(int64(c.nvals), int64(c.nulls), lo, hi)
		if ok {
			t := c.o.Type
			if !c.statHas || t.Compare(hi, c.statMax) > 0 {
				c.statMax = hi
			}
			if !c.statHas || t.Compare(lo, c.statMin) < 0 {
				c.statMin = lo
			}
			c.statHas = true
		}
	}
	c.pageRep = appendHist(c.pageRep, c.repHist, c.reps, c.o.MaxRep, c.rows)
	c.pageDef = appendHist(c.pageDef, c.defHist, c.defs, c.o.MaxDef, c.nulls)

	c.page++
	c.resetPage()
	// parquet-go's fallback: past DictMaxBytes, the chunk's later pages are
	// PLAIN (the dictionary page still comes first, for the earlier pages).
	if c.dictOn && c.o.DictMaxBytes > 0 && c.dictSize() > c.o.DictMaxBytes {
		c.dictOn = false
	}
	return nil
}

// deltaLengths returns the page's DELTA_LENGTH_BYTE_ARRAY data, as
// delta.LengthByteArrayEncoding.EncodeByteArray encodes it: the values'
// lengths (encoded into sc.data), then their bytes. The lengths go into
// the gap in front of the values when they fit, else the values are
// copied after them; the next page's gap is sized from them.
func (c *Column) deltaLengths(sc *scratch) ([]byte, error) {
	lens, err := (&delta.LengthByteArrayEncoding{}).EncodeByteArray(sc.data[:0], nil, c.offs)
	if err != nil {
		return nil, err
	}
	sc.data = lens
	c.gapWant = len(lens) + len(lens)/4 + 64
	if len(lens) <= c.gap {
		start := c.gap - len(lens)
		copy(c.vals[start:], lens)
		return c.vals[start:], nil
	}
	sc.data = append(lens, c.vals[c.gap:]...)
	return sc.data, nil
}

// encodeIndexes encodes dictionary indexes idx, whose bits or'ed are or,
// as rle.DictionaryEncoding.EncodeInt32 does (a byte of the bit width,
// then the RLE/bit-packed hybrid of that width) without its pass for the
// largest bit length (which is or's).
func encodeIndexes(dst []byte, idx []int32, or int32) ([]byte, error) {
	width := bits.Len32(uint32(or))
	dst = slices.Grow(dst[:0], 1+5*len(idx)/4+16)
	dst = append(dst, byte(width))
	enc, err := (&rle.Encoding{BitWidth: width}).EncodeInt32(dst[1:], idx)
	if err != nil {
		return dst, err
	}
	if len(enc) > 0 && &enc[0] != &dst[1:cap(dst)][0] {
		return append(dst, enc...), nil // enc outgrew dst
	}
	return dst[:1+len(enc)], nil
}

// dictSize is the dictionary's size as parquet-go counts it (the values'
// bytes).
func (c *Column) dictSize() int64 {
	if c.kind == parquet.ByteArray || c.kind == parquet.FixedLenByteArray {
		return int64(len(c.bd.data))
	}
	return int64(len(c.dictBuf))
}

// appendHist counts levels into the chunk histogram hist and a new page
// histogram appended to pages (nothing when max is 0). zeros is how many
// levels are 0 (repetition levels: the page's rows; definition levels
// with max 1: its nulls), which makes the histogram when max is 1.
func appendHist(pages, hist []int64, levels []byte, max, zeros int) []int64 {
	if max == 0 {
		return pages
	}
	at := len(pages)
	pages = slices.Grow(pages, max+1)[:at+max+1]
	clear(pages[at:])
	p := pages[at:]
	if max == 1 {
		p[0], p[1] = int64(zeros), int64(len(levels)-zeros)
	} else {
		for _, l := range levels {
			p[l]++
		}
	}
	for i, n := range p {
		hist[i] += n
	}
	return pages
}

func addEncodingStat(stats []format.PageEncodingStats, t format.PageType, e format.Encoding) []format.PageEncodingStats {
	for i := range stats {
		if stats[i].PageType == t && stats[i].Encoding == e {
			stats[i].Count++
			return stats
		}
	}
	return append(stats, format.PageEncodingStats{PageType: t, Encoding: e, Count: 1})
}

// Flush ends the column chunk of the row group: it writes the last page
// and encodes the dictionary page.
func (c *Column) Flush() error {
	if err := c.flushPage(); err != nil {
		return err
	}
	if !c.o.Dict || c.kind == parquet.Boolean {
		return nil
	}
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	var err error
	data := c.dictBuf
	switch c.kind {
	case parquet.ByteArray:
		data = c.dictBuf[:0]
		for i := range c.bd.len() {
			data = plain.AppendByteArray(data, c.bd.entry(i))
		}
		c.dictBuf = data
	case parquet.FixedLenByteArray:
		data = c.bd.data
	}
	body := data
	if c.compressed {
		if sc.cmp, err = c.o.Codec.Encode(sc.cmp[:0], data); err != nil {
			return fmt.Errorf("pagew: compressing the dictionary page of %s: %w", c.o.Path, err)
		}
		body = sc.cmp
	}
	h := format.PageHeader{
		Type:                 format.DictionaryPage,
		UncompressedPageSize: int32(len(data)),
		CompressedPageSize:   int32(len(body)),
		CRC:                  int32(crc32.ChecksumIEEE(body)),
	}
	h.DictionaryPageHeader = thrift.New(format.DictionaryPageHeader{NumValues: int32(c.dictN), Encoding: format.Plain})
	c.hdr.Reset()
	if err := c.enc.Encode(&h); err != nil {
		return fmt.Errorf("pagew: encoding the dictionary page header of %s: %w", c.o.Path, err)
	}
	c.dictPage = append(append(c.dictPage[:0], c.hdr.Bytes()...), body...)
	c.dictUncomp = int64(c.hdr.Len() + len(data))
	c.encStats = addEncodingStat(c.encStats, format.DictionaryPage, format.Plain)
	return nil
}

// encodings lists the chunk's encodings as parquet-go does: RLE with
// definition levels, PLAIN, RLE_DICTIONARY with a dictionary.
func (c *Column) encodings() []format.Encoding {
	var e []format.Encoding
	switch {
	case c.o.Dict && c.kind != parquet.Boolean:
		e = []format.Encoding{format.Plain, format.RLEDictionary}
	case c.kind == parquet.ByteArray:
		e = []format.Encoding{format.DeltaLengthByteArray}
	default:
		e = []format.Encoding{format.Plain}
	}
	if c.o.MaxDef > 0 {
		e = append(e, format.RLE)
	}
	slices.Sort(e)
	return e
}

// chunk is a flushed column chunk laid out in the file.
type chunk struct {
	cc  format.ColumnChunk
	ci  *format.ColumnIndex // nil: none
	oi  format.OffsetIndex
	raw int64 // bytes in the file
}

// writeTo copies the flushed chunk to w at file offset off and starts the
// next chunk.
func (c *Column) writeTo(w io.Writer, off int64) (chunk, error) {
	var ch chunk
	md := format.ColumnMetaData{
		Type:                  format.Type(c.kind),
		Encoding:              c.encodings(),
		PathInSchema:          slices.Clone(c.o.Path),
		Codec:                 format.Uncompressed,
		NumValues:             c.numValues,
		TotalUncompressedSize: c.uncomp + c.dictUncomp,
		TotalCompressedSize:   c.comp + int64(len(c.dictPage)),
	}
	if c.o.Codec != nil {
		md.Codec = c.o.Codec.CompressionCodec()
	}
	md.Statistics.NullCount = c.nullCount
	if len(c.dictPage) > 0 {
		md.DictionaryPageOffset = off
		if _, err := w.Write(c.dictPage); err != nil {
			return ch, err
		}
		off += int64(len(c.dictPage))
	}
	md.DataPageOffset = off
	if c.buf != nil {
		if _, err := c.buf.Seek(0, io.SeekStart); err != nil {
			return ch, err
		}
		n, err := io.Copy(w, c.buf) // the buffer holds the chunk's data pages only
		if err == nil && n != c.pos {
			err = fmt.Errorf("pagew: %s: %d of %d buffered bytes copied", c.o.Path, n, c.pos)
		}
		c.o.Pool.PutBuffer(c.buf)
		c.buf = nil
		if err != nil {
			return ch, err
		}
	}
	ch.raw = int64(len(c.dictPage)) + c.pos
	locs := slices.Clone(c.locs)
	for i := range locs {
		locs[i].Offset += off
	}
	ch.oi = format.OffsetIndex{PageLocations: locs}
	stats := slices.Clone(c.encStats)
	slices.SortFunc(stats, func(a, b format.PageEncodingStats) int {
		if a.PageType != b.PageType {
			return int(a.PageType) - int(b.PageType)
		}
		return int(a.Encoding) - int(b.Encoding)
	})
	md.EncodingStats = stats
	md.SizeStatistics = format.SizeStatistics{UnencodedByteArrayDataBytes: c.unencoded, RepetitionLevelHistogram: slices.Clone(c.repHist), DefinitionLevelHistogram: slices.Clone(c.defHist)}
	var ci format.ColumnIndex
	keep := true
	if c.kind == parquet.ByteArray {
		ci = format.ColumnIndex{NullPages: slices.Clone(c.nullPages), NullCounts: slices.Clone(c.nullCounts),
			MinValues: make([][]byte, len(c.nullPages)), MaxValues: make([][]byte, len(c.nullPages))}
		keep = false
		if c.o.Track != nil {
			cs := c.o.Track.Finish()
			keep = cs.Fill(&md.Statistics, &ci)
		}
	} else {
		ci = c.indexer.ColumnIndex()
		ci.NullPages, ci.NullCounts = slices.Clone(ci.NullPages), slices.Clone(ci.NullCounts)
		ci.MinValues, ci.MaxValues = cloneAll(ci.MinValues), cloneAll(ci.MaxValues)
		if c.statHas {
			md.Statistics.MinValue = c.statMin.AppendBytes(nil)
			md.Statistics.MaxValue = c.statMax.AppendBytes(nil)
		}
	}
	if keep {
		ci.RepetitionLevelHistogram = slices.Clone(c.pageRep)
		ci.DefinitionLevelHistogram = slices.Clone(c.pageDef)
		ch.ci = &ci
	}
	ch.cc = format.ColumnChunk{MetaData: md}
	c.resetChunk()
	return ch, nil
}

func cloneAll(b [][]byte) [][]byte {
	out := make([][]byte, len(b))
	for i, x := range b {
		out[i] = bytes.Clone(x)
		if out[i] == nil {
			out[i] = []byte{}
		}
	}
	return out
}
