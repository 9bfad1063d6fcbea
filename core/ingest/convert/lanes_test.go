package convert

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/ingest/hivepart"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/schema"
)

// laneSchema is the schema of the lanes tests' NDJSON files.
var laneSchema = &schema.StructType{Fields: []schema.Field{
	{Name: "id", Type: schema.Long, Nullable: true},
	{Name: "name", Type: schema.String, Nullable: true},
	{Name: "_rescued_data", Type: schema.String, Nullable: true},
}}

// laneConverter converts from src into table with the lanes tests'
// options: one lane per laneFiles files (0: laneMinFiles).
func laneConverter(src objstore.Store, table objstore.Store, laneFiles int, policy Policy) *Converter {
	json, err := formats.Lookup("json")
	if err != nil {
		panic(err)
	}
	return &Converter{Source: Source{Store: src, Format: json}, Table: table, Rescued: "_rescued_data", TargetFileRows: 700,
		Policy: policy, laneFiles: laneFiles,
		ReadOptions: func(path string, bad func(formats.BadRecord)) formats.ReadOptions {
			return formats.ReadOptions{FilePath: path, RescuedDataColumn: "_rescued_data", BadRecords: bad}
		}}
}

// TestLanesReadAsOnePipeline converts random batches of small NDJSON
// files (missing files, truncated gzip files, malformed lines, rescued
// fields, wrong listed sizes) in lanes, at GOMAXPROCS 2 and 4, and checks
// them against one pipeline at GOMAXPROCS 1: the same rows, read from the
// data files in the order of their adds, the same rescued count and the
// same skipped files with their reasons in file order; no data file past
// the target rows.
func TestLanesReadAsOnePipeline(t *testing.T) {
	type result struct {
		rows, rescued int64
		skipped       []string
		data          [][]any
		adds          int
	}
	convertAll := func(t *testing.T, c *Converter, table *memstore.Store, files []string, sizes []int64) result {
		t.Helper()
		out := writeRetried(t, c, Batch{ID: 1, Files: files, Sizes: sizes, Schema: laneSchema})
		r := result{rows: out.Rows, rescued: out.Rescued, adds: len(out.Adds)}
		for _, s := range out.Skipped {
			r.skipped = append(r.skipped, s.Path+": "+s.Err.Error())
		}
		for _, a := range out.Adds {
			rows := readAdd(t, table, a)
			if len(rows) > c.TargetFileRows {
				t.Fatalf("data file %s has %d rows, past the target %d", a.Path, len(rows), c.TargetFileRows)
			}
			r.data = append(r.data, rows...)
		}
		return r
	}
	policy := Policy{IgnoreMissing: true, IgnoreCorrupt: true}
	for seed := range uint64(16) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 11))
			dir := t.TempDir()
			mem := memstore.New()
			files, sizes := writeRandomBatch(t, r, dir, mem)
			for i := range sizes {
				sizes[i] = max(sizes[i], 0) // an empty file listed as grown: -1 would be a size unknown
			}
			prev := runtime.GOMAXPROCS(1)
			defer runtime.GOMAXPROCS(prev)
			table := memstore.New()
			want := convertAll(t, laneConverter(mem, table, 0, policy), table, files, nil)
			if want.rows == 0 || int64(len(want.data)) != want.rows {
				t.Fatalf("one pipeline: %d rows counted, %d read", want.rows, len(want.data))
			}
			for _, procs := range []int{2, 4} {
				runtime.GOMAXPROCS(procs)
				per := 1 + r.IntN(len(files)/2)
				table := memstore.New()
				c := laneConverter(localStore{localDir{dir: dir}}, table, per, policy)
				lanes := c.lanes(Batch{Files: files, Sizes: sizes})
				if lanes < 2 {
					t.Fatalf("GOMAXPROCS %d, %d files, a lane per %d: %d lane(s), want several", procs, len(files), per, lanes)
				}
				got := convertAll(t, c, table, files, sizes)
				if got.rows != want.rows || got.rescued != want.rescued || !reflect.DeepEqual(got.skipped, want.skipped) {
					t.Fatalf("%d lanes: %d rows, %d rescued, skipped %q; one pipeline %d, %d, %q",
						lanes, got.rows, got.rescued, got.skipped, want.rows, want.rescued, want.skipped)
				}
				if !reflect.DeepEqual(got.data, want.data) {
					t.Fatalf("%d lanes: the data files' rows differ from one pipeline's (%d and %d rows)", lanes, len(got.data), len(want.data))
				}
				if got.adds < lanes {
					t.Fatalf("%d lanes wrote %d data files", lanes, got.adds)
				}
			}
		})
	}
}

