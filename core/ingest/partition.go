package ingest

import (
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/hivepart"
	"net/url"
	"strings"

	"github.com/tributary-io/tributary/core/options"

	"github.com/tributary-io/tributary/core/schema"
)

// errMissingPartition marks a file whose path lacks a partition column.
var errMissingPartition = errors.New("path lacks a partition value")

// partition is the Hive-style partition of one input file.
type partition struct {
	// dir is the table directory of its data files ("" or "k=v/k2=v2/").
	dir string
	// values are the partition values by column, in Delta's partition
	// value form; nil is null.
	values map[string]*string
}

// partitionOf reads cloudFiles.partitionColumns from a source path's
// Hive-style key=value directories (values URL-unescaped, as Hive escapes
// them). An empty value and __HIVE_DEFAULT_PARTITION__ are null, as in
// Spark. A typed column's value must parse as its type (Spark's
// spark.sql.sources.validatePartitionColumns); a file whose path lacks a
// column's directory, or has a value that does not parse, is skipped with
// the reason rather than given an invented value.
func (e *Engine) partitionOf(path string) (partition, error) {
	cols := e.Config.PartitionColumns
	if len(cols) == 0 {
		return partition{values: map[string]*string{}}, nil
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
	p := partition{values: make(map[string]*string, len(cols))}
	var dir strings.Builder
	for _, c := range cols {
		v, ok := found[c]
		if !ok {
			return partition{}, fmt.Errorf("%w: %s has no %s=<value> directory", errMissingPartition, path, c)
		}
		if v == "" || v == hivepart.DefaultPartition {
			p.values[c] = nil
			dir.WriteString(hivepart.Escape(c) + "=" + hivepart.DefaultPartition + "/")
			continue
		}
		if t, typed := e.Config.PartitionTypes[c]; typed {
			norm, err := hivepart.Value(t, v)
			if err != nil {
				return partition{}, fmt.Errorf("%w: %s: partition column %s: %w", errMissingPartition, path, c, err)
			}
			v = norm
		}
		p.values[c] = &v
		dir.WriteString(hivepart.Escape(c) + "=" + hivepart.Escape(v) + "/")
	}
	p.dir = dir.String()
	return p, nil
}

// partitionTypes are the partition columns' types given by
// cloudFiles.schemaHints or the user schema (a column named by neither is
// STRING). Types a partition value cannot carry (binary, nested) are
// refused naming the option.
func partitionTypes(s *options.Stream, cols []string) (map[string]schema.Type, error) {
	if len(cols) == 0 {
		return nil, nil
	}
	out := map[string]schema.Type{}
	for _, src := range []struct{ option, ddl string }{{"cloudFiles.schemaHints", s.CloudFiles.SchemaHints}, {"schema", s.UserSchema}} {
		if src.ddl == "" {
			continue
		}
		hints, err := schema.ParseDDL(src.ddl)
		if err != nil {
			return nil, fmt.Errorf("stream %q: option %s: %w", s.ID, src.option, err)
		}
		for _, h := range hints {
			for _, c := range cols {
				if len(h.Path) != 1 || !strings.EqualFold(h.Path[0], c) {
					continue
				}
				if _, err := hivepart.Value(h.Type, ""); errors.Is(err, hivepart.ErrBadValue) || schema.EqualType(h.Type, schema.String) {
					out[c] = h.Type
					continue
				}
				return nil, fmt.Errorf("stream %q: option %s types partition column %s as %s: a partition column is STRING, a number, BOOLEAN, DATE, TIMESTAMP, TIMESTAMP_NTZ or DECIMAL", s.ID, src.option, c, schema.DDLType(h.Type))
			}
		}
	}
	return out, nil
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

// withPartitions appends the partition columns (STRING unless typed by
// Config.PartitionTypes) to a data schema.
func (e *Engine) withPartitions(data *schema.StructType) *schema.StructType {
	if len(e.Config.PartitionColumns) == 0 {
		return data
	}
	out := e.dataSchema(data).Clone()
	for _, c := range e.Config.PartitionColumns {
		var t schema.Type = schema.String
		if pt, ok := e.Config.PartitionTypes[c]; ok {
			t = pt
		}
		out.Fields = append(out.Fields, schema.Field{Name: c, Type: t, Nullable: true})
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
