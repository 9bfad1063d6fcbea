// Package chunkstats follows the min/max statistics of the Parquet
// writer's byte-array columns page by page, as parquet-mr writes them.
//
// parquet-go would copy the whole min and max of every page into the
// column chunk statistics and the column index (four copies of a 64 MB
// string, and a footer readers refuse). The column encoders (pagew) give
// each page's values to a Track instead, which keeps at most
// filestats.MaxStatsSize bytes of a value; Chunk.Fill then sets the chunk's
// min/max and its column index. RewriteTail, AfterRun and EndGroup served
// the previous encoder, which wrote through parquet-go and rewrote its
// footer; the tests keep that encoder as the reference the new one is
// compared with.
package chunkstats

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/tributary-io/tributary/core/parquetio/filestats"
)

// Track follows the min/max of one byte-array column through the pages
// of the row group being written.
type Track struct {
	col       int              // leaf column
	page      filestats.MinMax // the page being filled
	group     filestats.MinMax // the finished pages of the row group
	pageStart int64            // row of the row group the page being filled starts at
	pages     []pageStat
	broken    bool
}

// NewTrack returns the Track of leaf column col.
func NewTrack(col int) *Track {
	return &Track{col: col, page: filestats.NewMinMax(filestats.MaxStatsSize), group: filestats.NewMinMax(filestats.MaxStatsSize)}
}

// endPage closes the page being filled; the next one starts at row end.
func (ct *Track) EndPage(end int64) {
	ps := pageStat{firstRow: ct.pageStart, has: ct.page.Has(), ok: true}
	if ps.has {
		ps.lo, ps.hi, ps.ok = ct.page.IndexBounds(filestats.ColumnIndexTruncateLength)
	}
	ct.pages = append(ct.pages, ps)
	ct.group.Merge(&ct.page)
	ct.page.Reset()
	ct.pageStart = end
}

// finish returns the statistics of the row group's column chunk and
// starts the next row group.
func (ct *Track) Finish() Chunk {
	cs := Chunk{pages: ct.pages, broken: ct.broken}
	cs.lo, cs.hi, _ = ct.group.ChunkMinMax()
	ct.pages, ct.broken, ct.pageStart = nil, false, 0
	ct.group.Reset()
	return cs
}

// Col is the leaf column the Track follows.
func (ct *Track) Col() int { return ct.col }

// Add adds a non-null value of the page being filled.
func (ct *Track) Add(v []byte) { ct.page.Add(v) }

// AddSpan adds a run of non-null values of the page being filled given by
// its smallest and largest value, or reports false (adding nothing) when
// they must be added one by one (filestats.MinMax.AddSpan).
func (ct *Track) AddSpan(lo, hi []byte) bool { return ct.page.AddSpan(lo, hi) }

// AfterRun checks, after a run of rows ending at row done of the row group
// was handed to parquet-go, whether the column writer finished a page
// (pages is how many pages its offset index lists, and first the first row
// of the last one; pages < 0: unknown): a page that started where the
// Track's page did ends it; anything else means the pages are not followed,
// and the chunk gets no column index.
func (ct *Track) AfterRun(pages int, first, done int64) {
	switch {
	case pages == len(ct.pages):
	case pages == len(ct.pages)+1 && first == ct.pageStart:
		ct.EndPage(done)
	default:
		ct.broken = true
	}
}

// EndGroup ends the last page of a row group of rows rows (parquet-go
// writes the rest of a column chunk as one page) and returns the chunk's
// statistics.
func (ct *Track) EndGroup(rows int64) Chunk {
	if rows > ct.pageStart {
		ct.EndPage(rows)
	}
	return ct.Finish()
}

// pageStat is what the column index says about one page of a byte-array
// column.
type pageStat struct {
	firstRow int64 // row of the row group the page starts at
	has      bool  // the page holds a non-null value
	lo, hi   []byte
	ok       bool // lo/hi are true bounds (false: no column index)
}

// Chunk is a byte-array column chunk's statistics.
type Chunk struct {
	lo, hi []byte // min and max for the footer (nil: left out)
	pages  []pageStat
	broken bool // page boundaries were not followed: write no column index
}

// Group holds the chunk statistics of one row group, by tracked column.
type Group struct {
	Rows   int64
	Chunks []Chunk
}

