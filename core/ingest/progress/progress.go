// Package progress provides the record of one committed batch (SPEC §9),
// shaped like Spark's StreamingQueryProgress, and its two outputs: a
// structured log line and a CloudWatch Embedded Metric Format line.
package progress

import (
	"encoding/json"
	"io"
	"log/slog"
	"time"
)

// Progress is the record of one committed batch (SPEC §9), shaped like
// Spark's StreamingQueryProgress so existing dashboards translate.
type Progress struct {
	// StreamID is the stream (Spark's query id).
	StreamID string `json:"id"`
	// BatchID is the micro-batch id (the Delta txn version).
	BatchID int64 `json:"batchId"`
	// Timestamp is when the batch started.
	Timestamp time.Time `json:"timestamp"`
	// NumInputFiles is the number of source files in the batch.
	NumInputFiles int `json:"numInputFiles"`
	// NumInputBytes is their total size.
	NumInputBytes int64 `json:"numInputBytes"`
	// NumInputRows is the number of rows read and written.
	NumInputRows int64 `json:"numInputRows"`
	// NumRescuedRows counts rows with a non-null rescued data column.
	NumRescuedRows int64 `json:"numRescuedRows"`
	// NumSkippedFiles counts files that could not be read and were skipped.
	NumSkippedFiles int `json:"numSkippedFiles"`
	// InputRowsPerSecond is rows over the batch's wall time.
	InputRowsPerSecond float64 `json:"inputRowsPerSecond"`
	// ProcessedRowsPerSecond is rows over the time spent writing and committing.
	ProcessedRowsPerSecond float64 `json:"processedRowsPerSecond"`
	// DurationMs breaks the batch down by step.
	DurationMs map[string]int64 `json:"durationMs"`
	// NumFilesOutstanding is the number of files left pending when the
	// batch was planned, counted within the planner's look-ahead window (a
	// lower bound when BacklogCapped).
	NumFilesOutstanding int64 `json:"numFilesOutstanding"`
	// NumBytesOutstanding is their total size.
	NumBytesOutstanding int64 `json:"numBytesOutstanding"`
	// BacklogCapped reports that the backlog exceeded the look-ahead window.
	BacklogCapped bool `json:"backlogCapped,omitempty"`
	// BacklogEndOffset is, for a Delta source, the source table version
	// the backlog was counted to (nil for file sources).
	BacklogEndOffset *int64 `json:"backlogEndOffset,omitempty"`
	// NumNewListedFiles is, for a Delta source, the number of source log
	// files (add actions) listed to count the backlog (nil for file sources).
	NumNewListedFiles *int64 `json:"numNewListedFiles,omitempty"`
	// ApproximateQueueSize is the notification queue depth when known (-1 otherwise).
	ApproximateQueueSize int64 `json:"approximateQueueSize"`
	// TableVersion is the Delta version the batch committed.
	TableVersion int64 `json:"tableVersion"`
	// NumOutputFiles and NumOutputBytes describe the Parquet files added.
	NumOutputFiles int   `json:"numOutputFiles"`
	NumOutputBytes int64 `json:"numOutputBytes"`
	// CommitAttempts is how many log versions the commit tried.
	CommitAttempts int `json:"commitAttempts"`
}

// Log writes the record as one structured log line.
func (p Progress) Log(l *slog.Logger) {
	if p.BacklogEndOffset != nil {
		l = l.With("backlogEndOffset", *p.BacklogEndOffset)
	}
	if p.NumNewListedFiles != nil {
		l = l.With("numNewListedFiles", *p.NumNewListedFiles)
	}
	l.Info("batch committed",
		"stream", p.StreamID, "batchId", p.BatchID, "numInputRows", p.NumInputRows,
		"numInputFiles", p.NumInputFiles, "numInputBytes", p.NumInputBytes,
		"numRescuedRows", p.NumRescuedRows, "numSkippedFiles", p.NumSkippedFiles,
		"inputRowsPerSecond", p.InputRowsPerSecond, "processedRowsPerSecond", p.ProcessedRowsPerSecond,
		"durationMs", p.DurationMs, "numFilesOutstanding", p.NumFilesOutstanding,
		"numBytesOutstanding", p.NumBytesOutstanding, "tableVersion", p.TableVersion,
		"numOutputFiles", p.NumOutputFiles, "commitAttempts", p.CommitAttempts)
}

// MetricsNamespace is the CloudWatch namespace of Tributary's metrics.
const MetricsNamespace = "Tributary"

// WriteEMF writes the record as one CloudWatch Embedded Metric Format line:
// CloudWatch Logs turns it into metrics with no API call.
func (p Progress) WriteEMF(w io.Writer) error {
	type metric struct {
		Name string `json:"Name"`
		Unit string `json:"Unit"`
	}
	metrics := []metric{
		{"numInputRows", "Count"}, {"numInputFiles", "Count"}, {"numInputBytes", "Bytes"},
		{"numRescuedRows", "Count"}, {"numSkippedFiles", "Count"},
		{"inputRowsPerSecond", "Count/Second"}, {"processedRowsPerSecond", "Count/Second"},
		{"triggerExecutionMs", "Milliseconds"},
		{"numFilesOutstanding", "Count"}, {"numBytesOutstanding", "Bytes"},
	}
	doc := map[string]any{
		"_aws": map[string]any{
			"Timestamp": p.Timestamp.UnixMilli(),
			"CloudWatchMetrics": []any{map[string]any{
				"Namespace":  MetricsNamespace,
				"Dimensions": [][]string{{"StreamId"}},
				"Metrics":    metrics,
			}},
		},
		"StreamId":               p.StreamID,
		"batchId":                p.BatchID,
		"tableVersion":           p.TableVersion,
		"numInputRows":           p.NumInputRows,
		"numInputFiles":          p.NumInputFiles,
		"numInputBytes":          p.NumInputBytes,
		"numRescuedRows":         p.NumRescuedRows,
		"numSkippedFiles":        p.NumSkippedFiles,
		"inputRowsPerSecond":     p.InputRowsPerSecond,
		"processedRowsPerSecond": p.ProcessedRowsPerSecond,
		"triggerExecutionMs":     p.DurationMs["triggerExecution"],
		"numFilesOutstanding":    p.NumFilesOutstanding,
		"numBytesOutstanding":    p.NumBytesOutstanding,
	}
	if p.BacklogEndOffset != nil {
		doc["backlogEndOffset"] = *p.BacklogEndOffset
	}
	if p.ApproximateQueueSize >= 0 {
		doc["approximateQueueSize"] = p.ApproximateQueueSize
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// PerSecond is a Progress rate: n divided by d in seconds, 0 for a zero or
// negative duration.
func PerSecond(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
