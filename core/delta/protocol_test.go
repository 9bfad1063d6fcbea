package delta

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCheckAppend(t *testing.T) {
	tests := []struct {
		table string
		want  string // "" = writable
	}{
		{"kernel/app-txn-checkpoint", ""},
		{"kernel/type-widening", ""},
		{"spark-golden/table-with-columnmapping-mode-name/table-with-columnmapping-mode-name/delta", "column mapping (delta.columnMapping.mode=name"},
		{"spark-golden/table-with-columnmapping-mode-id/table-with-columnmapping-mode-id/delta", "column mapping (delta.columnMapping.mode=id"},
		{"delta-rs/table_with_column_mapping", "column mapping (delta.columnMapping.mode=name, protocol (2,5))"},
		{"spark-golden/dv-with-columnmapping/dv-with-columnmapping/delta", "column mapping"},
		{"kernel/table-with-dv-small", "writer features deletionVectors"},
	}
	for _, tc := range tests {
		t.Run(tc.table, func(t *testing.T) {
			tbl := openFixture(t, tc.table)
			snap, err := tbl.Snapshot(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			err = tbl.CheckAppend(snap)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("CheckAppend: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrUnsupportedProtocol) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckAppend = %v, want ErrUnsupportedProtocol mentioning %q", err, tc.want)
			}
		})
	}
	if err := NewTable(nil).CheckAppend(nil); err != nil {
		t.Errorf("new table: %v", err)
	}
}

func TestWithReaderWriterFeature(t *testing.T) {
	tests := []struct {
		name string
		in   Protocol
		want Protocol
	}{
		{"legacy (1,2)", Protocol{MinReaderVersion: 1, MinWriterVersion: 2},
			Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{FeatureTimestampNTZ}, WriterFeatures: []string{FeatureAppendOnly, FeatureInvariants, FeatureTimestampNTZ}}},
		{"legacy (1,1)", Protocol{MinReaderVersion: 1, MinWriterVersion: 1},
			Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{FeatureTimestampNTZ}, WriterFeatures: []string{FeatureTimestampNTZ}}},
		{"(1,7)", Protocol{MinReaderVersion: 1, MinWriterVersion: 7, WriterFeatures: []string{FeatureAppendOnly}},
			Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{FeatureTimestampNTZ}, WriterFeatures: []string{FeatureAppendOnly, FeatureTimestampNTZ}}},
		{"(3,7) with others", Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{FeatureDeletionVectors}, WriterFeatures: []string{FeatureDeletionVectors, FeatureAppendOnly}},
			Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{FeatureDeletionVectors, FeatureTimestampNTZ}, WriterFeatures: []string{FeatureDeletionVectors, FeatureAppendOnly, FeatureTimestampNTZ}}},
		{"already listed", Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{FeatureTimestampNTZ}, WriterFeatures: []string{FeatureTimestampNTZ}},
			Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{FeatureTimestampNTZ}, WriterFeatures: []string{FeatureTimestampNTZ}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := WithReaderWriterFeature(tt.in, FeatureTimestampNTZ)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
