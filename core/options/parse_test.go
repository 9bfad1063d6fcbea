package options

import (
	"errors"
	"github.com/tributary-io/tributary/core/options/sparkvalue"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// baseLoc is a valid cloudFiles stream on S3.
func baseLoc() Locations {
	return Locations{
		StreamID:           "bronze_events",
		Source:             "s3://raw/events/",
		Table:              "s3://lake/bronze/events",
		CheckpointLocation: "s3://lake/_checkpoints/bronze_events",
		SchemaLocation:     "s3://lake/_checkpoints/bronze_events/_schema",
	}
}

func deltaLoc() Locations {
	return Locations{
		StreamID:           "silver_events",
		Source:             "s3://lake/bronze/events",
		Table:              "s3://lake/silver/events",
		CheckpointLocation: "s3://lake/silver/events/_checkpoints/silver_events",
		SourceFormat:       "delta",
	}
}

func mustParse(t *testing.T, raw map[string]string, loc Locations) *Stream {
	t.Helper()
	s, err := Parse(raw, loc)
	if err != nil {
		t.Fatalf("Parse(%v) = %v", raw, err)
	}
	return s
}

func TestParseCloudFilesDefaults(t *testing.T) {
	s := mustParse(t, map[string]string{"cloudFiles.format": "json"}, baseLoc())
	want := CloudFiles{
		Format:                FormatJSON,
		MaxFilesPerTrigger:    1000,
		IncludeExistingFiles:  true,
		UseNotifications:      false,
		UseIncrementalListing: "auto",
		FetchParallelism:      1,
		AllowOverwrites:       false,
		InferColumnTypes:      false,
		SchemaLocation:        "s3://lake/_checkpoints/bronze_events/_schema",
		SchemaEvolutionMode:   EvolveAddNewColumns,
		RescuedDataColumn:     "_rescued_data",
		ValidateOptions:       true,
		CleanSource:           CleanOff,
		SampleSizeNumBytes:    50 << 30,
		SampleSizeNumFiles:    1000,
	}
	if !reflect.DeepEqual(s.CloudFiles, want) {
		t.Errorf("CloudFiles =\n%+v\nwant\n%+v", s.CloudFiles, want)
	}
	wantSink := Sink{CheckpointLocation: "s3://lake/_checkpoints/bronze_events", OutputMode: OutputAppend, Trigger: Trigger{Kind: TriggerProcessingTime}, MergeSchema: true, TxnAppID: "bronze_events"}
	if !reflect.DeepEqual(s.Sink, wantSink) {
		t.Errorf("Sink = %+v; want %+v", s.Sink, wantSink)
	}
	if s.Reader.Mode != "PERMISSIVE" || s.Reader.PrefersDecimal || len(s.Reader.Options) != 0 {
		t.Errorf("Reader = %+v", s.Reader)
	}
	if files, bytes := s.Limits(); files != 1000 || bytes != 0 {
		t.Errorf("Limits() = %d, %d; want 1000, 0", files, bytes)
	}
	if s.CloudFiles.MaxFileAge != 0 || s.CloudFiles.BackfillInterval != 0 || s.CloudFiles.MaxBytesPerTrigger != 0 {
		t.Errorf("options without default are set: %+v", s.CloudFiles)
	}
	if len(s.Warnings) != 0 || len(s.Ignored) != 0 {
		t.Errorf("Warnings %v, Ignored %v", s.Warnings, s.Ignored)
	}
}

func TestParseSchemaDefaults(t *testing.T) {
	tests := []struct {
		name        string
		raw         map[string]string
		userSchema  string
		noSchemaLoc bool
		wantMode    SchemaEvolutionMode
		wantRescue  string
		wantDecimal bool
	}{
		{"inferred json", map[string]string{"cloudFiles.format": "json"}, "", false, EvolveAddNewColumns, "_rescued_data", false},
		{"user schema", map[string]string{"cloudFiles.format": "json"}, "id INT, name STRING", true, EvolveNone, "", false},
		{"user schema rescue", map[string]string{"cloudFiles.format": "csv", "cloudFiles.schemaEvolutionMode": "rescue"}, "id INT", true, EvolveRescue, "_rescued_data", false},
		{"none with rescued column", map[string]string{"cloudFiles.format": "json", "cloudFiles.schemaEvolutionMode": "none", "cloudFiles.rescuedDataColumn": "_bad"}, "", false, EvolveNone, "_bad", false},
		{"plain rescuedDataColumn alias", map[string]string{"cloudFiles.format": "json", "rescuedDataColumn": "_r"}, "", false, EvolveAddNewColumns, "_r", false},
		{"type widening turns on prefersDecimal", map[string]string{"cloudFiles.format": "csv", "cloudFiles.schemaEvolutionMode": "addNewColumnsWithTypeWidening"}, "", false, EvolveAddNewColumnsWithTypeWidening, "_rescued_data", true},
		{"binaryFile has a fixed schema", map[string]string{"cloudFiles.format": "binaryFile"}, "", true, EvolveNone, "", false},
		{"text has a fixed schema", map[string]string{"cloudFiles.format": "TEXT"}, "", true, EvolveNone, "", false},
		{"parquet", map[string]string{"cloudFiles.format": "parquet", "cloudFiles.schemaEvolutionMode": "FAILONNEWCOLUMNS"}, "", false, EvolveFailOnNewColumns, "_rescued_data", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc := baseLoc()
			loc.UserSchema = tt.userSchema
			if tt.noSchemaLoc {
				loc.SchemaLocation = ""
			}
			s := mustParse(t, tt.raw, loc)
			if s.CloudFiles.SchemaEvolutionMode != tt.wantMode || s.CloudFiles.RescuedDataColumn != tt.wantRescue || s.Reader.PrefersDecimal != tt.wantDecimal {
				t.Errorf("mode %q rescue %q prefersDecimal %v; want %q %q %v", s.CloudFiles.SchemaEvolutionMode, s.CloudFiles.RescuedDataColumn, s.Reader.PrefersDecimal, tt.wantMode, tt.wantRescue, tt.wantDecimal)
			}
		})
	}
}

