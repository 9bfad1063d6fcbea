// Package deltaopts provides the options of a Delta table read as a stream
// (startingVersion, skipChangeCommits, maxFilesPerTrigger, ...): the
// DeltaSource they are parsed into, its change policy, and one spec per
// option with its documentation. Package options registers them for Delta
// sources; package deltasource reads them.
package deltaopts

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/options/optspec"
	"github.com/tributary-io/tributary/core/options/sparkvalue"
)

// StartingVersion is the Delta source's startingVersion.
type StartingVersion struct {
	// Latest is true for "latest": only changes after the current version.
	Latest bool
	// Version is the table version to start at (when not Latest).
	Version int64
}

// DeltaSource are the options of a Delta table read as a stream.
type DeltaSource struct {
	// StartingVersion is startingVersion (nil: full snapshot, then changes).
	StartingVersion *StartingVersion
	// StartingTimestamp is startingTimestamp (nil: not set).
	StartingTimestamp *time.Time
	// SkipChangeCommits is skipChangeCommits (default false).
	SkipChangeCommits bool
	// IgnoreDeletes is ignoreDeletes (legacy; default false).
	IgnoreDeletes bool
	// IgnoreChanges is ignoreChanges (legacy; default false).
	IgnoreChanges bool
	// MaxFilesPerTrigger is maxFilesPerTrigger (default 1000).
	MaxFilesPerTrigger int
	// MaxBytesPerTrigger is maxBytesPerTrigger, a soft limit (0: not set).
	MaxBytesPerTrigger int64
	// FailOnDataLoss is failOnDataLoss (default true).
	FailOnDataLoss bool
}

// ChangePolicy says how a Delta source treats commits that update or delete
// data.
type ChangePolicy string

// Change policies, from the Delta source options.
const (
	// ChangesFail fails the stream on a change commit (the default).
	ChangesFail ChangePolicy = "fail"
	// ChangesSkip ignores change commits entirely (skipChangeCommits).
	ChangesSkip ChangePolicy = "skipChangeCommits"
	// ChangesReemit re-emits rewritten files (ignoreChanges).
	ChangesReemit ChangePolicy = "ignoreChanges"
	// ChangesIgnorePartitionDeletes accepts whole-partition deletes only
	// (ignoreDeletes).
	ChangesIgnorePartitionDeletes ChangePolicy = "ignoreDeletes"
)

// ChangePolicy returns the effective change policy: skipChangeCommits wins,
// then ignoreChanges (which takes precedence over ignoreDeletes, seed 000),
// then ignoreDeletes.
func (d DeltaSource) ChangePolicy() ChangePolicy {
	switch {
	case d.SkipChangeCommits:
		return ChangesSkip
	case d.IgnoreChanges:
		return ChangesReemit
	case d.IgnoreDeletes:
		return ChangesIgnorePartitionDeletes
	}
	return ChangesFail
}

// Specs returns every Delta source option Tributary knows, honoured and
// refused.
func Specs() []optspec.Spec[*DeltaSource] {
	return []optspec.Spec[*DeltaSource]{
		doc(optspec.Spec[*DeltaSource]{
			Name: "startingVersion",
			Set: func(d *DeltaSource, v string) error {
				if strings.EqualFold(strings.TrimSpace(v), "latest") {
					d.StartingVersion = &StartingVersion{Latest: true}
					return nil
				}
				n, err := sparkvalue.ParseNonNegative(v)
				if err != nil {
					return fmt.Errorf("want a table version (a non-negative integer) or latest")
				}
				d.StartingVersion = &StartingVersion{Version: n}
				return nil
			},
			Get: func(d *DeltaSource) (string, bool) {
				sv := d.StartingVersion
				if sv == nil {
					return "", false
				}
				if sv.Latest {
					return "latest", true
				}
				return strconv.FormatInt(sv.Version, 10), true
			},
		}, "", "Table version to start a new stream from (a number, or latest: only changes after the current version); default: the full current snapshot, then every change."),
		doc(optspec.Spec[*DeltaSource]{
			Name: "startingTimestamp",
			Set: func(d *DeltaSource, v string) error {
				t, err := sparkvalue.ParseTimestamp(v)
				if err != nil {
					return err
				}
				d.StartingTimestamp = &t
				return nil
			},
			Get: func(d *DeltaSource) (string, bool) {
				if d.StartingTimestamp == nil {
					return "", false
				}
				return d.StartingTimestamp.Format("2006-01-02T15:04:05.000Z07:00"), true
			},
		}, "", "Start a new stream at the first commit at or after this timestamp or date (earliest commit when before all; cannot be combined with startingVersion)."),
		doc(optspec.Bool("skipChangeCommits", func(d *DeltaSource) *bool { return &d.SkipChangeCommits }), "false", "Skip source commits that update or delete existing data (DELETE, UPDATE, MERGE, OVERWRITE) instead of failing; only appends are processed."),
		doc(optspec.Bool("ignoreDeletes", func(d *DeltaSource) *bool { return &d.IgnoreDeletes }), "false", "Legacy: accept commits that only delete files (whole-partition deletes); a commit that rewrites files still fails."),
		doc(optspec.Bool("ignoreChanges", func(d *DeltaSource) *bool { return &d.IgnoreChanges }), "false", "Legacy: re-emit the files a change commit rewrote (unchanged rows arrive again: duplicates downstream); deletes are not propagated; wins over ignoreDeletes."),
		doc(optspec.PosInt("maxFilesPerTrigger", func(d *DeltaSource) *int { return &d.MaxFilesPerTrigger }), "1000", "Most source data files per micro-batch."),
		doc(optspec.Bytes("maxBytesPerTrigger", func(d *DeltaSource) *int64 { return &d.MaxBytesPerTrigger }, true), "", "Soft limit of source bytes per micro-batch (the file crossing it is still taken); with maxFilesPerTrigger, whichever is reached first."),
		doc(optspec.Bool("failOnDataLoss", func(d *DeltaSource) *bool { return &d.FailOnDataLoss }), "true", "Fail with DELTA_FILE_NOT_FOUND_DETAILED when a source log entry or data file the stream needs is gone (VACUUM, log cleanup); false skips what is lost."),
		optspec.Refused[*DeltaSource]("schemaTrackingLocation", "non-additive source schema changes (columns renamed or dropped under column mapping) are not tracked: such a change stops the stream with the full-refresh error; additive changes need no tracking (the next run reads with the new schema)"),
		optspec.Refused[*DeltaSource]("withEventTimeOrder", "the initial snapshot is read in modification-time order: Delta splits it into event-time buckets, each micro-batch filtering the rows of its range on the column withWatermark names; Tributary has no watermark and does not filter rows so"),
		optspec.Refused[*DeltaSource]("readChangeFeed", "the change data feed is not implemented; use skipChangeCommits or a full refresh"),
	}
}

// doc sets an option's documentation: its default as users read it and one
// line of meaning.
func doc(o optspec.Spec[*DeltaSource], def, meaning string) optspec.Spec[*DeltaSource] {
	return o.Documented(def, meaning)
}
