package sinkmode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/streams"
)

// errCrash is the injected failure of a commit.
var errCrash = errors.New("injected crash between write and commit")

// crashingLog fails the conditional put of every Delta commit: the batch's
// data files are written, its commit never lands.
type crashingLog struct {
	objstore.Store
	mu      sync.Mutex
	crashed int
}

func (c *crashingLog) PutIfAbsent(ctx context.Context, key string, r io.Reader) error {
	if strings.HasPrefix(key, "_delta_log/") && strings.HasSuffix(key, ".json") {
		c.mu.Lock()
		c.crashed++
		c.mu.Unlock()
		return errCrash
	}
	return c.Store.PutIfAbsent(ctx, key, r)
}

// stream is one stream's locations.
type stream struct {
	src, table, checkpoint string
}

// run runs one availableNow pass with opts; crash makes every commit fail.
func (s stream) run(t *testing.T, opts map[string]string, crash bool) error {
	t.Helper()
	raw := map[string]string{"cloudFiles.format": "json"}
	for k, v := range opts {
		raw[k] = v
	}
	cfg, err := options.Parse(raw, options.Locations{StreamID: "upsert", Source: s.src, Table: s.table,
		CheckpointLocation: s.checkpoint, SchemaLocation: s.checkpoint})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	env := streams.Env{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), TempDir: t.TempDir()}
	st, err := env.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if crash {
		st.Engine.Table = delta.NewTable(&crashingLog{Store: st.Engine.Table.Store()}, delta.WithEngineInfo("tributary"))
	}
	if _, err := st.Discover(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = st.Engine.RunAvailableNow(ctx, nil)
	return err
}

func (s stream) write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(s.src, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// states returns each source file's ingestion state.
func (s stream) states(t *testing.T) map[string]state.IngestionState {
	t.Helper()
	st, closeFn, err := streams.Env{}.OpenState(s.checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	out := map[string]state.IngestionState{}
	for e, err := range st.Entries(context.Background(), "upsert") {
		if err != nil {
			t.Fatal(err)
		}
		out[e.Path] = e.State
	}
	return out
}

// dataFiles counts the Parquet files in the table directory.
func dataFiles(t *testing.T, table string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(table, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") && !strings.Contains(p, "_delta_log") {
			n++
		}
		return nil
	})
	return n
}

func TestUpsertThreeBatchesCrashBetweenWriteAndCommit(t *testing.T) {
	root := t.TempDir()
	s := stream{src: filepath.Join(root, "src"), table: filepath.Join(root, "table"), checkpoint: filepath.Join(root, "checkpoint")}
	if err := os.MkdirAll(s.src, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := map[string]string{"mergeKeys": "id", "cloudFiles.inferColumnTypes": "true"}

	// Batch 0: three keys.
	s.write(t, "b0.json", `{"id":1,"v":"a","n":1}`+"\n"+`{"id":2,"v":"a","n":1}`+"\n"+`{"id":3,"v":"a","n":1}`+"\n")
	if err := s.run(t, opts, false); err != nil {
		t.Fatal(err)
	}
	// Batch 1: keys 1 and 2 again; the commit crashes after the write.
	s.write(t, "b1.json", `{"id":1,"v":"b","n":2}`+"\n"+`{"id":2,"v":"b","n":2}`+"\n")
	if err := s.run(t, opts, true); !errors.Is(err, errCrash) {
		t.Fatalf("crashing run: %v, want the injected crash", err)
	}
	if got := s.states(t)["b1.json"]; got != state.Claimed {
		t.Fatalf("b1.json after the crash: %v, want CLAIMED", got)
	}
	if err := s.run(t, opts, false); err != nil {
		t.Fatalf("run after the crash: %v", err)
	}
	// Batch 2: key 1 a third time (twice in the batch: the last wins), key 4 new.
	s.write(t, "b2.json", `{"id":1,"v":"c","n":3}`+"\n"+`{"id":4,"v":"c","n":3}`+"\n"+`{"id":1,"v":"d","n":3}`+"\n")
	if err := s.run(t, opts, false); err != nil {
		t.Fatal(err)
	}
	for f, st := range s.states(t) {
		if st != state.Committed {
			t.Errorf("%s: %v, want COMMITTED", f, st)
		}
	}
	want := []string{"1=d/3", "2=b/2", "3=a/1", "4=c/3"}
	if files := dataFiles(t, s.table); files < 3 {
		t.Errorf("%d data files in the table directory", files)
	}

	// Two more tables read in the same reader processes: outputMode=complete
	// and partitionBy.
	complete := newStream(t, filepath.Join(root, "complete"))
	for i, b := range []string{`{"id":1,"v":"a"}` + "\n" + `{"id":2,"v":"a"}`, `{"id":3,"v":"b"}`} {
		complete.write(t, fmt.Sprintf("%d.json", i), b+"\n")
		if err := complete.run(t, map[string]string{"outputMode": "complete"}, false); err != nil {
			t.Fatal(err)
		}
	}
	parted := newStream(t, filepath.Join(root, "parted"))
	parted.write(t, "1.json", `{"id":1,"country":"fr"}`+"\n"+`{"id":2,"country":null}`+"\n"+`{"id":3,"country":"fr"}`+"\n")
	if err := parted.run(t, map[string]string{"partitionBy": "country"}, false); err != nil {
		t.Fatal(err)
	}

	repo := repoRoot(t)
	for _, engine := range []struct{ name, script string }{{"deltalake", "pyenv.sh"}, {"spark", "spark-env.sh"}} {
		all := readAll(t, repo, engine.script, engine.name, map[string]string{s.table: "id", complete.table: "id", parted.table: "id"})
		if got := rowStrings(all[complete.table].Rows, "id", "v"); !slices.Equal(got, []string{"3/b"}) {
			t.Errorf("%s: complete table rows %v, want the last batch's", engine.name, got)
		}
		if got := rowStrings(all[parted.table].Rows, "id", "country"); !slices.Equal(got, []string{"1/fr", "2/<nil>", "3/fr"}) {
			t.Errorf("%s: partitionBy table rows %v", engine.name, got)
		}
		if got := all[parted.table].PartitionColumns; !slices.Equal(got, []string{"country"}) {
			t.Errorf("%s: partitionBy table partition columns %v", engine.name, got)
		}
		out := all[s.table]
		var got []string
		for _, r := range out.Rows {
			got = append(got, fmt.Sprintf("%v=%v/%v", r["id"], r["v"], r["n"]))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: rows %v, want %v (each key once, its last value)", engine.name, got, want)
		}
		if out.Txn["upsert"].String() != "2" {
			t.Errorf("%s: txn %v, want upsert at batch 2", engine.name, out.Txn)
		}
		var ops []string
		for _, h := range out.History {
			ops = append(ops, fmt.Sprintf("%v:%s", h.Version, h.Operation))
		}
		slices.Sort(ops)
		if wantOps := []string{"0:MERGE", "1:MERGE", "2:MERGE"}; !slices.Equal(ops, wantOps) {
			t.Errorf("%s: history %v, want %v", engine.name, ops, wantOps)
		}
	}
}

// newStream makes the locations of a stream under dir.
func newStream(t *testing.T, dir string) stream {
	t.Helper()
	s := stream{src: filepath.Join(dir, "src"), table: filepath.Join(dir, "table"), checkpoint: filepath.Join(dir, "checkpoint")}
	if err := os.MkdirAll(s.src, 0o755); err != nil {
		t.Fatal(err)
	}
	return s
}

// rowStrings renders rows as "a/b" of two columns, sorted.
func rowStrings(rows []map[string]any, a, b string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%v/%v", r[a], r[b]))
	}
	slices.Sort(out)
	return out
}

