package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/convert"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/core/state"
)

// gunzipLines counts the complete lines a gzip reader yields from data
// before it fails or ends.
func gunzipLines(data []byte) int {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return 0
	}
	out, _ := io.ReadAll(zr)
	return bytes.Count(out, []byte("\n"))
}

// putTruncatedGzip writes key: n rows (ids from w.rows on) gzipped, then
// cut so that exactly keep complete lines can be decompressed. The keep
// readable rows count as the world's rows.
func (w *world) putTruncatedGzip(t *testing.T, key string, n, keep int) {
	t.Helper()
	var plain strings.Builder
	for i := 0; i < n; i++ {
		id := w.rows + i
		fmt.Fprintf(&plain, `{"id": %d, "name": "row %d", "tags": ["x", null], "nested": {"a": %d, "b": null}}`+"\n", id, id*7919%1000003, id%7)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(plain.String()))
	zw.Close()
	data := gz.Bytes()
	// The smallest cut that yields more than keep lines; one byte less
	// must yield exactly keep.
	cut := sort.Search(len(data), func(c int) bool { return gunzipLines(data[:c]) > keep })
	if cut == 0 || cut == len(data) || gunzipLines(data[:cut-1]) != keep {
		t.Fatalf("cannot cut the gzip of %d rows to exactly %d readable rows", n, keep)
	}
	if err := w.src.Put(context.Background(), key, bytes.NewReader(data[:cut-1])); err != nil {
		t.Fatal(err)
	}
	w.rows += keep
}

// tableFiles lists the table's data files (not the log).
func tableFiles(t *testing.T, store objstore.Store) []string {
	t.Helper()
	var out []string
	for info, err := range store.List(context.Background(), objstore.ListOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(info.Key, "_delta_log/") {
			out = append(out, info.Key)
		}
	}
	return out
}

// commitInfos returns the commitInfo of every log version.
func commitInfos(t *testing.T, store objstore.Store) []*delta.CommitInfo {
	t.Helper()
	ctx := context.Background()
	var out []*delta.CommitInfo
	for info, err := range store.List(ctx, objstore.ListOptions{Prefix: "_delta_log/"}) {
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(info.Key, ".json") {
			continue
		}
		rc, err := store.Get(ctx, info.Key)
		if err != nil {
			t.Fatal(err)
		}
		err = delta.ReadActions(rc, func(a delta.Action) error {
			if a.CommitInfo != nil {
				out = append(out, a.CommitInfo)
			}
			return nil
		})
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestTruncatedGzip: a truncated gzip (574 readable rows) fails its batch
// by default, naming the file and committing nothing, again on every run;
// with ignoreCorruptFiles=true the 574 rows are kept and the file is
// recorded SKIPPED with the reason, in the state and the commit; a crash
// before the commit replays the same rows.
func TestTruncatedGzip(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	w.addFile(t, 5)
	w.putTruncatedGzip(t, "in/trunc.json.gz", 2000, 574)
	w.addFile(t, 5)
	w.discover(t)

	for run := 0; run < 2; run++ {
		_, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil)
		if !errors.Is(err, ErrCorruptFile) || !strings.Contains(err.Error(), "in/trunc.json.gz") ||
			!strings.Contains(err.Error(), "unexpected EOF") || !strings.Contains(err.Error(), "ignoreCorruptFiles") {
			t.Fatalf("run %d: err %v, want ErrCorruptFile naming the file, the reason and the option", run, err)
		}
		if files := tableFiles(t, w.table); len(files) != 0 {
			t.Fatalf("run %d: the failed batch left data files %v", run, files)
		}
		if len(tableIDs(t, w.table)) != 0 {
			t.Fatalf("run %d: the failed batch committed rows", run)
		}
		if e, _ := w.st.Get(ctx, "stream-1", "in/trunc.json.gz"); e.State != state.Claimed {
			t.Fatalf("run %d: state %s, want CLAIMED (the plan is replayed)", run, e.State)
		}
	}

	crashed := false
	w.engineHook = func(e *Engine) {
		e.Config.Reader.IgnoreCorruptFiles = true
		e.fault = func(s Step, _ int64) error {
			if s == StepWritten && !crashed {
				crashed = true
				return errCrash
			}
			return nil
		}
	}
	if _, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil); !errors.Is(err, errCrash) {
		t.Fatalf("want the injected crash, got %v", err)
	}
	sum, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Batches) != 1 || sum.Batches[0].NumSkippedFiles != 1 || sum.Rows() != 584 {
		t.Fatalf("batches %+v: want one batch of 584 rows with one skipped file", sum.Batches)
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
	e, err := w.st.Get(ctx, "stream-1", "in/trunc.json.gz")
	if err != nil || e.State != state.Skipped || !strings.Contains(e.Error, "unexpected EOF") || !strings.Contains(e.Error, "574 rows") {
		t.Fatalf("state %+v %v: want SKIPPED with the reason and the rows kept", e, err)
	}
	cis := commitInfos(t, w.table)
	last := cis[len(cis)-1]
	if fmt.Sprint(last.Extra["skippedFiles"]) != "[in/trunc.json.gz]" || !strings.Contains(fmt.Sprint(last.Extra["skippedFileReasons"]), "574 rows") {
		t.Fatalf("commitInfo %+v: want the skipped file and its reason", last.Extra)
	}
}

