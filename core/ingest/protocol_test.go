package ingest

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/state"
)

// TestUnwritableTableRefusedBeforeWriting: on a table whose protocol needs
// a feature Tributary does not write, a batch fails naming the real reason
// before any file is claimed or any Parquet file written.
func TestUnwritableTableRefusedBeforeWriting(t *testing.T) {
	cm := func(id int, phys string) string {
		return `{"delta.columnMapping.id":` + string(rune('0'+id)) + `,"delta.columnMapping.physicalName":"` + phys + `"}`
	}
	// A column-mapped table (as Spark creates one): nested fields carry
	// their own physical names and ids.
	cmSchema := `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":` + cm(1, "col-a") + `},` +
		`{"name":"items","type":{"type":"array","elementType":{"type":"struct","fields":[{"name":"ab","type":"long","nullable":true,"metadata":` + cm(3, "col-c") + `}]},"containsNull":true},"nullable":true,"metadata":` + cm(2, "col-b") + `}]}`
	tests := []struct {
		name  string
		proto delta.Protocol
		meta  delta.Metadata
		want  string
	}{
		{"column mapping", delta.Protocol{MinReaderVersion: 2, MinWriterVersion: 5},
			delta.Metadata{ID: "cm", SchemaString: cmSchema, Configuration: map[string]string{"delta.columnMapping.mode": "name", "delta.columnMapping.maxColumnId": "3"}},
			"the table uses column mapping (delta.columnMapping.mode=name"},
		{"deletion vectors", delta.Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"deletionVectors"}, WriterFeatures: []string{"deletionVectors"}},
			delta.Metadata{ID: "dv", SchemaString: `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]}`},
			"writer features deletionVectors"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			w := newWorld()
			// Another engine created the table.
			var log bytes.Buffer
			if err := delta.EncodeActions(&log, []delta.Action{{Protocol: &tc.proto}, {Metadata: &tc.meta}}); err != nil {
				t.Fatal(err)
			}
			if err := w.table.PutIfAbsent(ctx, delta.CommitKey(0), &log); err != nil {
				t.Fatal(err)
			}
			if err := w.src.Put(ctx, "in/a.json", strings.NewReader(`{"id":1,"items":[{"ab":1}]}`+"\n")); err != nil {
				t.Fatal(err)
			}
			w.discover(t)
			_, err := w.engine(t, Limits{MaxFiles: 10}).RunBatch(ctx)
			if !errors.Is(err, delta.ErrUnsupportedProtocol) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("RunBatch = %v, want ErrUnsupportedProtocol mentioning %q", err, tc.want)
			}
			for info, err := range w.table.List(ctx, objstore.ListOptions{}) {
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(info.Key, delta.LogDir) {
					t.Errorf("data file %s written for a refused batch", info.Key)
				}
			}
			e, err := w.st.Get(ctx, "stream-1", "in/a.json")
			if err != nil || e.State != state.Pending {
				t.Errorf("input file state %+v, %v; want PENDING", e, err)
			}
		})
	}
}
