package main

import (
	"fmt"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// traceEnv names a file that receives a Go execution trace of the command
// (runtime/trace; read it with `go tool trace FILE`). The engine marks its
// protocol steps as trace regions, so the trace shows the run's timeline:
// which steps run alone on one core and for how long. A debugging aid; it
// costs nothing when unset.
const traceEnv = "TRIBUTARY_TRACE"

// startTrace starts an execution trace into path and returns the function
// that stops it and closes the file.
func startTrace(path string) (func() error, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", traceEnv, err)
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", traceEnv, err)
	}
	return func() error {
		trace.Stop()
		return f.Close()
	}, nil
}

// cpuProfileEnv names a file that receives a CPU profile of the command
// (runtime/pprof; read it with `go tool pprof BINARY FILE`, several runs'
// files at once to sum them). A debugging aid like traceEnv; it costs
// nothing when unset.
const cpuProfileEnv = "TRIBUTARY_CPUPROFILE"

// startCPUProfile starts a CPU profile into path and returns the function
// that stops it and closes the file.
func startCPUProfile(path string) (func() error, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
