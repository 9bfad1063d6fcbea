package options

import (
	"github.com/tributary-io/tributary/core/options/sparkvalue"
	"strings"
	"time"
)

// SourceFormat is what spark.readStream.format(...) names: Auto Loader or a
// Delta table read as a stream.
type SourceFormat string

// Source formats.
const (
	// SourceCloudFiles is Auto Loader: files under a prefix (the default).
	SourceCloudFiles SourceFormat = "cloudFiles"
	// SourceDelta reads a Delta table incrementally (bronze -> silver).
	SourceDelta SourceFormat = "delta"
)

// SchemaEvolutionMode is a value of cloudFiles.schemaEvolutionMode.
type SchemaEvolutionMode string

// Schema evolution modes.
const (
	// EvolveAddNewColumns: a new column is added to the schema history and
	// the stream stops with an UnknownFieldException; the next run uses the
	// new schema. Default without a user schema.
	EvolveAddNewColumns SchemaEvolutionMode = "addNewColumns"
	// EvolveAddNewColumnsWithTypeWidening: as addNewColumns, and supported
	// type widenings evolve the column type (seed 002).
	EvolveAddNewColumnsWithTypeWidening SchemaEvolutionMode = "addNewColumnsWithTypeWidening"
	// EvolveRescue: never evolve, never fail; unknown and mismatched values
	// go to the rescued data column.
	EvolveRescue SchemaEvolutionMode = "rescue"
	// EvolveFailOnNewColumns: fail on a new column until the schema is
	// changed by hand.
	EvolveFailOnNewColumns SchemaEvolutionMode = "failOnNewColumns"
	// EvolveNone: ignore new columns; no rescue unless a rescued data column
	// is set. Default with a user schema.
	EvolveNone SchemaEvolutionMode = "none"
)

// Evolves reports whether the mode writes new schema versions to the schema
// location (addNewColumns and addNewColumnsWithTypeWidening).
func (m SchemaEvolutionMode) Evolves() bool {
	return m == EvolveAddNewColumns || m == EvolveAddNewColumnsWithTypeWidening
}

// CleanSource is a value of cloudFiles.cleanSource.
type CleanSource string

// Clean-source modes, applied once a file's batch is committed.
const (
	CleanOff    CleanSource = "OFF"
	CleanDelete CleanSource = "DELETE"
	CleanMove   CleanSource = "MOVE"
)

// OutputMode is the sink's outputMode.
type OutputMode string

// Output modes the Delta sink supports.
const (
	// OutputAppend adds each batch's rows (the default).
	OutputAppend OutputMode = "append"
	// OutputComplete replaces the table with each batch.
	OutputComplete OutputMode = "complete"
	// OutputUpdate upserts each batch by Sink.MergeKeys.
	OutputUpdate OutputMode = "update"
)

// DefaultRescuedDataColumn is the rescued data column's default name.
const DefaultRescuedDataColumn = "_rescued_data"

// MinMaxFileAge is the smallest cloudFiles.maxFileAge Auto Loader accepts.
const MinMaxFileAge = 14 * sparkvalue.Day

// Locations are the parts of a stream that are not options: its identity,
// where it reads and writes, and what spark.readStream.format() and .schema()
// would say. Values given here and as options (checkpointLocation,
// cloudFiles.schemaLocation) must agree.
type Locations struct {
	// StreamID keys the state, the schema history and the default txnAppId.
	StreamID string
	// Source is the source prefix (s3://bucket/prefix/ or a local directory);
	// for a Delta source, the source table's directory.
	Source string
	// Table is the target Delta table's directory.
	Table string
	// CheckpointLocation is the stream's checkpoint/state location.
	CheckpointLocation string
	// SchemaLocation is cloudFiles.schemaLocation.
	SchemaLocation string
	// SourceFormat is "cloudFiles" (default when empty) or "delta",
	// case-insensitive.
	SourceFormat string
	// UserSchema is the DDL given to .schema(); empty means inference.
	UserSchema string
}

// Stream is a parsed, validated stream configuration.
type Stream struct {
	// ID is the stream id.
	ID string
	// Source is the source location as given.
	Source string
	// Table is the target table location as given.
	Table string
	// SourceFormat is cloudFiles or delta.
	SourceFormat SourceFormat
	// UserSchema is the user-given schema DDL ("" when inferred).
	UserSchema string

	// CloudFiles holds the Auto Loader options (SourceCloudFiles only).
	CloudFiles CloudFiles
	// Reader holds the plain reader options of the file format.
	Reader Reader
	// Delta holds the Delta-source options (SourceDelta only).
	Delta DeltaSource
	// Sink holds the Delta-sink (writeStream) options.
	Sink Sink

	// Raw is the options map as given (original key spelling).
	Raw map[string]string
	// Ignored lists option names that were not applied
	// (cloudFiles.validateOptions=false), sorted.
	Ignored []string
	// Warnings are advisories for the log (deprecated or legacy options,
	// ignored options).
	Warnings []string

	// explicit records the documented names of the options that were set.
	explicit map[string]bool
}

// IsSet reports whether the option (any case, aliases resolved) was given
// explicitly rather than defaulted.
func (s *Stream) IsSet(option string) bool {
	name := strings.ToLower(option)
	if a, ok := aliases()[name]; ok {
		name = strings.ToLower(a)
	}
	for k := range s.explicit {
		if strings.ToLower(k) == name {
			return true
		}
	}
	return false
}

