package ingest

import (
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/hivepart"
	"slices"
	"strings"

	"github.com/tributary-io/tributary/core/formats"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/core/sink/predicate"
)

// ConfigFromOptions maps a validated stream configuration to the engine's
// Config. It fails, naming the option, when an option cannot be honoured.
func ConfigFromOptions(s *options.Stream) (Config, error) {
	if s.SourceFormat == options.SourceDelta {
		// A Delta source runs its batches itself (Engine.Runner, package
		// deltasource); the engine keeps its identity and run loop.
		return Config{StreamID: s.ID, AppID: s.Sink.TxnAppID, Once: s.Sink.Trigger.Kind == options.TriggerOnce, ParquetCodec: s.Sink.ParquetCodec}, nil
	}
	if s.SourceFormat != options.SourceCloudFiles {
		return Config{}, fmt.Errorf("stream %q: source format %q: unknown", s.ID, s.SourceFormat)
	}
	f, err := formats.Lookup(string(s.CloudFiles.Format))
	if err != nil {
		return Config{}, fmt.Errorf("stream %q: option cloudFiles.format: %w", s.ID, err)
	}
	maxFiles, maxBytes := s.Limits()
	cfg := Config{
		StreamID:         s.ID,
		AppID:            s.Sink.TxnAppID,
		Format:           f,
		Limits:           Limits{MaxFiles: maxFiles, MaxBytes: maxBytes},
		Once:             s.Sink.Trigger.Kind == options.TriggerOnce,
		CleanSource:      s.CloudFiles.CleanSource,
		PartitionColumns: s.CloudFiles.PartitionColumns,
		TxnVersion:       s.Sink.TxnVersion,
		NoMergeSchema:    !s.Sink.MergeSchema,
		ParquetCodec:     s.Sink.ParquetCodec,
		OutputMode:       s.Sink.OutputMode,
		MergeKeys:        s.Sink.MergeKeys,
		OverwriteSchema:  s.Sink.OverwriteSchema,
		TableProperties:  s.Sink.TableProperties,
		Schema: SchemaConfig{
			InferColumnTypes:  s.CloudFiles.InferColumnTypes,
			Hints:             s.CloudFiles.SchemaHints,
			RescuedDataColumn: s.CloudFiles.RescuedDataColumn,
			NoRescue:          s.CloudFiles.RescuedDataColumn == "",
			SampleFiles:       s.CloudFiles.SampleSizeNumFiles,
			SampleBytes:       s.CloudFiles.SampleSizeNumBytes,
			EvolutionMode:     s.CloudFiles.SchemaEvolutionMode,
		},
	}
	mode, err := formats.ParseParseMode(s.Reader.Mode)
	if err != nil {
		return Config{}, fmt.Errorf("stream %q: option mode: %w", s.ID, err)
	}
	cfg.Reader = ReaderConfig{
		Mode:                mode,
		CorruptRecordColumn: s.Reader.ColumnNameOfCorruptRecord,
		PrefersDecimal:      s.Reader.PrefersDecimal,
		PrimitivesAsString:  s.Reader.PrimitivesAsString,
		DropFieldIfAllNull:  s.Reader.DropFieldIfAllNull,
		CaseInsensitive:     !s.Reader.CaseSensitive,
		IgnoreCorruptFiles:  s.Reader.IgnoreCorruptFiles,
		IgnoreMissingFiles:  s.Reader.IgnoreMissingFiles,
		BadRecordsPath:      s.Reader.BadRecordsPath,
		Text:                formats.TextOptions{Encoding: s.Reader.Encoding, LineSep: s.Reader.LineSep},
	}
	cfg.FormatOptions = s.Reader.Options
	if s.Sink.ReplaceWhere != "" {
		if cfg.ReplaceWhere, err = predicate.Parse(s.Sink.ReplaceWhere); err != nil {
			return Config{}, fmt.Errorf("stream %q: option replaceWhere: %w", s.ID, err)
		}
	}
	cfg.PartitionBy = s.Sink.PartitionBy
	for _, c := range slices.Concat(cfg.PartitionColumns, cfg.PartitionBy) {
		if len(cfg.MergeKeys) > 0 && !slices.ContainsFunc(cfg.MergeKeys, func(k string) bool { return strings.EqualFold(k, c) }) {
			return Config{}, fmt.Errorf("stream %q: option mergeKeys=%s must include the partition column %s: a key's rows must stay in one partition", s.ID, strings.Join(cfg.MergeKeys, ","), c)
		}
	}
	if cfg.PartitionTypes, err = hivepart.HintTypes(cfg.PartitionColumns, hivepart.Hint{Option: "cloudFiles.schemaHints", DDL: s.CloudFiles.SchemaHints}, hivepart.Hint{Option: "schema", DDL: s.UserSchema}); err != nil {
		return Config{}, fmt.Errorf("stream %q: %w", s.ID, err)
	}
	if s.UserSchema != "" {
		hints, err := schema.ParseDDL(s.UserSchema)
		if err != nil {
			return Config{}, fmt.Errorf("stream %q: schema: %w", s.ID, err)
		}
		cfg.Schema.User = schema.ApplyHints(&schema.StructType{}, hints)
	}
	return cfg, nil
}
