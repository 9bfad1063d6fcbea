// Package tableopts provides the Delta table properties a stream may set
// as options (delta.enableTypeWidening, delta.checkpointInterval, ...):
// their names, the parsers that validate and normalise their values, the
// documentation of each, and the well-known properties Tributary refuses.
package tableopts

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/options/sparkvalue"
)

// Delta table property names Tributary takes as options (the sink's
// TableProperties keys).
const (
	PropEnableTypeWidening           = "delta.enableTypeWidening"
	PropCheckpointInterval           = "delta.checkpointInterval"
	PropAppendOnly                   = "delta.appendOnly"
	PropLogRetentionDuration         = "delta.logRetentionDuration"
	PropDeletedFileRetentionDuration = "delta.deletedFileRetentionDuration"
	PropDataSkippingNumIndexedCols   = "delta.dataSkippingNumIndexedCols"
	PropDataSkippingStatsColumns     = "delta.dataSkippingStatsColumns"
)

func parseBoolProp(v string) (string, error) {
	b, err := sparkvalue.ParseBool(v)
	if err != nil {
		return "", err
	}
	return strconv.FormatBool(b), nil
}

// parseIntervalProp accepts a Delta calendar interval ("interval 30 days",
// "7 days", "168 hours") without months or years (they have no fixed
// length) and returns it as "interval N unit" in the largest exact unit.
func parseIntervalProp(v string) (string, error) {
	d, months, err := sparkvalue.ParseInterval(v)
	if err != nil {
		return "", err
	}
	if months {
		return "", fmt.Errorf("months and years have no fixed length: give the interval in weeks, days or hours (\"interval 30 days\")")
	}
	if d < 0 {
		return "", fmt.Errorf("must not be negative")
	}
	return FormatDeltaInterval(d), nil
}

// FormatDeltaInterval writes d as a Delta table property interval
// ("interval 30 days"), in the largest unit that divides it exactly.
func FormatDeltaInterval(d time.Duration) string {
	units := []struct {
		name string
		len  time.Duration
	}{
		{"weeks", 7 * 24 * time.Hour}, {"days", 24 * time.Hour}, {"hours", time.Hour}, {"minutes", time.Minute},
		{"seconds", time.Second}, {"milliseconds", time.Millisecond}, {"microseconds", time.Microsecond},
	}
	for _, u := range units {
		if d%u.len == 0 {
			if u.name == "weeks" {
				return fmt.Sprintf("interval %d days", d/(24*time.Hour))
			}
			return fmt.Sprintf("interval %d %s", d/u.len, u.name)
		}
	}
	return fmt.Sprintf("interval %d nanoseconds", d)
}

// parseStatsColumns accepts delta.dataSkippingStatsColumns: a comma
// separated list of column names, nested fields dotted, names with special
// characters in backquotes.
func parseStatsColumns(v string) (string, error) {
	cols, err := SplitStatsColumns(v)
	if err != nil {
		return "", err
	}
	return strings.Join(cols, ","), nil
}

