package lambdafn

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/infra/localfs"
)

// The maintenance function compacts a stream's table that the commit
// function wrote one file per batch, and (8 days later) vacuums the
// compacted files; a dry run changes nothing; an unknown stream is refused.
func TestHandleMaintenance(t *testing.T) {
	dir := t.TempDir()
	src, tableDir := filepath.Join(dir, "in"), filepath.Join(dir, "table")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		os.WriteFile(filepath.Join(src, fmt.Sprintf("f%d.json", i)), []byte(fmt.Sprintf(`{"id":%d}`+"\n", i)), 0o644)
	}
	s, err := options.Parse(map[string]string{
		"cloudFiles.format": "json", "cloudFiles.useNotifications": "true", "cloudFiles.maxFilesPerTrigger": "1",
	}, options.Locations{StreamID: "s", Source: src, Table: tableDir,
		CheckpointLocation: filepath.Join(dir, "cp"), SchemaLocation: filepath.Join(dir, "cp")})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	env := runtimeEnv()
	env.Logger, env.TempDir = logger, t.TempDir()
	app := &App{Config: &options.Config{Streams: []*options.Stream{s}}, Env: env, Logger: logger, Metrics: io.Discard}
	ctx := context.Background()
	// No table yet: nothing to do.
	if res, err := app.HandleMaintenance(ctx, MaintenanceEvent{}); err != nil || res.Tables[tableDir].Optimize != nil {
		t.Fatalf("before any batch: %+v %v", res, err)
	}
	st, err := app.stream(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	if resp, err := app.HandleCommit(ctx, events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m", Body: `{"stream":"s","reason":"discovered","at":"2025-01-01T00:00:00Z"}`}}}); err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("commit: %+v %v", resp, err)
	}
	files := func() int {
		ls, err := localfs.New(tableDir)
		if err != nil {
			t.Fatal(err)
		}
		snap, err := delta.NewTable(ls).Snapshot(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return snap.NumFiles()
	}
	if n := files(); n != 4 {
		t.Fatalf("%d files after 4 batches", n)
	}
	res, err := app.HandleMaintenance(ctx, MaintenanceEvent{DryRun: true})
	if err != nil || res.Tables[tableDir].Optimize.FilesRemoved != 4 || files() != 4 {
		t.Fatalf("dry run: %+v %v (%d files)", res, err, files())
	}
	res, err = app.HandleMaintenance(ctx, MaintenanceEvent{})
	tm := res.Tables[tableDir]
	if err != nil || tm.Optimize.FilesAdded != 1 || len(tm.Vacuum.Files) != 0 || tm.CleanupLog == nil || files() != 1 {
		t.Fatalf("maintenance: %+v %v (%d files)", tm, err, files())
	}
	// A week and a day later the compacted files go.
	app.Now = func() time.Time { return time.Now().Add(8 * 24 * time.Hour) }
	off := false
	res, err = app.HandleMaintenance(ctx, MaintenanceEvent{Optimize: &off, Streams: []string{"s"}})
	if tm := res.Tables[tableDir]; err != nil || tm.Optimize != nil || len(tm.Vacuum.Files) != 4 {
		t.Fatalf("vacuum after the retention: %+v %v", tm, err)
	}
	if _, err := app.HandleMaintenance(ctx, MaintenanceEvent{Streams: []string{"nope"}}); err == nil {
		t.Fatal("unknown stream accepted")
	}
}
