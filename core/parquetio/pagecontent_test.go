package parquetio

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/tributary-io/tributary/core/schema"
)

// fileMeaning is what a Parquet file says besides its encoded bytes: the
// footer without file offsets and byte sizes, each column chunk's column
// index and the first rows of its pages.
type fileMeaning struct {
	Schema    []format.SchemaElement
	NumRows   int64
	KeyValue  []format.KeyValue
	CreatedBy string
	Orders    []format.ColumnOrder
	RowGroups []groupMeaning
}

type groupMeaning struct {
	NumRows int64
	Ordinal int16
	Columns []chunkMeaning
}

type chunkMeaning struct {
	Type       format.Type
	Encodings  []format.Encoding
	Path       []string
	Codec      format.CompressionCodec
	NumValues  int64
	Dictionary bool
	Stats      format.Statistics
	EncStats   []format.PageEncodingStats
	Size       format.SizeStatistics
	Index      *format.ColumnIndex
	FirstRows  []int64
}

// meaningOf decodes the footer and page indexes of a Parquet file. The
// min/max of dictionary-encoded FLOAT and DOUBLE chunks and of all
// FIXED_LEN_BYTE_ARRAY chunks are left out: parquet-go's row path took the
// former from its dictionary's bounds, which neither skip NaN nor compare
// decimals signed as its PLAIN pages do, and wrote nothing for a page of
// nulls in a fixed-length column index, which shifted the bounds of the
// later pages (checkBounds checks the new path's against the values).
func meaningOf(t testing.TB, data []byte) fileMeaning {
	t.Helper()
	n := len(data)
	if n < 12 || string(data[:4]) != "PAR1" || string(data[n-4:]) != "PAR1" {
		t.Fatalf("not a Parquet file")
	}
	flen := int(binary.LittleEndian.Uint32(data[n-8:]))
	proto := new(thrift.CompactProtocol)
	var md format.FileMetaData
	if err := thrift.Unmarshal(proto, data[n-8-flen:n-8], &md); err != nil {
		t.Fatal(err)
	}
	m := fileMeaning{Schema: md.Schema, NumRows: md.NumRows, KeyValue: md.KeyValueMetadata, CreatedBy: md.CreatedBy, Orders: md.ColumnOrders}
	for _, rg := range md.RowGroups {
		g := groupMeaning{NumRows: rg.NumRows, Ordinal: rg.Ordinal}
		for _, cc := range rg.Columns {
			md := cc.MetaData
			c := chunkMeaning{Type: md.Type, Encodings: md.Encoding, Path: md.PathInSchema, Codec: md.Codec, NumValues: md.NumValues,
				Dictionary: md.DictionaryPageOffset > 0, Stats: md.Statistics, EncStats: md.EncodingStats, Size: md.SizeStatistics}
			if cc.ColumnIndexLength > 0 {
				c.Index = new(format.ColumnIndex)
				if err := thrift.Unmarshal(proto, data[cc.ColumnIndexOffset:cc.ColumnIndexOffset+int64(cc.ColumnIndexLength)], c.Index); err != nil {
					t.Fatal(err)
				}
			}
			if c.Dictionary && (md.Type == format.Float || md.Type == format.Double) || md.Type == format.FixedLenByteArray {
				c.Stats.MinValue, c.Stats.MaxValue = nil, nil
				if c.Index != nil {
					c.Index.MinValues, c.Index.MaxValues, c.Index.BoundaryOrder = nil, nil, 0
				}
			}
			var oi format.OffsetIndex
			if err := thrift.Unmarshal(proto, data[cc.OffsetIndexOffset:cc.OffsetIndexOffset+int64(cc.OffsetIndexLength)], &oi); err != nil {
				t.Fatal(err)
			}
			for _, p := range oi.PageLocations {
				c.FirstRows = append(c.FirstRows, p.FirstRowIndex)
			}
			g.Columns = append(g.Columns, c)
		}
		m.RowGroups = append(m.RowGroups, g)
	}
	return m
}

// sameContent checks that two Parquet files of schema s hold rows (read by
// parquet-go and by arrow-go's pqarrow) and say the same in their footers
// and page indexes; want is the reference (the previous encoder's file).
func sameContent(t testing.TB, s *schema.StructType, got, want []byte, rows [][]any) {
	t.Helper()
	if len(rows) > 0 {
		_, ga := readArrow(t, got, s)
		compareRows(t, "pqarrow", s, rows, ga)
	}
	// parquet-go's reader (ReadFile) misreads some files of the previous
	// encoder too (dictionary pages of nested columns; pqarrow above reads
	// them right): this file is checked against the rows whenever
	// ReadFile reads the reference right.
	_, gr, gerr := ReadFile(bytes.NewReader(got), int64(len(got)))
	_, wr, werr := ReadFile(bytes.NewReader(want), int64(len(want)))
	if werr == nil && sameRows(s, rows, wr) {
		if gerr != nil {
			t.Fatalf("ReadFile: %v", gerr)
		}
		compareRows(t, "ReadFile", s, rows, gr)
	} else {
		t.Logf("parquet-go's reader misreads the reference file (%v); ReadFile of this one: %v", werr, gerr)
	}
	checkBounds(t, s, got, rows)
	gm, wm := meaningOf(t, got), meaningOf(t, want)
	if d := diffJSON("", gm, wm); d != "" {
		t.Fatalf("footers differ: %s", d)
	}
}

