package checkpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/tributary-io/tributary/core/delta/action"
	"github.com/tributary-io/tributary/internal/arrowtest"
)

const testdataRoot = "../../../../shared/testdata/delta"

// written holds a state's actions and the checkpoint written from them.
type fixtureState struct {
	name string
	// acts are the actions a state is built from (it iterates them).
	acts []action.Action
}

// state builds a State over acts: the first protocol and metaData, then
// every txn, domainMetadata, add and remove in order.
func (f fixtureState) state() State {
	var s State
	for _, a := range f.acts {
		switch {
		case a.Protocol != nil:
			s.Protocol = *a.Protocol
		case a.Metadata != nil:
			s.Metadata = *a.Metadata
		case a.Txn != nil:
			s.Txns = append(s.Txns, *a.Txn)
		case a.DomainMetadata != nil:
			s.Domains = append(s.Domains, *a.DomainMetadata)
		}
	}
	s.Adds = func(yield func(*action.Add) bool) {
		for _, a := range f.acts {
			if a.Add != nil && !yield(a.Add) {
				return
			}
		}
	}
	s.Removes = func(yield func(*action.Remove) bool) {
		for _, a := range f.acts {
			if a.Remove != nil && !yield(a.Remove) {
				return
			}
		}
	}
	return s
}

// sharedCheckpointStates returns the actions of every checkpoint of the
// shared Spark, delta-rs and kernel tables.
func sharedCheckpointStates(t *testing.T) []fixtureState {
	t.Helper()
	var out []fixtureState
	err := filepath.WalkDir(testdataRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".parquet") || !strings.Contains(filepath.ToSlash(p), "/_delta_log/") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var acts []action.Action
		if err := action.ReadParquet(data, func(a action.Action) error { acts = append(acts, a); return nil }); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		rel, _ := filepath.Rel(testdataRoot, p)
		out = append(out, fixtureState{name: filepath.ToSlash(rel), acts: acts})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("found %d checkpoints under %s, want the shared fixtures", len(out), testdataRoot)
	}
	return out
}

// randomState makes n random actions: every optional field and map shape
// (nil, empty, null values, several keys), deletion vectors, rows across
// row groups.
func randomState(r *rand.Rand, n int) fixtureState {
	maybe := func(p float64) bool { return r.Float64() < p }
	str := func(prefix string) string { return fmt.Sprintf("%s-%d", prefix, r.IntN(1000)) }
	i64p := func() *int64 {
		if maybe(0.5) {
			return nil
		}
		v := r.Int64N(1 << 40)
		return &v
	}
	plainMap := func() map[string]string {
		switch r.IntN(4) {
		case 0:
			return nil
		case 1:
			return map[string]string{}
		}
		m := map[string]string{}
		for range 1 + r.IntN(4) {
			m[str("k")] = str("v")
		}
		return m
	}
	nullableMap := func() map[string]*string {
		switch r.IntN(4) {
		case 0:
			return nil
		case 1:
			return map[string]*string{}
		}
		m := map[string]*string{}
		for range 1 + r.IntN(4) {
			if maybe(0.3) {
				m[str("p")] = nil
			} else {
				v := str("x")
				m[str("p")] = &v
			}
		}
		return m
	}
	list := func() []string {
		switch r.IntN(3) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		var l []string
		for range 1 + r.IntN(3) {
			l = append(l, str("f"))
		}
		return l
	}
	dv := func() *action.DeletionVector {
		if maybe(0.7) {
			return nil
		}
		d := &action.DeletionVector{StorageType: "u", PathOrInlineDv: str("dv"), SizeInBytes: r.Int32N(100), Cardinality: r.Int64N(100)}
		if maybe(0.5) {
			o := r.Int32N(1000)
			d.Offset = &o
		}
		d.MaxRowIndex = i64p()
		return d
	}
	orEmpty := func(s string) string {
		if maybe(0.3) {
			return ""
		}
		return s
	}
	created := i64p()
	acts := []action.Action{
		{Protocol: &action.Protocol{MinReaderVersion: 1 + r.IntN(3), MinWriterVersion: 2 + r.IntN(6), ReaderFeatures: list(), WriterFeatures: list()}},
		{Metadata: &action.Metadata{ID: str("id"), Name: orEmpty(str("name")), Description: orEmpty(str("desc")),
			Format:       action.Format{Provider: orEmpty("parquet"), Options: plainMap()},
			SchemaString: `{"type":"struct","fields":[]}`, PartitionColumns: list(), Configuration: plainMap(), CreatedTime: created}},
	}
	for i := range r.IntN(4) {
		acts = append(acts, action.Action{Txn: &action.Txn{AppID: fmt.Sprintf("app-%d", i), Version: r.Int64N(1000), LastUpdated: i64p()}})
	}
	for i := range r.IntN(3) {
		acts = append(acts, action.Action{DomainMetadata: &action.DomainMetadata{Domain: fmt.Sprintf("d%d", i), Configuration: `{"a":1}`}})
	}
	adds := n * 4 / 5
	for i := range adds {
		acts = append(acts, action.Action{Add: &action.Add{Path: fmt.Sprintf("p=%d/f-%06d.parquet", i%7, i), PartitionValues: nullableMap(),
			Size: r.Int64N(1 << 30), ModificationTime: r.Int64N(1 << 41), DataChange: maybe(0.5), Tags: plainMap(), DeletionVector: dv(),
			BaseRowID: i64p(), DefaultRowCommitVersion: i64p(), Stats: orEmpty(`{"numRecords":` + fmt.Sprint(r.IntN(100)) + `}`)}})
	}
	for i := range n - adds {
		acts = append(acts, action.Action{Remove: &action.Remove{Path: fmt.Sprintf("gone/f-%06d.parquet", i), DeletionTimestamp: r.Int64N(1 << 41),
			DataChange: maybe(0.5), ExtendedFileMetadata: maybe(0.5), PartitionValues: nullableMap(), Size: r.Int64N(1 << 30), DeletionVector: dv()}})
	}
	return fixtureState{name: fmt.Sprintf("random-%d", n), acts: acts}
}

