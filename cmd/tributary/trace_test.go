package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TRIBUTARY_TRACE writes an execution trace of the command, holding the
// engine's step regions; a file that cannot be created fails the command
// before it runs.
func TestTraceEnv(t *testing.T) {
	for _, tc := range []struct {
		name     string
		path     func(dir string) string
		wantCode int
	}{
		{"written", func(dir string) string { return filepath.Join(dir, "run.trace") }, 0},
		{"uncreatable", func(dir string) string { return filepath.Join(dir, "missing", "run.trace") }, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCLI(t)
			c.file("a.json", `{"id": 1}`+"\n")
			path := tc.path(t.TempDir())
			t.Setenv(traceEnv, path)
			_, errs, code := c.run()
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s", code, tc.wantCode, errs)
			}
			if tc.wantCode != 0 {
				if !strings.Contains(errs, traceEnv) {
					t.Fatalf("the error does not name %s: %s", traceEnv, errs)
				}
				if _, err := os.Stat(c.table); err == nil {
					t.Fatal("the run went ahead without its trace")
				}
				return
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, []byte("go 1.")) {
				t.Fatalf("not a Go execution trace: %q", data[:min(len(data), 16)])
			}
			for _, region := range []string{"cli.discover", "ingest.plan", "ingest.write", "ingest.commit", "ingest.finish"} {
				if !bytes.Contains(data, []byte(region)) {
					t.Errorf("the trace has no region %s", region)
				}
			}
		})
	}
}
