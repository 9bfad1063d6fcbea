package sink

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/schema"
)

var testSchema = &schema.StructType{Fields: []schema.Field{
	{Name: "id", Type: schema.Long, Nullable: true},
	{Name: "v", Type: schema.String, Nullable: true},
}}

// world is a table in memory and its files.
type world struct {
	t     testing.TB
	files *StoreFiles
	table *delta.Table
	parts []string
}

func newWorld(t testing.TB, parts ...string) *world {
	store := memstore.New()
	return &world{t: t, files: &StoreFiles{Store: store, Now: func() time.Time { return time.Unix(1, 0) }}, table: delta.NewTable(store), parts: parts}
}

// file writes rows ("id=v" pairs; id "null" is NULL) as a data file of
// partition part ("" unpartitioned, else p=part).
func (w *world) file(part string, rows ...string) delta.Add {
	w.t.Helper()
	like := &delta.Add{Path: "x.parquet"}
	if part != "" {
		like = &delta.Add{Path: "p=" + part + "/x.parquet", PartitionValues: map[string]*string{"p": &part}}
	}
	var data [][]any
	for _, r := range rows {
		var id, v string
		for i := range r {
			if r[i] == '=' {
				id, v = r[:i], r[i+1:]
			}
		}
		var idv any
		if id != "null" {
			var n int64
			fmt.Sscan(id, &n)
			idv = n
		}
		data = append(data, []any{idv, v})
	}
	a, err := w.files.Write(context.Background(), like, testSchema, data)
	if err != nil {
		w.t.Fatal(err)
	}
	return a
}

// commit commits adds (creating the table first when needed).
func (w *world) commit(adds ...delta.Add) *delta.Snapshot {
	w.t.Helper()
	ctx := context.Background()
	snap, err := w.table.Snapshot(ctx)
	var acts []delta.Action
	if errors.Is(err, delta.ErrNotATable) {
		st := testSchema
		if len(w.parts) > 0 {
			st = &schema.StructType{Fields: append(slices.Clone(testSchema.Fields), schema.Field{Name: "p", Type: schema.String, Nullable: true})}
		}
		js, _ := schema.MarshalDeltaJSON(st)
		acts = append(acts, delta.Action{Protocol: &delta.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}},
			delta.Action{Metadata: &delta.Metadata{ID: "t", Format: delta.Format{Provider: "parquet"}, SchemaString: js, PartitionColumns: slices.Clone(w.parts), Configuration: map[string]string{}}})
		snap = nil
	} else if err != nil {
		w.t.Fatal(err)
	}
	for i := range adds {
		acts = append(acts, delta.Action{Add: &adds[i]})
	}
	if _, err := w.table.CommitSnapshot(ctx, snap, acts); err != nil {
		w.t.Fatal(err)
	}
	snap, err = w.table.Snapshot(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	return snap
}

