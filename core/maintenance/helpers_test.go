package maintenance

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/scan"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// dataSchema is the schema of the test tables' data files (p is the
// partition column when the table is partitioned).
var dataSchema = &schema.StructType{Fields: []schema.Field{
	{Name: "id", Type: schema.Long, Nullable: true},
	{Name: "s", Type: schema.String, Nullable: true},
}}

// newTable creates a table (partitioned by p when partitioned) and returns
// it with its store.
func newTable(t *testing.T, partitioned bool, conf map[string]string) (*delta.Table, *memstore.Store) {
	t.Helper()
	st := memstore.New()
	tbl := delta.NewTable(st)
	fields := `{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"s","type":"string","nullable":true,"metadata":{}}`
	parts := []string{}
	if partitioned {
		fields += `,{"name":"p","type":"string","nullable":true,"metadata":{}}`
		parts = []string{"p"}
	}
	if conf == nil {
		conf = map[string]string{}
	}
	p := delta.ProtocolFor(false, nil)
	_, err := tbl.Commit(context.Background(), -1, []delta.Action{{Protocol: &p}, {Metadata: &delta.Metadata{
		ID: "t", Format: delta.Format{Provider: "parquet", Options: map[string]string{}},
		SchemaString:     `{"type":"struct","fields":[` + fields + `]}`,
		PartitionColumns: parts, Configuration: conf,
	}}})
	if err != nil {
		t.Fatal(err)
	}
	return tbl, st
}

// appendFile writes one data file of n rows starting at id first (into
// partition part when part != "") and commits it as the next version.
func appendFile(t *testing.T, tbl *delta.Table, part string, first, n int) string {
	t.Helper()
	ctx := context.Background()
	var buf bytes.Buffer
	w, err := parquetio.NewWriter(&buf, dataSchema, parquetio.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(first + i), fmt.Sprintf("row-%d", first+i)}
	}
	if err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	stats, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	js, _ := stats.JSON()
	key := fmt.Sprintf("part-%05d.parquet", first)
	pv := map[string]*string{}
	if part != "" {
		key = "p=" + part + "/" + key
		pv["p"] = &part
	}
	size := int64(buf.Len())
	if err := tbl.Store().Put(ctx, key, &buf); err != nil {
		t.Fatal(err)
	}
	snap, err := tbl.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.CommitSnapshot(ctx, snap, []delta.Action{{Add: &delta.Add{Path: key, PartitionValues: pv, Size: size, ModificationTime: time.Now().UnixMilli(), DataChange: true, Stats: js}}}); err != nil {
		t.Fatal(err)
	}
	return key
}

// tableRows returns the table's live rows as sorted strings.
func tableRows(t *testing.T, tbl *delta.Table) []string {
	t.Helper()
	var out []string
	_, err := scan.RowsAt(context.Background(), tbl, -1, func(fr scan.FileRows) error {
		for _, r := range fr.Rows {
			out = append(out, fmt.Sprint(r...))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// keys lists the store's keys.
func keys(t *testing.T, st objstore.Store, prefix string) []string {
	t.Helper()
	var out []string
	for info, err := range st.List(context.Background(), objstore.ListOptions{Prefix: prefix}) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, info.Key)
	}
	return out
}

func dataKeys(t *testing.T, st objstore.Store) []string {
	var out []string
	for _, k := range keys(t, st, "") {
		if !strings.HasPrefix(k, "_") {
			out = append(out, k)
		}
	}
	return out
}

// clock returns a clock that reads now shifted by d.
func clock(d time.Duration) func() time.Time {
	return func() time.Time { return time.Now().Add(d) }
}
