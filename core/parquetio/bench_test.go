package parquetio

import (
	"fmt"
	"io"
	"math/big"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/schema"
)

// flatSchema is 10 columns: strings, longs and doubles.
func flatSchema() *schema.StructType {
	s := &schema.StructType{}
	types := []schema.PrimitiveType{schema.String, schema.Long, schema.Double}
	for i := range 10 {
		s.Fields = append(s.Fields, schema.Field{Name: fmt.Sprintf("c%d", i), Type: types[i%3], Nullable: true})
	}
	return s
}

func flatRows(n int) [][]any {
	rows := make([][]any, n)
	for i := range rows {
		r := make([]any, 10)
		for c := range r {
			switch c % 3 {
			case 0:
				r[c] = fmt.Sprintf("value-%d-%d-some-padding", c, i%1000)
			case 1:
				r[c] = int64(i * c)
			default:
				r[c] = float64(i) / float64(c+1)
			}
		}
		if i%10 == 0 {
			r[i%10] = nil
		}
		rows[i] = r
	}
	return rows
}

func benchNestedSchema() *schema.StructType {
	item := structOf(field("sku", schema.String, false), field("qty", schema.Integer, true), field("price", schema.DecimalType{Precision: 10, Scale: 2}, true))
	return structOf(
		field("id", schema.Long, false),
		field("ts", schema.Timestamp, true),
		field("customer", structOf(field("name", schema.String, true), field("tier", schema.Byte, true)), true),
		field("items", &schema.ArrayType{Element: item, ContainsNull: true}, true),
		field("tags", &schema.MapType{Key: schema.String, Value: schema.String, ValueContainsNull: true}, true),
	)
}

func benchNestedRows(n int) [][]any {
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([][]any, n)
	for i := range rows {
		items := make([]any, i%4)
		for j := range items {
			items[j] = []any{fmt.Sprintf("sku-%d", j), int32(j), schema.Decimal{Unscaled: big.NewInt(int64(i*100 + j)), Scale: 2}}
		}
		rows[i] = []any{
			int64(i), base.Add(time.Duration(i) * time.Millisecond),
			[]any{fmt.Sprintf("customer-%d", i%500), int8(i % 3)},
			items,
			[]schema.MapEntry{{Key: "src", Value: "web"}, {Key: "ab", Value: nil}},
		}
	}
	return rows
}

// rowBytes estimates the in-memory payload of rows, for MB/s.
func rowBytes(rows [][]any) int64 {
	var n int64
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			n += int64(len(v))
		case []byte:
			n += int64(len(v))
		case []any:
			for _, e := range v {
				walk(e)
			}
		case []schema.MapEntry:
			for _, e := range v {
				walk(e.Key)
				walk(e.Value)
			}
		case nil:
			n++
		case int8, bool:
			n++
		case int16:
			n += 2
		case int32, float32, schema.Date:
			n += 4
		case schema.Decimal:
			n += 8
		default:
			n += 8
		}
	}
	for _, r := range rows {
		walk(r)
	}
	return n
}

// peakHeap samples the live heap while f runs.
func peakHeap(f func()) uint64 {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return peak.Load()
}