// tableOut is what read_delta.py reports of a table.
type tableOut struct {
	Path             string                 `json:"path"`
	Rows             []map[string]any       `json:"rows"`
	PartitionColumns []string               `json:"partitionColumns"`
	Txn              map[string]json.Number `json:"txn"`
	History          []struct {
		Version   json.Number `json:"version"`
		Operation string      `json:"operation"`
	} `json:"history"`
}

func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// readWith reads the table with tests/readers/read_delta.py under the
// Python of the env script (scripts/pyenv.sh or scripts/spark-env.sh).
func readWith(t *testing.T, root, script, engine, table, key string) tableOut {
	t.Helper()
	return readAll(t, root, script, engine, map[string]string{table: key})[table]
}

// readAll reads several tables (path: key column) in one reader process.
func readAll(t *testing.T, root, script, engine string, tables map[string]string) map[string]tableOut {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(root, "scripts", script))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	bin, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/%s: %v\n%s", script, err, stderr.String())
	}
	python := filepath.Join(strings.TrimSpace(string(bin)), "python")
	// Spark's Delta jars: the ivy cache next to the Spark venv, as
	// scripts/spark-env.sh and tests/readers use it.
	ivy := filepath.Join(root, ".cache", "ivy")
	if v := os.Getenv("TRIBUTARY_SPARK_VENV"); v != "" {
		ivy = filepath.Join(filepath.Dir(v), "ivy")
	}
	dir := t.TempDir()
	var specTables []map[string]any
	for path, key := range tables {
		specTables = append(specTables, map[string]any{"path": path, "key": key})
	}
	spec, _ := json.Marshal(map[string]any{"tables": specTables, "ivy": ivy})
	specPath, outPath := filepath.Join(dir, "spec.json"), filepath.Join(dir, "out.json")
	if err := os.WriteFile(specPath, spec, 0o644); err != nil {
		t.Fatal(err)
	}
	run := exec.Command(python, filepath.Join(root, "tests", "readers", "read_delta.py"), engine, specPath, outPath)
	var log bytes.Buffer
	run.Stdout, run.Stderr = &log, &log
	if err := run.Run(); err != nil {
		t.Fatalf("%s reader: %v\n%s", engine, err, log.String())
	}
	raw, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Tables []tableOut `json:"tables"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil || len(out.Tables) != len(tables) {
		t.Fatalf("%s output: %v (%d tables)", engine, err, len(out.Tables))
	}
	m := map[string]tableOut{}
	for _, o := range out.Tables {
		m[o.Path] = o
	}
	return m
}
