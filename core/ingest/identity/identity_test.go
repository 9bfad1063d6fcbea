package identity

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/objstore/memstore"
)

func TestRecordReadSave(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	first := Identity{Version: Version, Source: "s3://raw/in", StreamID: "s", Table: "s3://lake/t", Format: "json", TxnAppID: "s"}
	if ok, err := Record(ctx, st, first); err != nil || !ok {
		t.Fatalf("first Record = %v, %v; want recorded", ok, err)
	}
	second := first
	second.Format = "csv"
	if ok, err := Record(ctx, st, second); err != nil || ok {
		t.Fatalf("second Record = %v, %v; want the first record kept", ok, err)
	}
	if got, err := Read(ctx, st); err != nil || !reflect.DeepEqual(got, first) {
		t.Fatalf("Read = %+v, %v; want %+v", got, err, first)
	}
	if err := Save(ctx, st, second); err != nil {
		t.Fatal(err)
	}
	if got, err := Read(ctx, st); err != nil || !reflect.DeepEqual(got, second) {
		t.Fatalf("Read after Save = %+v, %v; want %+v", got, err, second)
	}
	if _, err := Read(ctx, memstore.New()); err == nil || !strings.Contains(err.Error(), Key) {
		t.Errorf("Read of an empty checkpoint = %v, want an error naming %s", err, Key)
	}
}

func TestDiff(t *testing.T) {
	base := Identity{Source: "s3://raw/in", Table: "s3://lake/t", StreamID: "s", Format: "json", PartitionColumns: []string{"d"}, TxnAppID: "s", SchemaHints: "a INT", StateStore: "x"}
	tests := []struct {
		name   string
		change func(*Identity)
		want   []string
	}{
		{"same", func(*Identity) {}, nil},
		{"hints and state store may change", func(i *Identity) { i.SchemaHints, i.StateStore = "b INT", "y" }, nil},
		{"unknown source is not compared", func(i *Identity) { i.Source = "" }, nil},
		{"format", func(i *Identity) { i.Format = "csv" }, []string{"cloudFiles.format json (now csv)"}},
		{"partitioning", func(i *Identity) { i.PartitionColumns = nil }, []string{"cloudFiles.partitionColumns d (now (none))"}},
		{"table and appId", func(i *Identity) { i.Table, i.TxnAppID = "s3://lake/u", "t" }, []string{"table s3://lake/t (now s3://lake/u)", "txnAppId s (now t)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := base
			want.PartitionColumns = append([]string(nil), base.PartitionColumns...)
			tc.change(&want)
			if got := Diff(base, want); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Diff = %q, want %q", got, tc.want)
			}
		})
	}
}
