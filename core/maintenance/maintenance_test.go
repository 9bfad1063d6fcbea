package maintenance

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
)

func TestOptimize(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name        string
		partitioned bool
		files       []string // partition of each appended file ("" unpartitioned)
		opts        OptimizeOptions
		wantRemoved int
		wantAdded   int
		wantFiles   int // active files after
	}{
		{name: "unpartitioned", files: []string{"", "", "", ""}, wantRemoved: 4, wantAdded: 1, wantFiles: 1},
		{name: "per partition", partitioned: true, files: []string{"a", "b", "a", "b", "a", "c"}, wantRemoved: 5, wantAdded: 2, wantFiles: 3},
		{name: "one partition only", partitioned: true, files: []string{"a", "b", "a", "b"},
			opts: OptimizeOptions{Partition: map[string]string{"p": "a"}}, wantRemoved: 2, wantAdded: 1, wantFiles: 3},
		{name: "target bounds bins", files: []string{"", "", "", ""},
			opts: OptimizeOptions{TargetSize: 1}, wantRemoved: 0, wantAdded: 0, wantFiles: 4},
		{name: "single file untouched", files: []string{""}, wantRemoved: 0, wantAdded: 0, wantFiles: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tbl, _ := newTable(t, tc.partitioned, nil)
			for i, p := range tc.files {
				appendFile(t, tbl, p, i*100, 50)
			}
			before := tableRows(t, tbl)
			v0, _ := tbl.LatestVersion(ctx)
			res, err := Optimize(ctx, tbl, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.FilesRemoved != tc.wantRemoved || res.FilesAdded != tc.wantAdded {
				t.Fatalf("removed %d added %d, want %d and %d", res.FilesRemoved, res.FilesAdded, tc.wantRemoved, tc.wantAdded)
			}
			snap, err := tbl.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if snap.NumFiles() != tc.wantFiles {
				t.Fatalf("%d files after, want %d", snap.NumFiles(), tc.wantFiles)
			}
			if got := tableRows(t, tbl); !slices.Equal(got, before) {
				t.Fatalf("rows changed:\n%v\n%v", got, before)
			}
			if tc.wantAdded == 0 {
				if res.Version != -1 || snap.Version != v0 {
					t.Fatalf("committed version %d (table at %d, was %d) with nothing to compact", res.Version, snap.Version, v0)
				}
				return
			}
			acts, err := tbl.ReadCommit(ctx, res.Version)
			if err != nil {
				t.Fatal(err)
			}
			removes, adds := 0, 0
			for _, a := range acts {
				switch {
				case a.CommitInfo != nil:
					if a.CommitInfo.Operation != "OPTIMIZE" {
						t.Errorf("operation %q", a.CommitInfo.Operation)
					}
				case a.Add != nil:
					adds++
					if a.Add.DataChange || !strings.Contains(a.Add.Stats, `"numRecords"`) {
						t.Errorf("add %+v: want dataChange=false and stats", a.Add)
					}
				case a.Remove != nil:
					removes++
					if a.Remove.DataChange {
						t.Errorf("remove %s has dataChange=true", a.Remove.Path)
					}
				}
			}
			if removes != tc.wantRemoved || adds != tc.wantAdded {
				t.Fatalf("commit has %d removes and %d adds", removes, adds)
			}
			// New files land in their partition's folder.
			for a := range snap.Files() {
				if tc.partitioned && !strings.HasPrefix(a.Path, "p="+*a.PartitionValues["p"]+"/") {
					t.Errorf("file %s outside its partition %s", a.Path, *a.PartitionValues["p"])
				}
			}
			// Optimizing again finds nothing.
			again, err := Optimize(ctx, tbl, tc.opts)
			if err != nil || again.FilesRemoved != 0 {
				t.Fatalf("second optimize: %+v %v", again, err)
			}
		})
	}
}

func TestOptimizeDryRun(t *testing.T) {
	ctx := context.Background()
	tbl, st := newTable(t, false, nil)
	appendFile(t, tbl, "", 0, 10)
	appendFile(t, tbl, "", 10, 10)
	before := keys(t, st, "")
	res, err := Optimize(ctx, tbl, OptimizeOptions{DryRun: true})
	if err != nil || res.FilesRemoved != 2 || res.Version != -1 {
		t.Fatalf("%+v %v", res, err)
	}
	if after := keys(t, st, ""); !slices.Equal(before, after) {
		t.Fatalf("dry run changed the store: %v -> %v", before, after)
	}
}

// hookStore calls onPut before each Put (once per key).
type hookStore struct {
	objstore.Store
	onPut func(key string)
	done  bool
}

func (h *hookStore) Put(ctx context.Context, key string, r io.Reader) error {
	if !h.done {
		h.done = true
		h.onPut(key)
	}
	return h.Store.Put(ctx, key, r)
}

