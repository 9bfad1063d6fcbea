package lambdafn

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/tributary-io/tributary/core/options"
)

// The commit function reports the files a batch skipped (ignoreCorruptFiles)
// in its EMF line, the numSkippedFiles metric the template alarms on.
func TestCommitEmitsSkippedFiles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "in")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(src, "good.json"), []byte(`{"id":1}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(src, "bad.json.gz"), []byte("not gzip at all"), 0o644)
	s, err := options.Parse(map[string]string{
		"cloudFiles.format": "json", "cloudFiles.useNotifications": "true", "ignoreCorruptFiles": "true",
	}, options.Locations{StreamID: "s", Source: src, Table: filepath.Join(dir, "table"),
		CheckpointLocation: filepath.Join(dir, "cp"), SchemaLocation: filepath.Join(dir, "cp")})
	if err != nil {
		t.Fatal(err)
	}
	var metrics bytes.Buffer
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	env := runtimeEnv()
	env.Logger, env.TempDir = logger, t.TempDir()
	app := &App{Config: &options.Config{Streams: []*options.Stream{s}}, Env: env, Logger: logger, Metrics: &metrics}
	ctx := context.Background()
	st, err := app.stream(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := st.Discover(ctx); err != nil { // what the events would register
		t.Fatal(err)
	}
	resp, err := app.HandleCommit(ctx, events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m", Body: `{"stream":"s","reason":"discovered","at":"2025-01-01T00:00:00Z"}`}}})
	if err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("commit: %+v %v", resp, err)
	}
	var line struct {
		NumSkippedFiles int `json:"numSkippedFiles"`
		NumInputRows    int `json:"numInputRows"`
	}
	if err := json.Unmarshal(metrics.Bytes(), &line); err != nil {
		t.Fatalf("EMF line %q: %v", metrics.String(), err)
	}
	if line.NumSkippedFiles != 1 || line.NumInputRows != 1 {
		t.Fatalf("EMF line %s", metrics.String())
	}
}
