package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/ingest/schemalog"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/parquetio"
)

// onePassCSV is a CSV document of n rows (id, name, v) whose v is
// value(i) of row i: about 40 bytes a row, so that 40,000 rows are past
// the provisional schema's 1 MiB.
func onePassCSV(n int, value func(i int) string) string {
	var b strings.Builder
	b.WriteString("id,name,v\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,name number %d xxxxxxxxxx,%s\n", i, i, value(i))
	}
	return b.String()
}

// onePassRun ingests doc, one file, as a new CSV stream on threads
// (twoPass: with the schema inferred before the conversion), with the
// schema history in hist when it is not nil: the engine's log, the
// table's data files' digests (sorted), its row count and schema, and
// the run's error.
type onePassResult struct {
	log, schema string
	files       []string
	rows        int
	err         error
}

func onePassRun(t *testing.T, doc string, twoPass bool, hist objstore.Store, threads int) onePassResult {
	t.Helper()
	return onePassFiles(t, []string{doc}, twoPass, hist, threads)
}

// onePassSampleFiles is the streams' sampleSize.numFiles (0: default),
// onePassMode their schemaEvolutionMode; onePassJSON makes them JSON
// streams (else CSV with a header), onePassOptions sets their format
// options.
var (
	onePassSampleFiles int
	onePassMode        options.SchemaEvolutionMode
	onePassJSON        bool
	onePassOptions     map[string]string
)

// onePassFiles is onePassRun of several files (in/a000.csv, ...), one
// batch.
func onePassFiles(t *testing.T, docs []string, twoPass bool, hist objstore.Store, threads int) onePassResult {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(threads))
	w := newWorld()
	for i, doc := range docs {
		if err := w.src.Put(context.Background(), fmt.Sprintf("in/a%03d.csv", i), strings.NewReader(doc)); err != nil {
			t.Fatal(err)
		}
	}
	w.discover(t)
	return onePassAgain(t, w, twoPass, hist, threads)
}

// onePassAgain runs the stream of w again (onePassRun).
func onePassAgain(t *testing.T, w *world, twoPass bool, hist objstore.Store, threads int) onePassResult {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(threads))
	var logs bytes.Buffer
	e := w.engine(t, Limits{})
	if !onePassJSON {
		e.Config.Format, _ = formats.Lookup("csv")
		e.Config.FormatOptions = map[string]string{"header": "true"}
	}
	if onePassOptions != nil {
		e.Config.FormatOptions = onePassOptions
	}
	e.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	e.twoPass = twoPass
	e.Config.Schema.SampleFiles = onePassSampleFiles
	e.Config.Schema.EvolutionMode = onePassMode
	if hist != nil {
		e.SchemaStore = hist
	}
	var res onePassResult
	_, res.err = e.RunAvailableNow(context.Background(), nil)
	res.log = logs.String()
	ctx := context.Background()
	for o, err := range w.table.List(ctx, objstore.ListOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(o.Key, ".parquet") {
			continue
		}
		rc, err := w.table.Get(ctx, o.Key)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		res.files = append(res.files, fmt.Sprintf("%x", sha256.Sum256(data)))
		_, rows, err := parquetio.ReadFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		res.rows += len(rows)
	}
	slices.Sort(res.files)
	if snap, err := delta.NewTable(w.table).Snapshot(ctx); err == nil {
		res.schema = snap.Schema().String()
		if n := len(slices.Collect(snap.Files())); n != len(res.files) {
			t.Errorf("the table holds %d data files, its log %d: orphans of the one pass", len(res.files), n)
		}
	}
	return res
}

