package readers

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/scan"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/infra/localfs"
)

// sparkCheckedTables are shared tables that ship no expected rows (the
// Spark golden tables with expected/ are compared in core/delta): Databricks
// deletion vectors, column mapping on a (2,5) table, NULL partitions, every
// primitive type. Spark is the oracle. (kernel/type-widening is checked
// against its stats in core/delta: delta-spark 4.1 refuses its
// byte-to-decimal change.)
var sparkCheckedTables = []string{
	"kernel/table-with-dv-small",
	"kernel/with-short-dv",
	"kernel/basic_partitioned",
	"kernel/mixed-nulls",
	"kernel/stats-writing-all-types/delta",
	"delta-rs/table_with_column_mapping",
	"delta-rs/partition-type-primitives",
	"delta-rs/table_with_edge_timestamps",
	"delta-rs/simple_table",
}

// TestSparkReadsWhatTributaryReads reads shared Delta tables with Tributary's
// reader (core/delta/scan: deletion vectors, column mapping, type
// widening, typed partition values) and with Apache Spark (delta-spark),
// and compares the rows. It also reads, with Spark, a table whose NULL
// partition value went through a checkpoint Tributary wrote: Spark must
// still see NULL (it read an empty string while checkpoints stored "").
func TestSparkReadsWhatTributaryReads(t *testing.T) {
	root := repoRoot(t)
	shared := filepath.Join(root, "..", "shared", "testdata", "delta")
	work := t.TempDir()
	type entry struct {
		name string
		dir  string
	}
	var tables []entry
	for _, rel := range sparkCheckedTables {
		dst := filepath.Join(work, strings.ReplaceAll(rel, "/", "__"))
		copyTree(t, filepath.Join(shared, filepath.FromSlash(rel)), dst)
		tables = append(tables, entry{rel, dst})
	}
	// NULL partition value, then a checkpoint written by Tributary.
	nullDir := filepath.Join(work, "null-partition-checkpointed")
	copyTree(t, filepath.Join(shared, "kernel", "basic_partitioned"), nullDir)
	ctx := context.Background()
	nullTable := openTable(t, nullDir)
	snap, err := nullTable.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := nullTable.Checkpoint(ctx, snap); err != nil {
		t.Fatal(err)
	}
	if back, err := openTable(t, nullDir).Snapshot(ctx); err != nil || back.CheckpointVersion() != snap.Version {
		t.Fatalf("checkpoint not used: %v", err)
	}
	tables = append(tables, entry{"basic_partitioned + Tributary checkpoint", nullDir})

	spec := readSpec{Ivy: filepath.Join(root, ".cache", "ivy")}
	for _, tb := range tables {
		spec.Tables = append(spec.Tables, tableSpec{Path: tb.dir, Probes: []probeSpec{}})
	}
	bin, err := envBin(root, "spark-env.sh")
	if err != nil {
		t.Fatalf("preparing the Spark Python environment: %v", err)
	}
	t.Setenv("TZ", "UTC") // PySpark renders timestamps in the process's zone
	out := readWith(t, root, filepath.Join(bin, "python"), "spark", spec)
	t.Logf("engine: %s", out.Engine)
	totalRows := 0
	for i, tb := range tables {
		t.Run(tb.name, func(t *testing.T) {
			var ours []string
			snap, err := openTable(t, tb.dir).Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			err = scan.Rows(ctx, snap, func(fr scan.FileRows) error {
				for _, r := range fr.Rows {
					ours = append(ours, canonRow(r, snap.Schema()))
				}
				return nil
			})
			if err != nil {
				t.Fatalf("Tributary: %v", err)
			}
			var spark []string
			for _, r := range out.Tables[i].Rows {
				spark = append(spark, canonRow(r, snap.Schema()))
			}
			sort.Strings(ours)
			sort.Strings(spark)
			if !slices.Equal(ours, spark) {
				t.Errorf("Tributary read %d rows, Spark %d:\nTributary: %s\nSpark:     %s", len(ours), len(spark),
					strings.Join(ours, "\n           "), strings.Join(spark, "\n           "))
			}
			totalRows += len(ours)
		})
	}
	// The NULL partition: Spark sees NULL, not ''.
	last := out.Tables[len(tables)-1]
	nulls := 0
	for _, r := range last.Rows {
		switch v := r["letter"].(type) {
		case nil:
			nulls++
		case string:
			if v == "" {
				t.Errorf("Spark read '' for the NULL partition value after Tributary's checkpoint")
			}
		}
	}
	if nulls != 1 {
		t.Errorf("Spark read %d NULL letters after Tributary's checkpoint, want 1", nulls)
	}
	t.Logf("%d tables, %d rows compared between Tributary and Spark", len(tables), totalRows)
}