func benchWrite(b *testing.B, s *schema.StructType, batch [][]any, batches int, opts WriterOptions) {
	bytesPerRun := rowBytes(batch) * int64(batches)
	b.SetBytes(bytesPerRun)
	b.ReportAllocs()
	var peak uint64
	runtime.GC()
	for b.Loop() {
		p := peakHeap(func() {
			w, err := NewWriter(io.Discard, s, opts)
			if err != nil {
				b.Fatal(err)
			}
			for range batches {
				if err := w.Write(batch); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := w.Close(); err != nil {
				b.Fatal(err)
			}
		})
		peak = max(peak, p)
	}
	rows := float64(len(batch) * batches)
	b.ReportMetric(rows*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// BenchmarkWriteFlat streams 200k rows of a 10-column flat schema in
// batches of 1000.
func BenchmarkWriteFlat(b *testing.B) {
	benchWrite(b, flatSchema(), flatRows(1000), 200, WriterOptions{})
}

// BenchmarkWriteFlatZstd is BenchmarkWriteFlat with zstd.
func BenchmarkWriteFlatZstd(b *testing.B) {
	benchWrite(b, flatSchema(), flatRows(1000), 200, WriterOptions{Compression: "zstd"})
}

// BenchmarkWriteNested streams 100k rows with a struct, a list of structs
// and a map.
func BenchmarkWriteNested(b *testing.B) {
	benchWrite(b, benchNestedSchema(), benchNestedRows(1000), 100, WriterOptions{})
}

// BenchmarkWriteFlatBounded streams 1M flat rows (about 80 MB of values)
// with 16 MB row groups: peak heap must stay near one row group, not grow
// with the file.
func BenchmarkWriteFlatBounded(b *testing.B) {
	benchWrite(b, flatSchema(), flatRows(1000), 1000, WriterOptions{RowGroupBytes: 16 << 20})
}

// benchWriteBatch is benchWrite through the column path: each batch is
// built through the ColumnBatch appenders (the typed ones where a leaf's
// type has one, as the JSON reader does) and written with WriteBatch, so
// the appenders and EndRow are measured with the writer.
func benchWriteBatch(b *testing.B, s *schema.StructType, batch [][]any, batches int, opts WriterOptions) {
	b.SetBytes(rowBytes(batch) * int64(batches))
	b.ReportAllocs()
	cb, err := NewColumnBatch(s)
	if err != nil {
		b.Fatal(err)
	}
	var put func(n *ColNode, v any, r, d int)
	put = func(n *ColNode, v any, r, d int) {
		if v == nil {
			cb.Null(n, r, d)
			return
		}
		switch n.Kind {
		case ColLeaf:
			switch x := v.(type) {
			case int64:
				cb.Int64(n, x, r)
			case float64:
				cb.Double(n, x, r)
			case []byte:
				cb.ByteArray(n, x, r)
			default:
				if err := cb.Value(n, v, r); err != nil {
					b.Fatal(err)
				}
			}
		case ColStruct:
			for i, c := range n.Children {
				put(c, v.([]any)[i], r, n.Def)
			}
		case ColList:
			elems := v.([]any)
			if len(elems) == 0 {
				cb.Null(n, r, n.Def)
			}
			for i, e := range elems {
				put(n.Children[0], e, map[bool]int{true: r, false: n.ElemRep}[i == 0], n.ElemDef)
			}
		case ColMap:
			entries := v.([]schema.MapEntry)
			if len(entries) == 0 {
				cb.Null(n, r, n.Def)
			}
			for i, me := range entries {
				rr := map[bool]int{true: r, false: n.ElemRep}[i == 0]
				put(n.Children[0], me.Key, rr, n.ElemDef)
				put(n.Children[1], me.Value, rr, n.ElemDef)
			}
		}
	}
	// Strings become byte slices once (a reader's come from its input).
	var bytesOf func(v any) any
	bytesOf = func(v any) any {
		switch x := v.(type) {
		case string:
			return []byte(x)
		case []any:
			y := make([]any, len(x))
			for i, e := range x {
				y[i] = bytesOf(e)
			}
			return y
		case []schema.MapEntry:
			y := make([]schema.MapEntry, len(x))
			for i, e := range x {
				y[i] = schema.MapEntry{Key: bytesOf(e.Key), Value: bytesOf(e.Value)}
			}
			return y
		}
		return v
	}
	rows := make([][]any, len(batch))
	for i, row := range batch {
		rows[i] = bytesOf(row).([]any)
	}
	var peak uint64
	runtime.GC()
	for b.Loop() {
		p := peakHeap(func() {
			w, err := NewWriter(io.Discard, s, opts)
			if err != nil {
				b.Fatal(err)
			}
			for range batches {
				cb.Reset()
				for _, row := range rows {
					put(cb.Root(), row, 0, 0)
					cb.EndRow()
				}
				if err := w.WriteBatch(cb, 0, cb.Rows()); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := w.Close(); err != nil {
				b.Fatal(err)
			}
		})
		peak = max(peak, p)
	}
	b.ReportMetric(float64(len(batch)*batches*b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// BenchmarkWriteBatchFlat is BenchmarkWriteFlat through ColumnBatch and
// WriteBatch.
func BenchmarkWriteBatchFlat(b *testing.B) {
	benchWriteBatch(b, flatSchema(), flatRows(1000), 200, WriterOptions{})
}

// BenchmarkWriteBatchNested is BenchmarkWriteNested through ColumnBatch and
// WriteBatch.
func BenchmarkWriteBatchNested(b *testing.B) {
	benchWriteBatch(b, benchNestedSchema(), benchNestedRows(1000), 100, WriterOptions{})
}

// BenchmarkAppendSmall gathers a 3-row batch of the flat schema (as of a
// small file) into a larger one: made for the same *schema.StructType
// (the schema check is a pointer comparison) or for an equal copy (a
// structural comparison).
func BenchmarkAppendSmall(b *testing.B) {
	s, rows := flatSchema(), flatRows(3)
	for _, c := range []struct {
		name string
		dst  *schema.StructType
	}{{"samePointer", s}, {"equalSchema", flatSchema()}} {
		b.Run(c.name, func(b *testing.B) {
			src, err := NewColumnBatch(s)
			if err != nil {
				b.Fatal(err)
			}
			for _, row := range rows {
				for i, n := range src.Root().Children {
					if row[i] == nil {
						src.Null(n, 0, 0)
					} else if err := src.Value(n, row[i], 0); err != nil {
						b.Fatal(err)
					}
				}
				src.EndRow()
			}
			dst, err := NewColumnBatch(c.dst)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if i%1000 == 0 {
					dst.Reset()
				}
				if err := dst.Append(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClose times Close alone on a file of one row group of 24 MB
// of flat rows whose strings are random (the rows are written before the
// timer runs): the columns' last pages and dictionaries, and the row group
// copied out to a temporary file. At GOMAXPROCS 2 and more the columns
// flush while the chunks are copied out (flushWhileWriting).
func BenchmarkClose(b *testing.B) {
	s := flatSchema()
	r := rand.New(rand.NewPCG(1, 2))
	batches := make([][][]any, 40)
	for k := range batches {
		rows := flatRows(4000)
		for _, row := range rows {
			for c := range row {
				if _, ok := row[c].(string); ok {
					row[c] = fmt.Sprintf("%016x%016x", r.Uint64(), r.Uint64())
				}
			}
		}
		batches[k] = rows
	}
	f, err := os.CreateTemp(b.TempDir(), "close-*.parquet")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for b.Loop() {
		b.StopTimer()
		if err := f.Truncate(0); err != nil {
			b.Fatal(err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			b.Fatal(err)
		}
		w, err := NewWriter(f, s, WriterOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, rows := range batches {
			if err := w.Write(rows); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if _, err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	if st, err := f.Stat(); err == nil {
		b.ReportMetric(float64(st.Size())/(1<<20), "file-MB")
	}
}
