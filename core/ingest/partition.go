package ingest

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/tributary-io/tributary/core/schema"
)

// errMissingPartition marks a file whose path lacks a partition column.
var errMissingPartition = errors.New("path lacks a partition value")

// hiveDefaultPartition is the directory value Hive writes for null.
const hiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__"

// partition is the Hive-style partition of one input file.
type partition struct {
	// dir is the table directory of its data files ("" or "k=v/k2=v2/").
	dir string
	// values are the partition values by column.
	values map[string]string
}

// partitionOf reads cloudFiles.partitionColumns from a source path's
// Hive-style key=value directories. Every column must be present with a
// value: Delta partition values are strings here, and a file without one is
// skipped with the reason rather than given an invented value.
func (e *Engine) partitionOf(path string) (partition, error) {
	cols := e.Config.PartitionColumns
	if len(cols) == 0 {
		return partition{values: map[string]string{}}, nil
	}
	found := map[string]string{}
	segs := strings.Split(path, "/")
	for _, seg := range segs[:len(segs)-1] {
		k, v, ok := strings.Cut(seg, "=")
		if !ok {
			continue
		}
		if uv, err := url.PathUnescape(v); err == nil {
			v = uv // Hive escapes special characters as %XX
		}
		for _, c := range cols {
			if strings.EqualFold(k, c) {
				found[c] = v
			}
		}
	}
	p := partition{values: make(map[string]string, len(cols))}
	var dir strings.Builder
	for _, c := range cols {
		v, ok := found[c]
		if !ok || v == "" || v == hiveDefaultPartition {
			return partition{}, fmt.Errorf("%w: %s has no %s=<value> directory", errMissingPartition, path, c)
		}
		p.values[c] = v
		dir.WriteString(escapePartitionPath(c) + "=" + escapePartitionPath(v) + "/")
	}
	p.dir = dir.String()
	return p, nil
}

// escapePartitionPath escapes a partition name or value for a directory
// name the way Hive and Spark do: %XX for control characters and
// "#%'*/:=?\{[]^ (spaces and other characters are kept).
func escapePartitionPath(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// dataSchema is the table schema without the partition columns: what the
// input files hold and the Parquet files store.
func (e *Engine) dataSchema(table *schema.StructType) *schema.StructType {
	if len(e.Config.PartitionColumns) == 0 {
		return table
	}
	out := &schema.StructType{}
	for _, f := range table.Fields {
		if !e.isPartitionColumn(f.Name) {
			out.Fields = append(out.Fields, f)
		}
	}
	return out
}

// withPartitions appends the partition columns (strings) to a data schema.
func (e *Engine) withPartitions(data *schema.StructType) *schema.StructType {
	if len(e.Config.PartitionColumns) == 0 {
		return data
	}
	out := e.dataSchema(data).Clone()
	for _, c := range e.Config.PartitionColumns {
		out.Fields = append(out.Fields, schema.Field{Name: c, Type: schema.String, Nullable: true})
	}
	return out
}

func (e *Engine) isPartitionColumn(name string) bool {
	for _, c := range e.Config.PartitionColumns {
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}
