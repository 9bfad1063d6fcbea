package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/trace"
	"strings"
	"testing"
)

// TestRunPrintsRegions traces a run with the CLI's root region and a
// region inside it, and reads the file back.
func TestRunPrintsRegions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.trace")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := trace.Start(f); err != nil {
		t.Fatalf("starting a trace (not under go test -trace): %v", err)
	}
	ctx := t.Context()
	trace.WithRegion(ctx, "cli.load", func() {
		trace.WithRegion(ctx, "inner", func() {})
	})
	trace.Stop()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run([]string{"-procs", "2", "-bucket", "1s", path}, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cli.load/inner", "total", "from      0.0 ms"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if err := run([]string{"-procs", "2", "-root", "absent", path}, &out); err == nil || !strings.Contains(err.Error(), "no root region") {
		t.Errorf("a trace without the root region: %v", err)
	}
	if err := run([]string{"-procs", "2"}, &out); err == nil {
		t.Error("no trace file accepted")
	}
}