func TestParseDeltaDefaults(t *testing.T) {
	s := mustParse(t, nil, deltaLoc())
	want := DeltaSource{MaxFilesPerTrigger: 1000, FailOnDataLoss: true}
	if !reflect.DeepEqual(s.Delta, want) {
		t.Errorf("Delta = %+v; want %+v", s.Delta, want)
	}
	if s.SourceFormat != SourceDelta || s.Delta.ChangePolicy() != ChangesFail {
		t.Errorf("SourceFormat %q, ChangePolicy %q", s.SourceFormat, s.Delta.ChangePolicy())
	}
	if s.CloudFiles.Format != "" {
		t.Errorf("a Delta source has cloudFiles.format %q", s.CloudFiles.Format)
	}
}

func TestParseValues(t *testing.T) {
	ts := time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		delta bool
		raw   map[string]string
		check func(s *Stream) bool
	}{
		{"maxFilesPerTrigger", false, map[string]string{"cloudFiles.maxFilesPerTrigger": "500"}, func(s *Stream) bool { return s.CloudFiles.MaxFilesPerTrigger == 500 }},
		{"maxBytesPerTrigger", false, map[string]string{"cloudFiles.maxBytesPerTrigger": "10g"}, func(s *Stream) bool { return s.CloudFiles.MaxBytesPerTrigger == 10<<30 }},
		{"includeExistingFiles", false, map[string]string{"cloudFiles.includeExistingFiles": "FALSE"}, func(s *Stream) bool { return !s.CloudFiles.IncludeExistingFiles }},
		{"allowOverwrites", false, map[string]string{"cloudFiles.allowOverwrites": "true"}, func(s *Stream) bool { return s.CloudFiles.AllowOverwrites }},
		{"maxFileAge", false, map[string]string{"cloudFiles.maxFileAge": "90 days"}, func(s *Stream) bool { return s.CloudFiles.MaxFileAge == 90*sparkvalue.Day }},
		{"maxFileAge minimum", false, map[string]string{"cloudFiles.maxFileAge": "2 weeks"}, func(s *Stream) bool { return s.CloudFiles.MaxFileAge == 14*sparkvalue.Day }},
		{"schemaHints", false, map[string]string{"cloudFiles.schemaHints": "user_id STRING, age INT, user_info.dob DATE", "cloudFiles.inferColumnTypes": "true"}, func(s *Stream) bool {
			return s.CloudFiles.SchemaHints == "user_id STRING, age INT, user_info.dob DATE" && s.CloudFiles.InferColumnTypes
		}},
		{"partitionColumns", false, map[string]string{"cloudFiles.partitionColumns": "date, region"}, func(s *Stream) bool {
			return reflect.DeepEqual(s.CloudFiles.PartitionColumns, []string{"date", "region"})
		}},
		{"empty partitionColumns", false, map[string]string{"cloudFiles.partitionColumns": ""}, func(s *Stream) bool { return s.CloudFiles.PartitionColumns == nil }},
		{"cleanSource delete", false, map[string]string{"cloudFiles.cleanSource": "delete"}, func(s *Stream) bool { return s.CloudFiles.CleanSource == CleanDelete }},
		{"cleanSource move", false, map[string]string{"cloudFiles.cleanSource": "MOVE", "cloudFiles.cleanSource.moveDestination": "s3://raw/archive/events/"}, func(s *Stream) bool {
			return s.CloudFiles.CleanSource == CleanMove && s.CloudFiles.MoveDestination == "s3://raw/archive/events/"
		}},
		{"sample size", false, map[string]string{"spark.databricks.cloudFiles.schemaInference.sampleSize.numBytes": "10gb", "spark.databricks.cloudFiles.schemaInference.sampleSize.numFiles": "20"}, func(s *Stream) bool {
			return s.CloudFiles.SampleSizeNumBytes == 10<<30 && s.CloudFiles.SampleSizeNumFiles == 20
		}},
		{"reader options", false, map[string]string{"ignoreCorruptFiles": "TRUE", "ignoreMissingFiles": "true", "mode": "failfast", "badRecordsPath": "s3://x/bad", "columnNameOfCorruptRecord": "_corrupt", "prefersDecimal": "true", "primitivesAsString": "True", "dropFieldIfAllNull": "true", "readerCaseSensitive": "false"}, func(s *Stream) bool {
			r := s.Reader
			return r.IgnoreCorruptFiles && r.IgnoreMissingFiles && r.Mode == "FAILFAST" && r.BadRecordsPath == "s3://x/bad" &&
				r.ColumnNameOfCorruptRecord == "_corrupt" && r.PrefersDecimal && r.PrimitivesAsString && r.DropFieldIfAllNull && !r.CaseSensitive &&
				r.Options["ignoreCorruptFiles"] == "true" && r.Options["mode"] == "FAILFAST" && r.Options["badRecordsPath"] == "s3://x/bad"
		}},
		{"reader defaults", false, map[string]string{}, func(s *Stream) bool {
			r := s.Reader
			return !r.IgnoreCorruptFiles && !r.IgnoreMissingFiles && r.Mode == "PERMISSIVE" && r.BadRecordsPath == "" && r.ColumnNameOfCorruptRecord == "" &&
				!r.PrefersDecimal && !r.PrimitivesAsString && !r.DropFieldIfAllNull && r.CaseSensitive
		}},
		{"mode dropmalformed", false, map[string]string{"MODE": "DropMalformed"}, func(s *Stream) bool { return s.Reader.Mode == "DROPMALFORMED" }},
		{"badRecordsPath local, under the table's _ folder", false, map[string]string{"badRecordsPath": "s3://lake/bronze/events/_bad_records"}, func(s *Stream) bool {
			return s.Reader.BadRecordsPath == "s3://lake/bronze/events/_bad_records"
		}},
		{"trigger", false, map[string]string{"trigger": "availableNow"}, func(s *Stream) bool { return s.Sink.Trigger.Kind == TriggerAvailableNow }},
		{"mergeSchema default", false, map[string]string{}, func(s *Stream) bool { return s.Sink.MergeSchema }},
		{"outputMode", false, map[string]string{"outputMode": "Append", "mergeSchema": "false"}, func(s *Stream) bool { return s.Sink.OutputMode == OutputAppend && !s.Sink.MergeSchema }},
		{"outputMode complete", false, map[string]string{"outputMode": "Complete", "overwriteSchema": "true"}, func(s *Stream) bool { return s.Sink.OutputMode == OutputComplete && s.Sink.OverwriteSchema }},
		{"mergeKeys", false, map[string]string{"MERGEKEYS": " tenant , id"}, func(s *Stream) bool {
			return s.Sink.OutputMode == OutputUpdate && slices.Equal(s.Sink.MergeKeys, []string{"tenant", "id"})
		}},
		{"txn", false, map[string]string{"txnAppId": "backfill-2024", "txnVersion": "0"}, func(s *Stream) bool {
			return s.Sink.TxnAppID == "backfill-2024" && s.Sink.TxnVersion != nil && *s.Sink.TxnVersion == 0
		}},
		{"startingVersion", true, map[string]string{"startingVersion": "5"}, func(s *Stream) bool { return *s.Delta.StartingVersion == StartingVersion{Version: 5} }},
		{"startingVersion latest", true, map[string]string{"startingVersion": "LATEST"}, func(s *Stream) bool { return s.Delta.StartingVersion.Latest }},
		{"startingTimestamp", true, map[string]string{"startingTimestamp": "2019-01-01T00:00:00.000Z"}, func(s *Stream) bool { return s.Delta.StartingTimestamp.Equal(ts) }},
		{"delta limits", true, map[string]string{"maxFilesPerTrigger": "10", "maxBytesPerTrigger": "512m", "failOnDataLoss": "false"}, func(s *Stream) bool {
			f, b := s.Limits()
			return f == 10 && b == 512<<20 && !s.Delta.FailOnDataLoss
		}},
		{"skipChangeCommits", true, map[string]string{"skipChangeCommits": "true"}, func(s *Stream) bool { return s.Delta.ChangePolicy() == ChangesSkip }},
		{"ignoreChanges over ignoreDeletes", true, map[string]string{"ignoreChanges": "true", "ignoreDeletes": "true"}, func(s *Stream) bool { return s.Delta.ChangePolicy() == ChangesReemit }},
		{"ignoreDeletes", true, map[string]string{"ignoreDeletes": "true"}, func(s *Stream) bool { return s.Delta.ChangePolicy() == ChangesIgnorePartitionDeletes }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc := deltaLoc()
			raw := map[string]string{}
			if !tt.delta {
				loc = baseLoc()
				raw["cloudFiles.format"] = "json"
			}
			for k, v := range tt.raw {
				raw[k] = v
			}
			s := mustParse(t, raw, loc)
			if !tt.check(s) {
				t.Errorf("unexpected stream for %v: %+v", tt.raw, s)
			}
			for k := range tt.raw {
				if !s.IsSet(k) {
					t.Errorf("IsSet(%q) = false", k)
				}
			}
		})
	}
}