// SplitStatsColumns splits a delta.dataSkippingStatsColumns value into its
// column references, each as written (dotted paths, backquoted parts kept).
func SplitStatsColumns(v string) ([]string, error) {
	var out []string
	var cur strings.Builder
	quoted := false
	flush := func() error {
		c := strings.TrimSpace(cur.String())
		cur.Reset()
		if c == "" {
			return fmt.Errorf("want a comma-separated list of column names, got an empty name in %q", v)
		}
		out = append(out, c)
		return nil
	}
	for _, r := range v {
		switch {
		case r == '`':
			quoted = !quoted
			cur.WriteRune(r)
		case r == ',' && !quoted:
			if err := flush(); err != nil {
				return nil, err
			}
		default:
			cur.WriteRune(r)
		}
	}
	if quoted {
		return nil, fmt.Errorf("unterminated backquote in %q", v)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

// StatsColumnPath splits one column reference of
// delta.dataSkippingStatsColumns ("a.b", "`a.b`.c") into its path.
func StatsColumnPath(ref string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, r := range ref {
		switch {
		case r == '`':
			quoted = !quoted
		case r == '.' && !quoted:
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return append(out, strings.TrimSpace(cur.String()))
}

// Why is the reason given by the Delta table properties Tributary does
// not set.
const Why = "Tributary sets the table properties delta.enableTypeWidening, delta.checkpointInterval, delta.appendOnly, delta.logRetentionDuration, delta.deletedFileRetentionDuration, delta.dataSkippingNumIndexedCols and delta.dataSkippingStatsColumns; set this one with a Delta engine (ALTER TABLE ... SET TBLPROPERTIES)"

// Spec is one Delta table property taken as a sink option.
type Spec struct {
	// Name is the property's Delta name (delta.appendOnly).
	Name string
	// Default is the default as users read it ("" when it has none).
	Default string
	// Doc is one line of meaning.
	Doc string
	// Parse validates a value (trimmed) and returns its normal form, the
	// value stored in the table's configuration.
	Parse func(v string) (string, error)
}

// Honoured are the Delta table properties Tributary takes as options: they
// apply when Tributary creates the table and are changed with a metaData
// action (in the next batch's commit) when they differ from an existing
// table's.
func Honoured() []Spec {
	return []Spec{
		spec(PropEnableTypeWidening, parseBoolProp, "false",
			"Table property: enables Delta type widening (the typeWidening reader-writer table feature, protocol (3,7)); needed by cloudFiles.schemaEvolutionMode=addNewColumnsWithTypeWidening. Readers without the feature cannot read the table."),
		spec(PropCheckpointInterval, func(v string) (string, error) {
			n, err := sparkvalue.ParsePositiveInt(v)
			if err != nil {
				return "", err
			}
			return strconv.Itoa(n), nil
		}, "10", "Table property: a checkpoint is written every this many commits."),
		spec(PropAppendOnly, parseBoolProp, "false",
			"Table property: true makes the table append-only: a commit that removes data is refused."),
		spec(PropLogRetentionDuration, parseIntervalProp, "interval 30 days",
			"Table property: how long the transaction log's history is kept (log cleanup, time travel)."),
		spec(PropDeletedFileRetentionDuration, parseIntervalProp, "interval 1 weeks",
			"Table property: how long a removed data file is kept before VACUUM may delete it."),
		spec(PropDataSkippingNumIndexedCols, func(v string) (string, error) {
			n, err := strconv.Atoi(v)
			if err != nil || n < -1 {
				return "", fmt.Errorf("want a number of columns, or -1 for all")
			}
			return strconv.Itoa(n), nil
		}, "32", "Table property: the data files' statistics (min, max, null count) cover the first this many leaf columns; -1 all, 0 none."),
		spec(PropDataSkippingStatsColumns, parseStatsColumns, "",
			"Table property: the columns (comma-separated, nested fields dotted) whose statistics the data files carry; overrides delta.dataSkippingNumIndexedCols."),
	}
}

// spec builds a Spec from its name, parser, default and meaning.
func spec(name string, parse func(v string) (string, error), def, meaning string) Spec {
	return Spec{Name: name, Default: def, Doc: meaning, Parse: parse}
}

// Refused lists well-known Delta table properties that Tributary does not
// set; options refuses them with Why.
func Refused() []string {
	return []string{
		"delta.enableChangeDataFeed", "delta.enableDeletionVectors", "delta.columnMapping.mode",
		"delta.enableRowTracking", "delta.checkpointPolicy", "delta.checkpoint.writeStatsAsJson",
		"delta.checkpoint.writeStatsAsStruct", "delta.isolationLevel", "delta.randomizeFilePrefixes",
		"delta.setTransactionRetentionDuration", "delta.targetFileSize", "delta.tuneFileSizesForRewrites",
		"delta.autoOptimize.optimizeWrite", "delta.autoOptimize.autoCompact", "delta.minReaderVersion",
		"delta.minWriterVersion", "delta.enableIcebergCompatV2", "delta.universalFormat.enabledFormats",
		"delta.compatibility.symlinkFormatManifest.enabled", "delta.enableInCommitTimestamps",
	}
}