// flakySource cuts the bodies of one file: cut(n) is where the n-th read
// of it (from 1) stops with io.ErrUnexpectedEOF, -1 for a whole read.
type flakySource struct {
	objstore.Store
	key   string
	cut   func(n int) int64
	mu    sync.Mutex
	reads int
}

func (f *flakySource) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	rc, err := f.Store.Get(ctx, key)
	if err != nil || key != f.key {
		return rc, err
	}
	f.mu.Lock()
	f.reads++
	n := f.cut(f.reads)
	f.mu.Unlock()
	if n < 0 {
		return rc, nil
	}
	return &cutBody{r: io.LimitReader(rc, n), c: rc}, nil
}

type cutBody struct {
	r io.Reader
	c io.Closer
}

func (b *cutBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF // the connection was cut
	}
	return n, err
}

func (b *cutBody) Close() error { return b.c.Close() }

// TestTransientReadFailures: a read cut once is read again and the batch
// commits everything, whatever ignoreCorruptFiles says; reads cut at a
// different point every time fail the batch (a storage problem: the file
// is not skipped, the next run tries again).
func TestTransientReadFailures(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprint("ignoreCorruptFiles=", ignore), func(t *testing.T) {
			ctx := context.Background()
			w := newWorld()
			w.addFile(t, 50)
			w.addFile(t, 50)
			w.discover(t)
			flaky := &flakySource{Store: w.src, key: "in/part 001.json", cut: func(n int) int64 {
				if n == 1 {
					return 1000
				}
				return -1
			}}
			w.engineHook = func(e *Engine) { e.Source = flaky; e.Config.Reader.IgnoreCorruptFiles = ignore }
			sum, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil)
			if err != nil || sum.Batches[0].NumSkippedFiles != 0 {
				t.Fatalf("err %v, batches %+v: want everything committed", err, sum.Batches)
			}
			checkExactlyOnce(t, tableIDs(t, w.table), w.rows)

			// In schema inference and in the write step (user schema); in
			// one pass, the provisional schema's read of the file's prefix
			// fails first (a trial: not read again), then two passes run.
			for _, user := range []bool{false, true} {
				for _, twoPass := range []bool{false, true} {
					if user && !twoPass {
						continue // no inference
					}
					w2 := newWorld()
					w2.addFile(t, 50)
					w2.addFile(t, 50)
					w2.discover(t)
					moving := &flakySource{Store: w2.src, key: "in/part 001.json", cut: func(n int) int64 { return int64(500 * n) }}
					w2.engineHook = func(e *Engine) {
						e.Source = moving
						e.Config.Reader.IgnoreCorruptFiles = ignore
						if user {
							e.Config.Schema.User = mustSchema(t, "id BIGINT, name STRING")
						}
						e.twoPass = twoPass
					}
					_, err = w2.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil)
					if !errors.Is(err, ErrUnstableRead) || !strings.Contains(err.Error(), "in/part 001.json") {
						t.Fatalf("user schema %v: err %v, want ErrUnstableRead naming the file", user, err)
					}
					if want := convert.MaxFileReads + map[bool]int{false: 1}[twoPass || user]; moving.reads != want {
						t.Fatalf("user schema %v two passes %v: %d reads, want %d", user, twoPass, moving.reads, want)
					}
					if len(tableFiles(t, w2.table)) != 0 {
						t.Fatalf("user schema %v: the failed batch left data files", user)
					}
				}
			}
		})
	}
}

