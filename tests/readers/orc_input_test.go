package readers

import (
	"path/filepath"
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
	rt := newInputRoundTrip(t, filepath.Join("core", "formats", "orcfmt", "testdata"), "orc",
		map[string]int{"types_zstd": 6, "types_spark": 6, "nested": 5, "stripes_v1": 3000})
	t.Run("deltalake", func(t *testing.T) { rt.check(t, "pyenv.sh", "deltalake", "types_zstd", "nested", "stripes_v1") })
	// Spark's ORC reader refuses types_zstd's "timestamp with local time
	// zone" column; it reads the same values without it.
	t.Run("spark", func(t *testing.T) { rt.check(t, "spark-env.sh", "spark", "types_spark", "nested", "stripes_v1") })
}
