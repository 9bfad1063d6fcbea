package history

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/internal/dirstore"
)

func TestHistory(t *testing.T) {
	ctx := context.Background()
	versions := func(h []Entry) []int64 {
		var v []int64
		for _, e := range h {
			v = append(v, e.Version)
		}
		return v
	}
	t.Run("txns", func(t *testing.T) {
		h, err := Read(ctx, openFixture(t, "kernel/app-txn-no-checkpoint"), 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(versions(h), []int64{1, 0}) {
			t.Fatalf("versions %v", versions(h))
		}
		var apps []string
		for _, e := range h {
			for _, tx := range e.Txns {
				apps = append(apps, tx.AppID)
			}
		}
		if len(apps) == 0 {
			t.Errorf("no txn in the history of a table written with txn actions")
		}
	})
	t.Run("cleaned up log", func(t *testing.T) {
		h, err := Read(ctx, openFixture(t, "delta-rs/checkpoints_vacuumed"), 0)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(versions(h), []int64{12, 11, 10, 9, 8, 7, 6, 5}) {
			t.Fatalf("versions %v", versions(h))
		}
		h, err = Read(ctx, openFixture(t, "delta-rs/checkpoints_vacuumed"), 3)
		if err != nil || !slices.Equal(versions(h), []int64{12, 11, 10}) {
			t.Fatalf("limit 3: %v, %v", versions(h), err)
		}
	})
	t.Run("timestamps and operations", func(t *testing.T) {
		h, err := Read(ctx, openFixture(t, "kernel/table-with-dv-small"), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(h) != 2 || h[0].CommitInfo.Operation != "DELETE" || h[1].CommitInfo.Operation != "WRITE" ||
			!h[0].Timestamp.Equal(time.UnixMilli(1677811194429)) || h[0].CommitInfo.EngineInfo != "Databricks-Runtime/<unknown>" {
			t.Fatalf("history %+v", h)
		}
	})
	t.Run("in-commit timestamp wins", func(t *testing.T) {
		dir := t.TempDir()
		tbl := delta.NewTable(dirstore.New(dir))
		ict := int64(1700000000123)
		proto := delta.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}
		_, err := tbl.Commit(ctx, -1, []delta.Action{{CommitInfo: &delta.CommitInfo{Timestamp: 5, InCommitTimestamp: &ict, Operation: "CREATE TABLE"}},
			{Protocol: &proto}, {Metadata: &delta.Metadata{ID: "x", SchemaString: `{"type":"struct","fields":[]}`}}})
		if err != nil {
			t.Fatal(err)
		}
		h, err := Read(ctx, tbl, 0)
		if err != nil || len(h) != 1 || !h[0].Timestamp.Equal(time.UnixMilli(ict)) {
			t.Fatalf("%+v, %v", h, err)
		}
	})
	t.Run("not a table", func(t *testing.T) {
		if _, err := Read(ctx, delta.NewTable(dirstore.New(t.TempDir())), 0); !errors.Is(err, delta.ErrNotATable) {
			t.Fatalf("err = %v", err)
		}
	})
}

const testdataRoot = "../../../../shared/testdata/delta"

func openFixture(t *testing.T, rel string) *delta.Table {
	t.Helper()
	p := filepath.Join(testdataRoot, filepath.FromSlash(rel))
	if _, err := os.Stat(filepath.Join(p, "_delta_log")); err != nil {
		t.Fatalf("fixture %s: %v", rel, err)
	}
	return delta.NewTable(dirstore.New(p))
}
