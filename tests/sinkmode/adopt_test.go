package sinkmode

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/state"
)

// TestAdoptDeltaRsMergedColumn: delta-rs appends with schema_mode="merge",
// adding a nullable column; the stream's next batches adopt it (their rows
// read NULL there) instead of failing with "a full refresh is needed" and
// leaving the file CLAIMED.
func TestAdoptDeltaRsMergedColumn(t *testing.T) {
	root := t.TempDir()
	s := stream{src: filepath.Join(root, "src"), table: filepath.Join(root, "table"), checkpoint: filepath.Join(root, "checkpoint")}
	if err := os.MkdirAll(s.src, 0o755); err != nil {
		t.Fatal(err)
	}
	s.write(t, "1.json", `{"a":"1"}`+"\n")
	if err := s.run(t, nil, false); err != nil {
		t.Fatal(err)
	}
	repo := repoRoot(t)
	cmd := exec.Command("bash", filepath.Join(repo, "scripts", "pyenv.sh"))
	bin, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/pyenv.sh: %v", err)
	}
	python := filepath.Join(strings.TrimSpace(string(bin)), "python")
	script := `import sys, pyarrow as pa
from deltalake import write_deltalake
write_deltalake(sys.argv[1], pa.table({"a": ["other"], "extra": ["x"]}), mode="append", schema_mode="merge")`
	var out bytes.Buffer
	py := exec.Command(python, "-c", script, s.table)
	py.Stdout, py.Stderr = &out, &out
	if err := py.Run(); err != nil {
		t.Fatalf("delta-rs append: %v\n%s", err, out.String())
	}
	s.write(t, "2.json", `{"a":"2"}`+"\n")
	if err := s.run(t, nil, false); err != nil {
		t.Fatalf("run after delta-rs added a column: %v", err)
	}
	s.write(t, "3.json", `{"a":"3"}`+"\n")
	if err := s.run(t, nil, false); err != nil {
		t.Fatalf("second run after delta-rs added a column: %v", err)
	}
	for f, st := range s.states(t) {
		if st != state.Committed {
			t.Errorf("%s: %v, want COMMITTED", f, st)
		}
	}
	got := readWith(t, repo, "pyenv.sh", "deltalake", s.table, "a")
	var rows []string
	for _, r := range got.Rows {
		rows = append(rows, fmt.Sprintf("%v/%v", r["a"], r["extra"]))
	}
	slices.Sort(rows)
	if want := []string{"1/<nil>", "2/<nil>", "3/<nil>", "other/x"}; !slices.Equal(rows, want) {
		t.Errorf("delta-rs reads %v, want %v", rows, want)
	}
}
