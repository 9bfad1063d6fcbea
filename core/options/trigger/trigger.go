// Package trigger provides the trigger option of a stream (availableNow,
// once, processingTime=INTERVAL): its parser and the parsed Trigger.
package trigger

import (
	"fmt"
	"github.com/tributary-io/tributary/core/options/opterr"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/options/sparkvalue"
)

// Kind names a Structured Streaming trigger.
type Kind string

// Triggers Tributary runs.
const (
	// ProcessingTime runs a micro-batch every Interval; an Interval of
	// zero (the default trigger) runs them back to back as data arrives.
	ProcessingTime Kind = "processingTime"
	// AvailableNow processes everything outstanding in as many
	// batches as the rate limits need, then stops.
	AvailableNow Kind = "availableNow"
	// Once processes everything outstanding in one batch, ignoring the
	// rate limits. Deprecated by Databricks (Runtime 11.3 LTS); options.Parse
	// warns.
	Once Kind = "once"
)

// Trigger is a parsed trigger option.
type Trigger struct {
	// Kind is the trigger.
	Kind Kind
	// Interval is the processingTime interval (zero for other kinds).
	Interval time.Duration
}

// String writes the trigger in the form Parse reads.
func (t Trigger) String() string {
	if t.Kind == ProcessingTime {
		return "processingTime=" + sparkvalue.FormatDuration(t.Interval)
	}
	return string(t.Kind)
}

// Parse parses the trigger option, written like the keyword arguments
// of PySpark's DataStreamWriter.trigger: "availableNow" (or
// "availableNow=true"), "once" (or "once=true"), "processingTime=5 minutes"
// (quotes around the interval allowed). Keywords are case-insensitive.
// processingTime takes no month or year part, as in Spark. realTime and
// continuous are refused with opterr.ErrUnsupportedOption.
func Parse(s string) (Trigger, error) {
	key, val, hasVal := strings.Cut(strings.TrimSpace(s), "=")
	key = strings.ToLower(strings.TrimSpace(key))
	val = strings.Trim(strings.TrimSpace(val), `'"`)
	switch key {
	case "availablenow", "once":
		if hasVal {
			b, err := sparkvalue.ParseBool(val)
			if err != nil {
				return Trigger{}, fmt.Errorf("invalid trigger %q: %w", s, err)
			}
			if !b {
				return Trigger{}, fmt.Errorf("invalid trigger %q: %s=false selects no trigger; omit the option for the default", s, key)
			}
		}
		if key == "once" {
			return Trigger{Kind: Once}, nil
		}
		return Trigger{Kind: AvailableNow}, nil
	case "processingtime":
		if !hasVal {
			return Trigger{}, fmt.Errorf("invalid trigger %q: want processingTime=<interval>, e.g. \"processingTime=5 minutes\"", s)
		}
		d, months, err := sparkvalue.ParseInterval(val)
		if err != nil {
			return Trigger{}, fmt.Errorf("invalid trigger %q: %w", s, err)
		}
		if months {
			return Trigger{}, fmt.Errorf("invalid trigger %q: processingTime does not support month or year intervals", s)
		}
		if d < 0 {
			return Trigger{}, fmt.Errorf("invalid trigger %q: interval must not be negative", s)
		}
		return Trigger{Kind: ProcessingTime, Interval: d}, nil
	case "realtime", "continuous":
		return Trigger{}, fmt.Errorf("trigger %q: %w: Tributary runs micro-batches only (availableNow, processingTime, once)", s, opterr.ErrUnsupportedOption)
	}
	return Trigger{}, fmt.Errorf("invalid trigger %q: want availableNow, once or processingTime=<interval>", s)
}
