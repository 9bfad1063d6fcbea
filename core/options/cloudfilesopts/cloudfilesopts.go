// Package cloudfilesopts provides the values of the Auto Loader
// (cloudFiles.*) options: the CloudFiles struct they are parsed into, the
// schema evolution and clean-source modes, and their limits and defaults.
// Package options parses them.
package cloudfilesopts

import (
	"time"

	"github.com/tributary-io/tributary/core/options/readeropts"
	"github.com/tributary-io/tributary/core/options/sparkvalue"
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

// DefaultRescuedDataColumn is the rescued data column's default name.
const DefaultRescuedDataColumn = "_rescued_data"

// MinMaxFileAge is the smallest cloudFiles.maxFileAge Auto Loader accepts.
const MinMaxFileAge = 14 * sparkvalue.Day

// CloudFiles are the Auto Loader options.
type CloudFiles struct {
	// Format is cloudFiles.format (required).
	Format readeropts.FileFormat
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
