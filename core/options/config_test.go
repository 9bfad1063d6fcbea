package options

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// describeConfig renders a config for the golden file.
func describeConfig(cfg *Config) string {
	var b strings.Builder
	for _, s := range cfg.Streams {
		fmt.Fprintf(&b, "# stream %s (%s): %s -> %s\n", s.ID, s.SourceFormat, s.Source, s.Table)
		b.WriteString(FormatSettings(s.Describe()))
		for _, w := range s.Warnings {
			fmt.Fprintf(&b, "! %s\n", w)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestLoadConfigGolden(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "example.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := LoadConfig(f)
	if err != nil {
		t.Fatalf("LoadConfig: %v", err)
	}
	got := describeConfig(cfg)
	golden := filepath.Join("testdata", "example.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("Describe output differs from %s:\n--- got\n%s\n--- want\n%s", golden, got, want)
	}
	s, ok := cfg.Stream("bronze_events")
	if !ok || s.CloudFiles.MaxFilesPerTrigger != 500 || !s.CloudFiles.UseNotifications {
		t.Errorf("Stream(bronze_events) = %+v, %v", s, ok)
	}
	if _, ok := cfg.Stream("nope"); ok {
		t.Error("Stream(nope) found")
	}
}

func streamJSON(id, src, table, ckpt, extra string) string {
	opts := `"cloudFiles.format": "json", "cloudFiles.schemaLocation": "` + ckpt + `/_schema"`
	if extra != "" {
		opts += ", " + extra
	}
	return fmt.Sprintf(`{"id": %q, "source": %q, "table": %q, "checkpointLocation": %q, "options": {%s}}`, id, src, table, ckpt, opts)
}

func configJSON(streams ...string) string {
	return `{"streams": [` + strings.Join(streams, ",") + `]}`
}

// TestValidateErrors has one case per cross-stream rule.
func TestValidateErrors(t *testing.T) {
	tests := []struct {
		name    string
		streams []string
		inMsg   []string
	}{
		{"duplicate id", []string{
			streamJSON("a", "s3://raw/a", "s3://lake/a", "s3://chk/a", ""),
			streamJSON("A", "s3://raw/b", "s3://lake/b", "s3://chk/b", ""),
		}, []string{`"a"`, `"A"`, "id"}},
		{"shared checkpoint", []string{
			streamJSON("a", "s3://raw/a", "s3://lake/a", "s3://chk/x", ""),
			streamJSON("b", "s3://raw/b", "s3://lake/b", "s3://chk/x/", ""),
		}, []string{`"a"`, `"b"`, "checkpointLocation", "same as"}},
		{"nested checkpoint", []string{
			streamJSON("a", "s3://raw/a", "s3://lake/a", "s3://chk/a", ""),
			streamJSON("b", "s3://raw/b", "s3://lake/b", "s3://chk/a/b", ""),
		}, []string{`"a"`, `"b"`, "checkpointLocation", "nested inside"}},
		{"shared schema location", []string{
			streamJSON("a", "s3://raw/a", "s3://lake/a", "s3://chk/a", ""),
			`{"id": "b", "source": "s3://raw/b", "table": "s3://lake/b", "checkpointLocation": "s3://chk/b", "options": {"cloudFiles.format": "json", "cloudFiles.schemaLocation": "s3://chk/a/_schema"}}`,
		}, []string{`"a"`, `"b"`, "cloudFiles.schemaLocation"}},
		{"shared txnAppId on one table", []string{
			streamJSON("a", "s3://raw/a", "s3://lake/t", "s3://chk/a", `"txnAppId": "app"`),
			streamJSON("b", "s3://raw/b", "s3://lake/t", "s3://chk/b", `"txnAppId": "app"`),
		}, []string{`"a"`, `"b"`, "txnAppId", `"app"`}},
		{"checkpoint inside another stream's table", []string{
			streamJSON("a", "s3://raw/a", "s3://lake/a", "s3://lake/b/chk_a", ""),
			streamJSON("b", "s3://raw/b", "s3://lake/b", "s3://chk/b", ""),
		}, []string{`"a"`, `"b"`, "checkpointLocation", "VACUUM"}},
		{"checkpoint inside another stream's source", []string{
			streamJSON("a", "s3://raw/a", "s3://lake/a", "s3://raw/b/_chk_a", ""),
			streamJSON("b", "s3://raw/b", "s3://lake/b", "s3://chk/b", ""),
		}, []string{`"a"`, `"b"`, "checkpointLocation", "source directory"}},
		{"bad records inside another stream's source", []string{
			streamJSON("a", "s3://raw/a", "s3://lake/a", "s3://chk/a", `"badRecordsPath": "s3://raw/b/_bad_a"`),
			streamJSON("b", "s3://raw/b", "s3://lake/b", "s3://chk/b", ""),
		}, []string{`"a"`, `"b"`, "badRecordsPath", "source directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadConfig(strings.NewReader(configJSON(tt.streams...)))
			if err == nil {
				t.Fatal("LoadConfig accepted the config")
			}
			if !errors.Is(err, ErrSharedLocation) || !errors.Is(err, ErrInvalidOption) {
				t.Errorf("error %v does not wrap ErrSharedLocation and ErrInvalidOption", err)
			}
			for _, sub := range tt.inMsg {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("error %q does not contain %q", err, sub)
				}
			}
		})
	}
}

func TestValidateAllowed(t *testing.T) {
	cfg, err := LoadConfig(strings.NewReader(configJSON(
		// Two streams appending to one table, each with its own appId.
		streamJSON("a", "s3://raw/a", "s3://lake/t", "s3://lake/t/_checkpoints/a", ""),
		streamJSON("b", "s3://raw/b", "s3://lake/t", "s3://lake/t/_checkpoints/b", ""),
		// Sibling checkpoints whose names share a prefix.
		streamJSON("c", "s3://raw/c", "s3://lake/c", "s3://chk/x", ""),
		streamJSON("d", "s3://raw/d", "s3://lake/d", "s3://chk/xy", ""),
	)))
	if err != nil {
		t.Fatalf("LoadConfig: %v", err)
	}
	if len(cfg.Streams) != 4 || cfg.Validate() != nil {
		t.Errorf("streams %d, Validate %v", len(cfg.Streams), cfg.Validate())
	}
}

func TestLoadConfigErrors(t *testing.T) {
	valid := streamJSON("a", "s3://raw/a", "s3://lake/a", "s3://chk/a", "")
	tests := []struct {
		name, in string
		inMsg    []string
	}{
		{"syntax", `{"streams": [`, []string{"config"}},
		{"unknown field", `{"streams": [{"id": "a", "sorce": "s3://x/y"}]}`, []string{"sorce"}},
		{"trailing data", configJSON(valid) + `{}`, []string{"after"}},
		{"no streams", `{"streams": []}`, []string{"no streams"}},
		{"object option value", configJSON(streamJSON("a", "s3://raw/a", "s3://lake/a", "s3://chk/a", `"cloudFiles.maxFilesPerTrigger": {"n": 1}`)), []string{"cloudFiles.maxFilesPerTrigger", `"a"`}},
		{"null option value", configJSON(streamJSON("a", "s3://raw/a", "s3://lake/a", "s3://chk/a", `"trigger": null`)), []string{"trigger"}},
		{"stream option error", configJSON(streamJSON("a", "s3://raw/a", "s3://lake/a", "s3://chk/a", `"cloudFiles.maxFileAge": "1 day"`)), []string{"streams[0]", "cloudFiles.maxFileAge", `"1 day"`}},
		{"number option value", configJSON(streamJSON("a", "s3://raw/a", "s3://lake/a", "s3://chk/a", `"cloudFiles.maxFilesPerTrigger": 0`)), []string{"cloudFiles.maxFilesPerTrigger", `"0"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadConfig(strings.NewReader(tt.in))
			if !errors.Is(err, ErrInvalidOption) {
				t.Fatalf("LoadConfig error %v does not wrap ErrInvalidOption", err)
			}
			for _, sub := range tt.inMsg {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("error %q does not contain %q", err, sub)
				}
			}
		})
	}
}