func write(t *testing.T, fn func(w *bytes.Buffer, s State) (int64, int64, error), f fixtureState) ([]byte, int64, int64) {
	t.Helper()
	var buf bytes.Buffer
	n, adds, err := fn(&buf, f.state())
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), n, adds
}

func readActions(t *testing.T, read func([]byte, func(action.Action) error) error, data []byte) []action.Action {
	t.Helper()
	var out []action.Action
	if err := read(data, func(a action.Action) error { out = append(out, a); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// arrowRows reads a Parquet file with arrow-go's reader (an implementation
// independent of parquet-go) and returns its rows as JSON values, maps'
// entries sorted by key.
func arrowRows(t *testing.T, data []byte) []any {
	t.Helper()
	tbl := arrowtest.ReadTable(t, data)
	defer tbl.Release()
	tr := array.NewTableReader(tbl, 4096)
	defer tr.Release()
	var buf bytes.Buffer
	for tr.Next() {
		if err := array.RecordToJSON(tr.RecordBatch(), &buf); err != nil {
			t.Fatal(err)
		}
	}
	var rows []any
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var row any
		if err := dec.Decode(&row); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, sortMaps(row))
	}
	if int64(len(rows)) != tbl.NumRows() {
		t.Fatalf("arrow: %d JSON rows of %d", len(rows), tbl.NumRows())
	}
	return rows
}

var _ arrow.Table // the reader's table type

// sortMaps orders the entries of arrow MAP values ([{"key":…,"value":…}])
// by key: map order is not part of a checkpoint's content.
func sortMaps(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = sortMaps(e)
		}
	case []any:
		entries := len(x) > 0
		for i, e := range x {
			x[i] = sortMaps(e)
			m, ok := e.(map[string]any)
			_, hasKey := m["key"]
			entries = entries && ok && hasKey && len(m) <= 2
		}
		if entries {
			slices.SortFunc(x, func(a, b any) int {
				return strings.Compare(fmt.Sprint(a.(map[string]any)["key"]), fmt.Sprint(b.(map[string]any)["key"]))
			})
		}
	}
	return v
}

// firstDiff reports the first differing element of two slices.
func firstDiff[T any](a, b []T) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d rows against %d", len(a), len(b))
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			ja, _ := json.Marshal(a[i])
			jb, _ := json.Marshal(b[i])
			return fmt.Sprintf("row %d:\ncolumns: %s\nrows:    %s", i, ja, jb)
		}
	}
	return ""
}

