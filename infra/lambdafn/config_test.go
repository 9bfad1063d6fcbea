package lambdafn

import (
	"errors"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/options"
)

func templateEnv(over map[string]string) func(string) string {
	env := map[string]string{
		EnvStreamID:     "events",
		EnvSourceBucket: "landing-bucket",
		EnvSourcePrefix: "incoming/",
		EnvTableBucket:  "landing-bucket",
		EnvTablePrefix:  "tables/events/",
		EnvOptions:      `{"cloudFiles.format":"json","cloudFiles.maxFilesPerTrigger":"500","cloudFiles.cleanSource":"OFF","ignoreCorruptFiles":"true","ignoreMissingFiles":"false","badRecordsPath":"s3://landing-bucket/bad/"}`,
		EnvExtraOptions: `{"cloudFiles.schemaHints":"id BIGINT","cloudFiles.inferColumnTypes":true}`,
	}
	for k, v := range over {
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

func TestLoadConfigFromTemplateVariables(t *testing.T) {
	cfg, err := LoadConfigFrom(templateEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	s, ok := cfg.Stream("events")
	if !ok {
		t.Fatal("no stream")
	}
	if s.Source != "s3://landing-bucket/incoming/" || s.Table != "s3://landing-bucket/tables/events" {
		t.Fatalf("locations %s -> %s", s.Source, s.Table)
	}
	if s.CheckpointLocation() != "s3://landing-bucket/tables/events/_tributary/checkpoint/" {
		t.Fatalf("checkpoint %s", s.CheckpointLocation())
	}
	if !s.CloudFiles.UseNotifications || s.CloudFiles.MaxFilesPerTrigger != 500 || !s.CloudFiles.InferColumnTypes || s.CloudFiles.SchemaHints != "id BIGINT" {
		t.Fatalf("options %+v", s.CloudFiles)
	}
	if !s.Reader.IgnoreCorruptFiles || s.Reader.IgnoreMissingFiles || s.Reader.BadRecordsPath != "s3://landing-bucket/bad/" {
		t.Fatalf("reader options %+v", s.Reader)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		over map[string]string
		want string
	}{
		{"no stream", map[string]string{EnvStreamID: ""}, EnvStreamID},
		{"no table bucket", map[string]string{EnvTableBucket: ""}, EnvTableBucket},
		{"bad options json", map[string]string{EnvExtraOptions: `{"a":`}, EnvExtraOptions},
		{"option twice", map[string]string{EnvExtraOptions: `{"cloudFiles.format":"json"}`}, "cloudFiles.format"},
		{"bad option", map[string]string{EnvExtraOptions: `{"cloudFiles.maxFileAge":"1 day"}`}, "cloudFiles.maxFileAge"},
		{"bad config json", map[string]string{EnvConfig: `{"streams":[{"id":"x"}]}`}, EnvConfig},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadConfigFrom(templateEnv(tc.over))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to name %s", err, tc.want)
			}
		})
	}
	_, err := LoadConfigFrom(templateEnv(map[string]string{EnvExtraOptions: `{"cloudFiles.maxFileAge":"1 day"}`}))
	if !errors.Is(err, options.ErrInvalidOption) {
		t.Fatalf("want ErrInvalidOption, got %v", err)
	}
}
