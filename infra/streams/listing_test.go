package streams

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/state"
)

// runOnce opens the stream, discovers and runs every batch, and returns the
// state entries by path and the log.
func runOnce(t *testing.T, opts *options.Stream) (map[string]state.Entry, string) {
	t.Helper()
	ctx := context.Background()
	var logs strings.Builder
	env := Env{Logger: slog.New(slog.NewTextHandler(&logs, nil)), TempDir: t.TempDir()}
	s, err := env.Open(ctx, opts)
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
	out := map[string]state.Entry{}
	for e, err := range s.State.Entries(ctx, opts.ID) {
		if err != nil {
			t.Fatal(err)
		}
		out[e.Path] = e
	}
	return out, logs.String()
}

// rowsOf reads column x of every row of the table, sorted.
func rowsOf(t *testing.T, opts *options.Stream) []string {
	t.Helper()
	ctx := context.Background()
	s, err := Env{}.Open(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	return streamRows(t, s)
}

// streamRows reads column x of every row of the stream's (local) table,
// sorted.
func streamRows(t *testing.T, s *Stream) []string {
	t.Helper()
	ctx := context.Background()
	snap, err := s.Table.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for a := range snap.Files() {
		key, err := delta.ObjectKey(a.Path)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(s.Options.Table, filepath.FromSlash(key)))
		if err != nil {
			t.Fatal(err)
		}
		sch, rs, err := parquetio.ReadFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		x := sch.FieldIndex("x")
		for _, r := range rs {
			rows = append(rows, fmt.Sprint(r[x]))
		}
	}
	slices.Sort(rows)
	return rows
}