// CloudFiles are the Auto Loader options.
type CloudFiles struct {
	// Format is cloudFiles.format (required).
	Format FileFormat
	// MaxFilesPerTrigger is cloudFiles.maxFilesPerTrigger (default 1000).
	MaxFilesPerTrigger int
	// MaxBytesPerTrigger is cloudFiles.maxBytesPerTrigger, a soft limit (0:
	// not set).
	MaxBytesPerTrigger int64
	// IncludeExistingFiles is cloudFiles.includeExistingFiles (default true).
	IncludeExistingFiles bool
	// UseNotifications is cloudFiles.useNotifications (default false:
	// directory listing).
	UseNotifications bool
	// UseIncrementalListing is cloudFiles.useIncrementalListing: "auto"
	// (default), "true" or "false" (see discovery.IncrementalOn).
	UseIncrementalListing string
	// QueueURL is cloudFiles.queueUrl: an existing queue to read events from.
	QueueURL string
	// FetchParallelism is cloudFiles.fetchParallelism (default 1): threads
	// fetching from the queue.
	FetchParallelism int
	// AllowOverwrites is cloudFiles.allowOverwrites (default false).
	AllowOverwrites bool
	// MaxFileAge is cloudFiles.maxFileAge (0: track forever; else ≥ 14 days).
	MaxFileAge time.Duration
	// BackfillInterval is cloudFiles.backfillInterval (0: no backfill).
	BackfillInterval time.Duration
	// InferColumnTypes is cloudFiles.inferColumnTypes (default false).
	InferColumnTypes bool
	// SchemaHints is cloudFiles.schemaHints, SQL DDL.
	SchemaHints string
	// SchemaLocation is cloudFiles.schemaLocation.
	SchemaLocation string
	// SchemaEvolutionMode is cloudFiles.schemaEvolutionMode (default
	// addNewColumns without a user schema, none with one or with a fixed
	// schema format).
	SchemaEvolutionMode SchemaEvolutionMode
	// RescuedDataColumn is cloudFiles.rescuedDataColumn ("" when no rescued
	// column is written: mode none without the option, binaryFile, text).
	RescuedDataColumn string
	// PartitionColumns is cloudFiles.partitionColumns (comma-separated).
	PartitionColumns []string
	// ValidateOptions is cloudFiles.validateOptions (default true).
	ValidateOptions bool
	// CleanSource is cloudFiles.cleanSource (default OFF).
	CleanSource CleanSource
	// MoveDestination is cloudFiles.cleanSource.moveDestination.
	MoveDestination string
	// SampleSizeNumBytes is
	// spark.databricks.cloudFiles.schemaInference.sampleSize.numBytes
	// (default 50g).
	SampleSizeNumBytes int64
	// SampleSizeNumFiles is
	// spark.databricks.cloudFiles.schemaInference.sampleSize.numFiles
	// (default 1000).
	SampleSizeNumFiles int
}

// Sink are the Delta sink (writeStream) options.
type Sink struct {
	// CheckpointLocation is checkpointLocation (required).
	CheckpointLocation string
	// OutputMode is outputMode (default append).
	OutputMode OutputMode
	// Trigger is the trigger (default processingTime=0 seconds: back to back).
	Trigger Trigger
	// MergeSchema is mergeSchema (default true: the table's schema evolves,
	// as in Delta Live Tables).
	MergeSchema bool
	// TxnAppID is txnAppId (default: the stream id).
	TxnAppID string
	// TxnVersion is txnVersion (nil: the batch id is used).
	TxnVersion *int64
	// PartitionBy is partitionBy: the data columns the table is
	// partitioned by.
	PartitionBy []string
	// MergeKeys is mergeKeys: the key columns of the upsert sink (nil: no
	// upsert).
	MergeKeys []string
	// OverwriteSchema is overwriteSchema (outputMode=complete only).
	OverwriteSchema bool
	// ReplaceWhere is replaceWhere: a SQL predicate; each batch replaces
	// the table's rows matching it (a selective overwrite, "" for none).
	ReplaceWhere string
	// ParquetCodec is parquet.compression.codec, lower-cased: snappy
	// (default, also ""), zstd, gzip, lz4 or uncompressed.
	ParquetCodec string
	// TableProperties are the Delta table properties given as options,
	// under their Delta names (delta.enableTypeWidening, ...), with
	// normalised values; nil when none was given.
	TableProperties map[string]string
}

// Limits returns the batch bounds of the stream's source: max files (always
// > 0) and soft max bytes (0 when unbounded).
func (s *Stream) Limits() (maxFiles int, maxBytes int64) {
	if s.SourceFormat == SourceDelta {
		return s.Delta.MaxFilesPerTrigger, s.Delta.MaxBytesPerTrigger
	}
	return s.CloudFiles.MaxFilesPerTrigger, s.CloudFiles.MaxBytesPerTrigger
}

// CheckpointLocation returns the stream's checkpoint location.
func (s *Stream) CheckpointLocation() string { return s.Sink.CheckpointLocation }

// defaults returns a Stream with every default applied.
func defaults() *Stream {
	return &Stream{
		SourceFormat: SourceCloudFiles,
		CloudFiles: CloudFiles{
			MaxFilesPerTrigger:    1000,
			IncludeExistingFiles:  true,
			UseIncrementalListing: "auto",
			FetchParallelism:      1,
			ValidateOptions:       true,
			CleanSource:           CleanOff,
			SampleSizeNumBytes:    50 << 30,
			SampleSizeNumFiles:    1000,
		},
		Reader: Reader{Mode: "PERMISSIVE", CaseSensitive: true, Options: map[string]string{}},
		Delta: DeltaSource{
			MaxFilesPerTrigger: 1000,
			FailOnDataLoss:     true,
		},
		Sink: Sink{OutputMode: OutputAppend, Trigger: Trigger{Kind: TriggerProcessingTime}, MergeSchema: true},
	}
}