// RewriteTail rewrites the part of the file parquet-go wrote after the last
// row group (tail, which starts at file offset base): the page indexes and
// the footer. It sets the byte-array columns' chunk min/max and column
// indexes from groups; whatever cannot be matched safely loses its min/max
// and column index rather than keeping parquet-go's.
func RewriteTail(tail []byte, base int64, tracked []int, groups []Group) ([]byte, error) {
	if len(tracked) == 0 {
		return tail, nil
	}
	n := len(tail)
	if n < 8 || string(tail[n-4:]) != "PAR1" {
		return nil, fmt.Errorf("parquetio: rewriting footer: no Parquet magic at the end")
	}
	flen := int(binary.LittleEndian.Uint32(tail[n-8 : n-4]))
	fstart := n - 8 - flen
	if flen <= 0 || fstart < 0 {
		return nil, fmt.Errorf("parquetio: rewriting footer: bad footer length %d", flen)
	}
	proto := new(thrift.CompactProtocol)
	var md format.FileMetaData
	if err := thrift.Unmarshal(proto, tail[fstart:n-8], &md); err != nil {
		return nil, fmt.Errorf("parquetio: rewriting footer: %w", err)
	}
	section := func(off int64, length int32) ([]byte, error) {
		lo := off - base
		if length <= 0 || lo < 0 || lo+int64(length) > int64(fstart) {
			return nil, fmt.Errorf("parquetio: rewriting footer: page index at %d+%d outside the tail", off, length)
		}
		return tail[lo : lo+int64(length)], nil
	}
	// Decode every page index; the first one starts the rewritten region.
	start := int64(fstart)
	cis := make([][]*format.ColumnIndex, len(md.RowGroups))
	ois := make([][][]byte, len(md.RowGroups))
	for i := range md.RowGroups {
		cols := md.RowGroups[i].Columns
		cis[i] = make([]*format.ColumnIndex, len(cols))
		ois[i] = make([][]byte, len(cols))
		for j := range cols {
			cc := &cols[j]
			if cc.ColumnIndexLength > 0 {
				b, err := section(cc.ColumnIndexOffset, cc.ColumnIndexLength)
				if err != nil {
					return nil, err
				}
				ci := new(format.ColumnIndex)
				if err := thrift.Unmarshal(proto, b, ci); err != nil {
					return nil, fmt.Errorf("parquetio: rewriting footer: column index: %w", err)
				}
				cis[i][j] = ci
				start = min(start, cc.ColumnIndexOffset-base)
			}
			if cc.OffsetIndexLength > 0 {
				b, err := section(cc.OffsetIndexOffset, cc.OffsetIndexLength)
				if err != nil {
					return nil, err
				}
				ois[i][j] = b
				start = min(start, cc.OffsetIndexOffset-base)
			}
		}
	}
	matched := len(groups) == len(md.RowGroups)
	for i := range md.RowGroups {
		rg := &md.RowGroups[i]
		for k, col := range tracked {
			if col >= len(rg.Columns) {
				return nil, fmt.Errorf("parquetio: rewriting footer: row group %d has %d columns", i, len(rg.Columns))
			}
			cc := &rg.Columns[col]
			var cs *Chunk
			if matched && groups[i].Rows == rg.NumRows {
				cs = &groups[i].Chunks[k]
			}
			applyChunkStat(cc, &cis[i][col], ois[i][col], cs)
		}
	}
	// Re-encode: page indexes in parquet-go's order, then the footer.
	out := bytes.NewBuffer(make([]byte, 0, n))
	out.Write(tail[:start])
	for i := range md.RowGroups {
		for j := range md.RowGroups[i].Columns {
			cc := &md.RowGroups[i].Columns[j]
			cc.ColumnIndexOffset, cc.ColumnIndexLength = 0, 0
			if ci := cis[i][j]; ci != nil {
				b, err := thrift.Marshal(proto, ci)
				if err != nil {
					return nil, fmt.Errorf("parquetio: encoding column index: %w", err)
				}
				cc.ColumnIndexOffset, cc.ColumnIndexLength = base+int64(out.Len()), int32(len(b))
				out.Write(b)
			}
		}
	}
	for i := range md.RowGroups {
		for j := range md.RowGroups[i].Columns {
			cc := &md.RowGroups[i].Columns[j]
			cc.OffsetIndexOffset, cc.OffsetIndexLength = 0, 0
			if b := ois[i][j]; b != nil {
				cc.OffsetIndexOffset, cc.OffsetIndexLength = base+int64(out.Len()), int32(len(b))
				out.Write(b)
			}
		}
	}
	footer, err := thrift.Marshal(proto, &md)
	if err != nil {
		return nil, fmt.Errorf("parquetio: encoding footer: %w", err)
	}
	out.Write(footer)
	out.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(footer))))
	out.WriteString("PAR1")
	return out.Bytes(), nil
}

