package readers

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestORCInputRoundTrip ingests golden ORC input files of package orcfmt
// (every ORC type Spark maps: integers of four widths, float, double,
// strings, binary, dates, timestamps with and without local time zone,
// decimals up to 38 digits, nested structs, lists and maps, with nulls at
// each level; zstd and zlib compression; RLE v1 over several stripes) with
// the CLI (cloudFiles.format orc), then has delta-rs and Spark read the
// tables back and compare every value with the input files as pyarrow.orc
// and Spark's own ORC reader read them.
func TestORCInputRoundTrip(t *testing.T) {
	root := repoRoot(t)
	bin := buildCLI(t, root)
	fixtures := filepath.Join(root, "core", "formats", "orcfmt", "testdata")
	rows := map[string]int{"types_zstd": 6, "types_spark": 6, "nested": 5, "stripes_v1": 3000}
	tables := map[string]string{}
	for name := range rows {
		dir := t.TempDir()
		src, tbl := filepath.Join(dir, "src"), filepath.Join(dir, "table")
		if err := os.Mkdir(src, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(fixtures, name+".orc"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, name+".orc"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, "run", "--quiet", "--source", src, "--table", tbl, "--checkpoint", filepath.Join(dir, "ckpt"),
			"--option", "cloudFiles.format=orc").CombinedOutput()
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
		n := 0
		for _, name := range names {
			args = append(args, tables[name]+"="+filepath.Join(fixtures, name+".orc"))
			n += rows[name]
		}
		out, err := exec.Command(filepath.Join(py, "python"), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", engine, err, tail(string(out), 6000))
		}
		if want := fmt.Sprintf("%s: %d rows equal", engine, n); !strings.Contains(string(out), want) {
			t.Fatalf("%s: %s, want %q", engine, tail(string(out), 2000), want)
		}
	}
	t.Run("deltalake", func(t *testing.T) { check(t, "pyenv.sh", "deltalake", "types_zstd", "nested", "stripes_v1") })
	// Spark's ORC reader refuses types_zstd's "timestamp with local time
	// zone" column; it reads the same values without it.
	t.Run("spark", func(t *testing.T) { check(t, "spark-env.sh", "spark", "types_spark", "nested", "stripes_v1") })
}