func link(t *testing.T, target, name string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(name), 0o755)
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// TestListingRecordsWhatItCannotIngest: every source entry is ingested
// exactly once or recorded SKIPPED with its reason and logged; a directory
// symbolic link loop no longer ingests each file 9 times, a link to a file
// outside the source is followed (as Hadoop does) and "hadoop fs -put"
// temporary files are ignored (as Spark does).
func TestListingRecordsWhatItCannotIngest(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	write(t, filepath.Join(in, "ok.json"), `{"x":"ok"}`+"\n", time.Time{})
	write(t, filepath.Join(in, "caf\xe9.json"), `{"x":"latin-1 name"}`+"\n", time.Time{})
	write(t, filepath.Join(dir, "outside", "o.json"), `{"x":"outside"}`+"\n", time.Time{})
	link(t, filepath.Join(dir, "outside", "o.json"), filepath.Join(in, "out.json"))
	link(t, filepath.Join(dir, "missing.json"), filepath.Join(in, "dangling.json"))
	write(t, filepath.Join(in, "a", "x.json"), `{"x":"under a loop"}`+"\n", time.Time{})
	link(t, "..", filepath.Join(in, "a", "loop"))
	if err := syscall.Mkfifo(filepath.Join(in, "fifo.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(in, "c.json._COPYING_"), `{"x":"being copied"}`+"\n", time.Time{})
	write(t, filepath.Join(in, "_day=1", "p.json"), `{"x":"underscore partition"}`+"\n", time.Time{})
	opts := parse(t, dir, "s1", map[string]string{})

	entries, logs := runOnce(t, opts)
	if got, want := rowsOf(t, opts), []string{"ok", "outside", "under a loop", "underscore partition"}; !slices.Equal(got, want) {
		t.Errorf("rows = %q, want %q (each once)", got, want)
	}
	want := map[string]struct {
		st  state.IngestionState
		why string
	}{
		"ok.json":        {state.Committed, ""},
		"out.json":       {state.Committed, ""},
		"a/x.json":       {state.Committed, ""},
		"_day=1/p.json":  {state.Committed, ""},
		"caf\uFFFD.json": {state.Skipped, `"caf\xe9.json" is not valid UTF-8`},
		"dangling.json":  {state.Skipped, "which does not exist"},
		"fifo.json":      {state.Skipped, "named pipe"},
		"a/loop/":        {state.Skipped, "directory loop"},
	}
	for p, w := range want {
		e, ok := entries[p]
		if !ok {
			t.Errorf("%q: no state entry", p)
			continue
		}
		if e.State != w.st || !strings.Contains(e.Error, w.why) {
			t.Errorf("%q: %s %q, want %s with a reason containing %q", p, e.State, e.Error, w.st, w.why)
		}
		if w.st == state.Skipped && !strings.Contains(logs, "reason=") {
			t.Errorf("%q: skipped without a log line", p)
		}
	}
	if len(entries) != len(want) {
		var paths []string
		for p := range entries {
			paths = append(paths, p)
		}
		slices.Sort(paths)
		t.Errorf("state entries %q, want exactly %d", paths, len(want))
	}
	if n := strings.Count(logs, "recorded as SKIPPED"); n != 4 {
		t.Errorf("%d skip warnings, want 4:\n%s", n, logs)
	}

	// A dangling link whose target appears is ingested on the next run; the
	// other skip records stay and are not logged again.
	write(t, filepath.Join(dir, "missing.json"), `{"x":"late target"}`+"\n", time.Time{})
	entries, logs = runOnce(t, opts)
	if e := entries["dangling.json"]; e.State != state.Committed || e.Error != "" {
		t.Errorf("dangling.json after its target appeared: %+v", e)
	}
	if strings.Contains(logs, "recorded as SKIPPED") {
		t.Errorf("second run logged known skips again:\n%s", logs)
	}
	if got := rowsOf(t, opts); !slices.Contains(got, "late target") || len(got) != 5 {
		t.Errorf("rows after the target appeared = %q", got)
	}
}

// TestSymlinkedCheckpointInsideSourceIsRefused: a checkpoint location that
// leads into the source through a symbolic link is refused at load time
// (it used to ingest state.db as rows).
func TestSymlinkedCheckpointInsideSourceIsRefused(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	write(t, filepath.Join(in, "ok.json"), `{"x":"ok"}`+"\n", time.Time{})
	os.MkdirAll(filepath.Join(in, "ck"), 0o755)
	link(t, filepath.Join(in, "ck"), filepath.Join(dir, "cklink"))
	_, err := options.Parse(map[string]string{"cloudFiles.format": "json"}, options.Locations{
		StreamID: "s1", Source: in, Table: filepath.Join(dir, "table"),
		CheckpointLocation: filepath.Join(dir, "cklink"), SchemaLocation: filepath.Join(dir, "cklink"),
	})
	if err == nil || !strings.Contains(err.Error(), "inside the source directory") {
		t.Fatalf("Parse = %v, want the checkpoint refused as inside the source", err)
	}
}

// TestSourceLinkToOwnLocationsIsNotIngested: a symbolic link in the source
// to the stream's own checkpoint or table is never followed: recorded
// SKIPPED, state.db and Parquet files are not ingested.
func TestSourceLinkToOwnLocationsIsNotIngested(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in")
	write(t, filepath.Join(in, "ok.json"), `{"x":"ok"}`+"\n", time.Time{})
	link(t, filepath.Join(dir, "cp"), filepath.Join(in, "cp"))
	link(t, filepath.Join(dir, "table"), filepath.Join(in, "table"))
	opts := parse(t, dir, "s1", map[string]string{})
	for run := 0; run < 2; run++ {
		write(t, filepath.Join(in, "n"+string(rune('0'+run))+".json"), `{"x":"new"}`+"\n", time.Time{})
		entries, _ := runOnce(t, opts)
		for _, p := range []string{"cp/", "table/"} {
			if e := entries[p]; e.State != state.Skipped || !strings.Contains(e.Error, "never read as input") {
				t.Errorf("run %d: %q = %+v, want SKIPPED", run, p, e)
			}
		}
		for p := range entries {
			if strings.HasPrefix(p, "cp/") && p != "cp/" || strings.HasPrefix(p, "table/") && p != "table/" {
				t.Errorf("run %d: %q of the stream's own locations was registered", run, p)
			}
		}
	}
	if got := rowsOf(t, opts); !slices.Equal(got, []string{"new", "new", "ok"}) {
		t.Errorf("rows = %q", got)
	}
}

// TestMissingSourceIsAnError: a local source that does not exist fails the
// run, and no directory is created for it.
func TestMissingSourceIsAnError(t *testing.T) {
	dir := t.TempDir()
	_, err := Env{}.Open(context.Background(), parse(t, dir, "s1", map[string]string{}))
	if err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("Open = %v, want a does-not-exist error", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "in")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the missing source was created: %v", err)
	}
}