// TestMissingFile: a file deleted after its discovery fails the batch by
// default (naming it) and is skipped with ignoreMissingFiles=true.
func TestMissingFile(t *testing.T) {
	for _, ignore := range []bool{false, true} {
		t.Run(fmt.Sprint("ignoreMissingFiles=", ignore), func(t *testing.T) {
			ctx := context.Background()
			w := newWorld()
			w.addFile(t, 4)
			if err := w.src.Put(ctx, "in/gone.json", strings.NewReader(`{"id": 999}`+"\n")); err != nil {
				t.Fatal(err)
			}
			w.addFile(t, 4)
			w.discover(t)
			// Inference has read it: it goes between inference and the write.
			e := w.engine(t, Limits{MaxFiles: 1000})
			e.Config.Schema.User = mustSchema(t, "id BIGINT, name STRING")
			e.Config.Reader.IgnoreMissingFiles = ignore
			if err := w.src.Delete(ctx, "in/gone.json"); err != nil {
				t.Fatal(err)
			}
			sum, err := e.RunAvailableNow(ctx, nil)
			if !ignore {
				if !errors.Is(err, ErrMissingFile) || !strings.Contains(err.Error(), "in/gone.json") || !strings.Contains(err.Error(), "ignoreMissingFiles") {
					t.Fatalf("err %v, want ErrMissingFile naming the file and the option", err)
				}
				if len(tableFiles(t, w.table)) != 0 || len(tableIDs(t, w.table)) != 0 {
					t.Fatal("the failed batch left data")
				}
				return
			}
			if err != nil || len(sum.Batches) != 1 || sum.Batches[0].NumSkippedFiles != 1 {
				t.Fatalf("err %v batches %+v", err, sum.Batches)
			}
			checkExactlyOnce(t, tableIDs(t, w.table), w.rows)
			if en, _ := w.st.Get(ctx, "stream-1", "in/gone.json"); en.State != state.Skipped || !strings.Contains(en.Error, "deleted") {
				t.Fatalf("state %+v", en)
			}
		})
	}
}

// TestFailFastFailsTheBatch: mode FAILFAST makes a malformed record fail
// the batch (not a skippable corrupt file), committing nothing.
func TestFailFastFailsTheBatch(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	w.addFile(t, 3)
	if err := w.src.Put(ctx, "in/bad.json", strings.NewReader(`{"id": 100}`+"\n"+`{"id":`+"\n")); err != nil {
		t.Fatal(err)
	}
	w.discover(t)
	w.engineHook = func(e *Engine) {
		e.Config.Reader.Mode = formats.FailFast
		e.Config.Reader.IgnoreCorruptFiles = true
		e.Config.Schema.User = mustSchema(t, "id BIGINT")
	}
	_, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil)
	if !errors.Is(err, formats.ErrMalformedRecord) || !strings.Contains(err.Error(), "bad.json line 2") {
		t.Fatalf("err %v, want the malformed record named", err)
	}
	if len(tableFiles(t, w.table)) != 0 {
		t.Fatal("the failed batch left data files")
	}
}

