package options_test

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/localfs"
	"github.com/tributary-io/tributary/infra/streams"
)

// optionCase proves the effect of one or more options.
type optionCase struct {
	// name is the subtest name.
	name string
	// options are the documented names (registry spelling) whose effect
	// run proves: run must fail if any of them were ignored.
	options []string
	// run is the case.
	run func(t *testing.T)
}

// allCases lists every area's cases.
func allCases() []optionCase {
	return slices.Concat(coreCases(), readerCases(), scanCases(), discoveryCases(), sinkCases(), cliCases(), csvCases(), perfCases(),
		colfmtCases(), rowfmtCases(), widenCases(), jsonoptsCases(), deltasrcCases(), sinkmodeCases(), maintCases(), costCases(), replaceCases())
}

// pipe is one stream's locations: a source directory, a table and a
// checkpoint, all under a test's temporary directory.
type pipe struct {
	t          *testing.T
	root       string
	src        string
	table      string
	checkpoint string
	// id is the stream id (default "s").
	id string
	// schemaAt is the schema location (default: the checkpoint).
	schemaAt string
	// userSchema, when set, is the stream's .schema() DDL.
	userSchema string
	// now, when set, is the engine's clock.
	now func() time.Time
}

// newPipe makes an empty source directory and locations for a table and a
// checkpoint (not created).
func newPipe(t *testing.T) *pipe {
	t.Helper()
	root := t.TempDir()
	p := &pipe{t: t, root: root, src: filepath.Join(root, "src"), table: filepath.Join(root, "table"), checkpoint: filepath.Join(root, "checkpoint"), id: "s"}
	if err := os.MkdirAll(p.src, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// write creates the source file rel (slash-separated, under the source
// directory) with content; a ".gz" name is gzipped.
func (p *pipe) write(rel, content string) string {
	p.t.Helper()
	path := filepath.Join(p.src, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	data := []byte(content)
	if filepath.Ext(rel) == ".gz" {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		data = b.Bytes()
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		p.t.Fatal(err)
	}
	return path
}

// writeBytes creates the source file rel with raw bytes (no compression).
func (p *pipe) writeBytes(rel string, data []byte) string {
	p.t.Helper()
	path := filepath.Join(p.src, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		p.t.Fatal(err)
	}
	return path
}

// load parses opts as the CLI does (cloudFiles.format defaults to json,
// the schema location to the checkpoint) and validates the engine config.
func (p *pipe) load(opts map[string]string) (*options.Stream, error) {
	raw := map[string]string{"cloudFiles.format": "json"}
	maps.Copy(raw, opts)
	s, err := options.Parse(raw, options.Locations{
		StreamID:           p.id,
		Source:             p.src,
		Table:              p.table,
		CheckpointLocation: p.checkpoint,
		SchemaLocation:     cmp.Or(p.schemaAt, p.checkpoint),
		UserSchema:         p.userSchema,
	})
	if err != nil {
		return nil, err
	}
	if _, err := ingest.ConfigFromOptions(s); err != nil {
		return nil, err
	}
	return s, nil
}

// run loads opts and runs one availableNow pass (discover, then every
// batch), as `tributary run` does. The returned error is the load's or
// the run's.
func (p *pipe) run(opts map[string]string) (ingest.Summary, error) {
	p.t.Helper()
	s, err := p.load(opts)
	if err != nil {
		return ingest.Summary{}, err
	}
	ctx := p.t.Context()
	env := streams.Env{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), TempDir: p.t.TempDir()}
	st, err := env.Open(ctx, s)
	if err != nil {
		return ingest.Summary{}, err
	}
	defer st.Close()
	if p.now != nil {
		st.Engine.Now = p.now
	}
	if _, err := st.Discover(ctx); err != nil {
		return ingest.Summary{}, err
	}
	return st.Engine.RunAvailableNow(ctx, nil)
}

// mustRun is run that fails the test on error.
func (p *pipe) mustRun(opts map[string]string) ingest.Summary {
	p.t.Helper()
	sum, err := p.run(opts)
	if err != nil {
		p.t.Fatalf("run %v: %v", opts, err)
	}
	return sum
}

// snapshot loads the table (nil when it does not exist yet).
func (p *pipe) snapshot() *delta.Snapshot {
	p.t.Helper()
	store, err := localfs.New(p.table)
	if err != nil {
		p.t.Fatal(err)
	}
	snap, err := delta.NewTable(store).Snapshot(p.t.Context())
	if errors.Is(err, delta.ErrNotATable) {
		return nil
	}
	if err != nil {
		p.t.Fatalf("loading table: %v", err)
	}
	return snap
}

// rows reads every row of the table, partition values included, keyed by
// wantDecimalRows checks a table of n rows {id, x} read from records
// whose x is 1.5: the schema is schema, and every record was read plainly
// (id set, x as the first row's, nothing rescued), as the cases of files
// read in parallel chunks expect (an option a chunk's worker dropped
// would type or rescue some rows differently).
func (p *pipe) wantDecimalRows(schema []string, n int) {
	p.t.Helper()
	if got := p.schema(); !slices.Equal(got, schema) {
		p.t.Errorf("schema %v, want %v", got, schema)
	}
	rows := p.rows()
	if len(rows) != n {
		p.t.Fatalf("%d rows, want %d", len(rows), n)
	}
	for _, r := range rows {
		if r["id"] == nil || r["x"] == nil || fmtValue(r["x"]) != fmtValue(rows[0]["x"]) || r["_rescued_data"] != nil {
			p.t.Fatalf("row %v: want every record read (id set, x 1.5 as the first row, nothing rescued)", r)
		}
	}
}

// column name; sorted by their printed form so cases can compare.
func (p *pipe) rows() []map[string]any {
	p.t.Helper()
	snap := p.snapshot()
	if snap == nil {
		return nil
	}
	var out []map[string]any
	for a := range snap.Files() {
		key, err := delta.ObjectKey(a.Path)
		if err != nil {
			p.t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(p.table, filepath.FromSlash(key)))
		if err != nil {
			p.t.Fatal(err)
		}
		sch, rows, err := parquetio.ReadFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			p.t.Fatalf("reading %s: %v", key, err)
		}
		for _, r := range rows {
			m := map[string]any{}
			for i, f := range sch.Fields {
				m[f.Name] = r[i]
			}
			for k, v := range a.PartitionValues {
				if v != nil {
					m[k] = *v
				} else {
					m[k] = nil
				}
			}
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return fmtRow(out[i]) < fmtRow(out[j]) })
	return out
}

// schema returns the table schema's columns as "name TYPE" DDL, in order.
func (p *pipe) schema() []string {
	p.t.Helper()
	snap := p.snapshot()
	if snap == nil {
		return nil
	}
	var out []string
	for _, f := range snap.Schema().Fields {
		out = append(out, f.Name+" "+schema.DDLType(f.Type))
	}
	return out
}

// column returns the values of one column over rows(), sorted by print form.
func (p *pipe) column(name string) []string {
	p.t.Helper()
	var out []string
	for _, r := range p.rows() {
		out = append(out, fmtValue(r[name]))
	}
	sort.Strings(out)
	return out
}

// entries lists the stream's file state, sorted by path.
func (p *pipe) entries() []state.Entry {
	p.t.Helper()
	st, closeFn, err := streams.Env{}.OpenState(p.checkpoint)
	if err != nil {
		p.t.Fatalf("opening state: %v", err)
	}
	defer closeFn()
	var out []state.Entry
	for e, err := range st.Entries(context.Background(), p.id) {
		if err != nil {
			p.t.Fatal(err)
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// stateOf returns the ingestion state of each file by path.
func (p *pipe) stateOf() map[string]state.IngestionState {
	m := map[string]state.IngestionState{}
	for _, e := range p.entries() {
		m[e.Path] = e.State
	}
	return m
}
