package convert

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/infra/localfs"
)

// TestWriteLocalFilesAsStreamed converts random batches of small NDJSON
// files from a local directory (each file opened by the decoders at once
// and read whole in one read, with listed sizes that are sometimes wrong;
// through an *os.File and through infra/localfs's ReadWhole)
// at GOMAXPROCS 1, 2 and 4, and checks the outcome against the same files
// streamed from an object store one decoder at a time: the same rows,
// rescued rows, skipped files with their reasons, and data files byte for
// byte. The batches hold missing files (ignoreMissingFiles), truncated
// gzip files (ignoreCorruptFiles), empty files, malformed lines and
// fields the schema lacks. Run it with -race too.
func TestWriteLocalFilesAsStreamed(t *testing.T) {
	ctx := context.Background()
	json, err := formats.Lookup("json")
	if err != nil {
		t.Fatal(err)
	}
	sch := &schema.StructType{Fields: []schema.Field{
		{Name: "id", Type: schema.Long, Nullable: true},
		{Name: "name", Type: schema.String, Nullable: true},
		{Name: "_rescued_data", Type: schema.String, Nullable: true},
	}}
	type result struct {
		rows, rescued int64
		skipped       []string
		files         [][]byte
		stats         []string
	}
	convertAll := func(t *testing.T, src Source, files []string, sizes []int64) result {
		t.Helper()
		table := memstore.New()
		c := &Converter{Source: src, Table: table, Rescued: "_rescued_data", TargetFileRows: 3000,
			Policy: Policy{IgnoreMissing: true, IgnoreCorrupt: true},
			ReadOptions: func(path string, bad func(formats.BadRecord)) formats.ReadOptions {
				return formats.ReadOptions{FilePath: path, RescuedDataColumn: "_rescued_data", BadRecords: bad}
			}}
		out := writeRetried(t, c, Batch{ID: 1, Files: files, Sizes: sizes, Schema: sch})
		r := result{rows: out.Rows, rescued: out.Rescued}
		for _, s := range out.Skipped {
			r.skipped = append(r.skipped, s.Path+": "+s.Err.Error())
		}
		for _, a := range out.Adds {
			rc, err := table.Get(ctx, a.Path)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if _, err := b.ReadFrom(rc); err != nil {
				t.Fatal(err)
			}
			rc.Close()
			r.files = append(r.files, b.Bytes())
			r.stats = append(r.stats, a.Stats)
		}
		return r
	}
	for seed := range uint64(12) {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			dir := t.TempDir()
			mem := memstore.New()
			files, sizes := writeRandomBatch(t, r, dir, mem)
			prev := runtime.GOMAXPROCS(1)
			defer runtime.GOMAXPROCS(prev)
			want := convertAll(t, Source{Store: mem, Format: json}, files, nil)
			if want.rows == 0 || want.rescued == 0 {
				t.Fatalf("%d rows converted, %d rescued", want.rows, want.rescued)
			}
			t.Logf("%d files, %d rows, %d rescued, %d skipped", len(files), want.rows, want.rescued, len(want.skipped))
			// Files read by the decoders from an *os.File (readWhole), and by
			// infra/localfs itself (objstore.WholeReader), following links
			// and within its root.
			follows, err := localfs.New(dir, localfs.WithFollowLinks())
			if err != nil {
				t.Fatal(err)
			}
			defer follows.Close()
			within, err := localfs.New(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer within.Close()
			stores := []struct {
				name  string
				store objstore.Store
			}{{"os.File", localStore{localDir{dir: dir}}}, {"localfs following links", follows}, {"localfs within its root", within}}
			for _, st := range stores {
				for _, procs := range []int{1, 2, 4} {
					runtime.GOMAXPROCS(procs)
					got := convertAll(t, Source{Store: st.store, Format: json}, files, sizes)
					if got.rows != want.rows || got.rescued != want.rescued || !reflect.DeepEqual(got.skipped, want.skipped) {
						t.Fatalf("%s, GOMAXPROCS %d: local files gave %d rows, %d rescued, skipped %q; streamed %d, %d, %q",
							st.name, procs, got.rows, got.rescued, got.skipped, want.rows, want.rescued, want.skipped)
					}
					if !reflect.DeepEqual(got.stats, want.stats) || len(got.files) != len(want.files) {
						t.Fatalf("%s, GOMAXPROCS %d: stats %q, want %q", st.name, procs, got.stats, want.stats)
					}
					for i := range want.files {
						if !bytes.Equal(got.files[i], want.files[i]) {
							t.Fatalf("%s, GOMAXPROCS %d: data file %d differs", st.name, procs, i)
						}
					}
				}
			}
		})
	}
}

// writeRetried writes b with c, again while the attempt asks for it
// (ErrRetryBatch), and fails t on any other error.
func writeRetried(t *testing.T, c *Converter, b Batch) *Output {
	t.Helper()
	failures := Failures{}
	for {
		out, err := c.Write(context.Background(), b, failures)
		if errors.Is(err, ErrRetryBatch) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
}

// localStore is localDir with a missing file objstore.ErrNotFound, as
// infra/localfs gives it.
type localStore struct{ localDir }

func (l localStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	rc, err := l.localDir.Get(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("get %s: %w", key, objstore.ErrNotFound)
	}
	return rc, err
}

// writeRandomBatch writes a random batch of small NDJSON files into dir
// and mem alike (malformed lines, fields the schema lacks, a few long
// files), some listed but missing, some truncated gzip files, some listed
// with a wrong size; it returns the batch's keys and listed sizes.
func writeRandomBatch(t *testing.T, r *rand.Rand, dir string, mem *memstore.Store) (files []string, sizes []int64) {
	t.Helper()
	ctx := context.Background()
	id := 0
	for f := range 5 + r.IntN(120) {
		var b strings.Builder
		for range r.IntN(6) {
			switch r.IntN(10) {
			case 0:
				b.WriteString(`{"id": 1, "name": ` + "\n") // malformed
			case 1:
				fmt.Fprintf(&b, `{"id": %d, "extra": [%d]}`+"\n", id, r.IntN(9)) // rescued
			default:
				fmt.Fprintf(&b, `{"id": %d, "name": "%s"}`+"\n", id, strings.Repeat("é", r.IntN(4)))
			}
			id++
		}
		if r.IntN(16) == 0 {
			b.WriteString(strings.Repeat(`{"id": 7, "name": "long"}`+"\n", 100+r.IntN(4000))) // past a read buffer
		}
		key := fmt.Sprintf("d/f%04d.json", f)
		data := []byte(b.String())
		switch r.IntN(12) {
		case 0: // listed, deleted since
			files, sizes = append(files, key), append(sizes, int64(len(data)))
			continue
		case 1: // gzip, truncated: a corrupt file
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(data)
			zw.Close()
			key += ".gz"
			data = z.Bytes()[:z.Len()*2/3]
		}
		size := int64(len(data))
		switch r.IntN(6) {
		case 0:
			size -= int64(1 + r.IntN(3)) // grew since listed
		case 1:
			size += int64(1 + r.IntN(3)) // shrank since listed
		}
		if err := os.MkdirAll(filepath.Join(dir, "d"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(key)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := mem.Put(ctx, key, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		files, sizes = append(files, key), append(sizes, size)
	}
	return files, sizes
}
