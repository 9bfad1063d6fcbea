package delta

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/delta/internal/dirstore"
)

// TestGoldenTablesRowCounts reads every Spark-written golden table that has
// expected/ rows and checks that the active files hold exactly as many rows
// (stats numRecords, or the data file's own row count, minus deletion
// vector cardinality) as the expected Parquet output.
func TestGoldenTablesRowCounts(t *testing.T) {
	tables, err := filepath.Glob(filepath.Join(testdataRoot, "spark-golden", "*", "*", "delta"))
	if err != nil || len(tables) < 40 {
		t.Fatalf("golden tables: %d found (err %v)", len(tables), err)
	}
	refused := map[string]bool{
		"versions-not-contiguous":                        true,
		"deltalog-invalid-protocol-version":              true,
		"deltalog-state-reconstruction-without-metadata": true,
		"deltalog-state-reconstruction-without-protocol": true,
	}
	checked := 0
	for _, dir := range tables {
		name := filepath.Base(filepath.Dir(dir))
		if refused[name] {
			continue
		}
		t.Run(name, func(t *testing.T) {
			snap, err := NewTable(dirstore.New(dir)).Snapshot(context.Background())
			if err != nil {
				t.Fatalf("Snapshot: %v", err)
			}
			if want := maxCommitVersion(t, dir); snap.Version != want {
				t.Errorf("Version = %d, want %d", snap.Version, want)
			}
			if snap.Schema() == nil || len(snap.Schema().Fields) == 0 {
				t.Errorf("no schema")
			}
			expected, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "expected", "*.parquet"))
			if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "expected")); err != nil {
				return // no expected rows for this table
			}
			var rows int64
			for a := range snap.Files() {
				st, err := a.ParseStats()
				if err != nil {
					t.Fatal(err)
				}
				if st != nil {
					rows += st.NumRecords
				} else {
					key, err := ObjectKey(a.Path)
					if err != nil {
						t.Fatal(err)
					}
					data := filepath.Join(dir, filepath.FromSlash(key))
					if _, err := os.Stat(data); err != nil {
						t.Fatalf("data file %s not in the fixture and no stats", key)
					}
					rows += parquetRows(t, data)
				}
				if a.DeletionVector != nil {
					rows -= a.DeletionVector.Cardinality
				}
			}
			if want := parquetRows(t, expected...); rows != want {
				t.Errorf("rows in active files = %d, expected/ holds %d", rows, want)
			}
			checked++
		})
	}
	if checked < 35 {
		t.Errorf("only %d tables checked", checked)
	}
}