// TestOnePass: a first batch of one file is converted once, at one
// thread or two, with its schema inferred from its first MiB and checked
// while it is read, when that is the file's schema; otherwise (a type
// that widens after the first MiB, a column null in it, a malformed
// record after it) the batch is inferred and converted again. Either way
// the data files are byte for byte those of the two-pass run, and so is
// the schema.
func TestOnePass(t *testing.T) {
	const n = 40000
	for _, tt := range []struct {
		name  string
		doc   string
		want  string // the log line of the path taken
		typev string // v's type in the table
	}{
		{"stable", onePassCSV(n, func(i int) string { return fmt.Sprint(i % 100) }), "schema inferred in one pass", "v:int"},
		{"small file", onePassCSV(100, func(i int) string { return fmt.Sprint(i % 100) }), "schema inferred in one pass", "v:int"},
		{"widens late", onePassCSV(n, func(i int) string {
			if i == n-5 {
				return "2.5"
			}
			return fmt.Sprint(i % 100)
		}), "one-pass schema inference abandoned", "v:double"},
		{"null in the prefix", onePassCSV(n, func(i int) string {
			if i < n-10 {
				return ""
			}
			return "7"
		}), "one-pass schema inference abandoned", "v:int"},
		{"malformed late", onePassCSV(n, func(i int) string { return fmt.Sprint(i%100) + map[bool]string{true: ",extra"}[i == n-3] }),
			"one-pass schema inference abandoned", "v:int"},
	} {
		for _, threads := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/%dt", tt.name, threads), func(t *testing.T) {
				one := onePassRun(t, tt.doc, false, nil, threads)
				two := onePassRun(t, tt.doc, true, nil, threads)
				if one.err != nil || two.err != nil {
					t.Fatalf("errors: one pass %v, two passes %v", one.err, two.err)
				}
				if !strings.Contains(one.log, tt.want) {
					t.Errorf("one-pass run did not log %q:\n%s", tt.want, one.log)
				}
				if strings.Contains(two.log, "one pass") || strings.Contains(two.log, "one-pass") {
					t.Errorf("two-pass run took the one pass:\n%s", two.log)
				}
				if !slices.Equal(one.files, two.files) || one.schema != two.schema || len(one.files) == 0 {
					t.Errorf("one pass: files %v schema %s; two passes: files %v schema %s", one.files, one.schema, two.files, two.schema)
				}
				if !strings.Contains(one.schema, tt.typev) {
					t.Errorf("schema %s, want %s", one.schema, tt.typev)
				}
				if rows := strings.Count(tt.doc, "\n") - 1; one.rows != rows {
					t.Errorf("%d rows, want %d", one.rows, rows)
				}
			})
		}
	}
}

// failSave is a schema history whose version 0 cannot be saved once (a
// crash between the one-pass conversion and the schema save).
type failSave struct {
	objstore.Store
	failed bool
}

var errSaveCrash = errors.New("crash before the schema save")

func (s *failSave) PutIfAbsent(ctx context.Context, key string, r io.Reader) error {
	if key == schemalog.Key(0) && !s.failed {
		s.failed = true
		return errSaveCrash
	}
	return s.Store.PutIfAbsent(ctx, key, r)
}

