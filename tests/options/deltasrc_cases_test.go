package options_test

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go/format"
	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/history"
	"github.com/tributary-io/tributary/core/delta/scan"
	"github.com/tributary-io/tributary/core/deltasource"
	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/infra/localfs"
	"github.com/tributary-io/tributary/infra/streams"
)

// silver is a bronze -> silver pair: the bronze table is written by a
// file stream (bronze), the silver table by a Delta-source stream reading
// the bronze table, both through infra/streams as `tributary run` does.
type silver struct {
	t      *testing.T
	bronze *pipe
	out    *pipe // the silver table (rows, column)
	cp     string
}

func newSilver(t *testing.T) *silver {
	b := newPipe(t)
	out := &pipe{t: t, root: b.root, table: filepath.Join(b.root, "silver"), id: "silver"}
	return &silver{t: t, bronze: b, out: out, cp: filepath.Join(b.root, "silver", "_checkpoints")}
}

// add appends one JSON file of rows {"id": n} to bronze: one bronze commit.
func (s *silver) add(ids ...int) {
	s.t.Helper()
	s.addWith(nil, ids...)
}

// addWith is add with the bronze stream's options opts.
func (s *silver) addWith(opts map[string]string, ids ...int) {
	s.t.Helper()
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "{\"id\": %d}\n", id)
	}
	s.bronze.write(fmt.Sprintf("f%d.json", ids[0]), b.String())
	s.bronze.mustRun(opts)
}

// run runs the silver stream once (availableNow) with opts.
func (s *silver) run(opts map[string]string) (ingest.Summary, error) {
	s.t.Helper()
	return s.runN(opts, -1)
}

// runN is run stopping after n batches (n < 0: no limit).
func (s *silver) runN(opts map[string]string, n int) (ingest.Summary, error) {
	s.t.Helper()
	st, err := options.Parse(opts, options.Locations{
		StreamID: "silver", Source: s.bronze.table, Table: s.out.table,
		CheckpointLocation: s.cp, SourceFormat: "delta",
	})
	if err != nil {
		return ingest.Summary{}, err
	}
	env := streams.Env{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), TempDir: s.t.TempDir()}
	str, err := env.Open(s.t.Context(), st)
	if err != nil {
		return ingest.Summary{}, err
	}
	defer str.Close()
	var keepGoing func() bool
	if n >= 0 {
		keepGoing = func() bool { n--; return n >= 0 }
	}
	return str.Engine.RunAvailableNow(s.t.Context(), keepGoing)
}

func (s *silver) mustRun(opts map[string]string) ingest.Summary {
	s.t.Helper()
	sum, err := s.run(opts)
	if err != nil {
		s.t.Fatalf("silver run %v: %v", opts, err)
	}
	return sum
}

// ids returns the silver table's id column, sorted.
func (s *silver) ids() []string { return s.out.column("id") }

// bronzeTable opens the bronze table.
func (s *silver) bronzeTable() *delta.Table {
	st, err := localfs.New(s.bronze.table)
	if err != nil {
		s.t.Fatal(err)
	}
	return delta.NewTable(st)
}

// fileOf returns the bronze add holding id (first row).
func (s *silver) fileOf(id int) *delta.Add {
	s.t.Helper()
	snap := s.bronze.snapshot()
	for a := range snap.Files() {
		rows, err := scan.ReadAdd(s.t.Context(), snap, a)
		if err != nil {
			s.t.Fatal(err)
		}
		for _, r := range rows {
			if fmtValue(r[0]) == fmt.Sprint(id) {
				return a
			}
		}
	}
	s.t.Fatalf("no bronze file holds id %d", id)
	return nil
}

// deleteFile commits a DELETE of the file holding id (a remove with
// dataChange=true, as a DELETE removing whole files writes).
func (s *silver) deleteFile(id int) {
	s.t.Helper()
	a := s.fileOf(id)
	s.commit(delta.Action{Remove: &delta.Remove{Path: a.Path, DeletionTimestamp: time.Now().UnixMilli(), DataChange: true, Size: a.Size}})
}