// applyChunkStat sets the min/max and column index of one byte-array
// column chunk from cs; with cs nil, or when cs does not match the pages
// parquet-go wrote, both are left out.
func applyChunkStat(cc *format.ColumnChunk, ci **format.ColumnIndex, oi []byte, cs *Chunk) {
	st := &cc.MetaData.Statistics
	st.MinValue, st.MaxValue, st.Min, st.Max = nil, nil, nil, nil
	if cs != nil && cs.lo != nil {
		st.MinValue, st.MaxValue = cs.lo, cs.hi
	}
	if *ci == nil || cs == nil || !pagesMatch(*ci, oi, cs) {
		*ci = nil
		return
	}
	c := *ci
	size := 0
	for p, ps := range cs.pages {
		c.MinValues[p], c.MaxValues[p] = ps.lo, ps.hi
		if c.MinValues[p] == nil {
			c.MinValues[p], c.MaxValues[p] = []byte{}, []byte{}
		}
		size += len(ps.lo) + len(ps.hi)
	}
	if size > len(cs.pages)*filestats.MaxStatsSize {
		*ci = nil
		return
	}
	c.BoundaryOrder = boundaryOrder(cs.pages)
}

// pagesMatch reports whether the pages followed by cs are the ones of the
// column index and offset index, with true bounds for each.
func pagesMatch(ci *format.ColumnIndex, oi []byte, cs *Chunk) bool {
	if cs.broken || oi == nil {
		return false
	}
	var idx format.OffsetIndex
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), oi, &idx); err != nil {
		return false
	}
	n := len(cs.pages)
	if len(idx.PageLocations) != n || len(ci.NullPages) != n || len(ci.MinValues) != n || len(ci.MaxValues) != n {
		return false
	}
	for p, ps := range cs.pages {
		if !ps.ok || idx.PageLocations[p].FirstRowIndex != ps.firstRow || ci.NullPages[p] == ps.has {
			return false
		}
	}
	return true
}

// boundaryOrder is the column index's boundary order of pages: ascending
// when the mins and the maxes of the non-null pages never decrease,
// descending when they never increase.
func boundaryOrder(pages []pageStat) format.BoundaryOrder {
	asc, desc := true, true
	var prev *pageStat
	for p := range pages {
		ps := &pages[p]
		if !ps.has {
			continue
		}
		if prev != nil {
			lo, hi := bytes.Compare(prev.lo, ps.lo), bytes.Compare(prev.hi, ps.hi)
			if lo > 0 || hi > 0 {
				asc = false
			}
			if lo < 0 || hi < 0 {
				desc = false
			}
		}
		prev = ps
	}
	switch {
	case asc:
		return format.Ascending
	case desc:
		return format.Descending
	}
	return format.Unordered
}

// Fill sets a byte-array column chunk's min/max in st and the min/max
// values and boundary order of its column index ci, whose NullPages (one
// per page the Track followed) the caller set. It reports false when the
// chunk gets no column index: pages not followed, a page without a true
// upper bound, or bounds longer than MaxStatsSize per page.
func (cs *Chunk) Fill(st *format.Statistics, ci *format.ColumnIndex) bool {
	st.MinValue, st.MaxValue, st.Min, st.Max = nil, nil, nil, nil
	if cs.lo != nil {
		st.MinValue, st.MaxValue = cs.lo, cs.hi
	}
	n := len(cs.pages)
	if cs.broken || len(ci.NullPages) != n {
		return false
	}
	ci.MinValues, ci.MaxValues = make([][]byte, n), make([][]byte, n)
	size := 0
	for p, ps := range cs.pages {
		if !ps.ok || ci.NullPages[p] == ps.has {
			return false
		}
		ci.MinValues[p], ci.MaxValues[p] = ps.lo, ps.hi
		if ci.MinValues[p] == nil {
			ci.MinValues[p], ci.MaxValues[p] = []byte{}, []byte{}
		}
		size += len(ps.lo) + len(ps.hi)
	}
	if size > n*filestats.MaxStatsSize {
		return false
	}
	ci.BoundaryOrder = boundaryOrder(cs.pages)
	return true
}
