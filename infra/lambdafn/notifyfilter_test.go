package lambdafn

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/infra/streams"
)

// The discovery function applies the stream's pathGlobFilter,
// modifiedAfter and modifiedBefore to each notification, as directory
// listing does: an event for a file the filter rejects is ignored, not
// registered. The stream is routed by its s3:// source; its opened form
// reads the same keys from a local directory (Head gives LastModified).
func TestDiscoveryAppliesTheStreamFilter(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "in")
	if err := os.MkdirAll(filepath.Join(src, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	mtimes := map[string]time.Time{
		"old.json":     time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC), // before modifiedAfter
		"new.json":     time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), // inside the window
		"sub/new.json": time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), // inside the window, in a subdirectory
		"new.csv":      time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC), // name rejected by the glob
		"late.json":    time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC), // after modifiedBefore
	}
	for rel, mod := range mtimes {
		path := filepath.Join(src, filepath.FromSlash(rel))
		if err := os.WriteFile(path, []byte(`{"id":1}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	opts := map[string]string{"cloudFiles.format": "json", "cloudFiles.useNotifications": "true",
		"pathGlobFilter": "*.json", "modifiedAfter": "2024-01-01T00:00:00Z", "modifiedBefore": "2025-01-01T00:00:00Z"}
	remote, err := options.Parse(opts, options.Locations{StreamID: "s", Source: "s3://lake/in/", Table: "s3://lake/table",
		CheckpointLocation: "s3://lake/table/_checkpoints", SchemaLocation: "s3://lake/table/_checkpoints"})
	if err != nil {
		t.Fatal(err)
	}
	local, err := options.Parse(opts, options.Locations{StreamID: "s", Source: src, Table: filepath.Join(dir, "table"),
		CheckpointLocation: filepath.Join(dir, "cp"), SchemaLocation: filepath.Join(dir, "cp")})
	if err != nil {
		t.Fatal(err)
	}
	env := runtimeEnv()
	env.Logger, env.TempDir = logger, t.TempDir()
	opened, err := env.Open(ctx, local)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { opened.Close() })
	k := &kicks{}
	app := &App{Config: &options.Config{Streams: []*options.Stream{remote}}, Env: env, Logger: logger, Kicker: k}
	app.opened = map[string]*streams.Stream{"s": opened}

	var recs []events.SQSMessage
	keys := slices.Sorted(maps.Keys(mtimes))
	for i, rel := range keys {
		recs = append(recs, events.SQSMessage{MessageId: fmt.Sprint(i), Body: s3Event("lake", "in/"+rel)})
	}
	resp, res := app.discover(ctx, events.SQSEvent{Records: recs})
	if len(resp.BatchItemFailures) != 0 {
		t.Fatalf("failures %v", resp.BatchItemFailures)
	}
	var registered []string
	for e, err := range opened.State.Entries(ctx, "s") {
		if err != nil {
			t.Fatal(err)
		}
		registered = append(registered, e.Path)
	}
	slices.Sort(registered)
	if want := []string{"new.json", "sub/new.json"}; !slices.Equal(registered, want) || res.Registered != 2 || res.Ignored != 3 {
		t.Fatalf("registered %v (result %+v), want %v and 3 ignored: old.json (modifiedAfter), late.json (modifiedBefore), new.csv (pathGlobFilter)",
			registered, res, want)
	}
}
