// Package deltasource reads a Delta table as a stream (bronze -> silver,
// SPEC §7, seeds 000 and 003) and writes it exactly once into a Delta sink.
//
// The source offset is (version, index): the initial snapshot of a version
// (its files ordered by modification time, then path), then every later
// commit's data-changing adds in log order. Each batch follows the sink's
// exactly-once protocol (package ingest): a plan naming the batch's files
// and its end offset is sealed in the checkpoint location (put-if-absent)
// before any data is written, the rows are written as Parquet under
// attempt-unique names, and one Delta commit carries txn{appId, batch id}.
// A rerun replays a sealed plan exactly; a batch whose txn the sink already
// holds is never written twice. The next batch starts where the last
// committed plan ended, so nothing is read twice and nothing is skipped.
package deltasource

import (
	"errors"
	"fmt"
	"time"

	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/sink/predicate"
)

// Errors a Delta source stops with. Each names Delta's error class in its
// message, as Spark reports it.
var (
	// ErrChangeCommit: a source commit updates or deletes data (a remove
	// with dataChange=true) and no option allows it.
	ErrChangeCommit = errors.New("the source table changed existing data")
	// ErrDataLoss (DELTA_FILE_NOT_FOUND_DETAILED): a log entry or data file
	// the stream still needs is gone (VACUUM, log cleanup) and
	// failOnDataLoss is true.
	ErrDataLoss = errors.New("DELTA_FILE_NOT_FOUND_DETAILED")
	// ErrSchemaChanged: the source's schema changed while the stream ran;
	// a restart reads it with the new schema.
	ErrSchemaChanged = errors.New("the source table's schema changed")
	// ErrIncompatibleSchema: the source's schema changed in a way the
	// stream cannot read older data with (a dropped, renamed or retyped
	// column, changed partitioning): a full refresh is needed.
	ErrIncompatibleSchema = errors.New("incompatible schema change in the source table: a full refresh is needed")
	// ErrStartingVersion: startingVersion names a version the table does
	// not have.
	ErrStartingVersion = errors.New("startingVersion is not available")
	// ErrEventTimeOrderChanged: the checkpoint's initial snapshot is being
	// read in event-time order (a checkpoint written when Tributary read
	// withEventTimeOrder), which cannot change mid-snapshot (seed 000:
	// delete the checkpoint to change it).
	ErrEventTimeOrderChanged = errors.New("withEventTimeOrder cannot change while the initial snapshot is processed")
	// ErrSourceReplaced: the source table was dropped and recreated (its
	// metaData id changed): the stream's offsets mean nothing in it.
	ErrSourceReplaced = errors.New("the source table was replaced: a full refresh is needed")
	// ErrCheckpointLost: the sink holds batches of this stream but the
	// checkpoint no longer has the plan that says where the source was.
	ErrCheckpointLost = errors.New("the checkpoint lost the source offset: a full refresh is needed")
)

// Config is what a Delta source needs of a stream's options.
type Config struct {
	// StreamID is the stream id: the checkpoint's owner.
	StreamID string
	// AppID is the sink's txn appId (txnAppId); StreamID when empty.
	AppID string
	// SourceURI names the source table as users gave it (in errors).
	SourceURI string
	// Delta holds the Delta source options.
	Delta options.DeltaSource
	// Once is Trigger.Once: one batch of everything available (no limits).
	Once bool
	// ParquetCodec is the sink's data file codec ("" is snappy).
	ParquetCodec string
	// TargetFileRows rolls to a new data file after this many rows (default 1,000,000).
	TargetFileRows int
	// NoMergeSchema is mergeSchema=false: a source column the sink does not
	// have fails the batch instead of evolving the sink's schema.
	NoMergeSchema bool
	// OutputMode is outputMode: append (also ""), complete (each batch
	// replaces the sink's rows) or update (an upsert by MergeKeys, core/sink).
	OutputMode options.OutputMode
	// MergeKeys are mergeKeys (OutputMode update).
	MergeKeys []string
	// OverwriteSchema is overwriteSchema: a complete-mode batch also
	// replaces the sink's schema.
	OverwriteSchema bool
	// ReplaceWhere is replaceWhere (nil: none): each batch's commit
	// replaces the sink's rows matching it (core/sink.Replace).
	ReplaceWhere *predicate.Expr
}