func openTable(t *testing.T, dir string) *delta.Table {
	t.Helper()
	st, err := localfs.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return delta.NewTable(st, delta.WithLocation("file://"+filepath.ToSlash(dir)))
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// canonRow renders a row — Tributary's ([]any in schema order) or Spark's
// (a JSON object by column name) — canonically for the logical schema.
func canonRow(row any, st *schema.StructType) string {
	return canon(row, st)
}

// canon renders a value of type t the same way whether it is Tributary's
// Go representation (package schema's row model) or Spark's JSON (numbers
// as json.Number, decimals, dates and timestamps as strings, binary as
// {"binary": base64}, structs and maps as objects).
func canon(v any, t schema.Type) string {
	if v == nil {
		return "null"
	}
	switch tt := t.(type) {
	case *schema.StructType:
		parts := make([]string, len(tt.Fields))
		for i, f := range tt.Fields {
			var x any
			switch r := v.(type) {
			case []any:
				x = r[i]
			case map[string]any:
				x = r[f.Name]
			default:
				return fmt.Sprintf("bad struct %T", v)
			}
			parts[i] = f.Name + ":" + canon(x, f.Type)
		}
		return "{" + strings.Join(parts, ",") + "}"
	case *schema.ArrayType:
		a, ok := v.([]any)
		if !ok {
			return fmt.Sprintf("bad array %T", v)
		}
		parts := make([]string, len(a))
		for i, e := range a {
			parts[i] = canon(e, tt.Element)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case *schema.MapType:
		var parts []string
		switch m := v.(type) {
		case []schema.MapEntry:
			for _, e := range m {
				parts = append(parts, mapKey(e.Key)+"=>"+canon(e.Value, tt.Value))
			}
		case map[string]any:
			for k, e := range m {
				parts = append(parts, k+"=>"+canon(e, tt.Value))
			}
		default:
			return fmt.Sprintf("bad map %T", v)
		}
		sort.Strings(parts)
		return "map(" + strings.Join(parts, ",") + ")"
	case schema.DecimalType:
		var r *big.Rat
		switch x := v.(type) {
		case schema.Decimal:
			r = new(big.Rat).SetFrac(x.Unscaled, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale)), nil))
		case string:
			r, _ = new(big.Rat).SetString(x)
		case json.Number:
			r, _ = new(big.Rat).SetString(x.String())
		}
		if r == nil {
			return fmt.Sprintf("bad decimal %v", v)
		}
		return r.RatString()
	}
	switch t {
	case schema.Long, schema.Integer, schema.Short, schema.Byte:
		switch x := v.(type) {
		case int8, int16, int32, int64:
			return fmt.Sprint(x)
		case json.Number:
			return x.String()
		}
	case schema.Double, schema.Float:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case float32:
			f = float64(x)
		case json.Number:
			var err error
			if f, err = strconv.ParseFloat(x.String(), 64); err != nil {
				return "bad float " + x.String()
			}
		case map[string]any: // {"float": "nan"}
			return fmt.Sprint(x["float"])
		}
		switch {
		case math.IsNaN(f):
			return "nan"
		case math.IsInf(f, 1):
			return "inf"
		case math.IsInf(f, -1):
			return "-inf"
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case schema.Boolean:
		return fmt.Sprint(v)
	case schema.String:
		if s, ok := v.(string); ok {
			return strconv.Quote(s)
		}
	case schema.Binary:
		switch x := v.(type) {
		case []byte:
			return base64.StdEncoding.EncodeToString(x)
		case map[string]any:
			return fmt.Sprint(x["binary"])
		}
	case schema.DateType:
		switch x := v.(type) {
		case schema.Date:
			return time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02")
		case string:
			return x
		}
	case schema.Timestamp, schema.TimestampNTZ:
		switch x := v.(type) {
		case time.Time:
			return x.UTC().Format(time.RFC3339Nano)
		case string:
			for _, layout := range []string{"2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999"} {
				if ts, err := time.Parse(layout, x); err == nil {
					return ts.UTC().Format(time.RFC3339Nano)
				}
			}
			return "bad timestamp " + x
		}
	}
	return fmt.Sprintf("%s?%T(%v)", t, v, v)
}

// mapKey renders a map key as Python's json.dump writes a dict key.
func mapKey(k any) string {
	switch x := k.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(k)
}
