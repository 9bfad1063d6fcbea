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
	root := repoRoot(t)
	bin := buildCLI(t, root)
	fixtures := filepath.Join(root, "core", "formats", "parquetfmt", "testdata")
	tables := map[string]string{}
	for _, name := range []string{"types", "legacy"} {
		dir := t.TempDir()
		src, tbl := filepath.Join(dir, "src"), filepath.Join(dir, "table")
		if err := os.Mkdir(src, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(fixtures, name+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, name+".parquet"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, "run", "--quiet", "--source", src, "--table", tbl, "--checkpoint", filepath.Join(dir, "ckpt"),
			"--option", "cloudFiles.format=parquet").CombinedOutput()
		if err != nil {
			t.Fatalf("%s: tributary run: %v\n%s", name, err, out)
		}
		tables[name] = tbl
	}
	check := func(t *testing.T, script, engine string, names ...string) {
		py, err := envBin(root, script)
		if err != nil {
			t.Fatal(err)
		}
		args := []string{filepath.Join(root, "tests", "readers", "parquet_input.py"), engine, filepath.Join(root, ".cache", "ivy")}
		for _, name := range names {
			args = append(args, tables[name]+"="+filepath.Join(fixtures, name+".parquet"))
		}
		out, err := exec.Command(filepath.Join(py, "python"), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", engine, err, tail(string(out), 6000))
		}
		if want := fmt.Sprintf("%s: %d rows equal", engine, 4*len(names)); !strings.Contains(string(out), want) {
			t.Fatalf("%s: %s, want %q", engine, tail(string(out), 2000), want)
		}
	}
	t.Run("deltalake", func(t *testing.T) { check(t, "pyenv.sh", "deltalake", "types", "legacy") })
	t.Run("spark", func(t *testing.T) { check(t, "spark-env.sh", "spark", "types", "legacy") })
}