// TestCheckpointEqualsJSONReplay loads every table that has a checkpoint and
// a complete JSON log twice: from the checkpoint and from JSON only. The
// states must agree.
func TestCheckpointEqualsJSONReplay(t *testing.T) {
	tables := []string{
		"spark-golden/basic-with-inserts-deletes-checkpoint/basic-with-inserts-deletes-checkpoint/delta",
		"spark-golden/basic-with-inserts-overwrite-restore/basic-with-inserts-overwrite-restore/delta",
		"spark-golden/checkpoint/checkpoint/delta",
		"spark-golden/corrupted-last-checkpoint-kernel/corrupted-last-checkpoint-kernel/delta",
		"spark-golden/dv-with-columnmapping/dv-with-columnmapping/delta",
		"spark-golden/multi-part-checkpoint/multi-part-checkpoint/delta",
		"spark-golden/only-checkpoint-files/only-checkpoint-files/delta",
		"spark-golden/v2-checkpoint-json/v2-checkpoint-json/delta",
		"spark-golden/v2-checkpoint-parquet/v2-checkpoint-parquet/delta",
		"kernel/app-txn-checkpoint",
		"kernel/v1-multi-part-struct-stats-only",
		"kernel/v2-json-sidecars-struct-stats-only",
		"delta-rs/checkpoint-v2-table",
		"delta-rs/latest_not_checkpointed",
		"delta-rs/table_failed_last_checkpoint_update",
		"delta-rs/with_checkpoint_no_last_checkpoint",
	}
	ctx := context.Background()
	for _, rel := range tables {
		t.Run(rel, func(t *testing.T) {
			dir := fixture(t, rel)
			fromCkpt, err := NewTable(dirstore.New(dir)).Snapshot(ctx)
			if err != nil {
				t.Fatalf("with checkpoint: %v", err)
			}
			if fromCkpt.CheckpointVersion() < 0 {
				t.Fatalf("snapshot did not start from a checkpoint")
			}
			fromJSON, err := NewTable(noCheckpoints{dirstore.New(dir)}).Snapshot(ctx)
			if err != nil {
				t.Fatalf("JSON only: %v", err)
			}
			if fromJSON.CheckpointVersion() != -1 {
				t.Fatalf("JSON-only snapshot used a checkpoint")
			}
			if fromCkpt.Version != fromJSON.Version {
				t.Errorf("version %d vs %d", fromCkpt.Version, fromJSON.Version)
			}
			if !reflect.DeepEqual(fromCkpt.Protocol, fromJSON.Protocol) && !(len(fromCkpt.Protocol.ReaderFeatures) == 0 && len(fromJSON.Protocol.ReaderFeatures) == 0) {
				t.Errorf("protocol %+v vs %+v", fromCkpt.Protocol, fromJSON.Protocol)
			}
			if fromCkpt.Metadata.ID != fromJSON.Metadata.ID || fromCkpt.Metadata.SchemaString != fromJSON.Metadata.SchemaString ||
				!reflect.DeepEqual(fromCkpt.Metadata.Configuration, fromJSON.Metadata.Configuration) {
				t.Errorf("metadata differs:\n%+v\n%+v", fromCkpt.Metadata, fromJSON.Metadata)
			}
			if a, b := paths(fromCkpt), paths(fromJSON); !slices.Equal(a, b) {
				t.Errorf("active files differ:\n%v\n%v", a, b)
			}
			for a := range fromCkpt.Files() {
				b, _ := fromJSON.File(a.Path)
				if a.Size != b.Size || !reflect.DeepEqual(a.PartitionValues, b.PartitionValues) && len(a.PartitionValues)+len(b.PartitionValues) > 0 ||
					a.DeletionVector.UniqueID() != b.DeletionVector.UniqueID() {
					t.Errorf("add %s: %+v vs %+v", a.Path, a, b)
				}
				sa, err1 := a.ParseStats()
				sb, err2 := b.ParseStats()
				if err1 != nil || err2 != nil || (sa == nil) != (sb == nil) || sa != nil && sa.NumRecords != sb.NumRecords {
					t.Errorf("stats of %s: %+v vs %+v (%v %v)", a.Path, sa, sb, err1, err2)
				}
			}
			if !reflect.DeepEqual(versionsOf(fromCkpt), versionsOf(fromJSON)) {
				t.Errorf("txns %v vs %v", fromCkpt.Txns(), fromJSON.Txns())
			}
		})
	}
}

func versionsOf(s *Snapshot) map[string]int64 {
	m := map[string]int64{}
	for k, v := range s.Txns() {
		m[k] = v.Version
	}
	return m
}

