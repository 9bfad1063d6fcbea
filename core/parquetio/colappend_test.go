package parquetio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/schema"
)

// TestAppendMatchesWrite gathers random small batches with Append (each
// source batch's bytes overwritten and the batch reset afterwards, as a
// reused batch is) and writes the gathered batch in one call: the file
// must be the one Write makes of all the rows in one call, byte for byte,
// with equal statistics.
func TestAppendMatchesWrite(t *testing.T) {
	for seed := range uint64(60) {
		g := gen{rand.New(rand.NewPCG(seed, 23))}
		s := g.structType(0, 1+g.r.IntN(10))
		var parts [][][]any
		for range 1 + g.r.IntN(8) {
			b := make([][]any, g.r.IntN(6))
			for i := range b {
				b[i] = g.value(s, false).([]any)
			}
			parts = append(parts, b)
		}
		opts := WriterOptions{PageBytes: 64 + g.r.IntN(8192)}
		if g.r.IntN(4) == 0 {
			opts.NumIndexedCols = 1 + g.r.IntN(3)
		}
		workers := 1 + 2*g.r.IntN(2)
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			gathered, err := NewColumnBatch(s)
			if err != nil {
				t.Fatal(err)
			}
			var all [][]any
			var rescued, size int64
			for i, rows := range parts {
				rows := cloneRows(rows) // batchOfRand may set a field
				b := batchOfRand(t, s, rows, g.r)
				b.Rescued = int64(i * len(rows))
				rescued += b.Rescued
				size += b.Bytes()
				if err := gathered.Append(b); err != nil {
					t.Fatal(err)
				}
				// The source's bytes change and it is reset: the gathered
				// batch keeps copies.
				for c := range b.cb.cols {
					for j := range b.cb.cols[c].Data {
						b.cb.cols[c].Data[j] ^= 0x5a
					}
				}
				b.Reset()
				all = append(all, rows...)
			}
			if gathered.Rows() != len(all) || gathered.Rescued != rescued || gathered.Bytes() != size {
				t.Fatalf("gathered %d rows, %d rescued, %d bytes; want %d, %d, %d", gathered.Rows(), gathered.Rescued, gathered.Bytes(), len(all), rescued, size)
			}
			var rb, cb bytes.Buffer
			rw, err := NewWriter(&rb, s, opts)
			if err != nil {
				t.Fatal(err)
			}
			cw, err := NewWriter(&cb, s, opts)
			if err != nil {
				t.Fatal(err)
			}
			rw.workers, rw.minParallel = workers, 0
			cw.workers, cw.minParallel = workers, 0
			if len(all) > 0 {
				if err := rw.Write(all); err != nil {
					t.Fatal(err)
				}
				if err := cw.WriteBatch(gathered, 0, gathered.Rows()); err != nil {
					t.Fatal(err)
				}
			}
			rst, err := rw.Close()
			if err != nil {
				t.Fatal(err)
			}
			cst, err := cw.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(rb.Bytes(), cb.Bytes()) {
				t.Fatalf("files differ (%d vs %d bytes); schema %s", rb.Len(), cb.Len(), s)
			}
			rj, _ := json.Marshal(rst)
			cj, _ := json.Marshal(cst)
			if !bytes.Equal(rj, cj) {
				t.Fatalf("stats differ:\n  Write  %s\n  Append %s", rj, cj)
			}
		})
	}
}

// cloneRows deep-copies rows (their strings and byte slices too), so that a batch
// built from the copy shares no bytes with rows.
func cloneRows(rows [][]any) [][]any {
	var clone func(v any) any
	clone = func(v any) any {
		switch x := v.(type) {
		case []byte:
			return bytes.Clone(x)
		case string:
			return strings.Clone(x)
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = clone(e)
			}
			return out
		case []schema.MapEntry:
			out := make([]schema.MapEntry, len(x))
			for i, e := range x {
				out[i] = schema.MapEntry{Key: clone(e.Key), Value: clone(e.Value)}
			}
			return out
		}
		return v
	}
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = clone(r).([]any)
	}
	return out
}

