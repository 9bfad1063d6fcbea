package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/infra/streams"
)

// snapshot describes every file and directory under dir (name, mode, size,
// content hash), to prove a command changed nothing.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %s %d", p, fi.Mode(), fi.Size())
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %x", sha256.Sum256(data))
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func (c *cli) config(id string, opts map[string]string) string {
	c.t.Helper()
	raw := map[string]any{"cloudFiles.format": "json"}
	for k, v := range opts {
		raw[k] = v
	}
	cfg := map[string]any{"streams": []any{map[string]any{
		"id": id, "source": c.src, "table": c.table, "checkpointLocation": c.cp, "schemaLocation": c.cp, "options": raw,
	}}}
	data, err := json.Marshal(cfg)
	if err != nil {
		c.t.Fatal(err)
	}
	p := filepath.Join(filepath.Dir(c.src), "streams.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		c.t.Fatal(err)
	}
	return p
}

func (c *cli) stateRows(args ...string) []stateRow {
	c.t.Helper()
	out, errs, code := c.exec(append([]string{"state", "--format", "json"}, args...)...)
	if code != 0 {
		c.t.Fatalf("state %v: exit %d: %s", args, code, errs)
	}
	var rows []stateRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		c.t.Fatal(err)
	}
	return rows
}

// Defect: `tributary state` wrote a fresh random stream id into a
// checkpoint first run with --stream or --config; the next run without
// --stream adopted it and ingested every file again.
func TestStateWritesNothingAndRunKeepsTheStream(t *testing.T) {
	for _, how := range []string{"--stream", "--config"} {
		t.Run(how, func(t *testing.T) {
			c := newCLI(t)
			c.file("a.json", `{"id":1}`+"\n")
			c.file("b.json", `{"id":2}`+"\n")
			var errs string
			var code int
			if how == "--stream" {
				c.extra = []string{"--stream", "orders"}
				_, errs, code = c.run()
				c.extra = nil
			} else {
				_, errs, code = c.exec("run", "--config", c.config("orders", nil))
			}
			if code != 0 {
				t.Fatalf("first run: %s", errs)
			}
			before := snapshot(t, c.cp)
			if rows := c.stateRows(c.cp); len(rows) != 2 || rows[0].IngestionState != "COMMITTED" {
				t.Fatalf("state rows: %+v", rows)
			}
			if after := snapshot(t, c.cp); after != before {
				t.Fatalf("state changed the checkpoint:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if out, errs, code := c.run(); code != 0 || !strings.Contains(out, "nothing new") {
				t.Fatalf("run without --stream: %d %q %s", code, out, errs)
			}
			if d := c.describe(); d.NumRecords != 2 {
				t.Fatalf("table holds %d rows, want 2 (each once)", d.NumRecords)
			}
		})
	}
}

// A checkpoint first run with --stream by an older version has no metadata:
// state and run find the stream in its file state.
func TestCheckpointWithoutMetadataKeepsItsStream(t *testing.T) {
	c := newCLI(t)
	c.file("a.json", `{"id":1}`+"\n")
	c.extra = []string{"--stream", "orders"}
	if _, errs, code := c.run(); code != 0 {
		t.Fatal(errs)
	}
	c.extra = nil
	if err := os.Remove(filepath.Join(c.cp, streams.MetadataKey)); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, c.cp)
	if rows := c.stateRows(c.cp); len(rows) != 1 {
		t.Fatalf("state rows: %+v", rows)
	}
	if after := snapshot(t, c.cp); after != before {
		t.Fatalf("state changed the checkpoint:\n%s\n%s", before, after)
	}
	if out, errs, code := c.run(); code != 0 || !strings.Contains(out, "nothing new") {
		t.Fatalf("run: %d %q %s", code, out, errs)
	}
	if d := c.describe(); d.NumRecords != 1 {
		t.Fatalf("rows %d, want 1", d.NumRecords)
	}
	// A different explicit stream id is refused: it would start from no state.
	c.extra = []string{"--stream", "other"}
	if _, errs, code := c.run(); code != 1 || !strings.Contains(errs, "another stream") {
		t.Fatalf("run with another stream id: %d %s", code, errs)
	}
}