// TestBadRecordsPath: bad records and bad files are written under
// badRecordsPath/<time>/bad_records|bad_files/ as JSON lines, the load
// goes on, and a replayed batch rewrites the same objects.
func TestBadRecordsPath(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	w.addFile(t, 3)
	if err := w.src.Put(ctx, "in/mixed.json", strings.NewReader(`{"id": 3}`+"\n"+`{"id": "three"}`+"\n"+`{"id":`+"\n")); err != nil {
		t.Fatal(err)
	}
	w.rows++ // id 3
	w.putTruncatedGzip(t, "in/trunc.json.gz", 300, 120)
	if err := w.src.Put(ctx, "in/gone.json", strings.NewReader(`{"id": 999}`+"\n")); err != nil {
		t.Fatal(err)
	}
	w.discover(t)
	if err := w.src.Delete(ctx, "in/gone.json"); err != nil {
		t.Fatal(err)
	}
	bad := memstore.New()
	crashes := 0
	w.engineHook = func(e *Engine) {
		e.Config.Reader.BadRecordsPath = "bad"
		e.Config.Reader.Mode = formats.FailFast // badRecordsPath wins: the load goes on
		e.Config.Schema.User = mustSchema(t, "id BIGINT, name STRING")
		e.Config.Schema.NoRescue = true
		e.BadRecords = bad
		e.fault = func(s Step, _ int64) error {
			if s == StepWritten && crashes == 0 {
				crashes++
				return errCrash
			}
			return nil
		}
	}
	if _, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil); !errors.Is(err, errCrash) {
		t.Fatalf("want the injected crash, got %v", err)
	}
	sum, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Batches) != 1 || sum.Batches[0].NumSkippedFiles != 2 {
		t.Fatalf("batches %+v: want one batch skipping the truncated and the deleted file", sum.Batches)
	}
	checkExactlyOnce(t, tableIDs(t, w.table), w.rows)

	var keys []string
	for info, err := range bad.List(ctx, objstore.ListOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, info.Key)
	}
	if len(keys) != 2 || !regexp.MustCompile(`^\d{8}T\d{6}/bad_files/batch-0\.json$`).MatchString(keys[0]) ||
		!regexp.MustCompile(`^\d{8}T\d{6}/bad_records/batch-0\.json$`).MatchString(keys[1]) {
		t.Fatalf("badRecordsPath holds %v, want one bad_files and one bad_records file of batch 0", keys)
	}
	read := func(key string) []map[string]string {
		rc, err := bad.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		defer rc.Close()
		var out []map[string]string
		dec := json.NewDecoder(rc)
		for dec.More() {
			var m map[string]string
			if err := dec.Decode(&m); err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
		return out
	}
	files := read(keys[0]) // in plan order
	if len(files) != 2 || files[0]["path"] != "in/gone.json" || !strings.Contains(files[0]["reason"], "deleted") ||
		files[1]["path"] != "in/trunc.json.gz" || !strings.Contains(files[1]["reason"], "120 rows") {
		t.Fatalf("bad_files %v", files)
	}
	recs := read(keys[1])
	if len(recs) != 2 || recs[0]["path"] != "in/mixed.json" || recs[0]["record"] != `{"id": "three"}` || !strings.Contains(recs[0]["reason"], "BIGINT") ||
		recs[1]["record"] != `{"id":` || !strings.Contains(recs[1]["reason"], "malformed") {
		t.Fatalf("bad_records %v", recs)
	}
}

func mustSchema(t *testing.T, ddl string) *schema.StructType {
	t.Helper()
	h, err := schema.ParseDDL(ddl)
	if err != nil {
		t.Fatal(err)
	}
	return schema.ApplyHints(&schema.StructType{}, h)
}