// TestLanesFailInFileOrder fails batches in lanes: the batch's error is
// the one of its first failing file in file order, whichever lane fails
// first, and no data file of any lane is left in the table.
func TestLanesFailInFileOrder(t *testing.T) {
	ctx := context.Background()
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)
	const n = 16 // two lanes of 8
	tests := []struct {
		name    string
		missing []int // files listed but not there (ignoreMissingFiles false)
		extra   []int // files with a field the schema lacks (the batch evolves)
		want    string
		columns bool // a *NewColumns, not a missing file
	}{
		{name: "second lane's missing file", missing: []int{12}, want: "f12.json"},
		{name: "first lane's missing file", missing: []int{2}, want: "f02.json"},
		{name: "new columns before the second lane's missing file", missing: []int{9}, extra: []int{7}, want: "f07.json", columns: true},
		{name: "missing file before the second lane's new columns", missing: []int{6}, extra: []int{8}, want: "f06.json"},
		{name: "both lanes' missing files", missing: []int{3, 10}, want: "f03.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := memstore.New()
			var files []string
			var sizes []int64
			for i := range n {
				key := fmt.Sprintf("d/f%02d.json", i)
				var b strings.Builder
				for j := range 50 {
					if j == 49 && slices.Contains(tt.extra, i) {
						fmt.Fprintf(&b, `{"id": %d, "name": "x", "more": 1}`+"\n", i*100+j)
						continue
					}
					fmt.Fprintf(&b, `{"id": %d, "name": "x"}`+"\n", i*100+j)
				}
				files, sizes = append(files, key), append(sizes, int64(b.Len()))
				if slices.Contains(tt.missing, i) {
					continue
				}
				if err := src.Put(ctx, key, strings.NewReader(b.String())); err != nil {
					t.Fatal(err)
				}
			}
			table := memstore.New()
			c := laneConverter(src, table, n/2, Policy{})
			if got := c.lanes(Batch{Files: files, Sizes: sizes}); got != 2 {
				t.Fatalf("%d lanes, want 2", got)
			}
			_, err := c.Write(ctx, Batch{ID: 3, Files: files, Sizes: sizes, Schema: laneSchema, Evolve: true}, Failures{})
			if err == nil {
				t.Fatal("the batch did not fail")
			}
			var nc *NewColumns
			if errors.As(err, &nc) != tt.columns || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q (new columns: %v), want one naming %s (new columns: %v)", err, nc != nil, tt.want, tt.columns)
			}
			for info, err := range table.List(ctx, objstore.ListOptions{}) {
				if err != nil {
					t.Fatal(err)
				}
				t.Errorf("data file %s left in the table", info.Key)
			}
		})
	}
}

// TestLanesWhen checks when a batch is converted in lanes: several CPUs,
// enough files, every size known and in all at most laneMaxBytes; never
// with badRecordsPath or partitions.
func TestLanesWhen(t *testing.T) {
	prev := runtime.GOMAXPROCS(4)
	defer runtime.GOMAXPROCS(prev)
	files := func(n int) []string {
		f := make([]string, n)
		for i := range f {
			f[i] = fmt.Sprintf("f%d.json", i)
		}
		return f
	}
	sizes := func(n int, each int64) []int64 {
		s := make([]int64, n)
		for i := range s {
			s[i] = each
		}
		return s
	}
	tests := []struct {
		name  string
		procs int
		c     Converter
		b     Batch
		want  int
	}{
		{name: "many small files", procs: 4, b: Batch{Files: files(4 * laneMinFiles), Sizes: sizes(4*laneMinFiles, 1024)}, want: 4},
		{name: "two CPUs", procs: 2, b: Batch{Files: files(4 * laneMinFiles), Sizes: sizes(4*laneMinFiles, 1024)}, want: 2},
		{name: "one CPU", procs: 1, b: Batch{Files: files(4 * laneMinFiles), Sizes: sizes(4*laneMinFiles, 1024)}, want: 1},
		{name: "a lane's worth of files per CPU", procs: 4, b: Batch{Files: files(3*laneMinFiles - 1), Sizes: sizes(3*laneMinFiles-1, 1024)}, want: 2},
		{name: "too few files", procs: 4, b: Batch{Files: files(2*laneMinFiles - 1), Sizes: sizes(2*laneMinFiles-1, 1024)}, want: 1},
		{name: "sizes unknown", procs: 4, b: Batch{Files: files(4 * laneMinFiles)}, want: 1},
		{name: "a size unknown", procs: 4, b: Batch{Files: files(4 * laneMinFiles), Sizes: append(sizes(4*laneMinFiles-1, 1024), -1)}, want: 1},
		{name: "more than one row group's input", procs: 4, b: Batch{Files: files(4 * laneMinFiles), Sizes: sizes(4*laneMinFiles, laneMaxBytes/(4*laneMinFiles)+1)}, want: 1},
		{name: "one row group's input", procs: 4, b: Batch{Files: files(4 * laneMinFiles), Sizes: sizes(4*laneMinFiles, laneMaxBytes/(4*laneMinFiles))}, want: 4},
		{name: "partitionBy", procs: 4, c: Converter{PartitionBy: []string{"name"}}, b: Batch{Files: files(4 * laneMinFiles), Sizes: sizes(4*laneMinFiles, 1024)}, want: 1},
		{name: "cloudFiles.partitionColumns", procs: 4, c: Converter{Partitions: hivepart.Columns{Names: []string{"day"}}}, b: Batch{Files: files(4 * laneMinFiles), Sizes: sizes(4*laneMinFiles, 1024)}, want: 1},
		{name: "badRecordsPath", procs: 4, b: Batch{Files: files(4 * laneMinFiles), Sizes: sizes(4*laneMinFiles, 1024), Bad: &BadSink{}}, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runtime.GOMAXPROCS(tt.procs)
			if got := tt.c.lanes(tt.b); got != tt.want {
				t.Fatalf("%d lanes, want %d", got, tt.want)
			}
		})
	}
}
