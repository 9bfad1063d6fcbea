package readers

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestParquetInputRoundTrip ingests the golden Parquet input files of
// package parquetfmt (every Delta type Parquet carries: nested lists, maps
// and structs, decimals of three physical widths, timestamps with and
// without time zone, INT96, dates, binary; Spark's legacy 2-level lists)
// with the CLI (cloudFiles.format parquet), then has delta-rs and Spark read
// the tables back and compare every value with the input files as pyarrow
// and Spark read them.
func TestParquetInputRoundTrip(t *testing.T) {
	rt := newInputRoundTrip(t, filepath.Join("core", "formats", "parquetfmt", "testdata"), "parquet",
		map[string]int{"types": 4, "legacy": 4})
	t.Run("deltalake", func(t *testing.T) { rt.check(t, "pyenv.sh", "deltalake", "types", "legacy") })
	t.Run("spark", func(t *testing.T) { rt.check(t, "spark-env.sh", "spark", "types", "legacy") })
}

// inputRoundTrip is a set of golden input files of one format, each
// ingested by the CLI into a table of its own, for parquet_input.py to
// compare with what the engines read from the files themselves.
type inputRoundTrip struct {
	root, fixtures, format string
	// rows is each fixture's row count, by name (the file is name.format).
	rows map[string]int
	// tables is each fixture's table directory, by name.
	tables map[string]string
}

// newInputRoundTrip ingests every fixture of rows (fixtures is relative to
// the repository root) with `tributary run` and cloudFiles.format=format.
func newInputRoundTrip(t *testing.T, fixtures, format string, rows map[string]int) *inputRoundTrip {
	root := repoRoot(t)
	bin := buildCLI(t, root)
	rt := &inputRoundTrip{root: root, fixtures: filepath.Join(root, fixtures), format: format, rows: rows, tables: map[string]string{}}
	for name := range rows {
		dir := t.TempDir()
		src, tbl := filepath.Join(dir, "src"), filepath.Join(dir, "table")
		if err := os.Mkdir(src, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(rt.input(name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, filepath.Base(rt.input(name))), data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, "run", "--quiet", "--source", src, "--table", tbl, "--checkpoint", filepath.Join(dir, "ckpt"),
			"--option", "cloudFiles.format="+format).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: tributary run: %v\n%s", name, err, out)
		}
		rt.tables[name] = tbl
	}
	return rt
}

// input is the fixture file of name.
func (rt *inputRoundTrip) input(name string) string {
	return filepath.Join(rt.fixtures, name+"."+rt.format)
}

// check has engine (in the Python environment script sets up) compare the
// tables of names with their input files: every row equal.
func (rt *inputRoundTrip) check(t *testing.T, script, engine string, names ...string) {
	py, err := envBin(rt.root, script)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{filepath.Join(rt.root, "tests", "readers", "parquet_input.py"), engine, filepath.Join(rt.root, ".cache", "ivy")}
	n := 0
	for _, name := range names {
		args = append(args, rt.tables[name]+"="+rt.input(name))
		n += rt.rows[name]
	}
	out, err := exec.Command(filepath.Join(py, "python"), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", engine, err, tail(string(out), 6000))
	}
	if want := fmt.Sprintf("%s: %d rows equal", engine, n); !strings.Contains(string(out), want) {
		t.Fatalf("%s: %s, want %q", engine, tail(string(out), 2000), want)
	}
}
