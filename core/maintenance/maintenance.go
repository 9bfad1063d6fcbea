// Package maintenance keeps a Delta table small and fast to read, as
// Delta's OPTIMIZE, VACUUM and metadata cleanup do:
//
//   - Optimize bin-packs the small files of each partition into files of a
//     target size, committed with dataChange=false (streams reading the
//     table skip the commit), through the table's put-if-absent commit:
//     a concurrent writer that removed one of the compacted files makes
//     it give up, one that only appended makes it retry at the next
//     version.
//   - Vacuum deletes the data files the table no longer references once
//     delta.deletedFileRetentionDuration (7 days) has passed since they
//     were removed (or, never referenced, since they were written); it
//     never enters a folder whose name starts with "_" or "." (the log,
//     checkpoints and schema locations kept inside a table).
//   - CleanupLog deletes the log files older than delta.logRetentionDuration
//     (30 days) that a checkpoint covers, so that every version kept can
//     still be read.
//
// The package reads table properties from the table's metaData; it uses
// only package delta, objstore and parquetio (no AWS).
package maintenance

import (
	"errors"
	"log/slog"
	"time"
)

// Contract errors.
var (
	// ErrConflict means a concurrent commit removed or replaced a file
	// that Optimize was compacting: nothing was committed and the files it
	// wrote were removed.
	ErrConflict = errors.New("maintenance: a concurrent commit changed the files being compacted")
	// ErrRetentionTooShort means Vacuum was asked for a retention shorter
	// than the table's delta.deletedFileRetentionDuration without
	// Options.UnsafeRetention.
	ErrRetentionTooShort = errors.New("maintenance: retention shorter than the table's delta.deletedFileRetentionDuration")
	// ErrUnsupportedTable means the table uses a feature the operation
	// cannot preserve (for example column mapping for Optimize).
	ErrUnsupportedTable = errors.New("maintenance: table not supported")
)

// Options are the settings shared by every operation. The zero value is
// valid.
type Options struct {
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger receives progress (default slog.Default()).
	Logger *slog.Logger
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func (o Options) log() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}
