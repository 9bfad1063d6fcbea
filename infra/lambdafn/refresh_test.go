package lambdafn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/state"
	tevents "github.com/tributary-io/tributary/events"
	"github.com/tributary-io/tributary/infra/localfs"
)

// tableVersion returns the table's version.
func tableVersion(t *testing.T, dir string) int64 {
	t.Helper()
	st, err := localfs.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := delta.NewTable(st).Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap.Version
}

// tableRows sums the numRecords stats of the table's live files.
func tableRows(t *testing.T, dir string) (rows int64, files int) {
	t.Helper()
	st, err := localfs.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := delta.NewTable(st).Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for a := range snap.Files() {
		s, err := a.ParseStats()
		if err != nil || s == nil {
			t.Fatalf("stats of %s: %v", a.Path, err)
		}
		rows += s.NumRecords
		files++
	}
	return rows, files
}

// sqsPayload is the SQS event (as the event source mapping invokes the
// function) of the kicks, as sqskick sends them.
func sqsPayload(t *testing.T, ks ...tevents.Kick) json.RawMessage {
	t.Helper()
	type rec struct {
		MessageID string `json:"messageId"`
		Body      string `json:"body"`
	}
	var recs []rec
	for i, k := range ks {
		b, err := k.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec{MessageID: fmt.Sprint("m", i), Body: string(b)})
	}
	out, err := json.Marshal(map[string]any{"Records": recs})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A manual invocation of the commit function queues a reset in the
