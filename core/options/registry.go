package options

import (
	"fmt"
	"github.com/tributary-io/tributary/core/options/optspec"
	"github.com/tributary-io/tributary/core/options/sparkvalue"
	"github.com/tributary-io/tributary/core/options/trigger"
	"github.com/tributary-io/tributary/core/sink/predicate"
	"strconv"
	"strings"
)

// scope says which streams an option applies to.
type scope int

const (
	scopeCloudFiles scope = iota // Auto Loader sources
	scopeReader                  // plain reader options of file formats (Auto Loader sources)
	scopeDelta                   // Delta sources
	scopeSink                    // every stream (writeStream options)
)

func (sc scope) String() string {
	switch sc {
	case scopeCloudFiles:
		return "an Auto Loader (cloudFiles) option"
	case scopeReader:
		return "a plain reader option"
	case scopeDelta:
		return "a Delta source option"
	}
	return "a Delta sink option"
}

// optSpec describes one option.
type optSpec struct {
	name    string
	scope   scope
	formats []FileFormat // scopeReader: the formats it belongs to (nil: all)
	// doc is one line of meaning for docs/options.md.
	doc string
	// def is the default as users read it ("" when the option has none).
	def string
	// refused is true for an option Tributary recognises but does not
	// implement yet: set always fails with ErrUnsupportedOption.
	refused bool
	// set parses v into s. Its error message is the reason shown to the user.
	set func(s *Stream, v string) error
	// get returns the effective value for Describe (false: not shown).
	get func(s *Stream) (string, bool)
}

func (o *optSpec) appliesTo(src SourceFormat, f FileFormat) bool {
	switch o.scope {
	case scopeSink:
		return true
	case scopeDelta:
		return src == SourceDelta
	case scopeCloudFiles:
		return src == SourceCloudFiles
	}
	if src != SourceCloudFiles {
		return false
	}
	if f == "" || o.formats == nil {
		return true
	}
	for _, g := range o.formats {
		if g == f {
			return true
		}
	}
	return false
}

// aliases maps alternative option names (lower case) to documented ones.
func aliases() map[string]string {
	return map[string]string{
		"delimiter":         "sep",
		"charset":           "encoding",
		"rescueddatacolumn": "cloudFiles.rescuedDataColumn",
	}
}

// fromSpec is an optspec.Spec of the stream as an option of scope sc.
func fromSpec(o optspec.Spec[*Stream], sc scope) optSpec {
	return optSpec{name: o.Name, scope: sc, def: o.Default, doc: o.Doc, set: o.Set, get: o.Get}
}

func boolOpt(name string, sc scope, field func(s *Stream) *bool) optSpec {
	return fromSpec(optspec.Bool(name, field), sc)
}

// mergeSchemaOpt is the Delta sink's mergeSchema, which is also the
// Parquet reader's: Tributary takes one option map, so an explicit value
// with cloudFiles.format parquet sets both (package parquetfmt reads it
// from Reader.Options).
func mergeSchemaOpt() optSpec {
	o := boolOpt("mergeSchema", scopeSink, func(s *Stream) *bool { return &s.Sink.MergeSchema })
	set := o.set
	o.set = func(s *Stream, v string) error {
		if err := set(s, v); err != nil {
			return err
		}
		if s.CloudFiles.Format == FormatParquet || s.CloudFiles.Format == FormatORC || s.CloudFiles.Format == FormatAvro {
			s.Reader.Options["mergeSchema"] = strconv.FormatBool(s.Sink.MergeSchema)
		}
		return nil
	}
	return o
}

func posIntOpt(name string, sc scope, field func(s *Stream) *int) optSpec {
	return fromSpec(optspec.PosInt(name, field), sc)
}

func bytesOpt(name string, sc scope, field func(s *Stream) *int64, optional bool) optSpec {
	return fromSpec(optspec.Bytes(name, field, optional), sc)
}

