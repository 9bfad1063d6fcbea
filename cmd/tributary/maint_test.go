package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMaintenanceCommands ingests one file per batch, then compacts,
// vacuums and cleans the log with the CLI: the rows stay, the files and
// log shrink, and the stream keeps appending afterwards.
func TestMaintenanceCommands(t *testing.T) {
	c := newCLI(t)
	for i := range 12 {
		c.file(fmt.Sprintf("f%02d.json", i), fmt.Sprintf(`{"id":%d,"v":"x%d"}`+"\n", i, i))
	}
	if _, errs, code := c.run("cloudFiles.maxFilesPerTrigger=1"); code != 0 {
		t.Fatal(errs)
	}
	if d := c.describe(); d.NumFiles != 12 || d.NumRecords != 12 {
		t.Fatalf("before: %+v", d)
	}
	// Dry run changes nothing.
	out, errs, code := c.exec("optimize", c.table, "--dry-run")
	if code != 0 || !strings.Contains(out, "would compact 12 files") {
		t.Fatalf("optimize --dry-run: %d %q %q", code, out, errs)
	}
	if d := c.describe(); d.NumFiles != 12 || d.Version != 11 {
		t.Fatalf("dry run changed the table: %+v", d)
	}
	out, errs, code = c.exec("optimize", c.table, "--json")
	if code != 0 {
		t.Fatalf("optimize: %q", errs)
	}
	var opt struct{ Version, FilesRemoved, FilesAdded int }
	if err := json.Unmarshal([]byte(out), &opt); err != nil || opt.Version != 12 || opt.FilesRemoved != 12 || opt.FilesAdded != 1 {
		t.Fatalf("optimize: %q %v", out, err)
	}
	if d := c.describe(); d.NumFiles != 1 || d.NumRecords != 12 {
		t.Fatalf("after optimize: %+v", d)
	}
	hist, _, _ := c.exec("history", c.table, "--json", "--limit", "1")
	if !strings.Contains(hist, `"operation": "OPTIMIZE"`) && !strings.Contains(hist, `"operation":"OPTIMIZE"`) {
		t.Fatalf("history: %s", hist)
	}
	// Vacuum keeps the removed files within the retention…
	out, errs, code = c.exec("vacuum", c.table)
	if code != 0 || !strings.Contains(out, "deleted 0 files") {
		t.Fatalf("vacuum: %d %q %q", code, out, errs)
	}
	// …refuses a shorter one unless told…
	if _, errs, code = c.exec("vacuum", c.table, "--retain", "0h"); code != 1 || !strings.Contains(errs, "delta.deletedFileRetentionDuration") {
		t.Fatalf("vacuum --retain 0h: %d %q", code, errs)
	}
	out, _, _ = c.exec("vacuum", c.table, "--retain", "0 hours", "--unsafe-retention", "--dry-run")
	if !strings.Contains(out, "would delete 12 files") {
		t.Fatalf("vacuum --dry-run: %q", out)
	}
	out, errs, code = c.exec("vacuum", c.table, "--retain", "0h", "--unsafe-retention")
	if code != 0 || !strings.Contains(out, "deleted 12 files") {
		t.Fatalf("vacuum: %d %q %q", code, out, errs)
	}
	parquet, _ := filepath.Glob(filepath.Join(c.table, "*.parquet"))
	if len(parquet) != 1 {
		t.Fatalf("data files after vacuum: %v", parquet)
	}
	// Log cleanup: versions before the checkpoint at 10 go.
	out, errs, code = c.exec("cleanup-log", c.table, "--retain", "0h")
	if code != 0 || !strings.Contains(out, "before checkpoint 10") {
		t.Fatalf("cleanup-log: %d %q %q", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(c.table, "_delta_log", "00000000000000000009.json")); !os.IsNotExist(err) {
		t.Fatalf("commit 9 still there: %v", err)
	}
	if d := c.describe(); d.NumFiles != 1 || d.NumRecords != 12 || d.Version != 12 {
		t.Fatalf("after cleanup: %+v", d)
	}
	// The stream goes on.
	c.file("late.json", `{"id":99,"v":"late"}`+"\n")
	if _, errs, code := c.run(); code != 0 {
		t.Fatal(errs)
	}
	if d := c.describe(); d.NumRecords != 13 || d.NumFiles != 2 {
		t.Fatalf("after a new batch: %+v", d)
	}
	// Bad usage.
	for _, args := range [][]string{{"optimize"}, {"vacuum", c.table, "--retain", "soon"}, {"optimize", c.table, "--target-size", "-1"}, {"optimize", c.table, "--partition", "x"}} {
		if _, _, code := c.exec(args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}

// A Delta-source stream downstream of a table keeps working across
// `tributary optimize` and `vacuum`: the compaction (dataChange=false) is
// not delivered again, later appends are.
func TestDownstreamAcrossOptimize(t *testing.T) {
	c := newCLI(t)
	for i := range 3 {
		c.file(fmt.Sprintf("a%d.json", i), fmt.Sprintf(`{"id":%d}`+"\n", i))
	}
	if _, errs, code := c.run("cloudFiles.maxFilesPerTrigger=1"); code != 0 {
		t.Fatalf("bronze: %s", errs)
	}
	dir := filepath.Dir(c.src)
	silver := filepath.Join(dir, "silver")
	args := []string{"run", "--format", "delta", "--source", c.table, "--table", silver, "--checkpoint", filepath.Join(silver, "_checkpoints")}
	if out, errs, code := c.exec(args...); code != 0 || !strings.Contains(out, "ingested 3 rows") {
		t.Fatalf("silver: %d\n%s\n%s", code, out, errs)
	}
	if out, errs, code := c.exec("optimize", c.table); code != 0 || !strings.Contains(out, "compacted 3 files") {
		t.Fatalf("optimize: %d %s %s", code, out, errs)
	}
	if _, errs, code := c.exec("vacuum", c.table, "--retain", "0h", "--unsafe-retention"); code != 0 {
		t.Fatalf("vacuum: %s", errs)
	}
	c.file("b.json", `{"id":10}`+"\n")
	if _, errs, code := c.run(); code != 0 {
		t.Fatalf("bronze: %s", errs)
	}
	if out, errs, code := c.exec(args...); code != 0 || !strings.Contains(out, "ingested 1 rows") {
		t.Fatalf("silver after optimize: %d\n%s\n%s", code, out, errs)
	}
	if d := (&cli{t: t, table: silver}).describe(); d.NumRecords != 4 {
		t.Fatalf("silver holds %d rows, want 4 (compaction delivered again?)", d.NumRecords)
	}
}