func TestParseCaseInsensitiveNames(t *testing.T) {
	s := mustParse(t, map[string]string{"CLOUDFILES.FORMAT": "Json", "cloudfiles.maxfilespertrigger": "7", "CheckpointLocation": "s3://lake/_checkpoints/bronze_events"}, baseLoc())
	if s.CloudFiles.Format != FormatJSON || s.CloudFiles.MaxFilesPerTrigger != 7 {
		t.Errorf("format %q, maxFiles %d", s.CloudFiles.Format, s.CloudFiles.MaxFilesPerTrigger)
	}
	if !s.IsSet("cloudFiles.maxFilesPerTrigger") || s.IsSet("cloudFiles.maxBytesPerTrigger") {
		t.Error("IsSet is wrong")
	}
	// The same option twice with the same value is fine.
	mustParse(t, map[string]string{"cloudFiles.format": "json", "CLOUDFILES.FORMAT": "json"}, baseLoc())
}

func TestParseValidateOptionsFalse(t *testing.T) {
	s := mustParse(t, map[string]string{
		"cloudFiles.format":               "json",
		"cloudFiles.validateOptions":      "false",
		"cloudFiles.ignoreCorruptFiles":   "true",
		"header":                          "true",
		"someVendorOption":                "x",
		"cloudFiles.maxFilesPerTrigger":   "10",
		"cloudFiles.useManagedFileEvents": "if_available",
	}, baseLoc())
	want := []string{"cloudFiles.ignoreCorruptFiles", "header", "someVendorOption"}
	if !reflect.DeepEqual(s.Ignored, want) {
		t.Errorf("Ignored = %v; want %v", s.Ignored, want)
	}
	if s.CloudFiles.MaxFilesPerTrigger != 10 || s.CloudFiles.ValidateOptions {
		t.Errorf("known options not applied: %+v", s.CloudFiles)
	}
	if len(s.Warnings) != 4 {
		t.Errorf("Warnings = %q; want 4", s.Warnings)
	}
	if s.Raw["someVendorOption"] != "x" {
		t.Errorf("Raw lost an option: %v", s.Raw)
	}
}

