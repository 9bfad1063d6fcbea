package ingest

import (
	"bytes"
	"context"
	"errors"
	"github.com/tributary-io/tributary/core/ingest/hivepart"
	"github.com/tributary-io/tributary/core/schema"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/state"
)

// TestPartitionNullsAndTypes: empty values and __HIVE_DEFAULT_PARTITION__
// are null partition values (their rows kept), a typed column's values
// are written in Delta's form, and a value that does not parse as its
// type skips the file naming the column.
func TestPartitionNullsAndTypes(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	w.engineHook = func(e *Engine) {
		e.Config.PartitionColumns = []string{"day", "n"}
		e.Config.PartitionTypes = map[string]schema.Type{"day": schema.DateType, "n": schema.Integer}
	}
	files := map[string]string{
		"in/day=2026-1-2/n=07/a.json":                  `{"id": 0}` + "\n",
		"in/day=__HIVE_DEFAULT_PARTITION__/n=1/b.json": `{"id": 1}` + "\n",
		"in/day=2026-01-03/n=/c.json":                  `{"id": 2}` + "\n",
		"in/day=2026-01-03/n=seven/d.json":             `{"id": 3}` + "\n",
	}
	for k, v := range files {
		if err := w.src.Put(ctx, k, strings.NewReader(v)); err != nil {
			t.Fatal(err)
		}
	}
	w.discover(t)
	sum, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows() != 3 || sum.Batches[0].NumSkippedFiles != 1 {
		t.Fatalf("rows %d, batches %+v", sum.Rows(), sum.Batches)
	}
	en, err := w.st.Get(ctx, "stream-1", "in/day=2026-01-03/n=seven/d.json")
	if err != nil || en.State != state.Skipped || !strings.Contains(en.Error, "partition column n") || !strings.Contains(en.Error, `"seven" is not a INT`) {
		t.Fatalf("file with a bad INT value: %+v %v", en, err)
	}
	snap, err := delta.NewTable(w.table).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sch := snap.Schema()
	if n := len(sch.Fields); sch.Fields[n-2].Type != schema.DateType || sch.Fields[n-1].Type != schema.Integer {
		t.Fatalf("schema %s: want day DATE, n INT", sch)
	}
	str := func(p *string) string {
		if p == nil {
			return "null"
		}
		return *p
	}
	var got []string
	for add := range snap.Files() {
		key, err := delta.ObjectKey(add.Path)
		if err != nil {
			t.Fatal(err)
		}
		day, n := str(add.PartitionValues["day"]), str(add.PartitionValues["n"])
		got = append(got, day+"|"+n+"|"+key[:strings.LastIndexByte(key, '/')])
	}
	slices.Sort(got)
	want := []string{
		"2026-01-02|7|day=2026-01-02/n=7",
		"2026-01-03|null|day=2026-01-03/n=__HIVE_DEFAULT_PARTITION__",
		"null|1|day=__HIVE_DEFAULT_PARTITION__/n=1",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("partitions\n%v\nwant\n%v", got, want)
	}
}

