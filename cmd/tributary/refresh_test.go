package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/infra/localfs"
)

// lastOps returns the operations of the table's commits, oldest first.
func historyOps(t *testing.T, c *cli) []string {
	t.Helper()
	out, errs, code := c.exec("history", c.table, "--json")
	if code != 0 {
		t.Fatalf("history: %s", errs)
	}
	var rows []historyRow
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	ops := make([]string, len(rows))
	for i, r := range rows {
		ops[len(rows)-1-i] = r.Operation
	}
	return ops
}

func TestRefresh(t *testing.T) {
	tests := []struct {
		name   string
		stream []string // --stream flag, or none (generated id)
	}{
		{name: "generated stream id"},
		{name: "named stream", stream: []string{"--stream", "orders"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCLI(t)
			c.extra = tc.stream
			c.file("p=a/1.json", `{"id":1,"v":"x"}`+"\n")
			c.file("p=b/2.json", `{"id":2,"v":"y"}`+"\n")
			if _, errs, code := c.run("cloudFiles.maxFilesPerTrigger=1"); code != 0 {
				t.Fatal(errs)
			}
			if d := c.describe(); d.NumRecords != 2 || len(d.PartitionColumns) != 0 {
				t.Fatalf("before: %+v", d)
			}
			// Partitioning cannot change under a running stream: the error
			// says a full refresh is needed, and how.
			_, errs, code := c.run("cloudFiles.partitionColumns=p")
			if code == 0 || !strings.Contains(errs, "a full refresh is needed") || !strings.Contains(errs, "tributary refresh") {
				t.Fatalf("partitioning changed: %d %q", code, errs)
			}
			// The refresh: one commit removing every file, then ingestion
			// from scratch with the new partitioning.
			args := append([]string{"refresh", "--source", c.src, "--table", c.table, "--checkpoint", c.cp,
				"--option", "cloudFiles.format=json", "--option", "cloudFiles.inferColumnTypes=true",
				"--option", "cloudFiles.partitionColumns=p"}, tc.stream...)
			out, errs, code := c.exec(args...)
			if code != 0 {
				t.Fatalf("refresh: %d %q %q", code, out, errs)
			}
			if !strings.Contains(out, "removes all 2 files") || !strings.Contains(errs, "skipChangeCommits") || !strings.Contains(out, "ingested 2 rows") {
				t.Fatalf("refresh output: %q %q", out, errs)
			}
			d := c.describe()
			if d.NumRecords != 2 || strings.Join(d.PartitionColumns, ",") != "p" {
				t.Fatalf("after refresh: %+v", d)
			}
			ops := historyOps(t, c)
			if got := strings.Join(ops, ","); got != "STREAMING UPDATE,STREAMING UPDATE,TRUNCATE,STREAMING UPDATE" {
				t.Fatalf("history: %s", got)
			}
			// The batches restarted at 0 under the same appId.
			st, err := localfs.New(c.table)
			if err != nil {
				t.Fatal(err)
			}
			snap, err := delta.NewTable(st).Snapshot(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for app, tx := range snap.Txns() {
				if tx.Version != 0 {
					t.Fatalf("txn %s at %d, want 0 (one batch since the refresh)", app, tx.Version)
				}
			}
			// Runs go on from the new checkpoint.
			out, _, code = c.run("cloudFiles.partitionColumns=p")
			if code != 0 || !strings.Contains(out, "nothing new") {
				t.Fatalf("run after refresh: %d %q", code, out)
			}
			c.file("p=c/3.json", `{"id":3,"v":"z"}`+"\n")
			if _, errs, code := c.run("cloudFiles.partitionColumns=p"); code != 0 {
				t.Fatal(errs)
			}
			if d := c.describe(); d.NumRecords != 3 {
				t.Fatalf("after a new file: %+v", d)
			}
			// A checkpoint-only reset keeps the rows and ingests again:
			// duplicates, as the seed warns.
			args[0] = "reset-checkpoint"
			out, errs, code = c.exec(args...)
			if code != 0 || !strings.Contains(errs, "written twice") {
				t.Fatalf("reset-checkpoint: %d %q %q", code, out, errs)
			}
			if d := c.describe(); d.NumRecords != 6 {
				t.Fatalf("after reset-checkpoint: %+v", d)
			}
			if ops := historyOps(t, c); ops[len(ops)-2] != "RESET STREAM CHECKPOINT" {
				t.Fatalf("history: %v", ops)
			}
		})
	}
}

func TestRefreshNoRunAndNewTable(t *testing.T) {
	c := newCLI(t)
	c.file("a.json", `{"id":1}`+"\n")
	args := []string{"refresh", "--source", c.src, "--table", c.table, "--checkpoint", c.cp,
		"--option", "cloudFiles.format=json", "--no-run"}
	out, errs, code := c.exec(args...)
	if code != 0 || !strings.Contains(out, "does not exist yet") {
		t.Fatalf("refresh of a new stream: %d %q %q", code, out, errs)
	}
	if _, errs, code := c.run(); code != 0 {
		t.Fatal(errs)
	}
	out, errs, code = c.exec(args...)
	if code != 0 || !strings.Contains(out, "removes all 1 files") || strings.Contains(out, "ingested") {
		t.Fatalf("refresh --no-run: %d %q %q", code, out, errs)
	}
	if d := c.describe(); d.NumRecords != 0 || d.NumFiles != 0 {
		t.Fatalf("after refresh --no-run: %+v", d)
	}
	if _, errs, code := c.run(); code != 0 {
		t.Fatal(errs)
	}
	if d := c.describe(); d.NumRecords != 1 {
		t.Fatalf("after the run: %+v", d)
	}
}

// TestFullRefreshNeeded breaks a stream's checkpoint in the ways seed 004
// lists: each run is refused with an error that says a full refresh is
// needed and how to run it, and `tributary refresh` then rebuilds the table.
func TestFullRefreshNeeded(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(t *testing.T, c *cli)
		opts   []string // options of the refused run (and of the refresh)
		want   string
		// schema, when set, is a fragment of the table's schema after
		// the refresh (the refresh applied the change).
		schema string
	}{
		{name: "schema history deleted", break_: func(t *testing.T, c *cli) {
			rmAll(t, filepath.Join(c.cp, "_schemas"))
		}, want: "schema history"},
		{name: "schema history corrupt", break_: func(t *testing.T, c *cli) {
			writeFile(t, filepath.Join(c.cp, "_schemas", "0"), "{not json")
		}, want: "is corrupt"},
		{name: "batch plan corrupt", break_: func(t *testing.T, c *cli) {
			writeFile(t, filepath.Join(c.cp, "offsets", "00000000000000000001.json"), "{")
		}, want: "is corrupt"},
		{name: "checkpoint deleted", break_: func(t *testing.T, c *cli) {
			rmAll(t, c.cp)
		}, want: "tributary refresh"},
		// (A deleted state.db alone is adopted: the plans' files are
		// registered again, see infra/streams TestNewStateFileIsAdopted.)
		{name: "state file deleted, a batch plan missing", break_: func(t *testing.T, c *cli) {
			rmAll(t, filepath.Join(c.cp, "state.db"))
			rmAll(t, filepath.Join(c.cp, "offsets", "00000000000000000000.json"))
		}, want: "original state store"},
		{name: "source changed", break_: func(t *testing.T, c *cli) {
			other := filepath.Join(filepath.Dir(c.src), "other")
			if err := os.Rename(c.src, other); err != nil {
				t.Fatal(err)
			}
			c.src = other
		}, want: "a full refresh is needed"},
		{name: "partitioning changed", opts: []string{"cloudFiles.partitionColumns=p"}, want: "a full refresh is needed"},
		{name: "column type narrowed by a hint", opts: []string{"cloudFiles.schemaHints=id int"}, want: "a full refresh is needed",
			schema: `"name":"id","type":"integer"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCLI(t)
			c.extra = []string{"--stream", "s"}
			c.file("p=a/1.json", `{"id":1,"v":"x"}`+"\n")
			c.file("p=b/2.json", `{"id":2,"v":"y"}`+"\n")
			if _, errs, code := c.run("cloudFiles.maxFilesPerTrigger=1"); code != 0 {
				t.Fatal(errs)
			}
			c.file("p=c/3.json", `{"id":3,"v":"z"}`+"\n")
			if tc.break_ != nil {
				tc.break_(t, c)
			}
			_, errs, code := c.run(tc.opts...)
			if code == 0 || !strings.Contains(errs, tc.want) || !strings.Contains(errs, "tributary refresh") {
				t.Fatalf("run after %s: exit %d, want an error naming %q and `tributary refresh`: %s", tc.name, code, tc.want, errs)
			}
			args := []string{"refresh", "--source", c.src, "--table", c.table, "--checkpoint", c.cp, "--stream", "s",
				"--option", "cloudFiles.format=json", "--option", "cloudFiles.inferColumnTypes=true"}
			for _, o := range tc.opts {
				args = append(args, "--option", o)
			}
			if out, errs, code := c.exec(args...); code != 0 {
				t.Fatalf("refresh: %d %q %q", code, out, errs)
			}
			d := c.describe()
			if d.NumRecords != 3 {
				t.Fatalf("after refresh: %+v", d)
			}
			var compact bytes.Buffer
			json.Compact(&compact, d.Schema)
			if tc.schema != "" && !strings.Contains(compact.String(), tc.schema) {
				t.Fatalf("schema after refresh: %s, want %s", d.Schema, tc.schema)
			}
		})
	}
}

func rmAll(t *testing.T, p string) {
	t.Helper()
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A Delta-source stream whose source table was dropped and recreated is
// refused; `tributary refresh --format delta` rebuilds the silver table
// from the new bronze.
func TestRefreshDeltaSource(t *testing.T) {
	c := newCLI(t)
	c.file("a.json", `{"id":1}`+"\n"+`{"id":2}`+"\n")
	if _, errs, code := c.run(); code != 0 {
		t.Fatalf("bronze: %s", errs)
	}
	dir := filepath.Dir(c.src)
	silver := filepath.Join(dir, "silver")
	flags := []string{"--format", "delta", "--source", c.table, "--table", silver, "--checkpoint", filepath.Join(silver, "_checkpoints")}
	if out, errs, code := c.exec(append([]string{"run"}, flags...)...); code != 0 || !strings.Contains(out, "ingested 2 rows") {
		t.Fatalf("silver: %d\n%s\n%s", code, out, errs)
	}
	// Bronze dropped and recreated with other rows.
	rmAll(t, c.table)
	rmAll(t, c.cp)
	rmAll(t, c.src)
	c.file("b.json", `{"id":7}`+"\n")
	if _, errs, code := c.run(); code != 0 {
		t.Fatalf("new bronze: %s", errs)
	}
	c.file("c.json", `{"id":8}`+"\n")
	if _, errs, code := c.run(); code != 0 {
		t.Fatalf("new bronze: %s", errs)
	}
	if _, errs, code := c.exec(append([]string{"run"}, flags...)...); code == 0 || !strings.Contains(errs, "tributary refresh") {
		t.Fatalf("silver over a recreated bronze: %d %s", code, errs)
	}
	if out, errs, code := c.exec(append([]string{"refresh"}, flags...)...); code != 0 || !strings.Contains(out, "removes all 1 files") {
		t.Fatalf("refresh: %d\n%s\n%s", code, out, errs)
	}
	if d := (&cli{t: t, table: silver}).describe(); d.NumRecords != 2 {
		t.Fatalf("silver after refresh holds %d rows, want 2 (ids 7 and 8)", d.NumRecords)
	}
}

// TestRefreshRestartsEveryWriter: a full refresh of one stream empties a
// table that other streams write too, and restarts their txns; as seed
// 004 restarts every flow writing a refreshed table, each of them starts
// over from its source on its next run (its checkpoint and file state
// reset, no row twice), and an append-once backfill writes its batch
// again.
func TestRefreshRestartsEveryWriter(t *testing.T) {
	c := newCLI(t)
	dir := filepath.Dir(c.src)
	source := func(name string, ids ...int) string { return idFiles(t, dir, name, ids...) }
	a, b, h := source("a", 1, 2), source("b", 3, 4), source("h", 9)
	stream := func(cmd, id, src string, opts ...string) (string, string) {
		t.Helper()
		args := []string{cmd, "--source", src, "--table", c.table, "--checkpoint", filepath.Join(dir, "cp-"+id), "--stream", id,
			"--option", "cloudFiles.format=json", "--option", "cloudFiles.inferColumnTypes=true", "--option", "cloudFiles.maxFilesPerTrigger=1"}
		for _, o := range opts {
			args = append(args, "--option", o)
		}
		out, errs, code := c.exec(args...)
		if code != 0 {
			t.Fatalf("%s %s: exit %d: %s", cmd, id, code, errs)
		}
		return out, errs
	}
	backfill := []string{"txnAppId=backfill", "txnVersion=1"}
	stream("run", "a", a)
	stream("run", "b", b)
	stream("run", "h", h, backfill...)
	if n := c.describe().NumRecords; n != 5 {
		t.Fatalf("before the refresh: %d rows, want 5", n)
	}
	_, errs := stream("refresh", "a", a)
	if !strings.Contains(errs, "2 other writer(s)") || !strings.Contains(errs, "starts over") {
		t.Errorf("refresh warnings: %q", errs)
	}
	if n := c.describe().NumRecords; n != 2 {
		t.Fatalf("after the refresh: %d rows, want a's 2", n)
	}
	out, errs := stream("run", "b", b)
	if !strings.Contains(errs, "starting over from its source") || !strings.Contains(out, "ingested 2 rows") {
		t.Errorf("b after the refresh: %q %q", out, errs)
	}
	stream("run", "h", h, backfill...)
	if n := c.describe().NumRecords; n != 5 {
		t.Errorf("after the other writers ran: %d rows, want 5 (each once)", n)
	}
	// b goes on from its new checkpoint.
	source("b", 5)
	if out, _ := stream("run", "b", b); !strings.Contains(out, "ingested 1 rows") {
		t.Errorf("b's next run: %q", out)
	}
	if n := c.describe().NumRecords; n != 6 {
		t.Errorf("after a new file of b: %d rows, want 6", n)
	}
	ops := historyOps(t, c)
	if !slices.Contains(ops, "RESET STREAM CHECKPOINT") {
		t.Errorf("history %v: want b's restart recorded", ops)
	}
}

// TestRefreshRestartsAPeriodicWriter: a stream running with a
// processingTime trigger while another stream of its table does a full
// refresh goes on running, and its rows are in the table again, once: its
// engine checked the table's continuity when it started, so it reads the
// table's txn{b, -1} as no batch committed yet and commits its sealed
// batch plans again from batch 0 (a new run of it would start over from
// its source instead, TestRefreshRestartsEveryWriter).
func TestRefreshRestartsAPeriodicWriter(t *testing.T) {
	c := newCLI(t)
	dir := filepath.Dir(c.src)
	idFiles(t, dir, "a", 1, 2)
	idFiles(t, dir, "b", 3, 4)
	args := func(cmd, id string) []string {
		return []string{cmd, "--source", filepath.Join(dir, id), "--table", c.table, "--checkpoint", filepath.Join(dir, "cp-"+id), "--stream", id,
			"--option", "cloudFiles.format=json", "--option", "cloudFiles.inferColumnTypes=true", "--option", "cloudFiles.maxFilesPerTrigger=1"}
	}
	if _, errs, code := c.exec(args("run", "a")...); code != 0 {
		t.Fatalf("run a: %s", errs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, append(args("run", "b"), "--trigger", "processingTime=50 milliseconds"), &out, &errb)
	}()
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for range 400 {
			if ok() {
				return
			}
			select {
			case code := <-done:
				t.Fatalf("b stopped (exit %d) waiting for %s: %s", code, what, errb.String())
			case <-time.After(25 * time.Millisecond):
			}
		}
		cancel()
		<-done
		t.Fatalf("never %s; b's stderr: %s", what, errb.String())
	}
	waitFor("4 rows before the refresh", func() bool { return c.describe().NumRecords == 4 })
	if _, errs, code := c.exec(args("refresh", "a")...); code != 0 {
		t.Fatalf("refresh a: %s", errs)
	}
	waitFor("b's batch 0 committed again", func() bool { return strings.Count(errb.String(), "batch 0: ") == 2 })
	waitFor("4 rows after the refresh", func() bool { return c.describe().NumRecords == 4 })
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("b: exit %d after interrupt: %s", code, errb.String())
	}
	if n := c.describe().NumRecords; n != 4 {
		t.Errorf("%d rows, want a's 2 and b's 2, once each", n)
	}
}

// idFiles writes a file {"id":N} for each of ids into dir/name, a
// stream's source directory, and returns it.
func idFiles(t *testing.T, dir, name string, ids ...int) string {
	t.Helper()
	d := filepath.Join(dir, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("%d.json", id)), fmt.Appendf(nil, `{"id":%d}`+"\n", id), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// syncBuffer is a bytes.Buffer written by a command running in the
// background and read by the test meanwhile.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