func TestParseWarnings(t *testing.T) {
	tests := []struct {
		name  string
		delta bool
		raw   map[string]string
		want  string
	}{
		{"once is deprecated", false, map[string]string{"trigger": "once"}, "deprecated"},
		{"ignoreChanges is legacy", true, map[string]string{"ignoreChanges": "true"}, "legacy"},
		{"change options precedence", true, map[string]string{"skipChangeCommits": "true", "ignoreDeletes": "true"}, "skipChangeCommits applies"},
		{"mode with badRecordsPath", false, map[string]string{"mode": "FAILFAST", "badRecordsPath": "s3://x/bad"}, "mode=FAILFAST does not apply"},
		{"ignoreCorruptFiles=false with badRecordsPath", false, map[string]string{"ignoreCorruptFiles": "false", "badRecordsPath": "s3://x/bad"}, "ignoreCorruptFiles=false does not apply"},
		{"append once", false, map[string]string{"txnAppId": "x", "txnVersion": "3"}, "append once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, raw := deltaLoc(), map[string]string{}
			if !tt.delta {
				loc, raw = baseLoc(), map[string]string{"cloudFiles.format": "json"}
			}
			for k, v := range tt.raw {
				raw[k] = v
			}
			s := mustParse(t, raw, loc)
			if !strings.Contains(strings.Join(s.Warnings, "\n"), tt.want) {
				t.Errorf("Warnings = %q; want one containing %q", s.Warnings, tt.want)
			}
		})
	}
}

func TestParseAllowedPlacements(t *testing.T) {
	tests := []struct {
		name string
		loc  Locations
	}{
		{"checkpoint under table/_checkpoints (seed 000)", Locations{StreamID: "a", Source: "s3://raw/in", Table: "s3://lake/t", CheckpointLocation: "s3://lake/t/_checkpoints/a", SchemaLocation: "s3://lake/t/_checkpoints/a/_schema"}},
		{"schema location inside own checkpoint (seed 001)", Locations{StreamID: "a", Source: "s3://raw/in", Table: "s3://lake/t", CheckpointLocation: "s3://dev-bucket/_checkpoint/bronze_events", SchemaLocation: "s3://dev-bucket/_checkpoint/bronze_events/_schema"}},
		{"local directories", Locations{StreamID: "a", Source: "/data/in", Table: "/data/tables/t", CheckpointLocation: "/data/tables/t/_checkpoints", SchemaLocation: "/data/schemas/a"}},
		{"sibling table and source", Locations{StreamID: "a", Source: "s3://b/raw", Table: "s3://b/raw2", CheckpointLocation: "s3://b/chk", SchemaLocation: "s3://b/schema"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustParse(t, map[string]string{"cloudFiles.format": "json"}, tt.loc)
		})
	}
	// Local MOVE destination outside the source is fine.
	mustParse(t, map[string]string{"cloudFiles.format": "json", "cloudFiles.cleanSource": "MOVE", "cloudFiles.cleanSource.moveDestination": "/data/archive"},
		Locations{StreamID: "a", Source: "/data/in", Table: "/data/t", CheckpointLocation: "/data/chk", SchemaLocation: "/data/schema"})
}