// stream's kick group; the commit function runs it in order with the
// stream's other kicks: one commit empties the table, the checkpoint and
// the file state are forgotten, the source is listed again and the next
// kick ingests every file once (3 rows, not 6). A checkpoint reset keeps
// the rows (6 after the next run, as documented). Bad invocations are
// refused; a failed reset fails the stream's later kicks of the batch.
func TestCommitFunctionReset(t *testing.T) {
	dir := t.TempDir()
	src, tableDir := filepath.Join(dir, "in"), filepath.Join(dir, "table")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		os.WriteFile(filepath.Join(src, fmt.Sprintf("f%d.json", i)), []byte(fmt.Sprintf(`{"id":%d}`+"\n", i)), 0o644)
	}
	mk := func(id, table string, extra map[string]string) *options.Stream {
		o := map[string]string{"cloudFiles.format": "json", "cloudFiles.useNotifications": "true", "cloudFiles.maxFilesPerTrigger": "2"}
		for k, v := range extra {
			o[k] = v
		}
		s, err := options.Parse(o, options.Locations{StreamID: id, Source: src, Table: table,
			CheckpointLocation: filepath.Join(dir, "cp-"+id), SchemaLocation: filepath.Join(dir, "cp-"+id)})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := mk("s", tableDir, nil)
	ao := mk("ao", filepath.Join(dir, "ao"), map[string]string{"delta.appendOnly": "true"})
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	env := runtimeEnv()
	env.Logger, env.TempDir = logger, t.TempDir()
	k := &kicks{}
	app := &App{Config: &options.Config{Streams: []*options.Stream{s, ao}}, Env: env, Logger: logger, Metrics: io.Discard, Kicker: k}
	t.Cleanup(func() { app.forget("s"); app.forget("ao") })
	ctx := context.Background()
	at := app.now()
	run := func(ks ...tevents.Kick) []string {
		t.Helper()
		out, err := app.HandleCommitInvoke(ctx, sqsPayload(t, ks...))
		if err != nil {
			t.Fatal(err)
		}
		var failed []string
		resp, _ := json.Marshal(out)
		var r struct {
			BatchItemFailures []struct{ ItemIdentifier string } `json:"batchItemFailures"`
		}
		if err := json.Unmarshal(resp, &r); err != nil {
			t.Fatal(err)
		}
		for _, f := range r.BatchItemFailures {
			failed = append(failed, f.ItemIdentifier)
		}
		return failed
	}
	for _, id := range []string{"s", "ao"} {
		st, err := app.stream(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Discover(ctx); err != nil {
			t.Fatal(err)
		}
		if f := run(tevents.Kick{Stream: id, Reason: tevents.ReasonDiscovered, At: at}); len(f) != 0 {
			t.Fatalf("commit of %s: failed %v", id, f)
		}
	}
	if rows, _ := tableRows(t, tableDir); rows != 3 {
		t.Fatalf("before: %d rows", rows)
	}

	// Bad invocations change nothing and queue nothing.
	for _, bad := range []string{`{"action":"drop","stream":"s"}`, `{"action":"refresh","stream":"nope"}`, `{}`, `[]`} {
		if _, err := app.HandleCommitInvoke(ctx, json.RawMessage(bad)); !errors.Is(err, ErrBadInvocation) {
			t.Fatalf("invocation %s: %v, want ErrBadInvocation", bad, err)
		}
	}
	if len(k.got) != 0 {
		t.Fatalf("bad invocations queued %+v", k.got)
	}

	// The manual invocation queues the refresh in the stream's group.
	out, err := app.HandleCommitInvoke(ctx, json.RawMessage(`{"action":"refresh","stream":"s"}`))
	if q, ok := out.(ResetQueued); err != nil || !ok || !q.Queued {
		t.Fatalf("refresh invocation: %+v %v", out, err)
	}
	if len(k.got) != 1 || k.got[0].Action != tevents.ActionRefresh || k.got[0].Stream != "s" || k.got[0].GroupID() != "s" {
		t.Fatalf("queued: %+v", k.got)
	}
	if rows, _ := tableRows(t, tableDir); rows != 3 {
		t.Fatalf("the invocation itself changed the table: %d rows", rows)
	}
	// The group delivers it between a commit kick and the next one.
	queued := k.got[0]
	k.got = nil
	v0 := tableVersion(t, tableDir)
	if f := run(tevents.Kick{Stream: "s", Reason: tevents.ReasonDiscovered, At: at}, queued,
		tevents.Kick{Stream: "s", Reason: tevents.ReasonContinue, At: at}); len(f) != 0 {
		t.Fatalf("refresh batch: failed %v", f)
	}
	// The kick after the reset drained the listed backlog in two batches
	// (maxFilesPerTrigger=2): every file once.
	if rows, files := tableRows(t, tableDir); rows != 3 || files != 2 {
		t.Fatalf("after the refresh batch: %d rows in %d files, want 3 in 2", rows, files)
	}
	// One truncating commit, then two batches of the new checkpoint.
	if v := tableVersion(t, tableDir); v != v0+3 {
		t.Fatalf("version %d after the refresh, want %d", v, v0+3)
	}
	// The reset kicked a commit run (never collapsed), and the runs go on.
	if len(k.got) == 0 || k.got[0].Reason != tevents.ReasonContinue {
		t.Fatalf("kicks after the refresh: %+v", k.got)
	}
	for len(k.got) > 0 {
		next := k.got[0]
		k.got = k.got[1:]
		if f := run(next); len(f) != 0 {
			t.Fatalf("run: failed %v", f)
		}
	}
	if rows, files := tableRows(t, tableDir); rows != 3 || files != 2 {
		t.Fatalf("after the refresh: %d rows in %d files, want 3 in 2 (every file once)", rows, files)
	}
	st, err := app.stream(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for e, err := range st.State.Entries(ctx, "s") {
		if err != nil {
			t.Fatal(err)
		}
		if e.State != state.Committed || e.BatchID > 1 {
			t.Fatalf("entry after the refresh: %+v", e)
		}
		n++
	}
	if n != 3 {
		t.Fatalf("%d entries after the refresh", n)
	}

	// A checkpoint reset keeps the rows: the files are ingested again.
	k.got = nil
	if f := run(tevents.Kick{Stream: "s", Reason: tevents.ReasonManual, At: at, Action: tevents.ActionResetCheckpoint}); len(f) != 0 {
		t.Fatalf("reset-checkpoint: failed %v", f)
	}
	for len(k.got) > 0 {
		next := k.got[0]
		k.got = k.got[1:]
		if f := run(next); len(f) != 0 {
			t.Fatalf("run: failed %v", f)
		}
	}
	if rows, _ := tableRows(t, tableDir); rows != 6 {
		t.Fatalf("after reset-checkpoint: %d rows, want 6", rows)
	}

	// A refresh of an append-only table fails: it and the stream's later
	// kicks of the batch are reported failed (retried in order); another
	// stream's kick runs.
	k.got = nil
	f := run(tevents.Kick{Stream: "ao", Reason: tevents.ReasonManual, At: at, Action: tevents.ActionRefresh},
		tevents.Kick{Stream: "ao", Reason: tevents.ReasonContinue, At: at},
		tevents.Kick{Stream: "s", Reason: tevents.ReasonContinue, At: at})
	if fmt.Sprint(f) != "[m0 m1]" {
		t.Fatalf("failed %v, want [m0 m1]", f)
	}
	if rows, _ := tableRows(t, filepath.Join(dir, "ao")); rows != 3 {
		t.Fatalf("append-only table after the refused refresh: %d rows", rows)
	}
}

// A full refresh of one stream empties a table that another stream of the
// deployment writes too, and restarts its txn: that stream's next commit
// run starts it over from its source (seed 004 restarts every flow
// writing a refreshed table) instead of failing on its stale checkpoint:
// it resets its checkpoint and file state in its place in the group,
// lists its source again and kicks itself, and every row of both sources
// is in the table once.
func TestCommitFunctionRestartsOtherWriters(t *testing.T) {
	dir := t.TempDir()
	tableDir := filepath.Join(dir, "table")
	mk := func(id string, ids ...int) *options.Stream {
		src := filepath.Join(dir, "in-"+id)
		if err := os.MkdirAll(src, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, i := range ids {
			os.WriteFile(filepath.Join(src, fmt.Sprintf("f%d.json", i)), []byte(fmt.Sprintf(`{"id":%d}`+"\n", i)), 0o644)
		}
		o := map[string]string{"cloudFiles.format": "json", "cloudFiles.useNotifications": "true", "cloudFiles.maxFilesPerTrigger": "1"}
		s, err := options.Parse(o, options.Locations{StreamID: id, Source: src, Table: tableDir,
			CheckpointLocation: filepath.Join(dir, "cp-"+id), SchemaLocation: filepath.Join(dir, "cp-"+id)})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	env := runtimeEnv()
	env.Logger, env.TempDir = logger, t.TempDir()
	k := &kicks{}
	app := &App{Config: &options.Config{Streams: []*options.Stream{mk("s", 1, 2), mk("u", 3, 4)}}, Env: env, Logger: logger, Metrics: io.Discard, Kicker: k}
	t.Cleanup(func() { app.forget("s"); app.forget("u") })
	ctx := context.Background()
	at := app.now()
	run := func(ks ...tevents.Kick) {
		t.Helper()
		out, err := app.HandleCommitInvoke(ctx, sqsPayload(t, ks...))
		if err != nil {
			t.Fatal(err)
		}
		if r, ok := out.(events.SQSEventResponse); !ok || len(r.BatchItemFailures) != 0 {
			t.Fatalf("kicks %+v: %+v", ks, out)
		}
	}
	drain := func() {
		t.Helper()
		for len(k.got) > 0 {
			next := k.got[0]
			k.got = k.got[1:]
			run(next)
		}
	}
	for _, id := range []string{"s", "u"} {
		st, err := app.stream(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Discover(ctx); err != nil {
			t.Fatal(err)
		}
		run(tevents.Kick{Stream: id, Reason: tevents.ReasonDiscovered, At: at})
		drain()
	}
	if rows, _ := tableRows(t, tableDir); rows != 4 {
		t.Fatalf("before: %d rows, want 4", rows)
	}
	run(tevents.Kick{Stream: "s", Reason: tevents.ReasonManual, At: at, Action: tevents.ActionRefresh})
	drain()
	if rows, _ := tableRows(t, tableDir); rows != 2 {
		t.Fatalf("after the refresh of s: %d rows, want s's 2", rows)
	}
	// A new container: u's engine checks its checkpoint against the table
	// (a warm one replays u's sealed batches, which holds the same rows).
	app.forget("u")
	run(tevents.Kick{Stream: "u", Reason: tevents.ReasonBackfill, At: at})
	drain()
	if rows, _ := tableRows(t, tableDir); rows != 4 {
		t.Fatalf("after u's next run: %d rows, want 4 (u's rows again, once)", rows)
	}
}