// rows lists the table's rows after applying acts to snap, as "id=v" (with
// "@p" for partitioned rows), sorted.
func (w *world) rows(snap *delta.Snapshot, acts []delta.Action) []string {
	w.t.Helper()
	live := map[string]*delta.Add{}
	if snap != nil {
		for a := range snap.Files() {
			live[a.Path] = a
		}
	}
	for _, a := range acts {
		switch {
		case a.Add != nil:
			live[a.Add.Path] = a.Add
		case a.Remove != nil:
			if _, ok := live[a.Remove.Path]; !ok {
				w.t.Errorf("remove of %s, not a live file", a.Remove.Path)
			}
			delete(live, a.Remove.Path)
		}
	}
	var out []string
	for _, a := range live {
		_, rows, err := w.files.Read(context.Background(), a)
		if err != nil {
			w.t.Fatal(err)
		}
		for _, r := range rows {
			s := fmt.Sprintf("%v=%v", r[0], r[1])
			if r[0] == nil {
				s = fmt.Sprintf("null=%v", r[1])
			}
			if p := a.PartitionValues["p"]; p != nil {
				s += "@" + *p
			}
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

func TestMergePlan(t *testing.T) {
	tests := []struct {
		name    string
		parts   []string
		keys    []string
		target  [][]string // files: partition, then rows
		batch   [][]string
		want    []string
		updated int64
		removed int64
	}{
		{name: "new table: the last row of a key in the batch wins", keys: []string{"id"},
			batch: [][]string{{"", "1=a", "2=a"}, {"", "1=b", "1=c"}},
			want:  []string{"1=c", "2=a"}},
		{name: "matched rows are replaced, the rest of their file copied", keys: []string{"id"},
			target:  [][]string{{"", "1=old", "2=old", "3=old"}, {"", "4=old"}},
			batch:   [][]string{{"", "2=new", "5=new"}},
			want:    []string{"1=old", "2=new", "3=old", "4=old", "5=new"},
			updated: 1, removed: 1},
		{name: "a file whose rows all match is removed", keys: []string{"ID"},
			target:  [][]string{{"", "1=old"}, {"", "2=old"}},
			batch:   [][]string{{"", "1=new"}},
			want:    []string{"1=new", "2=old"},
			updated: 1, removed: 1},
		{name: "NULL keys never match", keys: []string{"id"},
			target: [][]string{{"", "null=old"}},
			batch:  [][]string{{"", "null=new", "null=newer"}},
			want:   []string{"null=new", "null=newer", "null=old"}},
		{name: "partition column in the key", parts: []string{"p"}, keys: []string{"p", "id"},
			target:  [][]string{{"a", "1=old"}, {"b", "1=old"}},
			batch:   [][]string{{"a", "1=new"}},
			want:    []string{"1=new@a", "1=old@b"},
			updated: 1, removed: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.parts...)
			var snap *delta.Snapshot
			if len(tt.target) > 0 {
				var adds []delta.Add
				for _, f := range tt.target {
					adds = append(adds, w.file(f[0], f[1:]...))
				}
				snap = w.commit(adds...)
			}
			var batch []delta.Add
			for _, f := range tt.batch {
				batch = append(batch, w.file(f[0], f[1:]...))
			}
			m := &Merge{Keys: tt.keys, Files: w.files}
			plan, err := m.Plan(context.Background(), snap, batch)
			if err != nil {
				t.Fatal(err)
			}
			if got := w.rows(snap, plan.Actions); !slices.Equal(got, tt.want) {
				t.Errorf("rows %v, want %v", got, tt.want)
			}
			if plan.Metrics.NumTargetRowsUpdated != tt.updated || plan.Metrics.NumTargetFilesRemoved != tt.removed {
				t.Errorf("metrics %+v, want %d updated, %d removed", plan.Metrics, tt.updated, tt.removed)
			}
			if err := plan.Check(snap); err != nil {
				t.Errorf("Check on the planning snapshot: %v", err)
			}
		})
	}
}

func TestMergeCheckConflict(t *testing.T) {
	w := newWorld(t)
	snap := w.commit(w.file("", "1=a"))
	m := &Merge{Keys: []string{"id"}, Files: w.files}
	plan, err := m.Plan(context.Background(), snap, []delta.Add{w.file("", "1=b")})
	if err != nil {
		t.Fatal(err)
	}
	// Another writer appends a row of the same key meanwhile.
	later := w.commit(w.file("", "1=c"))
	if err := plan.Check(later); !errors.Is(err, ErrConflict) {
		t.Errorf("Check after a concurrent append: %v, want ErrConflict", err)
	}
	if err := plan.Check(nil); !errors.Is(err, ErrConflict) {
		t.Errorf("Check on a missing table: %v, want ErrConflict", err)
	}
	plan.Discard(context.Background(), w.files)
	if len(plan.Written) != 0 {
		t.Errorf("Discard left %d written files", len(plan.Written))
	}
}

func TestMergeSkipsFilesOutsideTheBatchKeys(t *testing.T) {
	tests := []struct {
		name    string
		parts   []string
		keys    []string
		target  [][]string
		batch   []string // one file: partition, rows
		want    []string
		skipped int64
	}{
		{name: "integral key range", keys: []string{"id"},
			target: [][]string{{"", "1=old", "3=old"}, {"", "10=old", "12=old"}, {"", "2=old", "20=old"}},
			batch:  []string{"", "2=new", "3=new"},
			want:   []string{"10=old", "12=old", "1=old", "20=old", "2=new", "3=new"}, skipped: 1},
		{name: "partition key", parts: []string{"p"}, keys: []string{"id", "p"},
			target: [][]string{{"a", "1=old"}, {"b", "1=old"}, {"c", "1=old"}},
			batch:  []string{"b", "1=new"},
			want:   []string{"1=new@b", "1=old@a", "1=old@c"}, skipped: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.parts...)
			var adds []delta.Add
			for _, f := range tt.target {
				adds = append(adds, w.file(f[0], f[1:]...))
			}
			snap := w.commit(adds...)
			plan, err := (&Merge{Keys: tt.keys, Files: w.files}).Plan(context.Background(), snap, []delta.Add{w.file(tt.batch[0], tt.batch[1:]...)})
			if err != nil {
				t.Fatal(err)
			}
			if got := w.rows(snap, plan.Actions); !slices.Equal(got, tt.want) {
				t.Errorf("rows %v, want %v", got, tt.want)
			}
			if plan.Metrics.NumTargetFilesSkipped != tt.skipped {
				t.Errorf("%d files skipped, want %d", plan.Metrics.NumTargetFilesSkipped, tt.skipped)
			}
		})
	}
}