// TestOnePassCrashBeforeSchemaSave: a run that stops after the one-pass
// conversion, before schema version 0 is saved, leaves no schema and no
// commit; its data files are removed (and would be orphans otherwise);
// the next run writes the batch once, as two passes do.
func TestOnePassCrashBeforeSchemaSave(t *testing.T) {
	doc := onePassCSV(30000, func(i int) string { return fmt.Sprint(i % 100) })
	hist := &failSave{Store: memstore.New()}
	w := newWorld()
	if err := w.src.Put(context.Background(), "in/a.csv", strings.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	w.discover(t)
	first := onePassAgain(t, w, false, hist, 1)
	if !errors.Is(first.err, errSaveCrash) || len(first.files) != 0 || first.schema != "" {
		t.Fatalf("first run: error %v, files %v, schema %q", first.err, first.files, first.schema)
	}
	if _, ok, err := schemalog.Read(context.Background(), hist, 0); ok || err != nil {
		t.Fatalf("schema version 0 after the crash: %v %v", ok, err)
	}
	again := onePassAgain(t, w, false, hist, 1)
	two := onePassRun(t, doc, true, nil, 1)
	if again.err != nil || !strings.Contains(again.log, "schema inferred in one pass") {
		t.Fatalf("second run: %v\n%s", again.err, again.log)
	}
	if !slices.Equal(again.files, two.files) || again.schema != two.schema || again.rows != 30000 {
		t.Errorf("after the crash: files %v schema %s rows %d; two passes: files %v schema %s", again.files, again.schema, again.rows, two.files, two.schema)
	}
}

// TestOnePassFiles: a first batch of several files is converted once
// when its first MiB (whole files, then the next one's first lines) has
// the batch's schema, at one thread or two; a type that widens in a later
// file, a column only a later file has, or a later file's different
// header make it be inferred and converted again; files past
// sampleSize.numFiles are not checked (nor sampled). The data files and
// schema are the two-pass run's.
func TestOnePassFiles(t *testing.T) {
	small := func(n, from int, v func(i int) string) string {
		return onePassCSV(n, func(i int) string { return v(i + from) })
	}
	ints := func(i int) string { return fmt.Sprint(i % 100) }
	many := func(k, n int, last string) []string {
		docs := make([]string, k)
		for i := range docs {
			docs[i] = small(n, i*n, ints)
		}
		if last != "" {
			docs[k-1] = last
		}
		return docs
	}
	for _, tt := range []struct {
		name     string
		docs     []string
		want     string
		typev    string
		numFiles int
	}{
		{"small files", many(30, 200, ""), "schema inferred in one pass", "v:int", 0},
		{"past the prefix", many(4, 15000, ""), "schema inferred in one pass", "v:int", 0},
		{"widens in a later file", many(40, 1000, onePassCSV(10, func(i int) string { return "2.5" })), "one-pass schema inference abandoned", "v:double", 0},
		{"a later file's new column", many(40, 1000, "id,name,v,w\n1,x,2,3\n"), "one-pass schema inference abandoned", "w:int", 0},
		{"a later file without v", many(5, 100, "id,name\n1,x\n"), "schema inferred in one pass", "v:int", 0},
		{"widens past numFiles", many(12, 100, onePassCSV(10, func(i int) string { return "2.5" })), "schema inferred in one pass", "v:int", 5},
	} {
		for _, threads := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/%dt", tt.name, threads), func(t *testing.T) {
				onePassSampleFiles = tt.numFiles
				defer func() { onePassSampleFiles = 0 }()
				sameAsTwoPasses(t, onePassFiles(t, tt.docs, false, nil, threads), onePassFiles(t, tt.docs, true, nil, threads), tt.want, tt.typev)
			})
		}
	}
}

// sameAsTwoPasses checks run one against two, the two-pass run of the
// same files: no errors, the path taken logged (want), the same data
// files, schema and rows, and typev in the schema.
func sameAsTwoPasses(t *testing.T, one, two onePassResult, want, typev string) {
	t.Helper()
	if one.err != nil || two.err != nil {
		t.Fatalf("errors: one pass %v, two passes %v", one.err, two.err)
	}
	if !strings.Contains(one.log, want) {
		t.Errorf("one-pass run did not log %q:\n%s", want, one.log)
	}
	if strings.Contains(two.log, "one pass") || strings.Contains(two.log, "one-pass") {
		t.Errorf("two-pass run took the one pass:\n%s", two.log)
	}
	if !slices.Equal(one.files, two.files) || one.schema != two.schema || len(one.files) == 0 {
		t.Errorf("one pass: files %v schema %s; two passes: files %v schema %s", one.files, one.schema, two.files, two.schema)
	}
	if !strings.Contains(one.schema, typev) || one.rows != two.rows {
		t.Errorf("schema %s, want %s; rows %d, two passes %d", one.schema, typev, one.rows, two.rows)
	}
}

// TestOnePassNewColumnPastNumFiles: a file the inference does not sample
// (past sampleSize.numFiles) with a new column stops the batch under
// addNewColumns in one pass as in two (the one-pass attempt converts with
// the stream's evolution and falls back on the new column).
func TestOnePassNewColumnPastNumFiles(t *testing.T) {
	onePassSampleFiles, onePassMode = 3, options.EvolveAddNewColumns
	defer func() { onePassSampleFiles, onePassMode = 0, "" }()
	docs := make([]string, 6)
	for i := range docs {
		docs[i] = onePassCSV(50, func(i int) string { return fmt.Sprint(i % 100) })
	}
	docs[5] = "id,name,v,w\n1,x,2,3\n"
	one := onePassFiles(t, docs, false, nil, 1)
	two := onePassFiles(t, docs, true, nil, 1)
	if !errors.Is(one.err, ErrSchemaEvolved) || !errors.Is(two.err, ErrSchemaEvolved) {
		t.Fatalf("one pass: %v; two passes: %v", one.err, two.err)
	}
	if len(one.files) != 0 || one.schema != "" {
		t.Errorf("one pass left files %v, table schema %q", one.files, one.schema)
	}
}