func stringOpt(name string, sc scope, field func(s *Stream) *string) optSpec {
	return fromSpec(optspec.String(name, field), sc)
}

// refusedOpt is an option Tributary recognises and refuses at load time
// with "not supported yet" and why (what to use instead, where there is
// something). formats scopes a reader option as readerOption does.
func refusedOpt(name string, sc scope, formats []FileFormat, why string) optSpec {
	return optSpec{
		name: name, scope: sc, formats: formats, refused: true, doc: why,
		set: func(*Stream, string) error { return fmt.Errorf("%w: %s", ErrUnsupportedOption, why) },
	}
}

// doc sets an option's documentation: its default as users read it ("" when
// it has none) and one line of meaning.
func doc(o optSpec, def, meaning string) optSpec {
	o.def, o.doc = def, meaning
	return o
}

// registry returns every option Tributary knows, by lower-case name.
func registry() map[string]*optSpec {
	list := []optSpec{
		// --- Auto Loader ---
		doc(optSpec{
			name: "cloudFiles.format", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				for _, f := range FileFormats() {
					if strings.EqualFold(strings.TrimSpace(v), string(f)) {
						s.CloudFiles.Format = f
						return nil
					}
				}
				return fmt.Errorf("unknown format: want one of %s", formatList())
			},
			get: func(s *Stream) (string, bool) { return string(s.CloudFiles.Format), s.CloudFiles.Format != "" },
		}, "", "The source file format (required). Tributary reads every Auto Loader format: json, csv, xml, parquet, orc, avro, text and binaryFile."),
		doc(posIntOpt("cloudFiles.maxFilesPerTrigger", scopeCloudFiles, func(s *Stream) *int { return &s.CloudFiles.MaxFilesPerTrigger }),
			"1000", "Maximum number of new files in one micro-batch (one Delta commit)."),
		doc(bytesOpt("cloudFiles.maxBytesPerTrigger", scopeCloudFiles, func(s *Stream) *int64 { return &s.CloudFiles.MaxBytesPerTrigger }, true),
			"", "Soft maximum of input bytes in one micro-batch (a batch always takes at least one file)."),
		doc(boolOpt("cloudFiles.includeExistingFiles", scopeCloudFiles, func(s *Stream) *bool { return &s.CloudFiles.IncludeExistingFiles }),
			"true", "Whether files already present when the stream first starts are ingested; false ingests only files modified after the first start."),
		doc(boolOpt("cloudFiles.useNotifications", scopeCloudFiles, func(s *Stream) *bool { return &s.CloudFiles.UseNotifications }),
			"false", "File notification mode (S3 events through SQS) instead of directory listing; the CLI only lists; the deployed functions run both (false: the scheduled function lists the source and the events are ignored)."),
		doc(optSpec{
			name: "cloudFiles.useIncrementalListing", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				switch m := strings.ToLower(strings.TrimSpace(v)); m {
				case "auto", "true", "false":
					s.CloudFiles.UseIncrementalListing = m
					return nil
				}
				return fmt.Errorf("%q: want auto, true or false", v)
			},
			get: func(s *Stream) (string, bool) {
				return s.CloudFiles.UseIncrementalListing, s.CloudFiles.UseIncrementalListing != ""
			},
		}, "auto", "Directory listing mode: true lists only keys after the last key the previous listing saw (for lexically ordered keys; a file added under an earlier key is never found); false lists everything; auto lists everything (Tributary does not guess the order). In the CLI and the deployed scheduled function; the backfill of a notification-mode stream always lists everything."),
		refusedOpt("cloudFiles.queueUrl", scopeCloudFiles, nil, "the deployed stack creates and wires its own events queue (template.yaml); an existing queue cannot be named"),
		refusedOpt("cloudFiles.fetchParallelism", scopeCloudFiles, nil, "the Lambda event source mapping polls the queue; scale it with the template's batch settings"),
		doc(boolOpt("cloudFiles.allowOverwrites", scopeCloudFiles, func(s *Stream) *bool { return &s.CloudFiles.AllowOverwrites }),
			"false", "Whether a file rewritten at the same path (new modification time or size) is ingested again."),
		doc(optSpec{
			name: "cloudFiles.maxFileAge", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				d, err := sparkvalue.ParseDuration(v)
				if err != nil {
					return err
				}
				if d < MinMaxFileAge {
					return fmt.Errorf("is under the minimum of \"14 days\" (files would be ingested again once forgotten)")
				}
				s.CloudFiles.MaxFileAge = d
				return nil
			},
			get: func(s *Stream) (string, bool) {
				return sparkvalue.FormatDuration(s.CloudFiles.MaxFileAge), s.CloudFiles.MaxFileAge > 0
			},
		}, "", "How long a file's state is kept for deduplication (at least 14 days); older files are ignored by discovery."),
		refusedOpt("cloudFiles.backfillInterval", scopeCloudFiles, nil, "the deployed stack's backfill schedule is the template parameter BackfillInterval; the CLI lists the source on every run"),
		doc(boolOpt("cloudFiles.inferColumnTypes", scopeCloudFiles, func(s *Stream) *bool { return &s.CloudFiles.InferColumnTypes }),
			"false", "Whether inference gives exact column types; false makes every inferred column (nested ones too) a string."),
		doc(stringOpt("cloudFiles.schemaHints", scopeCloudFiles, func(s *Stream) *string { return &s.CloudFiles.SchemaHints }),
			"", "SQL DDL column types (\"id BIGINT, user.dob DATE\") applied over the inferred schema."),
		doc(stringOpt("cloudFiles.schemaLocation", scopeCloudFiles, func(s *Stream) *string { return &s.CloudFiles.SchemaLocation }),
			"the checkpoint (CLI)", "Where the inferred schema and its history are kept (required with inference)."),
		doc(optSpec{
			name: "cloudFiles.schemaEvolutionMode", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				for _, m := range []SchemaEvolutionMode{EvolveAddNewColumns, EvolveAddNewColumnsWithTypeWidening, EvolveRescue, EvolveFailOnNewColumns, EvolveNone} {
					if strings.EqualFold(strings.TrimSpace(v), string(m)) {
						s.CloudFiles.SchemaEvolutionMode = m
						return nil
					}
				}
				return fmt.Errorf("want one of addNewColumns, addNewColumnsWithTypeWidening, rescue, failOnNewColumns, none")
			},
			get: func(s *Stream) (string, bool) {
				return string(s.CloudFiles.SchemaEvolutionMode), s.CloudFiles.SchemaEvolutionMode != ""
			},
		}, "addNewColumns (none with a user schema)", "What a new column does: addNewColumns stops the stream once and adds it; addNewColumnsWithTypeWidening also widens a column's type (seed 002; the table needs delta.enableTypeWidening=true); rescue, failOnNewColumns (fails naming the column and the file until the schema changes) and none as in Auto Loader."),
		doc(optSpec{
			name: "cloudFiles.rescuedDataColumn", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				v = strings.TrimSpace(v)
				if v == "" || strings.ContainsAny(v, ",;{}()\n\t=") || strings.Contains(v, ".") {
					return fmt.Errorf("want a top-level column name such as %q", DefaultRescuedDataColumn)
				}
				s.CloudFiles.RescuedDataColumn = v
				return nil
			},
			get: func(s *Stream) (string, bool) {
				return s.CloudFiles.RescuedDataColumn, s.CloudFiles.RescuedDataColumn != ""
			},
		}, "_rescued_data", "The column that collects values that do not fit the schema, as JSON with the source _file_path."),
		doc(optSpec{
			name: "cloudFiles.partitionColumns", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				s.CloudFiles.PartitionColumns = nil
				if strings.TrimSpace(v) == "" {
					return nil // Databricks: "" means no partition columns
				}
				seen := map[string]bool{}
				for _, c := range strings.Split(v, ",") {
					c = strings.TrimSpace(c)
					if c == "" || strings.ContainsAny(c, "=/ ") {
						return fmt.Errorf("want comma-separated column names (\"date,region\")")
					}
					if seen[strings.ToLower(c)] {
						return fmt.Errorf("column %q is listed twice", c)
					}
					seen[strings.ToLower(c)] = true
					s.CloudFiles.PartitionColumns = append(s.CloudFiles.PartitionColumns, c)
				}
				return nil
			},
			get: func(s *Stream) (string, bool) {
				return strings.Join(s.CloudFiles.PartitionColumns, ","), len(s.CloudFiles.PartitionColumns) > 0
			},
		}, "", "Hive-style key=value source directories that become (string) partition columns of the table."),
		doc(boolOpt("cloudFiles.validateOptions", scopeCloudFiles, func(s *Stream) *bool { return &s.CloudFiles.ValidateOptions }),
			"true", "Whether unknown or inapplicable options fail the stream; false ignores them with a warning."),
		doc(optSpec{
			name: "cloudFiles.cleanSource", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				for _, c := range []CleanSource{CleanOff, CleanDelete, CleanMove} {
					if strings.EqualFold(strings.TrimSpace(v), string(c)) {
						s.CloudFiles.CleanSource = c
						return nil
					}
				}
				return fmt.Errorf("want OFF, DELETE or MOVE")
			},
			get: func(s *Stream) (string, bool) { return string(s.CloudFiles.CleanSource), true },
		}, "OFF", "What happens to a source file once its batch is committed: OFF, DELETE, or MOVE to cloudFiles.cleanSource.moveDestination."),
		doc(stringOpt("cloudFiles.cleanSource.moveDestination", scopeCloudFiles, func(s *Stream) *string { return &s.CloudFiles.MoveDestination }),
			"", "Where cleanSource=MOVE moves committed files (same bucket, outside the source)."),
		refusedOpt("cloudFiles.cleanSource.retentionDuration", scopeCloudFiles, nil, "Tributary cleans a file as soon as its batch is committed"),
		doc(optSpec{
			name: "cloudFiles.useManagedFileEvents", scope: scopeCloudFiles,
			set: func(s *Stream, v string) error {
				switch strings.ToLower(strings.TrimSpace(v)) {
				case "false":
					return nil
				case "if_available":
					s.Warnings = append(s.Warnings, "cloudFiles.useManagedFileEvents=if_available: Databricks file events are not available; discovery follows cloudFiles.useNotifications")
					return nil
				case "true":
					return fmt.Errorf("%w: Databricks-managed file events do not exist outside Databricks; use cloudFiles.useNotifications=true", ErrUnsupportedOption)
				}
				return fmt.Errorf("want true, false or if_available")
			},
		}, "false", "Databricks-managed file events: false, or if_available (falls back to cloudFiles.useNotifications with a warning); true is refused."),
		doc(bytesOpt("spark.databricks.cloudFiles.schemaInference.sampleSize.numBytes", scopeCloudFiles, func(s *Stream) *int64 { return &s.CloudFiles.SampleSizeNumBytes }, false),
			"50g", "How many bytes of the first discovered files schema inference samples."),
		doc(posIntOpt("spark.databricks.cloudFiles.schemaInference.sampleSize.numFiles", scopeCloudFiles, func(s *Stream) *int { return &s.CloudFiles.SampleSizeNumFiles }),
			"1000", "How many of the first discovered files schema inference samples."),

		// --- Delta sink ---
		doc(stringOpt("checkpointLocation", scopeSink, func(s *Stream) *string { return &s.Sink.CheckpointLocation }),
			"", "Where the stream keeps its batch plans (offsets), metadata and, in the CLI, its file state (required)."),
		doc(optSpec{
			name: "outputMode", scope: scopeSink,
			set: func(s *Stream, v string) error {
				switch strings.ToLower(strings.TrimSpace(v)) {
				case "append":
					s.Sink.OutputMode = OutputAppend
				case "complete":
					s.Sink.OutputMode = OutputComplete
				case "update":
					s.Sink.OutputMode = OutputUpdate
				default:
					return fmt.Errorf("want append, complete or update")
				}
				return nil
			},
			get: func(s *Stream) (string, bool) { return string(s.Sink.OutputMode), true },
		}, "append", "How batches are written: append adds each batch's rows; complete replaces the table's rows by each batch's (one Delta overwrite commit: every file removed with dataChange=true); update upserts each batch by mergeKeys (MERGE)."),
		doc(optSpec{
			name: "mergeKeys", scope: scopeSink,
			set: func(s *Stream, v string) error {
				s.Sink.MergeKeys = nil
				seen := map[string]bool{}
				for _, c := range strings.Split(v, ",") {
					c = strings.TrimSpace(c)
					if c == "" {
						return fmt.Errorf("want comma-separated column names (\"id\" or \"tenant,id\")")
					}
					if seen[strings.ToLower(c)] {
						return fmt.Errorf("column %q is listed twice", c)
					}
					seen[strings.ToLower(c)] = true
					s.Sink.MergeKeys = append(s.Sink.MergeKeys, c)
				}
				return nil
			},
			get: func(s *Stream) (string, bool) { return strings.Join(s.Sink.MergeKeys, ","), len(s.Sink.MergeKeys) > 0 },
		}, "", "Tributary's upsert sink: the key columns each batch is MERGEd into the table by (WHEN MATCHED UPDATE SET *, WHEN NOT MATCHED INSERT *; the last row of a key in a batch wins), in the batch's idempotent commit; implies outputMode=update."),
		doc(boolOpt("overwriteSchema", scopeSink, func(s *Stream) *bool { return &s.Sink.OverwriteSchema }),
			"false", "With outputMode=complete: each overwrite replaces the table's schema and partitioning by the stream's (columns the stream lacks are dropped); without it the table's other columns are kept."),
		doc(optSpec{
			name: "partitionBy", scope: scopeSink,
			set: func(s *Stream, v string) error {
				s.Sink.PartitionBy = nil
				seen := map[string]bool{}
				for _, c := range strings.Split(v, ",") {
					c = strings.TrimSpace(c)
					if c == "" {
						return fmt.Errorf("want comma-separated column names (\"date\" or \"country,date\")")
					}
					if seen[strings.ToLower(c)] {
						return fmt.Errorf("column %q is listed twice", c)
					}
					seen[strings.ToLower(c)] = true
					s.Sink.PartitionBy = append(s.Sink.PartitionBy, c)
				}
				return nil
			},
			get: func(s *Stream) (string, bool) {
				return strings.Join(s.Sink.PartitionBy, ","), len(s.Sink.PartitionBy) > 0
			},
		}, "", "writeStream.partitionBy: data columns the table is partitioned by (after cloudFiles.partitionColumns); each row goes to the k=v directory of its values (NULL and '' to __HIVE_DEFAULT_PARTITION__), the columns are not stored in the data files."),
		doc(optSpec{
			name: "replaceWhere", scope: scopeSink,
			set: func(s *Stream, v string) error {
				if _, err := predicate.Parse(v); err != nil {
					return err
				}
				s.Sink.ReplaceWhere = strings.TrimSpace(v)
				return nil
			},
			get: func(s *Stream) (string, bool) { return s.Sink.ReplaceWhere, s.Sink.ReplaceWhere != "" },
		}, "", "Selective overwrite (Delta's replaceWhere, applied per micro-batch as a foreachBatch write with mode overwrite): each batch's commit removes the table's rows matching this SQL predicate over partition and data columns (files rewritten when only some rows match) and adds the batch's rows, which must all match it (else DELTA_REPLACE_WHERE_MISMATCH and nothing is committed)."),
		doc(optSpec{
			name: "trigger", scope: scopeSink,
			set: func(s *Stream, v string) error {
				t, err := trigger.Parse(v)
				if err != nil {
					return err
				}
				s.Sink.Trigger = t
				return nil
			},
			get: func(s *Stream) (string, bool) { return s.Sink.Trigger.String(), true },
		}, "availableNow (CLI)", "When batches run: availableNow (everything outstanding, in limited batches, then stop), once (deprecated: one batch), or processingTime=INTERVAL. In the deployed functions the interval is the stack's TriggerInterval (seconds): a processingTime trigger with another interval is refused at cold start."),
		doc(mergeSchemaOpt(), "true", "Whether a batch may add columns to the table's schema (true, as in Delta Live Tables); false fails the stream on a new column, naming it and the file, with nothing committed. With cloudFiles.format parquet or orc, an explicit true is also Spark's Parquet/ORC reader option: schema inference merges the schemas of all sampled files (otherwise the first sampled file's footer gives the schema). With cloudFiles.format avro, whose inference merges the sampled files' schemas by default (Auto Loader), an explicit false takes the first sampled file's schema only."),
		doc(stringOpt("txnAppId", scopeSink, func(s *Stream) *string { return &s.Sink.TxnAppID }),
			"the stream id", "The appId of the Delta txn action that makes each batch's commit idempotent."),
		doc(optSpec{
			name: "txnVersion", scope: scopeSink,
			set: func(s *Stream, v string) error {
				n, err := sparkvalue.ParseNonNegative(v)
				if err != nil {
					return err
				}
				s.Sink.TxnVersion = &n
				return nil
			},
			get: func(s *Stream) (string, bool) {
				if s.Sink.TxnVersion == nil {
					return "", false
				}
				return strconv.FormatInt(*s.Sink.TxnVersion, 10), true
			},
		}, "", "With txnAppId: append once, as Delta's idempotent writes: one batch of every outstanding file committed with txn{txnAppId, txnVersion}; skipped when the table already holds that appId at this version or later."),
		doc(optSpec{
			name: "parquet.compression.codec", scope: scopeSink,
			set: func(s *Stream, v string) error {
				switch c := strings.ToLower(strings.TrimSpace(v)); c {
				case "snappy", "zstd", "gzip", "lz4", "uncompressed":
					s.Sink.ParquetCodec = c
				case "none", "lz4_raw":
					s.Sink.ParquetCodec = map[string]string{"none": "uncompressed", "lz4_raw": "lz4"}[c]
				default:
					return fmt.Errorf("want snappy, zstd, gzip, lz4 or uncompressed")
				}
				return nil
			},
			get: func(s *Stream) (string, bool) { return s.Sink.ParquetCodec, s.Sink.ParquetCodec != "" },
		}, "snappy", "The compression codec of the Parquet data files the sink writes: snappy, zstd, gzip, lz4 (written as the Parquet format's LZ4_RAW codec; Spark, delta-rs and DuckDB read it, but Tributary's own readers (optimize, the Delta source, Parquet input) refuse LZ4_RAW files until parquet-go reads them right) or uncompressed."),
	}
	list = append(list, readerOptions()...)
	list = append(list, deltaOptions()...)
	list = append(list, tableProperties()...)
	m := make(map[string]*optSpec, len(list))
	for i := range list {
		m[strings.ToLower(list[i].name)] = &list[i]
	}
	return m
}

func formatList() string {
	var names []string
	for _, f := range FileFormats() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// OptionNames lists the documented names of every option Tributary knows
// (aliases excluded), sorted case-insensitively.
func OptionNames() []string {
	var names []string
	for _, o := range registry() {
		names = append(names, o.name)
	}
	sortFold(names)
	return names
}