func TestMergeUnknownKey(t *testing.T) {
	w := newWorld(t)
	m := &Merge{Keys: []string{"nope"}, Files: w.files}
	if _, err := m.Plan(context.Background(), nil, []delta.Add{w.file("", "1=a")}); !errors.Is(err, ErrNoKeyColumn) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown key column: %v, want ErrNoKeyColumn naming it", err)
	}
}

func TestOverwrite(t *testing.T) {
	if acts := Overwrite(nil, time.Now()); acts != nil {
		t.Errorf("no table: %v", acts)
	}
	w := newWorld(t)
	snap := w.commit(w.file("", "1=a"), w.file("", "2=b"))
	acts := Overwrite(snap, time.Unix(5, 0))
	if len(acts) != 2 {
		t.Fatalf("%d actions, want 2", len(acts))
	}
	for _, a := range acts {
		if a.Remove == nil || !a.Remove.DataChange || a.Remove.DeletionTimestamp != 5000 {
			t.Errorf("action %+v, want a dataChange remove at 5000", a.Remove)
		}
	}
	if got := w.rows(snap, acts); len(got) != 0 {
		t.Errorf("rows after overwrite: %v", got)
	}
}

func TestEncodeKey(t *testing.T) {
	tests := []struct {
		a, b  any
		equal bool
	}{
		{int32(1), int64(1), true},
		{int64(1), "1", false},
		{0.0, -0.0, true},
		{"a", []byte("a"), false},
		{schema.Decimal{Unscaled: bigInt(10), Scale: 1}, schema.Decimal{Unscaled: bigInt(100), Scale: 2}, true},
		{time.Unix(1, 0).UTC(), time.Unix(1, 0).In(time.FixedZone("x", 3600)), true},
	}
	for _, tt := range tests {
		if got := encodeKey(tt.a) == encodeKey(tt.b); got != tt.equal {
			t.Errorf("encodeKey(%#v) == encodeKey(%#v): %v, want %v", tt.a, tt.b, got, tt.equal)
		}
	}
}

func bigInt(n int64) *big.Int { return big.NewInt(n) }

func TestStoreFilesStatsOptions(t *testing.T) {
	for _, noStats := range []bool{false, true} {
		w := newWorld(t)
		w.files.Stats.NoStats = noStats
		a := w.file("", "1=a", "2=b")
		st, err := a.ParseStats()
		if err != nil || st == nil {
			t.Fatalf("stats %v: %v", st, err)
		}
		if st.NumRecords != 2 || (len(st.MinValues) == 0) != noStats {
			t.Errorf("NoStats=%v: stats %+v", noStats, st)
		}
	}
}