// TestParseErrors has one case per configuration error.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		delta bool
		raw   map[string]string // added to a valid base
		drop  []string          // base options to remove
		loc   func(l *Locations)
		want  error    // sentinel
		inMsg []string // substrings of the message (option name, value, hints)
	}{
		{name: "format missing", drop: []string{"cloudFiles.format"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.format", "required"}},
		{name: "format unknown", raw: map[string]string{"cloudFiles.format": "png"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.format", `"png"`, "binaryFile"}},
		{name: "cloudFiles prefix on a reader option", raw: map[string]string{"cloudFiles.ignoreCorruptFiles": "true"}, want: ErrUnknownOption, inMsg: []string{"cloudFiles.ignoreCorruptFiles", `"true"`, "did you mean ignoreCorruptFiles?", "plain reader option"}},
		{name: "near miss", raw: map[string]string{"cloudFiles.maxFilesPerTriger": "5"}, want: ErrUnknownOption, inMsg: []string{"cloudFiles.maxFilesPerTriger", `"5"`, "did you mean cloudFiles.maxFilesPerTrigger?"}},
		{name: "missing cloudFiles prefix", raw: map[string]string{"useNotifications": "true"}, want: ErrUnknownOption, inMsg: []string{"useNotifications", "did you mean cloudFiles.useNotifications?"}},
		{name: "sample size is a spark conf", raw: map[string]string{"cloudFiles.schemaInference.sampleSize.numFiles": "10"}, want: ErrUnknownOption, inMsg: []string{"cloudFiles.schemaInference.sampleSize.numFiles", "spark.databricks.cloudFiles.schemaInference.sampleSize.numFiles"}},
		{name: "unknown without suggestion", raw: map[string]string{"frobnicate": "1"}, want: ErrUnknownOption, inMsg: []string{"frobnicate", `"1"`, "validateOptions"}},
		{name: "maxFileAge under 14 days", raw: map[string]string{"cloudFiles.maxFileAge": "13 days"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.maxFileAge", `"13 days"`, "14 days"}},
		{name: "maxFileAge malformed", raw: map[string]string{"cloudFiles.maxFileAge": "14d"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.maxFileAge", `"14d"`}},
		{name: "backfillInterval zero", raw: map[string]string{"cloudFiles.backfillInterval": "0 days"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.backfillInterval", `"0 days"`}},
		{name: "moveDestination in another bucket", raw: map[string]string{"cloudFiles.cleanSource": "MOVE", "cloudFiles.cleanSource.moveDestination": "s3://other/archive"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.cleanSource.moveDestination", "s3://other/archive", "same bucket", `"raw"`}},
		{name: "moveDestination on other storage", raw: map[string]string{"cloudFiles.cleanSource": "MOVE", "cloudFiles.cleanSource.moveDestination": "/archive"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.cleanSource.moveDestination", "/archive", "same storage"}},
		{name: "moveDestination inside the source", raw: map[string]string{"cloudFiles.cleanSource": "MOVE", "cloudFiles.cleanSource.moveDestination": "s3://raw/events/archive"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.cleanSource.moveDestination", "s3://raw/events/archive", "ingested again"}},
		{name: "MOVE without moveDestination", raw: map[string]string{"cloudFiles.cleanSource": "MOVE"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.cleanSource.moveDestination", "MOVE"}},
		{name: "moveDestination without MOVE", raw: map[string]string{"cloudFiles.cleanSource": "DELETE", "cloudFiles.cleanSource.moveDestination": "s3://raw/archive"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.cleanSource.moveDestination", "s3://raw/archive", "DELETE"}},
		{name: "cleanSource unknown", raw: map[string]string{"cloudFiles.cleanSource": "ARCHIVE"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.cleanSource", `"ARCHIVE"`}},
		{name: "cleanSource retentionDuration", raw: map[string]string{"cloudFiles.cleanSource.retentionDuration": "30 days"}, want: ErrUnsupportedOption, inMsg: []string{"cloudFiles.cleanSource.retentionDuration", "30 days"}},
		{name: "startingVersion and startingTimestamp", delta: true, raw: map[string]string{"startingVersion": "5", "startingTimestamp": "2019-01-01"}, want: ErrInvalidOption, inMsg: []string{"startingVersion", "startingTimestamp", `"5"`, "2019-01-01"}},
		{name: "startingVersion malformed", delta: true, raw: map[string]string{"startingVersion": "-1"}, want: ErrInvalidOption, inMsg: []string{"startingVersion", `"-1"`, "latest"}},
		{name: "startingTimestamp malformed", delta: true, raw: map[string]string{"startingTimestamp": "last tuesday"}, want: ErrInvalidOption, inMsg: []string{"startingTimestamp", "last tuesday"}},
		{name: "readChangeFeed", delta: true, raw: map[string]string{"readChangeFeed": "true"}, want: ErrUnsupportedOption, inMsg: []string{"readChangeFeed", `"true"`}},
		{name: "checkpoint missing", loc: func(l *Locations) { l.CheckpointLocation = "" }, want: ErrInvalidOption, inMsg: []string{"checkpointLocation", "required"}},
		{name: "checkpoint inside the table", loc: func(l *Locations) { l.CheckpointLocation = "s3://lake/bronze/events/checkpoints" }, want: ErrInvalidOption, inMsg: []string{"checkpointLocation", "s3://lake/bronze/events/checkpoints", "VACUUM", "_checkpoints"}},
		{name: "checkpoint is the table", loc: func(l *Locations) { l.CheckpointLocation = "s3://lake/bronze/events/" }, want: ErrInvalidOption, inMsg: []string{"checkpointLocation", "table directory itself"}},
		{name: "checkpoint in _delta_log", loc: func(l *Locations) { l.CheckpointLocation = "s3://lake/bronze/events/_delta_log/chk" }, want: ErrInvalidOption, inMsg: []string{"checkpointLocation", "_delta_log/chk"}},
		{name: "checkpoint contains the table", loc: func(l *Locations) { l.CheckpointLocation = "s3://lake/bronze" }, want: ErrInvalidOption, inMsg: []string{"checkpointLocation", "contains the table"}},
		{name: "checkpoint inside the source", loc: func(l *Locations) { l.CheckpointLocation = "s3://raw/events/_chk" }, want: ErrInvalidOption, inMsg: []string{"checkpointLocation", "s3://raw/events/_chk", "source directory"}},
		{name: "checkpoint inside a Delta source table", delta: true, loc: func(l *Locations) { l.CheckpointLocation = "s3://lake/bronze/events/chk" }, want: ErrInvalidOption, inMsg: []string{"checkpointLocation", "source table"}},
		{name: "checkpoint option conflicts with the stream's", raw: map[string]string{"checkpointLocation": "s3://lake/_checkpoints/other"}, want: ErrInvalidOption, inMsg: []string{"checkpointLocation", "s3://lake/_checkpoints/other", "conflicts"}},
		{name: "checkpoint scheme unsupported", loc: func(l *Locations) { l.CheckpointLocation = "dbfs:/chk" }, want: ErrInvalidOption, inMsg: []string{"checkpointLocation", "dbfs:/chk"}},
		{name: "schema location inside the table", loc: func(l *Locations) { l.SchemaLocation = "s3://lake/bronze/events/schema" }, want: ErrInvalidOption, inMsg: []string{"cloudFiles.schemaLocation", "s3://lake/bronze/events/schema", "VACUUM"}},
		{name: "schema location on a Delta source", delta: true, loc: func(l *Locations) { l.SchemaLocation = "s3://lake/_schemas/x" }, want: ErrInvalidOption, inMsg: []string{"cloudFiles.schemaLocation", "s3://lake/_schemas/x"}},
		{name: "schema evolution without schema location", raw: map[string]string{"cloudFiles.schemaEvolutionMode": "addNewColumns"}, loc: func(l *Locations) { l.SchemaLocation = ""; l.UserSchema = "id INT" }, want: ErrInvalidOption, inMsg: []string{"cloudFiles.schemaEvolutionMode", "addNewColumns", "cloudFiles.schemaLocation"}},
		{name: "inference without schema location", loc: func(l *Locations) { l.SchemaLocation = "" }, want: ErrInvalidOption, inMsg: []string{"cloudFiles.schemaLocation", "infer"}},
		{name: "schemaEvolutionMode unknown", raw: map[string]string{"cloudFiles.schemaEvolutionMode": "merge"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.schemaEvolutionMode", `"merge"`}},
		{name: "rescued column is a partition column", raw: map[string]string{"cloudFiles.partitionColumns": "date,_rescued_data"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.partitionColumns", "_rescued_data"}},
		{name: "partitionColumns malformed", raw: map[string]string{"cloudFiles.partitionColumns": "date=2024"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.partitionColumns", "date=2024"}},
		{name: "rescuedDataColumn malformed", raw: map[string]string{"cloudFiles.rescuedDataColumn": "a.b"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.rescuedDataColumn", `"a.b"`}},
		{name: "type widening with prefersDecimal false", raw: map[string]string{"cloudFiles.schemaEvolutionMode": "addNewColumnsWithTypeWidening", "prefersDecimal": "false"}, want: ErrInvalidOption, inMsg: []string{"prefersDecimal", `"false"`, "addNewColumnsWithTypeWidening"}},
		{name: "reader enum malformed", raw: map[string]string{"mode": "LENIENT"}, want: ErrInvalidOption, inMsg: []string{"mode", `"LENIENT"`, "FAILFAST"}},
		{name: "reader boolean malformed", raw: map[string]string{"ignoreCorruptFiles": "yes"}, want: ErrInvalidOption, inMsg: []string{"ignoreCorruptFiles", `"yes"`}},
		{name: "ignoreCorruptFiles under cloudFiles", raw: map[string]string{"cloudFiles.ignoreCorruptFiles": "true"}, want: ErrUnknownOption, inMsg: []string{"cloudFiles.ignoreCorruptFiles", "ignoreCorruptFiles is a plain reader option"}},
		{name: "corrupt record column malformed", raw: map[string]string{"columnNameOfCorruptRecord": "a.b"}, want: ErrInvalidOption, inMsg: []string{"columnNameOfCorruptRecord", `"a.b"`}},
		{name: "corrupt record column is the rescued column", raw: map[string]string{"columnNameOfCorruptRecord": "_RESCUED_DATA"}, want: ErrInvalidOption, inMsg: []string{"columnNameOfCorruptRecord", "_RESCUED_DATA", "rescued data column"}},
		{name: "corrupt record column is a partition column", raw: map[string]string{"columnNameOfCorruptRecord": "date", "cloudFiles.partitionColumns": "date"}, want: ErrInvalidOption, inMsg: []string{"columnNameOfCorruptRecord", "partition column"}},
		{name: "badRecordsPath inside the source", raw: map[string]string{"badRecordsPath": "s3://raw/events/_bad"}, want: ErrInvalidOption, inMsg: []string{"badRecordsPath", "s3://raw/events/_bad", "ingested as data"}},
		{name: "badRecordsPath inside the table", raw: map[string]string{"badRecordsPath": "s3://lake/bronze/events/bad"}, want: ErrInvalidOption, inMsg: []string{"badRecordsPath", "VACUUM"}},
		{name: "badRecordsPath scheme unsupported", raw: map[string]string{"badRecordsPath": "dbfs:/bad"}, want: ErrInvalidOption, inMsg: []string{"badRecordsPath", "dbfs:/bad"}},
		{name: "primitivesAsString on csv", raw: map[string]string{"cloudFiles.format": "csv", "primitivesAsString": "true"}, want: ErrInvalidOption, inMsg: []string{"primitivesAsString", "json"}},
		{name: "same option twice with different values", raw: map[string]string{"cloudFiles.format": "json", "CLOUDFILES.FORMAT": "csv"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.format", "CLOUDFILES.FORMAT", "case-insensitive"}},
		{name: "reader option of another format", raw: map[string]string{"header": "true"}, want: ErrInvalidOption, inMsg: []string{"header", `"true"`, "csv", "json"}},
		{name: "Delta source option on Auto Loader", raw: map[string]string{"maxFilesPerTrigger": "10"}, want: ErrInvalidOption, inMsg: []string{"maxFilesPerTrigger", `"10"`, "did you mean cloudFiles.maxFilesPerTrigger?"}},
		{name: "Auto Loader option on a Delta source", delta: true, raw: map[string]string{"cloudFiles.maxFilesPerTrigger": "10"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.maxFilesPerTrigger", "Delta table", "did you mean maxFilesPerTrigger?"}},
		{name: "unknown option on a Delta source", delta: true, raw: map[string]string{"skipChangeCommit": "true"}, want: ErrUnknownOption, inMsg: []string{"skipChangeCommit", "did you mean skipChangeCommits?"}},
		{name: "maxFilesPerTrigger zero", raw: map[string]string{"cloudFiles.maxFilesPerTrigger": "0"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.maxFilesPerTrigger", `"0"`, "positive"}},
		{name: "maxBytesPerTrigger fractional", raw: map[string]string{"cloudFiles.maxBytesPerTrigger": "1.5g"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.maxBytesPerTrigger", `"1.5g"`, "fractional"}},
		{name: "maxBytesPerTrigger zero", delta: true, raw: map[string]string{"maxBytesPerTrigger": "0"}, want: ErrInvalidOption, inMsg: []string{"maxBytesPerTrigger", `"0"`}},
		{name: "boolean malformed", raw: map[string]string{"cloudFiles.includeExistingFiles": "yes"}, want: ErrInvalidOption, inMsg: []string{"cloudFiles.includeExistingFiles", `"yes"`}},
		{name: "pathGlobFilter malformed", raw: map[string]string{"pathGlobFilter": "[a-"}, want: ErrInvalidOption, inMsg: []string{"pathGlobFilter", `"[a-"`}},
		{name: "useManagedFileEvents", raw: map[string]string{"cloudFiles.useManagedFileEvents": "true"}, want: ErrUnsupportedOption, inMsg: []string{"cloudFiles.useManagedFileEvents", `"true"`, "cloudFiles.useNotifications"}},
		{name: "outputMode update", raw: map[string]string{"outputMode": "update"}, want: ErrInvalidOption, inMsg: []string{"outputMode", `"update"`, "MERGE", "mergeKeys"}},
		{name: "mergeKeys complete", raw: map[string]string{"outputMode": "complete", "mergeKeys": "id"}, want: ErrInvalidOption, inMsg: []string{"mergeKeys", "complete"}},
		{name: "mergeKeys empty column", raw: map[string]string{"mergeKeys": "id,,x"}, want: ErrInvalidOption, inMsg: []string{"mergeKeys", "comma-separated"}},
		{name: "overwriteSchema append", raw: map[string]string{"overwriteSchema": "true"}, want: ErrInvalidOption, inMsg: []string{"overwriteSchema", "complete"}},
		{name: "replaceWhere syntax", raw: map[string]string{"replaceWhere": "d = "}, want: ErrInvalidOption, inMsg: []string{"replaceWhere", "syntax error", "end of predicate"}},
		{name: "replaceWhere function", raw: map[string]string{"replaceWhere": "year(d) = 2024"}, want: ErrInvalidOption, inMsg: []string{"replaceWhere", "function year()"}},
		{name: "replaceWhere mergeKeys", raw: map[string]string{"replaceWhere": "d = 1", "mergeKeys": "id"}, want: ErrInvalidOption, inMsg: []string{"replaceWhere", "mergeKeys"}},
		{name: "replaceWhere overwriteSchema", raw: map[string]string{"replaceWhere": "d = 1", "outputMode": "complete", "overwriteSchema": "true"}, want: ErrInvalidOption, inMsg: []string{"replaceWhere", "overwriteSchema"}},
		{name: "outputMode unknown", raw: map[string]string{"outputMode": "overwrite"}, want: ErrInvalidOption, inMsg: []string{"outputMode", `"overwrite"`}},
		{name: "trigger realTime", raw: map[string]string{"trigger": "realTime=5 minutes"}, want: ErrUnsupportedOption, inMsg: []string{"trigger", "realTime=5 minutes"}},
		{name: "trigger malformed", raw: map[string]string{"trigger": "every 5 minutes"}, want: ErrInvalidOption, inMsg: []string{"trigger", "every 5 minutes"}},
		{name: "txnVersion without txnAppId", raw: map[string]string{"txnVersion": "3"}, want: ErrInvalidOption, inMsg: []string{"txnVersion", `"3"`, "txnAppId"}},
		{name: "txnVersion negative", raw: map[string]string{"txnAppId": "x", "txnVersion": "-1"}, want: ErrInvalidOption, inMsg: []string{"txnVersion", `"-1"`}},
		{name: "mergeSchema malformed", raw: map[string]string{"mergeSchema": "maybe"}, want: ErrInvalidOption, inMsg: []string{"mergeSchema", `"maybe"`}},
		{name: "source format unknown", loc: func(l *Locations) { l.SourceFormat = "kafka" }, want: ErrInvalidOption, inMsg: []string{"format", "kafka"}},
		{name: "stream id missing", loc: func(l *Locations) { l.StreamID = "" }, want: ErrInvalidOption, inMsg: []string{"id", "required"}},
		{name: "stream id with a space", loc: func(l *Locations) { l.StreamID = "bronze events" }, want: ErrInvalidOption, inMsg: []string{"id", "bronze events"}},
		{name: "source missing", loc: func(l *Locations) { l.Source = "" }, want: ErrInvalidOption, inMsg: []string{"source", "required"}},
		{name: "source scheme unsupported", loc: func(l *Locations) { l.Source = "gs://raw/events" }, want: ErrInvalidOption, inMsg: []string{"source", "gs://raw/events"}},
		{name: "table missing", loc: func(l *Locations) { l.Table = "" }, want: ErrInvalidOption, inMsg: []string{"table", "required"}},
		{name: "table inside the source", loc: func(l *Locations) { l.Table = "s3://raw/events/table" }, want: ErrInvalidOption, inMsg: []string{"table", "s3://raw/events/table", "ingested again"}},
		{name: "Delta source is the table", delta: true, loc: func(l *Locations) { l.Table = l.Source }, want: ErrInvalidOption, inMsg: []string{"table", "own output"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc, raw := deltaLoc(), map[string]string{}
			if !tt.delta {
				loc, raw = baseLoc(), map[string]string{"cloudFiles.format": "json"}
			}
			for _, k := range tt.drop {
				delete(raw, k)
			}
			for k, v := range tt.raw {
				raw[k] = v
			}
			if tt.loc != nil {
				tt.loc(&loc)
			}
			s, err := Parse(raw, loc)
			if err == nil {
				t.Fatalf("Parse accepted %v %+v: %+v", raw, loc, s)
			}
			if !errors.Is(err, tt.want) || !errors.Is(err, ErrInvalidOption) {
				t.Errorf("error %v does not wrap %v and ErrInvalidOption", err, tt.want)
			}
			var oe *OptionError
			if !errors.As(err, &oe) || oe.Option == "" {
				t.Errorf("error %v is not an *OptionError naming an option", err)
			}
			for _, sub := range tt.inMsg {
				if !strings.Contains(err.Error(), sub) {
					t.Errorf("error %q does not contain %q", err, sub)
				}
			}
			if tt.loc == nil || loc.StreamID != "" {
				if !strings.Contains(err.Error(), loc.StreamID) {
					t.Errorf("error %q does not name stream %q", err, loc.StreamID)
				}
			}
		})
	}
}

func TestParseReportsAllErrors(t *testing.T) {
	_, err := Parse(map[string]string{"cloudFiles.format": "json", "cloudFiles.maxFileAge": "1 day", "cloudFiles.bogus": "x"}, Locations{StreamID: "s", Source: "s3://a/x", Table: "s3://a/t"})
	for _, sub := range []string{"cloudFiles.maxFileAge", "cloudFiles.bogus", "checkpointLocation", "cloudFiles.schemaLocation"} {
		if err == nil || !strings.Contains(err.Error(), sub) {
			t.Errorf("error %v does not report %s", err, sub)
		}
	}
}

func TestEffectiveRoundTrip(t *testing.T) {
	tests := []struct {
		raw map[string]string
		loc Locations
	}{
		{map[string]string{"cloudFiles.format": "json", "cloudFiles.maxFileAge": "90 days", "cloudFiles.maxBytesPerTrigger": "10g", "trigger": "processingTime=5 minutes", "cloudFiles.schemaEvolutionMode": "addNewColumnsWithTypeWidening"}, baseLoc()},
		{map[string]string{"cloudFiles.format": "binaryFile", "pathGlobFilter": "*.png"}, baseLoc()},
		{map[string]string{"startingTimestamp": "2019-01-01", "skipChangeCommits": "true"}, deltaLoc()},
	}
	for _, tt := range tests {
		s := mustParse(t, tt.raw, tt.loc)
		eff := s.Effective()
		again := mustParse(t, eff, tt.loc)
		if got := again.Effective(); !reflect.DeepEqual(got, eff) {
			t.Errorf("Effective does not round-trip:\n%v\n%v", eff, got)
		}
		if !reflect.DeepEqual(again.CloudFiles, s.CloudFiles) || !reflect.DeepEqual(again.Delta, s.Delta) || !reflect.DeepEqual(again.Sink, s.Sink) {
			t.Errorf("typed options differ after round trip:\n%+v\n%+v", s, again)
		}
	}
}

func TestOptionNames(t *testing.T) {
	names := OptionNames()
	seen := map[string]bool{}
	for _, n := range names {
		if seen[strings.ToLower(n)] {
			t.Errorf("duplicate option %s", n)
		}
		seen[strings.ToLower(n)] = true
	}
	for _, must := range []string{"cloudFiles.format", "cloudFiles.maxFileAge", "cloudFiles.cleanSource.moveDestination", "startingVersion", "failOnDataLoss", "txnAppId", "ignoreCorruptFiles", "pathGlobFilter"} {
		if !seen[strings.ToLower(must)] {
			t.Errorf("OptionNames lacks %s", must)
		}
	}
}