func TestCheckpointSelection(t *testing.T) {
	tests := []struct {
		table          string
		wantVersion    int64
		wantCheckpoint int64
	}{
		// _last_checkpoint is empty (corrupt): fall back to listing.
		{"spark-golden/corrupted-last-checkpoint-kernel/corrupted-last-checkpoint-kernel/delta", 11, 10},
		// _last_checkpoint says 1, but checkpoint 3 exists.
		{"delta-rs/table_failed_last_checkpoint_update", 3, 3},
		{"delta-rs/with_checkpoint_no_last_checkpoint", 3, 2},
		{"delta-rs/latest_not_checkpointed", 3, 2},
		// Commits 0-4 were cleaned up; checkpoints 5 and 10 remain.
		{"delta-rs/checkpoints_vacuumed", 12, 10},
		{"spark-golden/multi-part-checkpoint/multi-part-checkpoint/delta", 1, 1},
		{"kernel/v1-multi-part-struct-stats-only", 5, 5},
		{"spark-golden/v2-checkpoint-json/v2-checkpoint-json/delta", 2, 2},
		{"spark-golden/only-checkpoint-files/only-checkpoint-files/delta", 2, 2},
		{"delta-rs/checkpoints", 12, -1},
	}
	for _, tc := range tests {
		t.Run(tc.table, func(t *testing.T) {
			s, err := openFixture(t, tc.table).Snapshot(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if s.Version != tc.wantVersion || s.CheckpointVersion() != tc.wantCheckpoint {
				t.Errorf("version %d from checkpoint %d, want %d from %d", s.Version, s.CheckpointVersion(), tc.wantVersion, tc.wantCheckpoint)
			}
		})
	}
}

func TestBrokenLogsRefused(t *testing.T) {
	tests := []struct {
		table   string
		wantErr error
		wantSub string
	}{
		{"spark-golden/versions-not-contiguous/versions-not-contiguous/delta", ErrInvalidLog, "00000000000000000001.json missing"},
		{"spark-golden/deltalog-state-reconstruction-without-metadata/deltalog-state-reconstruction-without-metadata/delta", ErrInvalidLog, "metaData"},
		{"spark-golden/deltalog-state-reconstruction-without-protocol/deltalog-state-reconstruction-without-protocol/delta", ErrInvalidLog, "protocol"},
		{"spark-golden/deltalog-invalid-protocol-version/deltalog-invalid-protocol-version/delta", ErrUnsupportedProtocol, "minReaderVersion 99"},
		{"delta-rs/simple_table_features", ErrUnsupportedProtocol, "minReaderVersion 5"},
	}
	for _, tc := range tests {
		t.Run(tc.table, func(t *testing.T) {
			_, err := openFixture(t, tc.table).Snapshot(context.Background())
			if !errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.wantSub) {
				t.Fatalf("err = %v, want %v mentioning %q", err, tc.wantErr, tc.wantSub)
			}
		})
	}
	t.Run("unknown reader feature", func(t *testing.T) {
		tbl := NewTable(dirstore.New(fixture(t, "kernel/table-with-dv-small")), WithReaderFeatures(map[string]bool{}))
		_, err := tbl.Snapshot(context.Background())
		if !errors.Is(err, ErrUnsupportedProtocol) || !strings.Contains(err.Error(), "deletionVectors") {
			t.Fatalf("err = %v, want ErrUnsupportedProtocol naming deletionVectors", err)
		}
	})
	t.Run("no log", func(t *testing.T) {
		_, err := NewTable(dirstore.New(t.TempDir())).Snapshot(context.Background())
		if !errors.Is(err, ErrNotATable) {
			t.Fatalf("err = %v, want ErrNotATable", err)
		}
	})
	t.Run("delta-rs checkpoints_tombstones has no log", func(t *testing.T) {
		_, err := NewTable(dirstore.New(filepath.Join(testdataRoot, "delta-rs", "checkpoints_tombstones"))).Snapshot(context.Background())
		if !errors.Is(err, ErrNotATable) {
			t.Fatalf("err = %v, want ErrNotATable", err)
		}
	})
}