func TestOptimizeConcurrentCommits(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		conflict func(t *testing.T, tbl *delta.Table, files []string)
		wantErr  error
	}{
		{name: "append retries", conflict: func(t *testing.T, tbl *delta.Table, _ []string) {
			appendFile(t, tbl, "", 1000, 5)
		}},
		{name: "removed file conflicts", conflict: func(t *testing.T, tbl *delta.Table, files []string) {
			snap, err := tbl.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tbl.CommitSnapshot(ctx, snap, []delta.Action{{Remove: &delta.Remove{Path: files[0], DataChange: true, DeletionTimestamp: time.Now().UnixMilli()}}}); err != nil {
				t.Fatal(err)
			}
		}, wantErr: ErrConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tbl, st := newTable(t, false, nil)
			files := []string{appendFile(t, tbl, "", 0, 10), appendFile(t, tbl, "", 10, 10), appendFile(t, tbl, "", 20, 10)}
			// The concurrent commit happens while Optimize writes its file:
			// hook the store's Put of the compacted file.
			hooked := &hookStore{Store: st, onPut: func(key string) {
				if strings.Contains(key, "part-00000-") {
					tc.conflict(t, tbl, files)
				}
			}}
			otbl := delta.NewTable(hooked)
			res, err := Optimize(ctx, otbl, OptimizeOptions{})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
				// The compacted file was removed; the table is the
				// concurrent writer's.
				for _, k := range dataKeys(t, st) {
					if strings.Contains(k, "part-00000-") {
						t.Fatalf("compacted file %s left behind", k)
					}
				}
				snap, _ := tbl.Snapshot(ctx)
				if snap.NumFiles() != 2 {
					t.Fatalf("%d files, want 2", snap.NumFiles())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Attempts != 2 {
				t.Fatalf("%d attempts, want 2 (one lost race)", res.Attempts)
			}
			snap, _ := tbl.Snapshot(ctx)
			if snap.NumFiles() != 2 { // compacted + the concurrent append
				t.Fatalf("%d files, want 2", snap.NumFiles())
			}
			if got := len(tableRows(t, tbl)); got != 35 {
				t.Fatalf("%d rows, want 35", got)
			}
		})
	}
}