// rewriteFile commits an UPDATE-like rewrite of the file holding id: the
// file is removed and a copy of it added (dataChange=true both).
func (s *silver) rewriteFile(id int) {
	s.t.Helper()
	a := s.fileOf(id)
	key, _ := delta.ObjectKey(a.Path)
	data, err := os.ReadFile(filepath.Join(s.bronze.table, key))
	if err != nil {
		s.t.Fatal(err)
	}
	nk := "rewritten-" + filepath.Base(key)
	if err := os.WriteFile(filepath.Join(s.bronze.table, nk), data, 0o644); err != nil {
		s.t.Fatal(err)
	}
	na := *a
	na.Path, na.ModificationTime = nk, time.Now().UnixMilli()
	s.commit(delta.Action{Remove: &delta.Remove{Path: a.Path, DeletionTimestamp: time.Now().UnixMilli(), DataChange: true, Size: a.Size}}, delta.Action{Add: &na})
}

func (s *silver) commit(acts ...delta.Action) {
	s.t.Helper()
	snap := s.bronze.snapshot()
	acts = append(acts, delta.Action{CommitInfo: &delta.CommitInfo{Timestamp: time.Now().UnixMilli(), Operation: "DELETE"}})
	if _, err := s.bronzeTable().CommitSnapshot(s.t.Context(), snap, acts); err != nil {
		s.t.Fatal(err)
	}
}

func wantIDs(t *testing.T, what string, got []string, want ...int) {
	t.Helper()
	w := make([]string, len(want))
	for i, n := range want {
		w[i] = fmt.Sprint(n)
	}
	slices.Sort(w)
	if !slices.Equal(got, w) {
		t.Errorf("%s: silver ids %v, want %v", what, got, w)
	}
}