// ConfigFromOptions maps a validated Delta-source stream to Config.
func ConfigFromOptions(s *options.Stream) (Config, error) {
	if s.SourceFormat != options.SourceDelta {
		return Config{}, fmt.Errorf("stream %q: not a Delta source (format %q)", s.ID, s.SourceFormat)
	}
	if len(s.Sink.PartitionBy) > 0 {
		return Config{}, fmt.Errorf("stream %q: option partitionBy: not supported yet for a Delta-source stream (its sink table is unpartitioned)", s.ID)
	}
	var where *predicate.Expr
	if s.Sink.ReplaceWhere != "" {
		var err error
		if where, err = predicate.Parse(s.Sink.ReplaceWhere); err != nil {
			return Config{}, fmt.Errorf("stream %q: option replaceWhere: %w", s.ID, err)
		}
	}
	return Config{
		ReplaceWhere:    where,
		StreamID:        s.ID,
		AppID:           s.Sink.TxnAppID,
		SourceURI:       s.Source,
		Delta:           s.Delta,
		Once:            s.Sink.Trigger.Kind == options.TriggerOnce,
		ParquetCodec:    s.Sink.ParquetCodec,
		NoMergeSchema:   !s.Sink.MergeSchema,
		OutputMode:      s.Sink.OutputMode,
		MergeKeys:       s.Sink.MergeKeys,
		OverwriteSchema: s.Sink.OverwriteSchema,
	}, nil
}

// Offset is a position in the source: the next file to read. In the
// initial snapshot of Version (Initial) it is the Index-th file in
// snapshot order; otherwise the Index-th data-changing add of commit
// Version. A fully read commit v is Offset{Version: v+1}.
type Offset struct {
	Version int64 `json:"version"`
	Index   int64 `json:"index"`
	Initial bool  `json:"initial,omitempty"`
}

// String renders the offset for logs and errors.
func (o Offset) String() string {
	if o.Initial {
		return fmt.Sprintf("snapshot@%d[%d]", o.Version, o.Index)
	}
	return fmt.Sprintf("%d[%d]", o.Version, o.Index)
}

func (c *Config) appID() string {
	if c.AppID != "" {
		return c.AppID
	}
	return c.StreamID
}

// limits returns the batch limits (none under Trigger.Once).
func (c *Config) limits() (int, int64) {
	if c.Once {
		return 0, 0
	}
	return c.Delta.MaxFilesPerTrigger, c.Delta.MaxBytesPerTrigger
}

// changeError is the error a change commit stops the stream with.
func (c *Config) changeError(version int64, path string, hasAdds bool) error {
	if hasAdds {
		return fmt.Errorf("%w: [DELTA_SOURCE_TABLE_IGNORE_CHANGES] Detected a data update (for example %s) in the source table at version %d. This is currently not supported. If this is going to happen regularly and you are okay to skip changes, set the option 'skipChangeCommits' to 'true'. If you would like the data update to be reflected, please restart this query with a fresh checkpoint directory (a full refresh: tributary refresh). The source table can be found at path %s",
			ErrChangeCommit, path, version, c.SourceURI)
	}
	return fmt.Errorf("%w: [DELTA_SOURCE_IGNORE_DELETE] Detected deleted data (for example %s) from streaming source at version %d. This is currently not supported. If you'd like to ignore deletes, set the option 'ignoreDeletes' to 'true' (or 'skipChangeCommits' to skip every change commit). The source table can be found at path %s",
		ErrChangeCommit, path, version, c.SourceURI)
}

// dataLossError is DELTA_FILE_NOT_FOUND_DETAILED for a missing log entry
// or data file.
func (c *Config) dataLossError(what string, err error) error {
	return fmt.Errorf("%w: %s of the source table %s cannot be found (%v). The stream must run at least once within the source's retention (VACUUM keeps data files delta.deletedFileRetentionDuration, 7 days by default; the log is kept delta.logRetentionDuration, 30 days): a full refresh is needed (tributary refresh), or set failOnDataLoss=false to skip what is lost (rows are then missing); never use ignoreMissingFiles for this",
		ErrDataLoss, what, c.SourceURI, err)
}

// nowOr returns now() or time.Now.
func nowOr(now func() time.Time) time.Time {
	if now != nil {
		return now()
	}
	return time.Now()
}