func TestPartitionColumns(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	w.engineHook = func(e *Engine) { e.Config.PartitionColumns = []string{"date", "city"} }
	files := map[string]string{
		"in/date=2026-11-28/city=Lisbon/a.json":         `{"id": 0}` + "\n" + `{"id": 1}` + "\n",
		"in/date=2026-11-28/city=S%C3%A3o Paulo/b.json": `{"id": 2}` + "\n",
		"in/date=2026-11-29/city=a%2Fb/c.json":          `{"id": 3, "date": "ignored"}` + "\n",
		"in/date=2026-11-29/no-city.json":               `{"id": 99}` + "\n",
	}
	for k, v := range files {
		if err := w.src.Put(ctx, k, strings.NewReader(v)); err != nil {
			t.Fatal(err)
		}
	}
	w.discover(t)
	sum, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Rows() != 4 || sum.Batches[0].NumSkippedFiles != 1 {
		t.Fatalf("rows %d, batches %+v", sum.Rows(), sum.Batches)
	}
	en, err := w.st.Get(ctx, "stream-1", "in/date=2026-11-29/no-city.json")
	if err != nil || en.State != state.Skipped || !strings.Contains(en.Error, "city") {
		t.Fatalf("file without a city directory: %+v %v", en, err)
	}
	snap, err := delta.NewTable(w.table).Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(snap.Metadata.PartitionColumns, ","); got != "date,city" {
		t.Fatalf("partitionColumns %q", got)
	}
	sch := snap.Schema()
	if n := len(sch.Fields); sch.Fields[n-2].Name != "date" || sch.Fields[n-1].Name != "city" {
		t.Fatalf("schema %s: partition columns must come last", sch)
	}
	want := map[int64]string{0: "2026-11-28|Lisbon", 1: "2026-11-28|Lisbon", 2: "2026-11-28|São Paulo", 3: "2026-11-29|a/b"}
	seen := 0
	for add := range snap.Files() {
		key, err := delta.ObjectKey(add.Path)
		if err != nil {
			t.Fatal(err)
		}
		date, city := add.PartitionValues["date"], add.PartitionValues["city"]
		if date == nil || city == nil {
			t.Fatalf("file %s: null partition value %v", key, add.PartitionValues)
		}
		dir := "date=" + hivepart.Escape(*date) + "/city=" + hivepart.Escape(*city) + "/"
		if !strings.HasPrefix(key, dir) {
			t.Fatalf("file %s not under %s", key, dir)
		}
		rc, err := w.table.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		fs, rows, err := parquetio.ReadFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if fs.FieldIndex("date") >= 0 || fs.FieldIndex("city") >= 0 {
			t.Fatalf("partition columns stored in the Parquet file: %s", fs)
		}
		for _, r := range rows {
			id := r[fs.FieldIndex("id")].(int64)
			if got := *date + "|" + *city; want[id] != got {
				t.Fatalf("id %d in partition %q, want %q", id, got, want[id])
			}
			seen++
		}
	}
	if seen != 4 {
		t.Fatalf("read %d rows", seen)
	}
	// Changing the partitioning of an existing table needs a full refresh.
	w.engineHook = func(e *Engine) { e.Config.PartitionColumns = []string{"date"} }
	if err := w.src.Put(ctx, "in/date=2026-11-30/city=X/d.json", strings.NewReader(`{"id": 4}`+"\n")); err != nil {
		t.Fatal(err)
	}
	w.discover(t)
	if _, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil); !errors.Is(err, ErrFullRefreshNeeded) {
		t.Fatalf("want ErrFullRefreshNeeded, got %v", err)
	}
}

// TestLostSchemaHistoryCannotDropColumns: a checkpoint whose schema history
// is gone infers again; if that schema would drop a table column, the
// commit is refused with a full-refresh error instead of rewriting it.
func TestLostSchemaHistoryCannotDropColumns(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	if err := w.src.Put(ctx, "in/a.json", strings.NewReader(`{"id": 1, "old": "x"}`+"\n")); err != nil {
		t.Fatal(err)
	}
	w.discover(t)
	if _, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// The schema history is lost (the checkpoint keeps its plans) and
	// the new files lack "old".
	for info, err := range w.cp.List(ctx, objstore.ListOptions{Prefix: schemasPrefix}) {
		if err != nil {
			t.Fatal(err)
		}
		if err := w.cp.Delete(ctx, info.Key); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.src.Put(ctx, "in/b.json", strings.NewReader(`{"id": 2}`+"\n")); err != nil {
		t.Fatal(err)
	}
	w.discover(t)
	_, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil)
	// Lost schema history is itself refused (seed 004), before inference
	// could drop "old".
	if !errors.Is(err, ErrFullRefreshNeeded) || !strings.Contains(err.Error(), "schema history") || !strings.Contains(err.Error(), "tributary refresh") {
		t.Fatalf("want a full-refresh error naming the lost schema history, got %v", err)
	}
}

func TestChangedSourceNeedsFullRefresh(t *testing.T) {
	ctx := context.Background()
	w := newWorld()
	w.engineHook = func(e *Engine) { e.Config.SourceURI = "s3://landing/raw" }
	w.addFile(t, 2)
	w.discover(t)
	if _, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil); err != nil {
		t.Fatal(err)
	}
	w.engineHook = func(e *Engine) { e.Config.SourceURI = "s3://landing/other" }
	if _, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil); !errors.Is(err, ErrFullRefreshNeeded) || !strings.Contains(err.Error(), "s3://landing/raw") {
		t.Fatalf("want a full-refresh error naming the old source, got %v", err)
	}
	w.engineHook = func(e *Engine) { e.Config.SourceURI = "s3://landing/raw" }
	if _, err := w.engine(t, Limits{MaxFiles: 1000}).RunAvailableNow(ctx, nil); err != nil {
		t.Fatalf("same source again: %v", err)
	}
}
