package readers

import (
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// TestEnginesReadMaintainedTables writes the checkpointed and the
// partitioned scenario with the CLI, copies each table and runs `tributary
// optimize`, `vacuum` (retention 0, so the compacted files are deleted) and
// `cleanup-log` (retention 0, so the commits before the checkpoint at
// version 10 are deleted) on the copy. Every engine must then read the
// maintained copy exactly as it reads the original — the same schema, rows
// and probe results — from fewer data files, with OPTIMIZE as the newest
// commit of its history.
func TestEnginesReadMaintainedTables(t *testing.T) {
	root := repoRoot(t)
	bin := buildCLI(t, root)
	spec := readSpec{Ivy: filepath.Join(root, ".cache", "ivy")}
	var names []string
	for _, sc := range scenarios() {
		if sc.name != "checkpointed" && sc.name != "partitioned" {
			continue
		}
		tb := writeTable(t, bin, sc)
		maintained := filepath.Join(t.TempDir(), "maintained")
		copyTree(t, tb.path, maintained)
		cli := func(args ...string) string {
			out, err := exec.Command(bin, args...).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: tributary %s: %v\n%s", sc.name, strings.Join(args, " "), err, out)
			}
			return string(out)
		}
		out := cli("optimize", maintained)
		if !strings.Contains(out, "compacted") {
			t.Fatalf("%s: optimize compacted nothing: %s", sc.name, out)
		}
		if out = cli("vacuum", maintained, "--retain", "0h", "--unsafe-retention"); strings.Contains(out, "deleted 0 files") {
			t.Fatalf("%s: vacuum deleted nothing: %s", sc.name, out)
		}
		out = cli("cleanup-log", maintained, "--retain", "0h")
		if sc.checkpoint != "" && !strings.Contains(out, "before checkpoint 10") {
			t.Fatalf("%s: cleanup-log: %s", sc.name, out)
		}
		var probes []probeSpec
		for _, k := range sortedRowKeys(tb.rows) {
			for _, c := range sc.probes {
				if v, ok := probeValue(sc, tb.rows[k], c); ok {
					probes = append(probes, probeSpec{Column: c, Value: v})
				}
			}
		}
		probes = append(probes, sc.extraProbes...)
		spec.Tables = append(spec.Tables,
			tableSpec{Path: tb.path, Key: "id", Probes: probes},
			tableSpec{Path: maintained, Key: "id", Probes: probes})
		names = append(names, sc.name)
	}
	for _, e := range engines() {
		var mu sync.Mutex
		t.Run(e.name, func(t *testing.T) {
			t.Parallel()
			mu.Lock()
			pyBin, err := envBin(root, e.script)
			mu.Unlock()
			if err != nil {
				t.Fatalf("preparing the %s Python environment: %v", e.name, err)
			}
			out := readWith(t, root, filepath.Join(pyBin, "python"), e.name, spec)
			for i, name := range names {
				orig, maint := out.Tables[2*i], out.Tables[2*i+1]
				where := e.name + ", " + name + " after optimize+vacuum+cleanup-log"
				if show(normalize(schemaOf(orig.Schema))) != show(normalize(schemaOf(maint.Schema))) {
					t.Errorf("%s: schema %v, original %v", where, maint.Schema, orig.Schema)
				}
				if a, b := rowsText(orig.Rows), rowsText(maint.Rows); a != b {
					t.Errorf("%s: rows differ from the original's:\n maintained %s\n original   %s", where, b, a)
				}
				if len(orig.Rows) == 0 {
					t.Errorf("%s: the original read no rows", where)
				}
				if len(orig.Probes) != len(maint.Probes) {
					t.Fatalf("%s: %d probes, original %d", where, len(maint.Probes), len(orig.Probes))
				}
				for j := range orig.Probes {
					a, b := keysText(orig.Probes[j].Keys), keysText(maint.Probes[j].Keys)
					if a != b {
						t.Errorf("%s: WHERE %s = %v: ids [%s], original [%s]", where, orig.Probes[j].Column, orig.Probes[j].Value, b, a)
					}
				}
				if orig.NumFiles != nil && maint.NumFiles != nil && *maint.NumFiles >= *orig.NumFiles {
					t.Errorf("%s: %d data files, original %d: nothing compacted", where, *maint.NumFiles, *orig.NumFiles)
				}
				if e.history {
					if orig.Version == nil || maint.Version == nil || *maint.Version != *orig.Version+1 {
						t.Errorf("%s: version %v, want the original's + 1 (%v)", where, maint.Version, orig.Version)
					}
					newest := historyOut{}
					for _, h := range maint.History {
						if h.Version > newest.Version {
							newest = h
						}
					}
					if newest.Operation != "OPTIMIZE" {
						t.Errorf("%s: newest commit %d is %q, want OPTIMIZE", where, newest.Version, newest.Operation)
					}
				}
			}
		})
	}
}

func schemaOf(cols []struct {
	Name string `json:"name"`
	Type string `json:"type"`
}) []any {
	out := make([]any, len(cols))
	for i, c := range cols {
		out[i] = c.Name + " " + c.Type
	}
	return out
}

// rowsText renders rows canonically, sorted.
func rowsText(rows []map[string]any) string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = show(normalize(map[string]any(r)))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func keysText(keys []any) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = keyText(normalize(k))
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}
