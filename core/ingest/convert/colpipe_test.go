package convert

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/ingest/hivepart"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// TestWriteBatchGathers writes random sequences of small column batches
// (gathered), large ones (written at once) and rows, over two partitions,
// reusing each batch once written as the pipeline does: every partition's
// data files hold its rows in the order they were written, each file at
// most the target rows, and every file but a partition's last exactly the
// target.
func TestWriteBatchGathers(t *testing.T) {
	ctx := context.Background()
	s := &schema.StructType{Fields: []schema.Field{
		{Name: "n", Type: schema.Long, Nullable: true},
		{Name: "s", Type: schema.String, Nullable: true},
	}}
	one, two := "1", "2"
	parts := []hivepart.Partition{{Dir: "p=1/", Values: map[string]*string{"p": &one}}, {Dir: "p=2/", Values: map[string]*string{"p": &two}}}
	for seed := range uint64(40) {
		r := rand.New(rand.NewPCG(seed, 5))
		target := []int{7, 100, chunkRows + 3, 1_000_000}[r.IntN(4)]
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			table := memstore.New()
			c := &Converter{Table: table, Source: Source{TempDir: t.TempDir()}, TargetFileRows: target}
			fw := &fileWriter{c: c, sch: s, parts: map[string]*partFile{}}
			b, err := parquetio.NewColumnBatch(s)
			if err != nil {
				t.Fatal(err)
			}
			next := 0
			row := func() []any {
				next++
				v := []any{int64(next), fmt.Sprintf("row %d", next)}
				if next%3 == 0 {
					v[1] = nil
				}
				return v
			}
			want := map[string][][]any{}
			for range 1 + r.IntN(60) {
				part := parts[r.IntN(len(parts))]
				if r.IntN(2) == 0 {
					part = parts[0] // runs of one partition
				}
				var rows [][]any
				switch k := r.IntN(10); {
				case k == 0:
					rows = make([][]any, chunkRows+r.IntN(50))
				case k == 1:
					rows = make([][]any, 1+r.IntN(5))
					for i := range rows {
						rows[i] = row()
					}
					if err := fw.write(ctx, part, rows); err != nil {
						t.Fatal(err)
					}
					want[part.Dir] = append(want[part.Dir], rows...)
					continue
				default:
					rows = make([][]any, r.IntN(8))
				}
				for i := range rows {
					rows[i] = row()
					putRow(b, rows[i])
				}
				if err := fw.writeBatch(ctx, part, b); err != nil {
					t.Fatal(err)
				}
				b.Reset() // reused, as the pipeline's free batches are
				want[part.Dir] = append(want[part.Dir], rows...)
			}
			adds, err := fw.finish(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string][][]any{}
			files := map[string][]int{}
			for _, a := range adds {
				rows := readAdd(t, table, a)
				dir := parts[0].Dir
				if *a.PartitionValues["p"] == two {
					dir = parts[1].Dir
				}
				got[dir] = append(got[dir], rows...)
				files[dir] = append(files[dir], len(rows))
			}
			for _, p := range parts {
				if len(want[p.Dir]) == 0 && len(got[p.Dir]) == 0 {
					continue
				}
				if !reflect.DeepEqual(got[p.Dir], want[p.Dir]) {
					t.Fatalf("partition %s: %d rows read, want %d (or in another order)", p.Dir, len(got[p.Dir]), len(want[p.Dir]))
				}
				for i, n := range files[p.Dir] {
					if n > target || i < len(files[p.Dir])-1 && n != target {
						t.Fatalf("partition %s: files of %v rows, target %d", p.Dir, files[p.Dir], target)
					}
				}
			}
		})
	}
}

// putRow appends row v (n, s) to b.
func putRow(b *parquetio.ColumnBatch, v []any) {
	root := b.Root()
	n, str := root.Children[0], root.Children[1]
	b.Int64(n, v[0].(int64), 0)
	if v[1] == nil {
		b.Null(str, 0, str.Def-1)
	} else {
		b.ByteArray(str, []byte(v[1].(string)), 0)
	}
	b.EndRow()
}

// readAdd reads the rows of an added data file.
func readAdd(t *testing.T, table *memstore.Store, a delta.Add) [][]any {
	t.Helper()
	rc, err := table.Get(context.Background(), a.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	_, rows, err := parquetio.ReadFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
