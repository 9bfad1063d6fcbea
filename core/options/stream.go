package options

import "strings"

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
