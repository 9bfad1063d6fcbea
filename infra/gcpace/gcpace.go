// Package gcpace sets the Go garbage collector's pacing for a function
// that converts data (the commit function and its converters).
//
// With the runtime's default (GOGC=100, no memory limit) a converter
// collects every time its heap doubles from a small live heap: a 2 GB
// function converting a 12-128 MB share runs 3-6 collections that mostly
// discard the Parquet writer's pooled page buffers, then allocates and
// page-faults them again. That per-share cost is what kept fan-out at
// N = 8 converters under 0.8 x N (docs/fanout.md, "Measured scaling").
// Apply raises GOGC to DefaultPercent and bounds the heap by a memory limit
// derived from the function's memory, so a converter collects rarely but
// never outgrows its function: near the limit the collector runs as often
// as it must.
//
// Settings the operator made win: a GOGC or GOMEMLIMIT environment variable
// (which the runtime has already applied) is left alone.
package gcpace

import (
	"math"
	"runtime/debug"
	"strconv"
	"strings"
)

// DefaultPercent is the GOGC the functions run with unless GOGC is set: the
// heap may grow to five times the live heap between collections.
const DefaultPercent = 400

// limitPercent is the share of the function's memory the Go heap may use
// (GOMEMLIMIT); the rest is left to the runtime's own overhead, goroutine
// stacks and the OS.
const limitPercent = 75

// Settings is the pacing Choose picked. Percent < 0 or Limit <= 0 leaves
// the runtime's value (from the environment) unchanged.
type Settings struct {
	// Percent is the GC percent to set (-1: keep the GOGC the runtime read).
	Percent int
	// Limit is the soft memory limit in bytes (0: keep GOMEMLIMIT, or none).
	Limit int64
}

// Choose returns the pacing for a process whose environment getenv reads:
// DefaultPercent unless GOGC is set, and a memory limit of 75 % of
// AWS_LAMBDA_FUNCTION_MEMORY_SIZE (MB) unless GOMEMLIMIT is set or the
// process is not a Lambda function.
func Choose(getenv func(string) string) Settings {
	s := Settings{Percent: DefaultPercent}
	if strings.TrimSpace(getenv("GOGC")) != "" {
		s.Percent = -1
	}
	if strings.TrimSpace(getenv("GOMEMLIMIT")) == "" {
		if mb, err := strconv.ParseInt(strings.TrimSpace(getenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE")), 10, 64); err == nil && mb > 0 && mb < math.MaxInt64>>27 {
			s.Limit = (mb << 20) * limitPercent / 100
		}
	}
	return s
}

// Apply sets the pacing Choose picks for getenv's environment and returns
// it.
func Apply(getenv func(string) string) Settings {
	s := Choose(getenv)
	if s.Percent >= 0 {
		debug.SetGCPercent(s.Percent)
	}
	if s.Limit > 0 {
		debug.SetMemoryLimit(s.Limit)
	}
	return s
}
