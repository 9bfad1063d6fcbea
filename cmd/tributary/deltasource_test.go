package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `tributary run --format delta` streams a table into another, from flags
// and from a configuration file ("format": "delta"); a second run after an
// append delivers only the new rows; `state` explains that such a
// checkpoint has no file state.
func TestRunDeltaSource(t *testing.T) {
	c := newCLI(t)
	c.file("a.json", `{"id":1}`+"\n"+`{"id":2}`+"\n")
	if _, errs, code := c.run(); code != 0 {
		t.Fatalf("bronze: %s", errs)
	}
	dir := filepath.Dir(c.src)
	silver, cp := filepath.Join(dir, "silver"), filepath.Join(dir, "silver", "_checkpoints")
	args := []string{"run", "--format", "delta", "--source", c.table, "--table", silver, "--checkpoint", cp, "--option", "maxFilesPerTrigger=1"}
	out, errs, code := c.exec(args...)
	if code != 0 || !strings.Contains(out, "ingested 2 rows from 1 files in 1 batches") || strings.Contains(errs, "discovered") {
		t.Fatalf("silver: %d\n%s\n%s", code, out, errs)
	}
	c.file("b.json", `{"id":3}`+"\n")
	if _, errs, code := c.run(); code != 0 {
		t.Fatalf("bronze: %s", errs)
	}
	if out, errs, code := c.exec(args...); code != 0 || !strings.Contains(out, "ingested 1 rows") {
		t.Fatalf("second silver run: %d\n%s\n%s", code, out, errs)
	}
	if _, errs, code := c.exec("state", cp); code != 1 || !strings.Contains(errs, "Delta-source stream") {
		t.Fatalf("state of a Delta-source checkpoint: %d %s", code, errs)
	}
	if d := (&cli{t: t, table: silver}).describe(); d.NumRecords != 3 {
		t.Fatalf("silver holds %d rows, want 3", d.NumRecords)
	}
	// The same from a configuration file, into another table.
	gold := filepath.Join(dir, "gold")
	cfg := map[string]any{"streams": []any{map[string]any{
		"id": "gold", "format": "delta", "source": silver, "table": gold, "checkpointLocation": filepath.Join(gold, "_checkpoints"),
		"options": map[string]string{"startingVersion": "1"},
	}}}
	data, _ := json.Marshal(cfg)
	p := filepath.Join(dir, "gold.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errs, code := c.exec("run", "--config", p); code != 0 || !strings.Contains(out, "ingested 1 rows") {
		t.Fatalf("gold from silver version 1: %d\n%s\n%s", code, out, errs)
	}
}
