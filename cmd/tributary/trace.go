package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// Debugging aids: each names a file that receives a record of the command,
// and costs nothing when unset.
const (
	// traceEnv: a Go execution trace (runtime/trace; read it with `go tool
	// trace FILE` or cmd/traceidle). The engine marks its protocol steps
	// as trace regions, so the trace shows the run's timeline: which steps
	// run alone on one core and for how long.
	traceEnv = "TRIBUTARY_TRACE"
	// cpuProfileEnv: a CPU profile (runtime/pprof; read it with `go tool
	// pprof BINARY FILE`, several runs' files at once to sum them).
	cpuProfileEnv = "TRIBUTARY_CPUPROFILE"
)

// debugOutput is a debugging aid: its variable, and how its record
// starts and stops.
type debugOutput struct {
	env   string
	start func(io.Writer) error
	stop  func()
}

// debugOutputs are the debugging aids.
func debugOutputs() []debugOutput {
	return []debugOutput{
		{traceEnv, trace.Start, trace.Stop},
		{cpuProfileEnv, pprof.StartCPUProfile, pprof.StopCPUProfile},
	}
}

// startOutput creates path and starts writing a record into it with
// start; the function returned stops it (stop) and closes the file.
// Errors name env, the variable that asked for it.
func startOutput(env, path string, start func(io.Writer) error, stop func()) (func() error, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", env, err)
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", env, err)
	}
	return func() error {
		stop()
		return f.Close()
	}, nil
}