// diffJSON describes the first difference between a and b as JSON values
// ("" when equal).
func diffJSON(at string, a, b any) string {
	aj, _ := json.Marshal(a)
	bj, _ := json.Marshal(b)
	if bytes.Equal(aj, bj) {
		return ""
	}
	var av, bv any
	_ = json.Unmarshal(aj, &av)
	_ = json.Unmarshal(bj, &bv)
	switch x := av.(type) {
	case map[string]any:
		if y, ok := bv.(map[string]any); ok {
			for k := range x {
				if d := diffJSON(at+"."+k, x[k], y[k]); d != "" {
					return d
				}
			}
		}
	case []any:
		if y, ok := bv.([]any); ok && len(x) == len(y) {
			for i := range x {
				if d := diffJSON(fmt.Sprintf("%s[%d]", at, i), x[i], y[i]); d != "" {
					return d
				}
			}
		}
	}
	return fmt.Sprintf("%s:\n got %s\nwant %s", at, aj, bj)
}

// checkBounds checks the column index and chunk min/max of every column
// chunk of data that is not BYTE_ARRAY against the values of rows, the
// rows of the file (shredded as Writer.Write shreds them), split into pages
// by the offset index: per page the null count and the min and max in the
// column type's order (NaN skipped unless the page holds nothing else:
// then its first value), per chunk the min and max of the pages' bounds.
func checkBounds(t testing.TB, s *schema.StructType, data []byte, rows [][]any) {
	t.Helper()
	w, err := NewWriter(io.Discard, s, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) > 0 {
		if err := w.shredBatch(rows, 1); err != nil {
			t.Fatal(err)
		}
	}
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	paths := w.plain.Columns()
	cis, ois := f.ColumnIndexes(), f.OffsetIndexes()
	base := 0 // first row of the row group
	for g, rg := range f.Metadata().RowGroups {
		for c := range rg.Columns {
			leaf, _ := w.plain.Lookup(paths[c]...)
			typ := leaf.Node.Type()
			md := rg.Columns[c].MetaData
			if typ.Kind() == parquet.ByteArray {
				continue
			}
			k := g*len(rg.Columns) + c
			ci := parquet.NewColumnIndex(typ.Kind(), &cis[k])
			locs := ois[k].PageLocations
			var clo, chi parquet.Value
			chas := false
			for p := range locs {
				end := int(rg.NumRows)
				if p+1 < len(locs) {
					end = int(locs[p+1].FirstRowIndex)
				}
				vals := w.batch.values(c, base+int(locs[p].FirstRowIndex), base+end)
				var lo, hi, nan parquet.Value
				has, nulls := false, int64(0)
				for _, v := range vals {
					if v.IsNull() {
						nulls++
						continue
					}
					if (v.Kind() == parquet.Double && v.Double() != v.Double()) || (v.Kind() == parquet.Float && v.Float() != v.Float()) {
						if nan.IsNull() {
							nan = v
						}
						continue
					}
					if !has || typ.Compare(v, lo) < 0 {
						lo = v
					}
					if !has || typ.Compare(v, hi) > 0 {
						hi = v
					}
					has = true
				}
				if !has && !nan.IsNull() {
					lo, hi, has = nan, nan, true
				}
				if ci.NullCount(p) != nulls || ci.NullPage(p) != (nulls == int64(len(vals))) {
					t.Fatalf("row group %d column %s page %d: index says %d nulls (null page %v), the page holds %d of %d", g, paths[c], p, ci.NullCount(p), ci.NullPage(p), nulls, len(vals))
				}
				if !has {
					continue
				}
				if !bytes.Equal(ci.MinValue(p).Bytes(), lo.Bytes()) || !bytes.Equal(ci.MaxValue(p).Bytes(), hi.Bytes()) {
					t.Fatalf("row group %d column %s page %d (dictionary %v): index bounds %x..%x, values %x..%x", g, paths[c], p, md.DictionaryPageOffset > 0, ci.MinValue(p).Bytes(), ci.MaxValue(p).Bytes(), lo.Bytes(), hi.Bytes())
				}
				if !chas || typ.Compare(lo, clo) < 0 {
					clo = lo
				}
				if !chas || typ.Compare(hi, chi) > 0 {
					chi = hi
				}
				chas = true
			}
			if chas && (!bytes.Equal(md.Statistics.MinValue, clo.Bytes()) || !bytes.Equal(md.Statistics.MaxValue, chi.Bytes())) {
				t.Fatalf("row group %d column %s: chunk min/max %x..%x, pages %v..%v", g, paths[c], md.Statistics.MinValue, md.Statistics.MaxValue, clo, chi)
			}
		}
		base += int(rg.NumRows)
	}
}

// sameRows reports whether got are the rows want.
func sameRows(s *schema.StructType, want, got [][]any) bool {
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		for j, f := range s.Fields {
			if !reflect.DeepEqual(canon(f.Type, want[i][j]), canon(f.Type, got[i][j])) {
				return false
			}
		}
	}
	return true
}

// pageBytes is the size of a Parquet file's pages (its column chunks).
func pageBytes(t testing.TB, data []byte) int64 {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, rg := range f.Metadata().RowGroups {
		for _, cc := range rg.Columns {
			n += cc.MetaData.TotalCompressedSize
		}
	}
	return n
}
