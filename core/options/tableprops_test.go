package options

import (
	"strings"
	"testing"
)

func TestTableProperties(t *testing.T) {
	tests := []struct {
		opt, value, want string // want "" means refused
	}{
		{"delta.enableTypeWidening", "TRUE", "true"},
		{"DELTA.ENABLETYPEWIDENING", "false", "false"},
		{"delta.enableTypeWidening", "yes", ""},
		{"delta.checkpointInterval", "5", "5"},
		{"delta.checkpointInterval", "0", ""},
		{"delta.appendOnly", "true", "true"},
		{"delta.logRetentionDuration", "interval 30 days", "interval 30 days"},
		{"delta.logRetentionDuration", "2 weeks", "interval 14 days"},
		{"delta.deletedFileRetentionDuration", "36 hours", "interval 36 hours"},
		{"delta.deletedFileRetentionDuration", "interval 1 month", ""},
		{"delta.deletedFileRetentionDuration", "-1 days", ""},
		{"delta.dataSkippingNumIndexedCols", "-1", "-1"},
		{"delta.dataSkippingNumIndexedCols", "-2", ""},
		{"delta.dataSkippingStatsColumns", " a , b.c ", "a,b.c"},
		{"delta.dataSkippingStatsColumns", "a,,b", ""},
		{"delta.enableChangeDataFeed", "true", ""},
		{"delta.columnMapping.mode", "name", ""},
	}
	for _, tc := range tests {
		t.Run(tc.opt+"="+tc.value, func(t *testing.T) {
			s, err := Parse(map[string]string{"cloudFiles.format": "json", tc.opt: tc.value},
				Locations{StreamID: "s", Source: "/in", Table: "/t", CheckpointLocation: "/cp", SchemaLocation: "/cp"})
			if tc.want == "" {
				if err == nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.opt)) {
					t.Fatalf("err %v, want one naming %s", err, tc.opt)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got string
			for k, v := range s.Sink.TableProperties {
				if strings.EqualFold(k, tc.opt) {
					got = k + "=" + v
				}
			}
			if want := registry()[strings.ToLower(tc.opt)].name + "=" + tc.want; got != want {
				t.Errorf("table property %q, want %q", got, want)
			}
		})
	}
}