// deltasrcCases are the behavioural cases of the deltasrc area's options.
func deltasrcCases() []optionCase {
	return []optionCase{
		{name: "startingVersion: a version or latest, else the full snapshot", options: []string{"startingVersion"}, run: func(t *testing.T) {
			for _, c := range []struct {
				start      string
				now, later []int
			}{
				{"", []int{1, 2, 3}, []int{1, 2, 3, 4}},
				{"1", []int{2, 3}, []int{2, 3, 4}},
				{"latest", nil, []int{4}},
			} {
				s := newSilver(t)
				s.add(1)
				s.add(2)
				s.add(3) // bronze versions 0, 1, 2
				opts := map[string]string{}
				if c.start != "" {
					opts["startingVersion"] = c.start
				}
				s.mustRun(opts)
				wantIDs(t, "startingVersion="+c.start, s.ids(), c.now...)
				s.add(4)
				s.mustRun(opts)
				wantIDs(t, "startingVersion="+c.start+" then an append", s.ids(), c.later...)
			}
			s := newSilver(t)
			s.add(1)
			if _, err := s.run(map[string]string{"startingVersion": "7"}); !errors.Is(err, deltasource.ErrStartingVersion) {
				t.Errorf("startingVersion past the table: %v, want ErrStartingVersion", err)
			}
		}},
		{name: "startingTimestamp: first commit at or after it; a date", options: []string{"startingTimestamp"}, run: func(t *testing.T) {
			s := newSilver(t)
			s.add(1)
			time.Sleep(20 * time.Millisecond) // distinct commit timestamps
			s.add(2)
			time.Sleep(20 * time.Millisecond)
			s.add(3)
			hist, err := history.Read(t.Context(), s.bronzeTable(), 0)
			if err != nil {
				t.Fatal(err)
			}
			var ts1 time.Time
			for _, h := range hist {
				if h.Version == 1 {
					ts1 = h.Timestamp
				}
			}
			s.mustRun(map[string]string{"startingTimestamp": ts1.UTC().Format("2006-01-02T15:04:05.000Z")})
			wantIDs(t, "startingTimestamp=version 1's time", s.ids(), 2, 3)

			f := newSilver(t)
			f.add(1)
			f.mustRun(map[string]string{"startingTimestamp": "2999-01-01"})
			wantIDs(t, "startingTimestamp after every commit", f.ids())
			f.add(2)
			f.mustRun(map[string]string{"startingTimestamp": "2999-01-01"})
			wantIDs(t, "startingTimestamp after every commit, then an append", f.ids(), 2)

			e := newSilver(t)
			e.add(1)
			e.add(2)
			e.mustRun(map[string]string{"startingTimestamp": "2000-01-01"})
			wantIDs(t, "startingTimestamp before every commit", e.ids(), 1, 2)
			if _, err := e.run(map[string]string{"startingTimestamp": "2000-01-01", "startingVersion": "0"}); err == nil {
				t.Error("startingVersion with startingTimestamp: no error")
			}
		}},
		{name: "a DELETE fails the stream; skipChangeCommits skips it, also over ignoreChanges", options: []string{"skipChangeCommits"}, run: func(t *testing.T) {
			s := newSilver(t)
			s.add(1)
			s.add(2)
			s.mustRun(nil)
			s.deleteFile(1)
			s.add(3)
			_, err := s.run(nil)
			if !errors.Is(err, deltasource.ErrChangeCommit) || !strings.Contains(err.Error(), "DELTA_SOURCE_IGNORE_DELETE") || !strings.Contains(err.Error(), "version 2") {
				t.Fatalf("DELETE by default: %v, want DELTA_SOURCE_IGNORE_DELETE at version 2", err)
			}
			wantIDs(t, "after the failure", s.ids(), 1, 2)
			s.mustRun(map[string]string{"skipChangeCommits": "true"})
			wantIDs(t, "skipChangeCommits", s.ids(), 1, 2, 3)
			s.rewriteFile(2)
			s.add(4)
			s.mustRun(map[string]string{"skipChangeCommits": "true"})
			wantIDs(t, "skipChangeCommits over an UPDATE", s.ids(), 1, 2, 3, 4)
			// It wins over ignoreChanges: the rewritten file is not re-emitted.
			s.rewriteFile(3)
			s.add(5)
			s.mustRun(map[string]string{"skipChangeCommits": "true", "ignoreChanges": "true"})
			wantIDs(t, "skipChangeCommits with ignoreChanges", s.ids(), 1, 2, 3, 4, 5)
		}},
		{name: "ignoreDeletes accepts file deletes, not rewrites", options: []string{"ignoreDeletes"}, run: func(t *testing.T) {
			s := newSilver(t)
			s.add(1)
			s.add(2)
			s.mustRun(nil)
			s.deleteFile(1)
			s.add(3)
			s.mustRun(map[string]string{"ignoreDeletes": "true"})
			wantIDs(t, "ignoreDeletes", s.ids(), 1, 2, 3)
			s.rewriteFile(2)
			_, err := s.run(map[string]string{"ignoreDeletes": "true"})
			if !errors.Is(err, deltasource.ErrChangeCommit) || !strings.Contains(err.Error(), "DELTA_SOURCE_TABLE_IGNORE_CHANGES") {
				t.Fatalf("a rewrite under ignoreDeletes: %v, want DELTA_SOURCE_TABLE_IGNORE_CHANGES", err)
			}
		}},
		{name: "ignoreChanges re-emits rewritten files and wins over ignoreDeletes", options: []string{"ignoreChanges"}, run: func(t *testing.T) {
			s := newSilver(t)
			s.add(1)
			s.add(2)
			s.mustRun(nil)
			s.rewriteFile(2)
			s.deleteFile(1)
			s.add(3)
			s.mustRun(map[string]string{"ignoreChanges": "true", "ignoreDeletes": "true"})
			wantIDs(t, "ignoreChanges", s.ids(), 1, 2, 2, 3)
		}},
		{name: "maxFilesPerTrigger bounds a batch; backlog metrics", options: []string{"maxFilesPerTrigger"}, run: func(t *testing.T) {
			for _, c := range []struct {
				max     string
				batches int
			}{{"", 1}, {"2", 3}} {
				s := newSilver(t)
				for i := 1; i <= 5; i++ {
					s.add(i)
				}
				opts := map[string]string{}
				if c.max != "" {
					opts["maxFilesPerTrigger"] = c.max
				}
				sum := s.mustRun(opts)
				if len(sum.Batches) != c.batches {
					t.Fatalf("maxFilesPerTrigger=%q: %d batches, want %d", c.max, len(sum.Batches), c.batches)
				}
				wantIDs(t, "maxFilesPerTrigger="+c.max, s.ids(), 1, 2, 3, 4, 5)
				b0 := sum.Batches[0]
				if c.max == "2" && (b0.NumInputFiles != 2 || b0.NumFilesOutstanding != 3 || b0.NumBytesOutstanding <= 0 ||
					b0.BacklogEndOffset == nil || *b0.BacklogEndOffset != 4 || b0.NumNewListedFiles == nil || *b0.NumNewListedFiles < 5) {
					t.Errorf("first batch: %d files, outstanding %d files %d bytes, backlogEndOffset %v, numNewListedFiles %v; want 2, 3, >0, 4, >=5",
						b0.NumInputFiles, b0.NumFilesOutstanding, b0.NumBytesOutstanding, b0.BacklogEndOffset, b0.NumNewListedFiles)
				}
			}
		}},
		{name: "maxBytesPerTrigger is a soft byte bound", options: []string{"maxBytesPerTrigger"}, run: func(t *testing.T) {
			s := newSilver(t)
			for i := 1; i <= 3; i++ {
				s.add(i)
			}
			sum := s.mustRun(map[string]string{"maxBytesPerTrigger": "1b"})
			if len(sum.Batches) != 3 {
				t.Fatalf("maxBytesPerTrigger=1b: %d batches, want one per file (3)", len(sum.Batches))
			}
			wantIDs(t, "maxBytesPerTrigger", s.ids(), 1, 2, 3)
		}},
		{name: "failOnDataLoss: a vacuumed source file fails the stream unless false", options: []string{"failOnDataLoss"}, run: func(t *testing.T) {
			s := newSilver(t)
			s.add(1)
			s.mustRun(nil)
			s.add(2)
			s.add(3)
			key, _ := delta.ObjectKey(s.fileOf(2).Path)
			if err := os.Remove(filepath.Join(s.bronze.table, key)); err != nil {
				t.Fatal(err)
			}
			_, err := s.run(nil)
			if !errors.Is(err, deltasource.ErrDataLoss) || !strings.Contains(err.Error(), "DELTA_FILE_NOT_FOUND_DETAILED") {
				t.Fatalf("a missing data file: %v, want DELTA_FILE_NOT_FOUND_DETAILED", err)
			}
			wantIDs(t, "after the failure", s.ids(), 1)
			s.mustRun(map[string]string{"failOnDataLoss": "false"})
			wantIDs(t, "failOnDataLoss=false", s.ids(), 1, 3)
		}},
		{name: "failOnDataLoss: a source log entry gone (log cleanup) fails the stream unless false, which skips that version's data", options: []string{"failOnDataLoss"}, run: func(t *testing.T) {
			s := newSilver(t)
			bronze := func(id int) { s.addWith(map[string]string{"delta.checkpointInterval": "2"}, id) }
			bronze(1) // version 0
			s.mustRun(nil)
			bronze(2) // version 1
			bronze(3) // version 2, checkpointed
			bronze(4) // version 3
			if err := os.Remove(filepath.Join(s.bronze.table, filepath.FromSlash(delta.CommitKey(1)))); err != nil {
				t.Fatal(err)
			}
			_, err := s.run(nil)
			if !errors.Is(err, deltasource.ErrDataLoss) || !strings.Contains(err.Error(), "DELTA_FILE_NOT_FOUND_DETAILED") {
				t.Fatalf("a missing log entry: %v, want DELTA_FILE_NOT_FOUND_DETAILED", err)
			}
			wantIDs(t, "after the failure", s.ids(), 1)
			s.mustRun(map[string]string{"failOnDataLoss": "false"})
			wantIDs(t, "failOnDataLoss=false", s.ids(), 1, 3, 4)
		}},
		{name: "failOnDataLoss: the initial snapshot's version gone from the log mid-snapshot fails the stream unless false, which continues with the commits after it", options: []string{"failOnDataLoss"}, run: func(t *testing.T) {
			s := newSilver(t)
			bronze := func(id int) { s.addWith(map[string]string{"delta.checkpointInterval": "2"}, id) }
			bronze(1) // version 0
			bronze(2) // version 1
			bronze(3) // version 2, checkpointed
			// The initial snapshot of version 2, one file a batch: one batch.
			if sum, err := s.runN(map[string]string{"maxFilesPerTrigger": "1"}, 1); err != nil || len(sum.Batches) != 1 {
				t.Fatalf("first batch: %+v %v", sum.Batches, err)
			}
			first := s.ids()
			bronze(4) // version 3
			bronze(5) // version 4, checkpointed
			for _, key := range []string{delta.CommitKey(0), delta.CommitKey(1), delta.CommitKey(2), delta.CheckpointKey(2)} {
				if err := os.Remove(filepath.Join(s.bronze.table, filepath.FromSlash(key))); err != nil {
					t.Fatal(err)
				}
			}
			_, err := s.run(map[string]string{"maxFilesPerTrigger": "1"})
			if !errors.Is(err, deltasource.ErrDataLoss) || !strings.Contains(err.Error(), "DELTA_FILE_NOT_FOUND_DETAILED") {
				t.Fatalf("the initial snapshot gone: %v, want DELTA_FILE_NOT_FOUND_DETAILED", err)
			}
			if got := s.ids(); !slices.Equal(got, first) {
				t.Errorf("after the failure: ids %v, want %v", got, first)
			}
			s.mustRun(map[string]string{"maxFilesPerTrigger": "1", "failOnDataLoss": "false"})
			want := slices.Sorted(slices.Values(append(slices.Clone(first), "4", "5")))
			if got := s.ids(); !slices.Equal(got, want) {
				t.Errorf("failOnDataLoss=false: ids %v, want %v (the rest of the snapshot skipped)", got, want)
			}
		}},
		{name: "sink options on a Delta-source stream: txnAppId names the sink's txn, trigger once takes one batch ignoring maxFilesPerTrigger, parquet.compression.codec compresses the sink's files", options: []string{"txnAppId", "trigger", "parquet.compression.codec"}, run: func(t *testing.T) {
			s := newSilver(t)
			s.add(1)
			s.add(2)
			s.add(3)
			sum := s.mustRun(map[string]string{"txnAppId": "silver-app", "trigger": "once", "maxFilesPerTrigger": "1", "parquet.compression.codec": "zstd"})
			if len(sum.Batches) != 1 || sum.Batches[0].NumInputFiles != 3 {
				t.Errorf("trigger once: %d batches (first of %v files), want one batch of the 3 files", len(sum.Batches), func() any {
					if len(sum.Batches) > 0 {
						return sum.Batches[0].NumInputFiles
					}
					return nil
				}())
			}
			wantIDs(t, "trigger once", s.ids(), 1, 2, 3)
			snap := s.out.snapshot()
			if v, ok := snap.TxnVersion("silver-app"); !ok || v != 0 {
				t.Errorf("txnAppId: txn for silver-app = %d %v, want batch 0", v, ok)
			}
			if _, ok := snap.TxnVersion("silver"); ok {
				t.Errorf("txnAppId: the sink also holds a txn for the stream id")
			}
			if got := codecsOf(t, s.out); len(got) != 1 || got[format.Zstd] == 0 {
				t.Errorf("parquet.compression.codec=zstd: sink column chunk codecs %v", got)
			}
			// The checkpoint belongs to that txnAppId: another one is refused
			// (its batches would not be idempotent against the first's).
			s.add(4)
			if _, err := s.run(map[string]string{"txnAppId": "other"}); !errors.Is(err, ingest.ErrFullRefreshNeeded) || !strings.Contains(err.Error(), "txnAppId") {
				t.Errorf("a changed txnAppId: %v, want a full refresh needed naming txnAppId", err)
			}
			wantIDs(t, "after the refused txnAppId", s.ids(), 1, 2, 3)
			// Without once, maxFilesPerTrigger bounds the batches.
			d := newSilver(t)
			d.add(1)
			d.add(2)
			if sum := d.mustRun(map[string]string{"maxFilesPerTrigger": "1"}); len(sum.Batches) != 2 {
				t.Errorf("default trigger: %d batches, want 2", len(sum.Batches))
			}
			if got := codecsOf(t, d.out); len(got) != 1 || got[format.Snappy] == 0 {
				t.Errorf("default codec: sink column chunk codecs %v, want snappy", got)
			}
		}},
		{name: "mergeSchema=false on a Delta-source stream: a source column the sink lacks fails the batch, nothing committed; by default the sink evolves", options: []string{"mergeSchema"}, run: func(t *testing.T) {
			for _, merge := range []bool{false, true} {
				s := newSilver(t)
				s.add(1)
				s.mustRun(nil)
				s.bronze.write("x.json", `{"id": 2, "x": "new"}`+"\n")
				s.bronze.run(nil) // addNewColumns stops once
				s.bronze.mustRun(nil)
				opts := map[string]string{}
				if !merge {
					opts["mergeSchema"] = "false"
				}
				_, err := s.run(opts)
				if !merge {
					if err == nil || !strings.Contains(err.Error(), "mergeSchema=false") || !strings.Contains(err.Error(), "x") {
						t.Errorf("mergeSchema=false: %v, want the batch failed naming mergeSchema", err)
					}
					wantIDs(t, "mergeSchema=false", s.ids(), 1)
					if got := s.out.schema(); slices.Contains(got, "x STRING") {
						t.Errorf("mergeSchema=false: sink schema %v gained x", got)
					}
					continue
				}
				if err != nil {
					t.Fatalf("default mergeSchema: %v", err)
				}
				wantIDs(t, "default mergeSchema", s.ids(), 1, 2)
				if got := s.out.schema(); !slices.Contains(got, "x STRING") {
					t.Errorf("default mergeSchema: sink schema %v, want x added", got)
				}
			}
		}},
		{name: "a Delta-source stream refuses txnVersion and table properties at load time (its sink applies neither)", options: []string{"txnVersion", "delta.appendOnly", "delta.checkpointInterval"}, run: func(t *testing.T) {
			for _, opts := range []map[string]string{
				{"txnAppId": "app", "txnVersion": "7"},
				{"delta.appendOnly": "true"},
				{"delta.checkpointInterval": "2"},
			} {
				s := newSilver(t)
				s.add(1)
				_, err := s.run(opts)
				for name := range opts {
					if name == "txnAppId" {
						continue
					}
					if !errors.Is(err, options.ErrUnsupportedOption) || !strings.Contains(err.Error(), "option "+name+": not supported yet") {
						t.Errorf("%v on a Delta-source stream: %v, want refused naming %s", opts, err, name)
					}
				}
				if snap := s.out.snapshot(); snap != nil {
					t.Errorf("%v: the refused run created the sink table (version %d)", opts, snap.Version)
				}
			}
			// The file stream writing bronze honours them.
			s := newSilver(t)
			s.bronze.write("f2.json", `{"id": 2}`+"\n")
			s.bronze.mustRun(map[string]string{"delta.appendOnly": "true"})
			if ao, err := s.bronze.snapshot().AppendOnly(); !ao || err != nil {
				t.Errorf("file stream: delta.appendOnly not set (%v)", err)
			}
		}},
	}
}
