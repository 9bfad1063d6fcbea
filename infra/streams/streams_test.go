package streams

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/options"
)

func parse(t *testing.T, dir, id string, raw map[string]string) *options.Stream {
	t.Helper()
	if raw["cloudFiles.format"] == "" {
		raw["cloudFiles.format"] = "json"
	}
	s, err := options.Parse(raw, options.Locations{
		StreamID:           id,
		Source:             filepath.Join(dir, "in"),
		Table:              filepath.Join(dir, "table"),
		CheckpointLocation: filepath.Join(dir, "cp"),
		SchemaLocation:     filepath.Join(dir, "cp"),
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func write(t *testing.T, path, body string, mod time.Time) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if !mod.IsZero() {
		os.Chtimes(path, mod, mod)
	}
}

func TestOpenLocalRunsAndGlobFilters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "in", "a.json"), `{"x":1}`+"\n", time.Time{})
	write(t, filepath.Join(dir, "in", "b.txt"), `{"x":2}`+"\n", time.Time{})
	s, err := Env{}.Open(ctx, parse(t, dir, "s1", map[string]string{"pathGlobFilter": "*.json"}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Discover(ctx)
	if err != nil || res.New != 1 {
		t.Fatalf("discover: %+v %v", res, err)
	}
	sum, err := s.Engine.RunAvailableNow(ctx, nil)
	if err != nil || sum.Rows() != 1 {
		t.Fatalf("run: %+v %v", sum, err)
	}
}

func TestIncludeExistingFilesFalse(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "in", "old.json"), `{"x":1}`+"\n", time.Now().Add(-time.Hour))
	opts := parse(t, dir, "s1", map[string]string{"cloudFiles.includeExistingFiles": "false"})
	s, err := Env{}.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Discover(ctx)
	if err != nil || res.New != 0 || res.Existing != 1 {
		t.Fatalf("first discovery: %+v %v", res, err)
	}
	s.Close()
	write(t, filepath.Join(dir, "in", "new.json"), `{"x":2}`+"\n", time.Now().Add(time.Second))
	s, err = Env{}.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err = s.Discover(ctx)
	if err != nil || res.New != 1 || res.Existing != 1 {
		t.Fatalf("second discovery: %+v %v", res, err)
	}
}

func TestCheckpointOfAnotherStreamIsRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	cp, err := Env{}.OpenStore(filepath.Join(dir, "cp"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CheckpointMetadata(ctx, cp, "first", time.Now()); err != nil {
		t.Fatal(err)
	}
	m, err := CheckpointMetadata(ctx, cp, "", time.Now())
	if err != nil || m.ID != "first" {
		t.Fatalf("reading back: %+v %v", m, err)
	}
	if _, err := CheckpointMetadata(ctx, cp, "second", time.Now()); !errors.Is(err, ErrForeignCheckpoint) {
		t.Fatalf("want ErrForeignCheckpoint, got %v", err)
	}
}

func TestOpenStoreRefusesUnknownSchemes(t *testing.T) {
	for _, loc := range []string{"gs://bucket/x", "s3://bucket/x"} {
		if _, err := (Env{}).OpenStore(loc); err == nil {
			t.Errorf("OpenStore(%q) without AWS config succeeded", loc)
		}
	}
}

func TestCleanSourceMoveLocal(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "in", "day=1", "a.json"), `{"x":1}`+"\n", time.Time{})
	s, err := Env{}.Open(ctx, parse(t, dir, "s1", map[string]string{
		"cloudFiles.cleanSource":                 "MOVE",
		"cloudFiles.cleanSource.moveDestination": filepath.Join(dir, "archive"),
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Engine.RunAvailableNow(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "archive", "day=1", "a.json")); err != nil {
		t.Fatalf("not moved: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "in", "day=1", "a.json")); !os.IsNotExist(err) {
		t.Fatalf("still in the source: %v", err)
	}
}

// TestBackfillOfNotificationStreamListsEverything: cloudFiles.
// useIncrementalListing applies to directory listing mode only; the listing
// of a stream in file notification mode (the backfill, there to find files
// whose events were lost) lists everything even when it is set, so a file
// whose key sorts before the last one listed is found.
func TestBackfillOfNotificationStreamListsEverything(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	env := Env{Notifications: true, ScheduledListing: true}
	for _, tc := range []struct {
		notifications string
		wantNew       int
	}{
		{"true", 1},  // backfill: a full listing finds a.json
		{"false", 0}, // directory listing mode, incremental: a.json sorts before m.json
	} {
		dir := filepath.Join(dir, tc.notifications)
		write(t, filepath.Join(dir, "in", "m.json"), `{"x":1}`+"\n", time.Time{})
		opts := parse(t, dir, "s1", map[string]string{
			"cloudFiles.useNotifications":      tc.notifications,
			"cloudFiles.useIncrementalListing": "true",
		})
		if err := env.Validate(opts); err != nil {
			t.Fatal(err)
		}
		discover := func() int {
			t.Helper()
			s, err := env.Open(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			res, err := s.Discover(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return res.New
		}
		if n := discover(); n != 1 {
			t.Fatalf("useNotifications=%s: first listing found %d new files, want 1", tc.notifications, n)
		}
		write(t, filepath.Join(dir, "in", "a.json"), `{"x":2}`+"\n", time.Time{})
		if n := discover(); n != tc.wantNew {
			t.Errorf("useNotifications=%s, useIncrementalListing=true: second listing found %d new files, want %d", tc.notifications, n, tc.wantNew)
		}
	}
}