func TestTxnVersions(t *testing.T) {
	u := func(n int64) *int64 { return &n }
	tests := []struct {
		table string
		want  map[string]Txn
	}{
		{"kernel/app-txn-no-checkpoint", map[string]Txn{"my-app": {AppID: "my-app", Version: 3}, "my-app2": {AppID: "my-app2", Version: 2}}},
		{"kernel/app-txn-checkpoint", map[string]Txn{"my-app": {AppID: "my-app", Version: 3}, "my-app2": {AppID: "my-app2", Version: 2}}},
		{"kernel/app-txn-with-last-updated", map[string]Txn{
			"new_app_0": {AppID: "new_app_0", Version: 1},
			"new_app_1": {AppID: "new_app_1", Version: 1, LastUpdated: u(1000)},
			"new_app_2": {AppID: "new_app_2", Version: 1, LastUpdated: u(1002)},
			"old_app":   {AppID: "old_app", Version: 1, LastUpdated: u(1747935650)},
		}},
		{"spark-golden/deltalog-getChanges/deltalog-getChanges/delta", map[string]Txn{"fakeAppId": {AppID: "fakeAppId", Version: 3, LastUpdated: u(200)}}},
	}
	for _, tc := range tests {
		t.Run(tc.table, func(t *testing.T) {
			s, err := openFixture(t, tc.table).Snapshot(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Txns(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("txns = %+v, want %+v", got, tc.want)
			}
			for app, w := range tc.want {
				if v, ok := s.TxnVersion(app); !ok || v != w.Version {
					t.Errorf("TxnVersion(%s) = %d, %v", app, v, ok)
				}
			}
			if _, ok := s.TxnVersion("nobody"); ok {
				t.Errorf("TxnVersion(nobody) found")
			}
		})
	}
}

func TestSnapshotAt(t *testing.T) {
	ctx := context.Background()
	t.Run("time travel", func(t *testing.T) {
		dir := fixture(t, "spark-golden/time-travel-start-start20-start40/time-travel-start-start20-start40/delta")
		tbl := NewTable(dirstore.New(dir))
		// Each commit appends files; count add lines per commit independently.
		total := 0
		for v := int64(0); v <= 2; v++ {
			acts, err := tbl.ReadCommit(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range acts {
				if a.Add != nil {
					total++
				}
			}
			s, err := tbl.SnapshotAt(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			if s.Version != v || s.NumFiles() != total {
				t.Errorf("SnapshotAt(%d): version %d, %d files; want %d files", v, s.Version, s.NumFiles(), total)
			}
		}
		if _, err := tbl.SnapshotAt(ctx, 3); !errors.Is(err, ErrVersionNotFound) {
			t.Errorf("SnapshotAt(3) err = %v, want ErrVersionNotFound", err)
		}
		if _, err := tbl.ReadCommit(ctx, 7); !errors.Is(err, ErrVersionNotFound) {
			t.Errorf("ReadCommit(7) err = %v, want ErrVersionNotFound", err)
		}
	})
	t.Run("before the checkpoint", func(t *testing.T) {
		dir := fixture(t, "spark-golden/basic-with-inserts-deletes-checkpoint/basic-with-inserts-deletes-checkpoint/delta")
		for _, v := range []int64{0, 5, 10, 12} {
			a, err := NewTable(dirstore.New(dir)).SnapshotAt(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			b, err := NewTable(noCheckpoints{dirstore.New(dir)}).SnapshotAt(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			if a.Version != v || !slices.Equal(paths(a), paths(b)) {
				t.Errorf("SnapshotAt(%d): %d files vs JSON replay %d", v, a.NumFiles(), b.NumFiles())
			}
		}
	})
	t.Run("cleaned up before a checkpoint", func(t *testing.T) {
		// Log cleanup deleted the commits a later checkpoint covers: an
		// older version is not found (as Delta's VersionNotFoundException),
		// the log is not broken; without any checkpoint it is.
		src := filepath.Join(fixture(t, "spark-golden/basic-with-inserts-deletes-checkpoint/basic-with-inserts-deletes-checkpoint/delta"), "_delta_log")
		cleaned := func(t *testing.T, drop ...string) *Table {
			dir := t.TempDir()
			if err := os.CopyFS(filepath.Join(dir, "_delta_log"), os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			for _, key := range drop {
				if err := os.Remove(filepath.Join(dir, filepath.FromSlash(key))); err != nil {
					t.Fatal(err)
				}
			}
			return NewTable(dirstore.New(dir))
		}
		var commits []string
		for v := range int64(10) {
			commits = append(commits, CommitKey(v))
		}
		tbl := cleaned(t, commits...)
		for _, v := range []int64{0, 5, 9} {
			if _, err := tbl.SnapshotAt(ctx, v); !errors.Is(err, ErrVersionNotFound) || errors.Is(err, ErrInvalidLog) {
				t.Errorf("SnapshotAt(%d) after log cleanup: %v, want ErrVersionNotFound", v, err)
			}
		}
		if s, err := tbl.SnapshotAt(ctx, 12); err != nil || s.Version != 12 {
			t.Errorf("SnapshotAt(12) after log cleanup: %v", err)
		}
		broken := cleaned(t, CommitKey(0), CheckpointKey(10), LastCheckpointKey)
		if _, err := broken.SnapshotAt(ctx, 5); !errors.Is(err, ErrInvalidLog) {
			t.Errorf("SnapshotAt(5) with no commit 0 and no checkpoint: %v, want ErrInvalidLog", err)
		}
	})
}

func TestSpecialPaths(t *testing.T) {
	ctx := context.Background()
	// The remove names "/some/…" and cancels the add of "file:/some/…".
	s, err := openFixture(t, "spark-golden/canonicalized-paths-special-a/canonicalized-paths-special-a/delta").Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.NumFiles() != 0 || s.NumTombstones() != 1 {
		t.Errorf("canonicalized paths: %d files, %d tombstones; want 0, 1", s.NumFiles(), s.NumTombstones())
	}
	// Escaped partition directories decode to the on-disk names.
	dir := fixture(t, "spark-golden/data-reader-escaped-chars/data-reader-escaped-chars/delta")
	s, err = NewTable(dirstore.New(dir)).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for a := range s.Files() {
		key, err := ObjectKey(a.Path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(key))); err != nil {
			t.Errorf("add %q -> key %q: %v", a.Path, key, err)
		}
		if EncodePath(key) != a.Path {
			t.Errorf("EncodePath(%q) = %q, want %q", key, EncodePath(key), a.Path)
		}
	}
}

func TestTableProperties(t *testing.T) {
	mk := func(conf map[string]string) *Snapshot {
		return &Snapshot{Metadata: Metadata{Configuration: conf}}
	}
	def := mk(nil)
	if n, err := def.CheckpointInterval(); err != nil || n != 10 {
		t.Errorf("default checkpointInterval = %d, %v", n, err)
	}
	if d, err := def.LogRetentionDuration(); err != nil || d != DefaultLogRetentionDuration {
		t.Errorf("default logRetentionDuration = %v, %v", d, err)
	}
	if d, err := def.DeletedFileRetentionDuration(); err != nil || d != DefaultDeletedFileRetentionDuration {
		t.Errorf("default deletedFileRetentionDuration = %v, %v", d, err)
	}
	if b, err := def.TypeWideningEnabled(); err != nil || b {
		t.Errorf("default enableTypeWidening = %v, %v", b, err)
	}
	set := mk(map[string]string{
		PropCheckpointInterval:           "2",
		PropLogRetentionDuration:         "interval 2 days",
		PropDeletedFileRetentionDuration: "interval 1 weeks",
		PropEnableTypeWidening:           "true",
	})
	if n, _ := set.CheckpointInterval(); n != 2 {
		t.Errorf("checkpointInterval = %d", n)
	}
	if d, _ := set.LogRetentionDuration(); d.Hours() != 48 {
		t.Errorf("logRetentionDuration = %v", d)
	}
	if d, _ := set.DeletedFileRetentionDuration(); d.Hours() != 168 {
		t.Errorf("deletedFileRetentionDuration = %v", d)
	}
	if b, _ := set.TypeWideningEnabled(); !b {
		t.Errorf("enableTypeWidening false")
	}
	bad := mk(map[string]string{PropCheckpointInterval: "0", PropLogRetentionDuration: "interval 1 month", PropEnableTypeWidening: "yes please"})
	if _, err := bad.CheckpointInterval(); err == nil {
		t.Error("checkpointInterval 0 accepted")
	}
	if _, err := bad.LogRetentionDuration(); err == nil || !strings.Contains(err.Error(), PropLogRetentionDuration) {
		t.Errorf("month interval: %v", err)
	}
	if _, err := bad.TypeWideningEnabled(); err == nil {
		t.Error("bad bool accepted")
	}
	// The real type-widening table.
	s, err := openFixture(t, "kernel/type-widening").Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if b, err := s.TypeWideningEnabled(); err != nil || !b {
		t.Errorf("type-widening fixture: enableTypeWidening = %v, %v (conf %v)", b, err, s.Configuration())
	}
}

func TestParseInterval(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"interval 30 days", "720h0m0s", true},
		{"INTERVAL 1 WEEK", "168h0m0s", true},
		{"interval 2 hours 30 minutes", "2h30m0s", true},
		{"12 seconds", "12s", true},
		{"interval", "", false},
		{"interval -1 days", "", false},
		{"interval 1 fortnight", "", false},
		{"interval 99999999999999 weeks", "", false},
	}
	for _, tc := range tests {
		d, err := ParseInterval(tc.in)
		if (err == nil) != tc.ok || tc.ok && d.String() != tc.want {
			t.Errorf("ParseInterval(%q) = %v, %v; want %s ok=%v", tc.in, d, err, tc.want, tc.ok)
		}
	}
}
