package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TRIBUTARY_TRACE writes an execution trace of the command, holding the
// engine's step regions, and TRIBUTARY_CPUPROFILE a CPU profile (gzipped
// pprof); a file that cannot be created fails the command before it runs.
func TestDebugOutputEnv(t *testing.T) {
	isTrace := func(t *testing.T, data []byte) {
		if !bytes.HasPrefix(data, []byte("go 1.")) {
			t.Fatalf("not a Go execution trace: %q", data[:min(len(data), 16)])
		}
		for _, region := range []string{"cli.discover", "ingest.plan", "ingest.write", "ingest.commit", "ingest.finish"} {
			if !bytes.Contains(data, []byte(region)) {
				t.Errorf("the trace has no region %s", region)
			}
		}
	}
	isProfile := func(t *testing.T, data []byte) {
		// A profile is written gzipped, and only once it is stopped.
		if !bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			t.Fatalf("not a gzipped pprof profile: %x", data[:min(len(data), 16)])
		}
	}
	for _, tc := range []struct {
		name     string
		env      string
		path     func(dir string) string
		wantCode int
		check    func(*testing.T, []byte)
	}{
		{"trace written", traceEnv, func(dir string) string { return filepath.Join(dir, "run.trace") }, 0, isTrace},
		{"trace uncreatable", traceEnv, func(dir string) string { return filepath.Join(dir, "missing", "run.trace") }, 1, nil},
		{"profile written", cpuProfileEnv, func(dir string) string { return filepath.Join(dir, "cpu.pprof") }, 0, isProfile},
		{"profile uncreatable", cpuProfileEnv, func(dir string) string { return filepath.Join(dir, "missing", "cpu.pprof") }, 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCLI(t)
			c.file("a.json", `{"id": 1}`+"\n")
			path := tc.path(t.TempDir())
			t.Setenv(tc.env, path)
			_, errs, code := c.run()
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s", code, tc.wantCode, errs)
			}
			if tc.wantCode != 0 {
				if !strings.Contains(errs, tc.env) {
					t.Fatalf("the error does not name %s: %s", tc.env, errs)
				}
				if _, err := os.Stat(c.table); err == nil {
					t.Fatal("the run went ahead without its " + tc.env)
				}
				return
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, data)
		})
	}
}