func TestOptimizeRefusesColumnMapping(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	log := `{"protocol":{"minReaderVersion":2,"minWriterVersion":5}}
{"metaData":{"id":"t","format":{"provider":"parquet","options":{}},"schemaString":"{\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{\"delta.columnMapping.id\":1,\"delta.columnMapping.physicalName\":\"col-1\"}}]}","partitionColumns":[],"configuration":{"delta.columnMapping.mode":"name","delta.columnMapping.maxColumnId":"1"}}}
`
	if err := st.Put(ctx, delta.CommitKey(0), strings.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	tbl := delta.NewTable(st)
	if _, err := Optimize(ctx, tbl, OptimizeOptions{}); !errors.Is(err, ErrUnsupportedTable) {
		t.Fatalf("err %v, want ErrUnsupportedTable", err)
	}
}

func TestVacuum(t *testing.T) {
	ctx := context.Background()
	day := 24 * time.Hour
	tests := []struct {
		name      string
		clock     time.Duration // now, relative to the real clock
		retention *time.Duration
		unsafe    bool
		dryRun    bool
		conf      map[string]string
		wantGone  []string // of "removed", "orphan", "active", "hidden"
		wantErr   error
	}{
		{name: "within retention keeps everything", clock: day},
		{name: "after retention deletes removed and orphan", clock: 8 * day, wantGone: []string{"removed", "orphan"}},
		{name: "dry run deletes nothing", clock: 8 * day, dryRun: true},
		{name: "table property", clock: 2 * day, conf: map[string]string{delta.PropDeletedFileRetentionDuration: "interval 1 days"}, wantGone: []string{"removed", "orphan"}},
		{name: "shorter retention refused", clock: 2 * day, retention: ptr(time.Hour), wantErr: ErrRetentionTooShort},
		{name: "shorter retention when unsafe", clock: 2 * day, retention: ptr(time.Hour), unsafe: true, wantGone: []string{"removed", "orphan"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tbl, st := newTable(t, true, tc.conf)
			removed := appendFile(t, tbl, "a", 0, 10)
			appendFile(t, tbl, "a", 10, 10)
			// Compaction removes both files (tombstones stamped now).
			if _, err := Optimize(ctx, tbl, OptimizeOptions{}); err != nil {
				t.Fatal(err)
			}
			snap, _ := tbl.Snapshot(ctx)
			var active string
			for a := range snap.Files() {
				active = a.Path
			}
			orphan := "p=a/part-99999-orphan.parquet"
			hiddenKeys := []string{"_checkpoint/state.db", "p=a/_tmp/x.parquet", ".hidden"}
			for _, k := range append([]string{orphan}, hiddenKeys...) {
				if err := st.Put(ctx, k, bytes.NewReader([]byte("x"))); err != nil {
					t.Fatal(err)
				}
			}
			before := keys(t, st, "")
			res, err := Vacuum(ctx, tbl, VacuumOptions{Options: Options{Now: clock(tc.clock)}, Retention: tc.retention, UnsafeRetention: tc.unsafe, DryRun: tc.dryRun})
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			after := keys(t, st, "")
			gone := map[string]bool{}
			for _, k := range before {
				if !slices.Contains(after, k) {
					gone[k] = true
				}
			}
			want := map[string]bool{}
			for _, w := range tc.wantGone {
				switch w {
				case "removed":
					want[removed] = true
					want[strings.Replace(removed, "00000", "00010", 1)] = true
				case "orphan":
					want[orphan] = true
				}
			}
			if tc.dryRun {
				if len(gone) != 0 || len(res.Files) != 3 {
					t.Fatalf("dry run: gone %v, listed %v", gone, res.Files)
				}
				return
			}
			if len(gone) != len(want) {
				t.Fatalf("deleted %v, want %v", gone, want)
			}
			for k := range want {
				if !gone[k] {
					t.Fatalf("deleted %v, want %v", gone, want)
				}
			}
			if gone[active] {
				t.Fatalf("active file %s deleted", active)
			}
			for _, k := range hiddenKeys {
				if gone[k] {
					t.Fatalf("hidden %s deleted", k)
				}
			}
			if got := len(tableRows(t, tbl)); got != 20 {
				t.Fatalf("%d rows after vacuum, want 20", got)
			}
		})
	}
}

func TestCleanupLog(t *testing.T) {
	ctx := context.Background()
	day := 24 * time.Hour
	tests := []struct {
		name       string
		commits    int
		checkpoint []int // versions to checkpoint at (in order)
		clock      time.Duration
		retention  *time.Duration
		conf       map[string]string
		wantFrom   int64 // first version whose commit remains; 0 when nothing removed
	}{
		{name: "no checkpoint", commits: 12, clock: 40 * day},
		{name: "within retention", commits: 12, checkpoint: []int{10}, clock: day},
		{name: "expired up to the checkpoint", commits: 24, checkpoint: []int{10, 20}, clock: 40 * day, wantFrom: 20},
		{name: "retention option", commits: 12, checkpoint: []int{5}, clock: 2 * day, retention: ptr(day), wantFrom: 5},
		{name: "table property", commits: 12, checkpoint: []int{5}, clock: 2 * day, conf: map[string]string{delta.PropLogRetentionDuration: "interval 1 days"}, wantFrom: 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tbl, st := newTable(t, false, tc.conf)
			ck := 0
			for i := 1; i <= tc.commits; i++ {
				appendFile(t, tbl, "", i*10, 2)
				if ck < len(tc.checkpoint) && i == tc.checkpoint[ck] {
					snap, err := tbl.Snapshot(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if err := tbl.Checkpoint(ctx, snap); err != nil {
						t.Fatal(err)
					}
					ck++
				}
			}
			before := tableRows(t, tbl)
			res, err := CleanupLog(ctx, tbl, LogCleanupOptions{Options: Options{Now: clock(tc.clock)}, Retention: tc.retention})
			if err != nil {
				t.Fatal(err)
			}
			logKeys := keys(t, st, delta.LogDir)
			for v := int64(0); v <= int64(tc.commits); v++ {
				has := slices.Contains(logKeys, delta.CommitKey(v))
				if has != (v >= tc.wantFrom) {
					t.Fatalf("commit %d present=%v (want commits from %d; cleaned up to checkpoint %d): %v", v, has, tc.wantFrom, res.Checkpoint, logKeys)
				}
			}
			if got := tableRows(t, tbl); !slices.Equal(got, before) {
				t.Fatal("rows changed by log cleanup")
			}
			// Every kept version is readable.
			for v := max(tc.wantFrom, 0); v <= int64(tc.commits); v++ {
				if _, err := tbl.SnapshotAt(ctx, v); err != nil {
					t.Fatalf("version %d unreadable after cleanup: %v", v, err)
				}
			}
			if tc.wantFrom > 0 {
				if _, err := tbl.SnapshotAt(ctx, tc.wantFrom-1); err == nil {
					t.Fatalf("version %d still readable", tc.wantFrom-1)
				}
			}
		})
	}
}

func TestParseLogName(t *testing.T) {
	tests := []struct {
		name string
		v    int64
		kind string
		ok   bool
	}{
		{"00000000000000000010.json", 10, "commit", true},
		{"00000000000000000010.checkpoint.parquet", 10, "checkpoint", true},
		{"00000000000000000010.checkpoint.0000000001.0000000002.parquet", 10, "part:1:2", true},
		{"00000000000000000010.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json", 10, "checkpoint", true},
		{"00000000000000000010.crc", 10, "crc", true},
		{"00000000000000000004.00000000000000000009.compacted.json", 9, "compacted", true},
		{"_last_checkpoint", 0, "", false},
		{"0000000000000000001.json", 0, "", false},
		{"00000000000000000010.json.tmp", 0, "", false},
	}
	for _, tc := range tests {
		v, kind, ok := parseLogName(tc.name)
		if v != tc.v || kind != tc.kind || ok != tc.ok {
			t.Errorf("%s: %d %q %v, want %d %q %v", tc.name, v, kind, ok, tc.v, tc.kind, tc.ok)
		}
	}
}

func ptr[T any](v T) *T { return &v }