// The column writer's checkpoints read back (with package action's column
// and row readers, and with arrow-go) exactly as the former row writer's,
// for the state of every shared checkpoint and for random states.
func TestWriteMatchesRowWriter(t *testing.T) {
	states := sharedCheckpointStates(t)
	r := rand.New(rand.NewPCG(3, 7))
	for _, n := range []int{0, 1, 5, 300, 1500, 2*RowGroupRows + 333} {
		states = append(states, randomState(r, n))
	}
	rowWriter := func(w *bytes.Buffer, s State) (int64, int64, error) { return writeRows(w, s) }
	colWriter := func(w *bytes.Buffer, s State) (int64, int64, error) { return Write(w, s) }
	for _, f := range states {
		t.Run(f.name, func(t *testing.T) {
			want, wantN, wantAdds := write(t, rowWriter, f)
			got, gotN, gotAdds := write(t, colWriter, f)
			if gotN != wantN || gotAdds != wantAdds {
				t.Fatalf("counts %d actions, %d adds; row writer %d, %d", gotN, gotAdds, wantN, wantAdds)
			}
			for _, rd := range []struct {
				name string
				read func([]byte, func(action.Action) error) error
			}{{"column reader", action.ReadParquet}, {"row reader", action.ReadParquetRows}} {
				a, b := readActions(t, rd.read, got), readActions(t, rd.read, want)
				if int64(len(a)) != gotN {
					t.Fatalf("%s: %d actions read, %d written", rd.name, len(a), gotN)
				}
				if d := firstDiff(a, b); d != "" {
					t.Fatalf("%s: %s", rd.name, d)
				}
			}
			if d := firstDiff(arrowRows(t, got), arrowRows(t, want)); d != "" {
				t.Fatalf("arrow: %s", d)
			}
			pg, _ := file.NewParquetReader(bytes.NewReader(got))
			pw, _ := file.NewParquetReader(bytes.NewReader(want))
			if pg.NumRowGroups() != pw.NumRowGroups() || !pg.MetaData().Schema.Equals(pw.MetaData().Schema) {
				t.Fatalf("%d row groups, schema %s; row writer %d, %s", pg.NumRowGroups(), pg.MetaData().Schema, pw.NumRowGroups(), pw.MetaData().Schema)
			}
		})
	}
}

// The actions read back are the state's, as the protocol stores them in a
// checkpoint: dataChange false, an empty (never null) partitionValues map
// on adds, metaData's format, options, partition columns and configuration
// never null.
func TestWriteContent(t *testing.T) {
	f := randomState(rand.New(rand.NewPCG(9, 9)), 2000)
	data, n, adds := write(t, func(w *bytes.Buffer, s State) (int64, int64, error) { return Write(w, s) }, f)
	got := readActions(t, action.ReadParquet, data)
	if n != int64(len(f.acts)) || int64(len(got)) != n || adds != 1600 {
		t.Fatalf("%d actions written (%d adds), %d read; want %d (1600)", n, adds, len(got), len(f.acts))
	}
	for i, a := range f.acts {
		w := a
		switch {
		case a.Add != nil:
			c := *a.Add
			c.DataChange = false
			c.PartitionValues = action.NonNilMap(c.PartitionValues)
			w.Add = &c
		case a.Remove != nil:
			c := *a.Remove
			c.DataChange = false
			w.Remove = &c
		case a.Metadata != nil:
			c := *a.Metadata
			if c.Format.Provider == "" {
				c.Format.Provider = "parquet"
			}
			c.Format.Options = action.NonNilMap(c.Format.Options)
			c.PartitionColumns = action.NonNilSlice(c.PartitionColumns)
			c.Configuration = action.NonNilMap(c.Configuration)
			w.Metadata = &c
		}
		wj, _ := json.Marshal(w)
		gj, _ := json.Marshal(got[i])
		if !bytes.Equal(wj, gj) {
			t.Fatalf("action %d:\nwrote %s\nread  %s", i, wj, gj)
		}
	}
}

// benchState is a table of n live files (paths, empty partition values,
// stats), as BenchmarkCheckpointWrite in package delta has.
func benchState(n int) State {
	adds := make([]action.Action, 0, n+2)
	adds = append(adds, action.Action{Protocol: &action.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}},
		action.Action{Metadata: &action.Metadata{ID: "id", SchemaString: `{"type":"struct","fields":[]}`}})
	for i := range n {
		adds = append(adds, action.Action{Add: &action.Add{Path: fmt.Sprintf("p=x/part-%05d.parquet", i), PartitionValues: map[string]*string{},
			Size: 10, ModificationTime: 1, Stats: fmt.Sprintf(`{"numRecords":%d,"minValues":{"a":1},"maxValues":{"a":%d},"nullCount":{"a":0}}`, i, i)}})
	}
	return fixtureState{acts: adds}.state()
}

// BenchmarkWrite compares the column writer with the former row writer.
func BenchmarkWrite(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		s := benchState(n)
		for _, wr := range []struct {
			name string
			fn   func(*bytes.Buffer, State) (int64, int64, error)
		}{
			{"columns", func(w *bytes.Buffer, s State) (int64, int64, error) { return Write(w, s) }},
			{"rows", func(w *bytes.Buffer, s State) (int64, int64, error) { return writeRows(w, s) }},
		} {
			b.Run(fmt.Sprintf("%s/files=%d", wr.name, n), func(b *testing.B) {
				var buf bytes.Buffer
				b.ReportAllocs()
				for b.Loop() {
					buf.Reset()
					if _, adds, err := wr.fn(&buf, s); err != nil || adds != int64(n) {
						b.Fatal(adds, err)
					}
				}
			})
		}
	}
}
