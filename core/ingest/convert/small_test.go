package convert

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/infra/localfs"
)

func TestSmallFilesAndChunkCap(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sizes    []int64
		decoders int
		small    bool
		caps     []int // chunkCap of each file
	}{
		{"unknown sizes", nil, 2, false, nil},
		{"no files", []int64{}, 2, false, nil},
		{"one decoder", []int64{1 << 20, 1 << 20}, 1, false, []int{fileChunks, fileChunks}},
		{"1 MB files", []int64{1 << 20, 1<<20 + 7, 1 << 20}, 2, true, []int{16, 16, 16}},
		{"1 KB files", []int64{1 << 10, 0, 300}, 2, true, []int{fileChunks, fileChunks, fileChunks}},
		{"up to the limit", []int64{smallFileBytes, 300 << 10}, 4, true, []int{smallFileChunks, fileChunks}},
		{"one large file", []int64{1 << 20, smallFileBytes + 1}, 2, false, []int{fileChunks, fileChunks}},
		{"one size unknown", []int64{1 << 20, -1}, 2, false, []int{fileChunks, fileChunks}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := &pipeline{sizes: tc.sizes, decoders: tc.decoders}
			pl.small = tc.decoders > 1 && smallFiles(tc.sizes)
			if pl.small != tc.small {
				t.Fatalf("small = %v, want %v", pl.small, tc.small)
			}
			for i, want := range tc.caps {
				if got := pl.chunkCap(i); got != want {
					t.Errorf("chunkCap(%d) = %d, want %d", i, got, want)
				}
			}
		})
	}
}

// TestSmallFilesOnSeveralDecoders converts random batches of CSV and
// NDJSON files of up to ~1.5 MB (most over 256 KiB, so that a file's
// chunk channel holds more than 4 chunks and the decoders' rows ahead
// reach smallAheadBytes) from a local directory, with their listed sizes,
// at GOMAXPROCS 2 and 4 (pipeline.small), and checks the rows and the data
// files byte for byte against the same batch converted with unknown sizes
// at GOMAXPROCS 1 and 2 (one decoder; several with 4-chunk channels and
// the 32 MiB gate).
func TestSmallFilesOnSeveralDecoders(t *testing.T) {
	ctx := context.Background()
	sch := &schema.StructType{Fields: []schema.Field{
		{Name: "id", Type: schema.Long, Nullable: true},
		{Name: "name", Type: schema.String, Nullable: true},
		{Name: "score", Type: schema.Double, Nullable: true},
	}}
	for _, tc := range []struct {
		format string
		ext    string
		header string
		row    func(id int, name string, score float64) string
		opts   map[string]string
	}{
		{"csv", "csv", "id,name,score\n", func(id int, name string, score float64) string {
			return fmt.Sprintf("%d,%s,%g\n", id, name, score)
		}, map[string]string{"header": "true"}},
		{"json", "json", "", func(id int, name string, score float64) string {
			return fmt.Sprintf(`{"id": %d, "name": "%s", "score": %g}`+"\n", id, name, score)
		}, nil},
	} {
		format, err := formats.Lookup(tc.format)
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("%s/seed%d", tc.format, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 11))
				dir := t.TempDir()
				var files []string
				var sizes []int64
				id := 0
				for f := range 4 + r.IntN(6) {
					var b strings.Builder
					b.WriteString(tc.header)
					size := []int{0, 2 << 10, 300 << 10, 1 << 20, 1500 << 10}[r.IntN(5)]
					for b.Len() < size {
						b.WriteString(tc.row(id, strings.Repeat("n", 20+r.IntN(80)), float64(r.IntN(1e6))/100))
						id++
					}
					key := fmt.Sprintf("f%04d.%s", f, tc.ext)
					if err := os.WriteFile(filepath.Join(dir, key), []byte(b.String()), 0o644); err != nil {
						t.Fatal(err)
					}
					files, sizes = append(files, key), append(sizes, int64(b.Len()))
				}
				store, err := localfs.New(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer store.Close()
				convert := func(procs int, sizes []int64) (int64, [][]byte) {
					t.Helper()
					prev := runtime.GOMAXPROCS(procs)
					defer runtime.GOMAXPROCS(prev)
					table := memstore.New()
					c := &Converter{Source: Source{Store: store, Format: format}, Table: table, TargetFileRows: 40_000,
						ReadOptions: func(path string, bad func(formats.BadRecord)) formats.ReadOptions {
							return formats.ReadOptions{FilePath: path, BadRecords: bad, Options: tc.opts}
						}}
					out, err := c.Write(ctx, Batch{ID: 1, Files: files, Sizes: sizes, Schema: sch}, Failures{})
					if err != nil {
						t.Fatal(err)
					}
					var data [][]byte
					for _, a := range out.Adds {
						rc, err := table.Get(ctx, a.Path)
						if err != nil {
							t.Fatal(err)
						}
						b, err := io.ReadAll(rc)
						rc.Close()
						if err != nil {
							t.Fatal(err)
						}
						data = append(data, b)
					}
					return out.Rows, data
				}
				wantRows, want := convert(1, nil)
				if wantRows != int64(id) {
					t.Fatalf("one decoder: %d rows, want %d", wantRows, id)
				}
				for _, run := range []struct {
					procs int
					sizes []int64
				}{{2, nil}, {2, sizes}, {4, sizes}} {
					rows, got := convert(run.procs, run.sizes)
					if rows != wantRows || len(got) != len(want) {
						t.Fatalf("GOMAXPROCS %d, sizes %v: %d rows in %d files, want %d in %d", run.procs, run.sizes != nil, rows, len(got), wantRows, len(want))
					}
					for i := range want {
						if !bytes.Equal(got[i], want[i]) {
							t.Fatalf("GOMAXPROCS %d, sizes %v: data file %d differs", run.procs, run.sizes != nil, i)
						}
					}
				}
			})
		}
	}
}