// Read-only commands create nothing for locations that do not exist.
func TestReadOnlyCommandsCreateNothing(t *testing.T) {
	c := newCLI(t)
	root := filepath.Dir(c.src)
	before := snapshot(t, root)
	if _, errs, code := c.exec("state", c.cp); code != 1 || !strings.Contains(errs, c.cp) {
		t.Fatalf("state of a missing checkpoint: %d %s", code, errs)
	}
	for _, cmd := range []string{"describe", "history"} {
		if _, errs, code := c.exec(cmd, c.table); code != 1 || !strings.Contains(errs, c.table) {
			t.Fatalf("%s of a missing table: %d %s", cmd, code, errs)
		}
	}
	if after := snapshot(t, root); after != before {
		t.Fatalf("read-only commands wrote:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if err := os.MkdirAll(c.cp, 0o755); err != nil {
		t.Fatal(err)
	}
	before = snapshot(t, root)
	if _, errs, code := c.exec("state", c.cp); code != 1 || !strings.Contains(errs, "no file state") {
		t.Fatalf("state of an unused checkpoint: %d %s", code, errs)
	}
	if after := snapshot(t, root); after != before {
		t.Fatalf("read-only commands wrote:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// Defect: `tributary state` during a run waited 10 s for the run's lock
// and failed. It reads while a run holds the state open.
func TestStateWhileARunHoldsTheState(t *testing.T) {
	c := newCLI(t)
	c.file("a.json", `{"id":1}`+"\n")
	if _, errs, code := c.run(); code != 0 {
		t.Fatal(errs)
	}
	c.file("b.json", `{"id":2}`+"\n")
	opts, err := options.Parse(map[string]string{"cloudFiles.format": "json"}, options.Locations{
		StreamID: checkpointID(t, c.cp), Source: c.src, Table: c.table,
		CheckpointLocation: c.cp, SchemaLocation: c.cp,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := streams.Env{}.Open(ctx, opts) // what a run holds while it runs
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	rows := c.stateRows(c.cp)
	if len(rows) != 2 || rows[0].IngestionState != "COMMITTED" || rows[1].IngestionState != "PENDING" {
		t.Fatalf("state during the run: %+v", rows)
	}
	// The run goes on after the read.
	if sum, err := s.Engine.RunAvailableNow(ctx, nil); err != nil || sum.Rows() != 1 {
		t.Fatalf("run after state: %+v %v", sum, err)
	}
}

// checkpointID returns the stream id in the checkpoint's metadata.
func checkpointID(t *testing.T, cp string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cp, streams.MetadataKey))
	if err != nil {
		t.Fatal(err)
	}
	var m streams.Metadata
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m.ID
}

// Defect: a disk that filled while state.db was created left a 12 KiB
// file, and every later run and state died with SIGBUS.
func TestStateFileCutShortWhileCreated(t *testing.T) {
	c := newCLI(t)
	c.file("a.json", `{"id":1}`+"\n")
	if err := os.MkdirAll(c.cp, 0o755); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(c.cp, streams.StateFileName)
	// bbolt creates a file by writing 4 pages; the disk filled after 3.
	scratch := filepath.Join(t.TempDir(), "init.db")
	db, err := bolt.Open(scratch, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	data, err := os.ReadFile(scratch)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dbPath, data[:12<<10], 0o600); err != nil {
		t.Fatal(err)
	}
	_, errs, code := c.exec("state", c.cp)
	if code != 1 || !strings.Contains(errs, dbPath) || !strings.Contains(errs, "truncated") ||
		strings.Contains(errs, "locked") || strings.Contains(errs, "goroutine") {
		t.Fatalf("state: %d %s", code, errs)
	}
	// It never held state: the run replaces it and ingests.
	if out, errs, code := c.run(); code != 0 || !strings.Contains(out, "ingested 1 rows") {
		t.Fatalf("run: %d %q %s", code, out, errs)
	}
}

// A state file with data, damaged afterwards, is reported with the way
// out, by run and by state.
func TestDamagedStateFileIsReported(t *testing.T) {
	c := newCLI(t)
	c.file("a.json", `{"id":1}`+"\n")
	if _, errs, code := c.run(); code != 0 {
		t.Fatal(errs)
	}
	dbPath := filepath.Join(c.cp, streams.StateFileName)
	if err := os.Truncate(dbPath, 5<<10); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"state", c.cp}, nil} {
		var errs string
		var code int
		if args == nil {
			_, errs, code = c.run()
		} else {
			_, errs, code = c.exec(args...)
		}
		if code != 1 || !strings.Contains(errs, dbPath) || !strings.Contains(errs, "corrupt") ||
			!strings.Contains(errs, "full refresh") || strings.Contains(errs, "locked") {
			t.Fatalf("%v: %d %s", args, code, errs)
		}
	}
}

// Defect: a --source that does not exist was created as an empty directory
// and the run reported "nothing new".
func TestMissingSourceIsAnError(t *testing.T) {
	c := newCLI(t)
	c.src = filepath.Join(filepath.Dir(c.src), "typo")
	_, errs, code := c.run()
	if code != 1 || !strings.Contains(errs, c.src) {
		t.Fatalf("run: %d %s", code, errs)
	}
	if _, err := os.Stat(c.src); !os.IsNotExist(err) {
		t.Fatalf("the missing source was created: %v", err)
	}
	// Nothing else is written either: no checkpoint (with or without
	// --stream, where the id used to be recorded first), no table.
	for _, extra := range [][]string{nil, {"--stream", "s"}} {
		c.extra = extra
		if _, errs, code := c.run(); code != 1 || !strings.Contains(errs, "does not exist") {
			t.Fatalf("run %v: %d %s", extra, code, errs)
		}
		for _, p := range []string{c.cp, c.table} {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Fatalf("run %v with a missing source created %s (%v)", extra, p, err)
			}
		}
	}
}

// `--trigger once` warns that Trigger.Once is deprecated, also when it
// overrides a configuration file (where it used to be ignored).
func TestTriggerOnceWarns(t *testing.T) {
	c := newCLI(t)
	c.file("a.json", `{"id":1}`+"\n")
	c.file("b.json", `{"id":2}`+"\n")
	_, errs, code := c.exec("run", "--config", c.config("s", map[string]string{"cloudFiles.maxFilesPerTrigger": "1"}), "--trigger", "once")
	if code != 0 || !strings.Contains(errs, "trigger once is deprecated") || !strings.Contains(errs, "availableNow") {
		t.Fatalf("--config --trigger once: %d %s", code, errs)
	}
	// Once ignores the rate limit: one batch of both files.
	if d := c.describe(); d.Version != 0 || d.NumRecords != 2 {
		t.Fatalf("after trigger once: %+v", d)
	}
	c2 := newCLI(t)
	c2.file("a.json", `{"id":1}`+"\n")
	c2.extra = []string{"--trigger", "once"}
	if _, errs, code := c2.run(); code != 0 || !strings.Contains(errs, "deprecated") {
		t.Fatalf("--trigger once: %d %s", code, errs)
	}
}

// Flags that select a stream's locations or options are refused next to
// --config instead of being ignored.
func TestConfigRefusesStreamFlags(t *testing.T) {
	c := newCLI(t)
	cfg := c.config("s", nil)
	for _, extra := range [][]string{{"--option", "cloudFiles.maxFilesPerTrigger=1"}, {"--source", c.src}, {"--checkpoint", c.cp}} {
		if _, errs, code := c.exec(append([]string{"run", "--config", cfg}, extra...)...); code != 2 || !strings.Contains(errs, extra[0]) {
			t.Errorf("%v: %d %s", extra, code, errs)
		}
	}
	if _, errs, code := c.exec("state", c.cp, "--option", "x=y"); code != 2 {
		t.Errorf("state --option: %d %s", code, errs)
	}
}

// Defect: cloudFiles.useNotifications=true was accepted by the CLI, which
// only lists directories.
func TestCLIRefusesNotifications(t *testing.T) {
	c := newCLI(t)
	c.file("a.json", `{"id":1}`+"\n")
	_, errs, code := c.run("cloudFiles.useNotifications=true")
	if code != 1 || !strings.Contains(errs, "cloudFiles.useNotifications=true") || !strings.Contains(errs, "listing") {
		t.Fatalf("run: %d %s", code, errs)
	}
	if _, err := os.Stat(c.table); !os.IsNotExist(err) {
		t.Fatalf("a refused run created the table: %v", err)
	}
	if _, errs, code := c.run("cloudFiles.useNotifications=false"); code != 0 {
		t.Fatalf("useNotifications=false: %s", errs)
	}
}