// TestAppendRefuses: another schema, or a row being built.
func TestAppendRefuses(t *testing.T) {
	s1 := &schema.StructType{Fields: []schema.Field{{Name: "a", Type: schema.Long, Nullable: true}}}
	s2 := &schema.StructType{Fields: []schema.Field{{Name: "a", Type: schema.String, Nullable: true}}}
	for _, c := range []struct {
		name string
		dst  func() *ColumnBatch
		src  func() *ColumnBatch
	}{
		{"otherSchema", func() *ColumnBatch { return batchOf(t, s1, [][]any{{int64(1)}}) }, func() *ColumnBatch { return batchOf(t, s2, [][]any{{"x"}}) }},
		{"srcRowBuilding", func() *ColumnBatch { return batchOf(t, s1, nil) }, func() *ColumnBatch {
			b := batchOf(t, s1, [][]any{{int64(1)}})
			b.Int64(b.Root().Children[0], 2, 0)
			return b
		}},
		{"dstRowBuilding", func() *ColumnBatch {
			b := batchOf(t, s1, nil)
			b.Int64(b.Root().Children[0], 2, 0)
			return b
		}, func() *ColumnBatch { return batchOf(t, s1, [][]any{{int64(1)}}) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.dst().Append(c.src()); err == nil {
				t.Fatal("Append succeeded")
			}
		})
	}
}

// TestAppendSchemaIdentity: batches made for one *schema.StructType skip
// the structural comparison, and batches made for equal schemas of
// different pointers still append (and different ones are refused above).
func TestAppendSchemaIdentity(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{{Name: "a", Type: schema.Long, Nullable: true}}}
	same := &schema.StructType{Fields: []schema.Field{{Name: "a", Type: schema.Long, Nullable: true}}}
	for _, c := range []struct {
		name string
		dst  *schema.StructType
	}{{"samePointer", s}, {"equalSchema", same}} {
		t.Run(c.name, func(t *testing.T) {
			dst := batchOf(t, c.dst, [][]any{{int64(1)}})
			if err := dst.Append(batchOf(t, s, [][]any{{int64(2)}, {nil}})); err != nil {
				t.Fatal(err)
			}
			if dst.Rows() != 3 {
				t.Fatalf("%d rows, want 3", dst.Rows())
			}
		})
	}
}

// TestBatchBytesLimit: a column holding more bytes of values than its
// uint32 offsets reach (maxColumnBytes, lowered here) is refused by Write,
// WriteBatch and Append rather than written with wrapped offsets.
func TestBatchBytesLimit(t *testing.T) {
	defer func(n int64) { maxColumnBytes = n }(maxColumnBytes)
	maxColumnBytes = 10
	s := &schema.StructType{Fields: []schema.Field{{Name: "s", Type: schema.String, Nullable: true}}}
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"Write", func() error {
			w, err := NewWriter(io.Discard, s, WriterOptions{})
			if err != nil {
				return err
			}
			return w.Write([][]any{{"0123456789"}, {"a"}})
		}},
		{"WriteBatch", func() error {
			w, err := NewWriter(io.Discard, s, WriterOptions{})
			if err != nil {
				return err
			}
			b := batchOf(t, s, [][]any{{"0123456789a"}})
			return w.WriteBatch(b, 0, 1)
		}},
		{"Append", func() error {
			b := batchOf(t, s, [][]any{{"012345"}})
			return b.Append(batchOf(t, s, [][]any{{"6789a"}}))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.run(); !errors.Is(err, ErrInvalidValue) {
				t.Fatalf("got %v, want ErrInvalidValue", err)
			}
		})
	}
	// At the limit: accepted.
	w, err := NewWriter(io.Discard, s, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([][]any{{"01234"}, {"56789"}}); err != nil {
		t.Fatal(err)
	}
	b := batchOf(t, s, [][]any{{"01234"}})
	if err := b.Append(batchOf(t, s, [][]any{{"56789"}})); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBatch(b, 0, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
