package parquetio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tributary-io/tributary/core/schema"
)

// batchOf builds a ColumnBatch of rows through its public appenders, the
// way a format reader does.
func batchOf(t *testing.T, s *schema.StructType, rows [][]any) *ColumnBatch {
	t.Helper()
	return batchOfRand(t, s, rows, nil)
}

// batchOfRand is batchOf that, with r, also uses the typed appenders where
// a leaf's type allows, and undoes work a reader may undo: collections
// appended and cut again (Lens, Cut), rows finished or half built and
// dropped again (Mark, Drop).
// setFields counts the SetField calls of batchOfRand (the tests check
// that some ran).
var setFields int

func batchOfRand(t *testing.T, s *schema.StructType, rows [][]any, r *rand.Rand) *ColumnBatch {
	t.Helper()
	b, err := NewColumnBatch(s)
	if err != nil {
		t.Fatal(err)
	}
	maybe := func(n int) bool { return r != nil && r.IntN(n) == 0 }
	var put func(n *ColNode, v any, r, d int)
	leaf := func(n *ColNode, v any, r int) {
		if maybe(2) {
			switch x := v.(type) {
			case int64:
				if schema.EqualType(n.Type, schema.Long) {
					b.Int64(n, x, r)
					return
				}
			case int32:
				if schema.EqualType(n.Type, schema.Integer) {
					b.Int32(n, x, r)
					return
				}
			case float64:
				b.Double(n, x, r)
				return
			case bool:
				b.Boolean(n, x, r)
				return
			case string:
				// ByteArray copies: the caller's bytes may change after.
				buf := []byte(x)
				b.ByteArray(n, buf, r)
				for i := range buf {
					buf[i] = '#'
				}
				return
			case []byte:
				buf := bytes.Clone(x)
				b.ByteArray(n, buf, r)
				clear(buf)
				return
			}
		}
		if err := b.Value(n, v, r); err != nil {
			t.Fatal(err)
		}
	}
	put = func(n *ColNode, v any, r, d int) {
		if v == nil {
			b.Null(n, r, d)
			return
		}
		switch n.Kind {
		case ColLeaf:
			leaf(n, v, r)
		case ColStruct:
			for i, c := range n.Children {
				put(c, v.([]any)[i], r, n.Def)
			}
		case ColList:
			elems := v.([]any)
			if len(elems) > 0 && maybe(4) {
				// A collection appended, then cut.
				lens := b.Lens(n, nil)
				for i, e := range elems {
					put(n.Children[0], e, map[bool]int{true: r, false: n.ElemRep}[i == 0], n.ElemDef)
				}
				b.Cut(n, lens)
			}
			if len(elems) == 0 {
				b.Null(n, r, n.Def)
			}
			for i, e := range elems {
				rr := r
				if i > 0 {
					rr = n.ElemRep
				}
				put(n.Children[0], e, rr, n.ElemDef)
			}
		case ColMap:
			entries := v.([]schema.MapEntry)
			if len(entries) == 0 {
				b.Null(n, r, n.Def)
			}
			for i, me := range entries {
				rr := r
				if i > 0 {
					rr = n.ElemRep
				}
				put(n.Children[0], me.Key, rr, n.ElemDef)
				put(n.Children[1], me.Value, rr, n.ElemDef)
			}
		}
	}
	for _, row := range rows {
		if maybe(8) {
			// A finished row, and a half-built one, dropped again.
			m := b.Mark()
			put(b.Root(), row, 0, 0)
			b.EndRow()
			put(b.Root().Children[0], row[0], 0, 0)
			b.Drop(m)
		}
		m := b.Mark()
		put(b.Root(), row, 0, 0)
		b.EndRow()
		if f := slices.IndexFunc(s.Fields, func(f schema.Field) bool { return schema.EqualType(f.Type, schema.String) }); f >= 0 && maybe(6) {
			// The row's string field set afterwards (a corrupt record's
			// text), maybe with a row being built after it, dropped.
			m2 := b.Mark()
			if maybe(2) {
				put(b.Root().Children[0], row[0], 0, 0)
			}
			x := fmt.Sprintf("set%d", r.IntN(1000))
			b.SetField(m, f, []byte(x))
			b.Drop(m2)
			row[f] = x
			setFields++
		}
	}
	return b
}

