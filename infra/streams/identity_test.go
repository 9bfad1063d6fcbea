package streams

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/boltstate"
	"github.com/tributary-io/tributary/infra/localfs"
)

// site is one stream's locations under a test directory; each field may be
// changed between runs to play a user who changes a flag.
type site struct {
	t                         *testing.T
	dir                       string
	id                        string
	source, table, checkpoint string
	userSchema                string
	logs                      *strings.Builder
}

func newSite(t *testing.T) *site {
	dir := t.TempDir()
	return &site{t: t, dir: dir, id: "s1", source: filepath.Join(dir, "in"), table: filepath.Join(dir, "table"), checkpoint: filepath.Join(dir, "cp"), logs: &strings.Builder{}}
}

func (s *site) file(rel, body string) {
	s.t.Helper()
	write(s.t, filepath.Join(s.source, rel), body, time.Time{})
}

func (s *site) opts(raw map[string]string) *options.Stream {
	s.t.Helper()
	m := map[string]string{"cloudFiles.format": "json"}
	for k, v := range raw {
		m[k] = v
	}
	o, err := options.Parse(m, options.Locations{
		StreamID: s.id, Source: s.source, Table: s.table,
		CheckpointLocation: s.checkpoint, SchemaLocation: s.checkpoint, UserSchema: s.userSchema,
	})
	if err != nil {
		s.t.Fatal(err)
	}
	return o
}

// run opens the stream as the CLI does, discovers and runs availableNow.
func (s *site) run(raw map[string]string) (ingest.Summary, error) {
	s.t.Helper()
	return s.runOpts(s.opts(raw))
}

func (s *site) runOpts(o *options.Stream) (ingest.Summary, error) {
	s.t.Helper()
	ctx := context.Background()
	env := Env{Logger: slog.New(slog.NewTextHandler(s.logs, nil)), TempDir: s.t.TempDir()}
	st, err := env.Open(ctx, o)
	if err != nil {
		return ingest.Summary{}, err
	}
	defer st.Close()
	if _, err := st.Discover(ctx); err != nil {
		return ingest.Summary{}, err
	}
	return st.Engine.RunAvailableNow(ctx, nil)
}

func (s *site) mustRun(raw map[string]string) ingest.Summary {
	s.t.Helper()
	sum, err := s.run(raw)
	if err != nil {
		s.t.Fatalf("run: %v", err)
	}
	return sum
}

// entries lists the file state of stream id in the checkpoint.
func (s *site) entries() map[string]state.IngestionState {
	s.t.Helper()
	st, closeFn, err := Env{}.OpenState(s.checkpoint)
	if err != nil {
		s.t.Fatal(err)
	}
	defer closeFn()
	out := map[string]state.IngestionState{}
	for e, err := range st.Entries(context.Background(), s.id) {
		if err != nil {
			s.t.Fatal(err)
		}
		out[e.Path] = e.State
	}
	return out
}

// numRows counts the rows of the table at dir (0 when it is no table).
func numRows(t *testing.T, dir string) int64 {
	t.Helper()
	store, err := localfs.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := delta.NewTable(store).Snapshot(context.Background())
	if errors.Is(err, delta.ErrNotATable) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for a := range snap.Files() {
		st, err := a.ParseStats()
		if err != nil || st == nil {
			t.Fatalf("stats of %s: %v", a.Path, err)
		}
		n += st.NumRecords
	}
	return n
}

func tableColumns(t *testing.T, dir string) []string {
	t.Helper()
	store, err := localfs.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := delta.NewTable(store).Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range snap.Schema().Fields {
		out = append(out, f.Name+" "+f.Type.String())
	}
	return out
}

