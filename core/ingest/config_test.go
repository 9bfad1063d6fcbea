package ingest

import (
	"github.com/tributary-io/tributary/core/schema"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/options"
)

func TestConfigFromOptions(t *testing.T) {
	parse := func(raw map[string]string) (*options.Stream, error) {
		return options.Parse(raw, options.Locations{StreamID: "s", Source: "/data/in", Table: "/data/t", CheckpointLocation: "/data/cp", SchemaLocation: "/data/cp"})
	}
	tests := []struct {
		name    string
		raw     map[string]string
		wantErr string
		check   func(Config) bool
	}{
		{"defaults", map[string]string{"cloudFiles.format": "json"}, "", func(c Config) bool {
			return c.Limits.MaxFiles == 1000 && c.Schema.EvolutionMode == options.EvolveAddNewColumns && c.Schema.rescuedColumn() == "_rescued_data"
		}},
		{"partitions and clean", map[string]string{"cloudFiles.format": "json", "cloudFiles.partitionColumns": "date,city", "cloudFiles.cleanSource": "DELETE"}, "", func(c Config) bool {
			return strings.Join(c.PartitionColumns, ",") == "date,city" && c.CleanSource == options.CleanDelete
		}},
		{"txnAppId", map[string]string{"cloudFiles.format": "json", "txnAppId": "app-1"}, "", func(c Config) bool { return c.AppID == "app-1" }},
		{"once", map[string]string{"cloudFiles.format": "json", "trigger": "once"}, "", func(c Config) bool { return c.Once }},
		{"reader defaults", map[string]string{"cloudFiles.format": "json"}, "", func(c Config) bool {
			return c.Reader == ReaderConfig{Mode: formats.Permissive}
		}},
		{"reader options", map[string]string{"cloudFiles.format": "json", "mode": "dropmalformed", "columnNameOfCorruptRecord": "_bad", "prefersDecimal": "true",
			"primitivesAsString": "true", "dropFieldIfAllNull": "true", "readerCaseSensitive": "false", "ignoreCorruptFiles": "true", "ignoreMissingFiles": "true", "badRecordsPath": "/data/_bad"}, "", func(c Config) bool {
			return c.Reader == ReaderConfig{Mode: formats.DropMalformed, CorruptRecordColumn: "_bad", PrefersDecimal: true, PrimitivesAsString: true,
				DropFieldIfAllNull: true, CaseInsensitive: true, IgnoreCorruptFiles: true, IgnoreMissingFiles: true, BadRecordsPath: "/data/_bad"}
		}},
		{"orc format", map[string]string{"cloudFiles.format": "orc"}, "", func(c Config) bool { return c.Format.Name() == "orc" }},
		{"type widening", map[string]string{"cloudFiles.format": "json", "cloudFiles.schemaEvolutionMode": "addNewColumnsWithTypeWidening", "delta.enableTypeWidening": "TRUE"}, "", func(c Config) bool {
			return c.Schema.EvolutionMode == options.EvolveAddNewColumnsWithTypeWidening && c.TableProperties["delta.enableTypeWidening"] == "true" && c.Reader.PrefersDecimal
		}},
		{"typed partition hint", map[string]string{"cloudFiles.format": "json", "cloudFiles.partitionColumns": "date,n", "cloudFiles.schemaHints": "date DATE, n INT, other BINARY"}, "", func(c Config) bool {
			return c.PartitionTypes["date"] == schema.DateType && c.PartitionTypes["n"] == schema.Integer && len(c.PartitionTypes) == 2
		}},
		{"nested partition hint", map[string]string{"cloudFiles.format": "json", "cloudFiles.partitionColumns": "date", "cloudFiles.schemaHints": "date ARRAY<INT>"}, "partition column date", nil},
		{"binary partition hint", map[string]string{"cloudFiles.format": "json", "cloudFiles.partitionColumns": "b", "cloudFiles.schemaHints": "b BINARY"}, "partition column b", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := parse(tc.raw)
			if err != nil {
				t.Fatalf("options: %v", err)
			}
			cfg, err := ConfigFromOptions(s)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil || !tc.check(cfg) {
				t.Fatalf("config %+v, err %v", cfg, err)
			}
		})
	}
}