// TestWriteBatchMatchesWrite writes random schemas and rows with Write and
// with WriteBatch (batches built through the appenders, written in random
// row ranges, on one and on several goroutines): the files must be
// identical byte for byte and the statistics equal.
func TestWriteBatchMatchesWrite(t *testing.T) {
	setFields = 0
	for seed := range uint64(80) {
		g := gen{rand.New(rand.NewPCG(seed, 11))}
		s := g.structType(0, 1+g.r.IntN(10))
		var batches [][][]any
		for range 1 + g.r.IntN(5) {
			b := make([][]any, g.r.IntN(150))
			for i := range b {
				b[i] = g.value(s, false).([]any)
			}
			batches = append(batches, b)
		}
		opts := WriterOptions{PageBytes: 64 + g.r.IntN(8192)}
		if g.r.IntN(2) == 0 {
			opts.RowGroupRows = 1 + g.r.IntN(100)
		} else {
			opts.RowGroupBytes = 256 + int64(g.r.IntN(32<<10))
		}
		if g.r.IntN(4) == 0 {
			opts.NumIndexedCols = 1 + g.r.IntN(3)
		}
		workers := 1 + 2*g.r.IntN(2)
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
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
			for _, rows := range batches {
				b := batchOfRand(t, s, rows, g.r)
				if b.Rows() != len(rows) {
					t.Fatalf("batch has %d rows, want %d", b.Rows(), len(rows))
				}
				var sum int64
				for _, n := range b.cb.sizes {
					sum += n
				}
				if b.Bytes() != sum {
					t.Fatalf("batch Bytes %d, its rows' sizes add up to %d", b.Bytes(), sum)
				}
				// The same row ranges through both (a call's rows are
				// cut into runs and pages together).
				for from := 0; from < len(rows); {
					to := min(len(rows), from+1+g.r.IntN(len(rows)))
					if err := rw.Write(rows[from:to]); err != nil {
						t.Fatal(err)
					}
					if want, got := rw.batch.sizes, b.cb.sizes[from:to]; !slices.Equal(want, got) {
						t.Fatalf("rows [%d, %d): sizes %v, Write's %v", from, to, got, want)
					}
					if err := cw.WriteBatch(b, from, to); err != nil {
						t.Fatal(err)
					}
					from = to
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
				t.Fatalf("files differ (%d vs %d bytes); schema %s, opts %+v", rb.Len(), cb.Len(), s, opts)
			}
			rj, _ := json.Marshal(rst)
			cj, _ := json.Marshal(cst)
			if !bytes.Equal(rj, cj) {
				t.Fatalf("stats differ:\n  Write %s\n  Batch %s", rj, cj)
			}
		})
	}
	if setFields == 0 {
		t.Fatal("no batch had a field set (SetField)")
	}
}

// TestWriteBatchRefusesOtherSchema pins the schema check.
func TestWriteBatchRefusesOtherSchema(t *testing.T) {
	s1 := &schema.StructType{Fields: []schema.Field{{Name: "a", Type: schema.Long, Nullable: true}}}
	s2 := &schema.StructType{Fields: []schema.Field{{Name: "a", Type: schema.String, Nullable: true}}}
	w, err := NewWriter(&bytes.Buffer{}, s1, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := batchOf(t, s2, [][]any{{"x"}})
	if err := w.WriteBatch(b, 0, 1); err == nil {
		t.Fatal("WriteBatch of another schema's batch succeeded")
	}
}

// TestWriteBatchFloatExtremes writes float and double columns of signed
// zeros (equal extremes: the first one counts), a few NaNs and nulls, and
// integers of few values, with Write and with WriteBatch in random row
// ranges: the files and statistics (which pagew finds run by run for the
// batch) must be identical.
func TestWriteBatchFloatExtremes(t *testing.T) {
	s := &schema.StructType{Fields: []schema.Field{
		{Name: "d", Type: schema.Double, Nullable: true},
		{Name: "f", Type: schema.Float, Nullable: true},
		{Name: "i", Type: schema.Integer, Nullable: true},
		{Name: "l", Type: schema.Long},
	}}
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 12))
		nanEvery := []int{0, 50, 5}[seed%3] // 0: no NaN
		zero := func() float64 { return math.Copysign(0, float64(r.IntN(2)*2-1)) }
		rows := make([][]any, 1+r.IntN(400))
		for i := range rows {
			var d, f any
			switch {
			case r.IntN(6) == 0:
			case nanEvery > 0 && r.IntN(nanEvery) == 0:
				d, f = math.NaN(), float32(math.NaN())
			default:
				d, f = zero(), float32(zero())
			}
			var x any
			if r.IntN(4) > 0 {
				x = int32(r.IntN(5) - 2)
			}
			rows[i] = []any{d, f, x, int64(r.IntN(3))}
		}
		opts := WriterOptions{PageBytes: 64 + r.IntN(1024), RowGroupRows: 1 + r.IntN(300)}
		var rb, cb bytes.Buffer
		rw, err := NewWriter(&rb, s, opts)
		if err != nil {
			t.Fatal(err)
		}
		cw, err := NewWriter(&cb, s, opts)
		if err != nil {
			t.Fatal(err)
		}
		b := batchOfRand(t, s, rows, r)
		for from := 0; from < len(rows); {
			to := min(len(rows), from+1+r.IntN(len(rows)))
			if err := rw.Write(rows[from:to]); err != nil {
				t.Fatal(err)
			}
			if err := cw.WriteBatch(b, from, to); err != nil {
				t.Fatal(err)
			}
			from = to
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
			t.Fatalf("seed %d: files differ (%d vs %d bytes)", seed, rb.Len(), cb.Len())
		}
		rj, _ := json.Marshal(rst)
		cj, _ := json.Marshal(cst)
		if !bytes.Equal(rj, cj) {
			t.Fatalf("seed %d: stats differ:\n  Write %s\n  Batch %s", seed, rj, cj)
		}
	}
}