func wantRefusal(t *testing.T, err error, target error, words ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("the run was accepted; want a refusal naming %q", words)
	}
	if target != nil && !errors.Is(err, target) {
		t.Errorf("error %q does not wrap %v", err, target)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

// A run pointed at the wrong source is refused before its files are
// registered: the correct source's later file with the same name is
// ingested, and nothing is marked SKIPPED.
func TestWrongSourceIsRefusedBeforeRegistering(t *testing.T) {
	s := newSite(t)
	s.file("a.json", `{"x":"a"}`+"\n")
	s.mustRun(nil)
	right := s.source
	s.source = filepath.Join(s.dir, "other")
	write(t, filepath.Join(s.source, "b.json"), `{"x":"wrong"}`+"\n", time.Time{})
	_, err := s.run(nil)
	wantRefusal(t, err, ingest.ErrFullRefreshNeeded, right, s.source)
	if got := s.entries(); len(got) != 1 {
		t.Fatalf("after the refused run the state holds %v; want only a.json", got)
	}
	s.source = right
	s.mustRun(nil)
	s.file("b.json", `{"x":"b"}`+"\n")
	if sum := s.mustRun(nil); sum.Rows() != 1 {
		t.Fatalf("b.json arriving in the right source: %d rows ingested, want 1", sum.Rows())
	}
	for p, st := range s.entries() {
		if st != state.Committed {
			t.Errorf("%s is %s, want COMMITTED", p, st)
		}
	}
}

// A changed partitioning or txnAppId on the same checkpoint is
// refused before anything is registered or written.
func TestChangedIdentityIsRefused(t *testing.T) {
	tests := []struct {
		name  string
		first map[string]string
		then  map[string]string
		words []string
	}{
		{"partitioning", nil, map[string]string{"cloudFiles.partitionColumns": "day"}, []string{"cloudFiles.partitionColumns", "day"}},
		{"txnAppId", nil, map[string]string{"txnAppId": "other"}, []string{"txnAppId", "s1", "other"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSite(t)
			s.file("day=1/a.json", `{"x":"a"}`+"\n")
			s.mustRun(tt.first)
			s.file("day=1/b.json", `{"x":"b"}`+"\n")
			_, err := s.run(tt.then)
			wantRefusal(t, err, ingest.ErrFullRefreshNeeded, tt.words...)
			if got := s.entries(); len(got) != 1 {
				t.Errorf("the refused run registered files: %v", got)
			}
			if n := numRows(t, s.table); n != 1 {
				t.Errorf("table rows = %d, want 1", n)
			}
		})
	}
}

// The same checkpoint pointed at another table is refused: its batches
// would be replayed into it.
func TestChangedTableIsRefused(t *testing.T) {
	s := newSite(t)
	s.file("a.json", `{"x":"a"}`+"\n")
	s.mustRun(nil)
	first := s.table
	s.table = filepath.Join(s.dir, "table2")
	_, err := s.run(nil)
	wantRefusal(t, err, ingest.ErrFullRefreshNeeded, first, s.table)
	if n := numRows(t, s.table); n != 0 {
		t.Errorf("the other table got %d rows", n)
	}
}

// A table deleted (or replaced) under a checkpoint that already committed
// batches to it is refused: replaying the sealed plans would rebuild only
// part of it.
func TestReplacedTableIsRefused(t *testing.T) {
	s := newSite(t)
	s.file("a.json", `{"x":"a"}`+"\n")
	s.mustRun(nil)
	s.file("b.json", `{"x":"b"}`+"\n")
	s.mustRun(nil)
	if err := os.RemoveAll(s.table); err != nil {
		t.Fatal(err)
	}
	_, err := s.run(nil)
	wantRefusal(t, err, ingest.ErrStreamMismatch, "sealed batch 1", "batch 0 was committed", s.table)
	if n := numRows(t, s.table); n != 0 {
		t.Errorf("the replaced table got %d rows", n)
	}
}

// A deleted checkpoint next to a table that holds the stream's batches is
// refused instead of ingesting every file again.
func TestDeletedCheckpointIsRefused(t *testing.T) {
	s := newSite(t)
	s.file("a.json", `{"x":"a"}`+"\n")
	s.file("b.json", `{"x":"b"}`+"\n")
	s.mustRun(nil)
	if err := os.RemoveAll(s.checkpoint); err != nil {
		t.Fatal(err)
	}
	_, err := s.run(nil)
	wantRefusal(t, err, ingest.ErrStreamMismatch, "checkpoint", "s1", "tributary refresh", "tributary reset-checkpoint", "restore the checkpoint")
	if n := numRows(t, s.table); n != 2 {
		t.Errorf("table rows = %d, want 2 (no duplicates)", n)
	}
	// A new stream (id and checkpoint) is the way out, on purpose.
	s.id, s.checkpoint = "s2", filepath.Join(s.dir, "cp2")
	if sum := s.mustRun(nil); sum.Rows() != 2 {
		t.Errorf("new stream id: %d rows, want 2", sum.Rows())
	}
}

// A new (empty) state.db next to the checkpoint's plans: the checkpoint
// recorded another state store, so the files of its plans are registered
// again as committed before discovery, and nothing is ingested twice.
func TestNewStateFileIsAdopted(t *testing.T) {
	s := newSite(t)
	s.file("a.json", `{"x":"a"}`+"\n")
	s.mustRun(nil)
	s.file("b.json", `{"x":"b"}`+"\n")
	s.mustRun(nil)
	replaceStateFile(t, s)
	if sum := s.mustRun(nil); sum.Rows() != 0 {
		t.Errorf("run on a new state.db ingested %d rows, want 0", sum.Rows())
	}
	if n := numRows(t, s.table); n != 2 {
		t.Errorf("table rows = %d, want 2 (no duplicates)", n)
	}
	want := map[string]state.IngestionState{"a.json": state.Committed, "b.json": state.Committed}
	if got := s.entries(); !maps.Equal(got, want) {
		t.Errorf("file state = %v, want %v", got, want)
	}
	if !strings.Contains(s.logs.String(), "registering the files of its batch plans again") {
		t.Errorf("no log of the re-registration in %s", s.logs)
	}
	// The stream goes on: a new file is ingested once.
	s.file("c.json", `{"x":"c"}`+"\n")
	if sum := s.mustRun(nil); sum.Rows() != 1 {
		t.Errorf("new file after the adoption: %d rows, want 1", sum.Rows())
	}
	if n := numRows(t, s.table); n != 3 {
		t.Errorf("table rows = %d, want 3", n)
	}
}

// A new state.db while a batch plan is missing is refused: the committed
// files cannot all be registered again.
func TestNewStateFileWithoutPlansIsRefused(t *testing.T) {
	s := newSite(t)
	s.file("a.json", `{"x":"a"}`+"\n")
	s.mustRun(nil)
	s.file("b.json", `{"x":"b"}`+"\n")
	s.mustRun(nil)
	replaceStateFile(t, s)
	if err := os.Remove(filepath.Join(s.checkpoint, "offsets", fmt.Sprintf("%020d.json", 0))); err != nil {
		t.Fatal(err)
	}
	_, err := s.run(nil)
	wantRefusal(t, err, ingest.ErrStreamMismatch, "state store", "bolt:", "plan 0", "original state store", "tributary refresh")
	if n := numRows(t, s.table); n != 2 {
		t.Errorf("table rows = %d, want 2", n)
	}
	if got := s.entries(); len(got) != 0 {
		t.Errorf("file state after the refusal = %v, want nothing registered", got)
	}
}

// replaceStateFile replaces the stream's state.db by a new, empty one.
func replaceStateFile(t *testing.T, s *site) {
	t.Helper()
	path := filepath.Join(s.checkpoint, StateFileName)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	st, err := boltstate.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// The CLI without --stream takes its stream id from the checkpoint, and
// makes a new one for a new checkpoint: a deleted checkpoint must not turn
// into a second copy of every row.
func TestDeletedCheckpointWithGeneratedIDIsRefused(t *testing.T) {
	s := newSite(t)
	s.file("a.json", `{"x":"a"}`+"\n")
	cliRun := func() error {
		cp, err := Env{}.OpenStore(s.checkpoint)
		if err != nil {
			t.Fatal(err)
		}
		m, err := CheckpointMetadata(context.Background(), cp, "", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		s.id = m.ID
		_, err = s.run(nil)
		return err
	}
	if err := cliRun(); err != nil {
		t.Fatal(err)
	}
	first := s.id
	if err := cliRun(); err != nil {
		t.Fatalf("second run on the same checkpoint: %v", err)
	}
	if err := os.RemoveAll(s.checkpoint); err != nil {
		t.Fatal(err)
	}
	err := cliRun()
	wantRefusal(t, err, ingest.ErrStreamMismatch, first, s.source, "--stream")
	if n := numRows(t, s.table); n != 1 {
		t.Errorf("table rows = %d, want 1", n)
	}
	// Refused again on the next try (nothing was recorded meanwhile).
	wantRefusal(t, cliRun(), ingest.ErrStreamMismatch, first)
	// A stream id chosen on purpose (with its own checkpoint) ingests again.
	s.id, s.checkpoint = "again", filepath.Join(s.dir, "cp2")
	if sum, err := s.run(nil); err != nil || sum.Rows() != 1 {
		t.Errorf("explicit new stream id: %d rows, %v", sum.Rows(), err)
	}
}

// Tributary's commits say which stream and source wrote them, in a
// commitInfo field other Delta readers ignore.
func TestCommitsRecordStreamAndSource(t *testing.T) {
	s := newSite(t)
	s.file("a.json", `{"x":"a"}`+"\n")
	s.mustRun(nil)
	store, _ := localfs.New(s.table)
	acts, err := delta.NewTable(store).ReadCommit(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acts {
		if a.CommitInfo == nil {
			continue
		}
		w, ok := a.CommitInfo.Extra["tributary"].(map[string]any)
		if !ok {
			t.Fatalf("commitInfo has no tributary field: %+v", a.CommitInfo.Extra)
		}
		if w["streamId"] != "s1" || w["txnAppId"] != "s1" || w["source"] != s.source {
			t.Errorf("tributary commitInfo = %v", w)
		}
		return
	}
	t.Fatal("no commitInfo")
}

// Schema hints changed between runs: a hint that adds a column becomes a
// new schema version (with a warning); one that retypes a column is
// refused with the full-refresh hint.
func TestChangedSchemaHints(t *testing.T) {
	s := newSite(t)
	s.file("a.json", `{"x":"1","y":"2"}`+"\n")
	s.mustRun(map[string]string{"cloudFiles.schemaHints": "x INT"})
	s.file("b.json", `{"x":"3","y":"4","z":"5"}`+"\n")
	s.logs.Reset()
	s.mustRun(map[string]string{"cloudFiles.schemaHints": "x INT, z BIGINT", "cloudFiles.schemaEvolutionMode": "rescue"})
	if cols := tableColumns(t, s.table); !slices.Contains(cols, "z long") {
		t.Errorf("hint adding z: table columns %v", cols)
	}
	if !strings.Contains(s.logs.String(), "schemaHints changed") {
		t.Errorf("no warning logged: %s", s.logs.String())
	}
	_, err := s.run(map[string]string{"cloudFiles.schemaHints": "x STRING, z BIGINT"})
	wantRefusal(t, err, ingest.ErrFullRefreshNeeded, "cloudFiles.schemaHints", "x")
}

// A user schema changed between runs: added columns become a new schema
// version; a retyped column is refused.
func TestChangedUserSchema(t *testing.T) {
	s := newSite(t)
	s.userSchema = "x STRING"
	s.file("a.json", `{"x":"1","y":"2"}`+"\n")
	s.mustRun(nil)
	s.userSchema = "x STRING, y STRING"
	s.file("b.json", `{"x":"3","y":"4"}`+"\n")
	s.mustRun(nil)
	cols := tableColumns(t, s.table)
	sort.Strings(cols)
	if !slices.Contains(cols, "y string") {
		t.Errorf("user schema adding y: table columns %v", cols)
	}
	s.userSchema = "x INT, y STRING"
	_, err := s.run(nil)
	wantRefusal(t, err, ingest.ErrFullRefreshNeeded, "schema", "x")
}

var _ = io.Discard
