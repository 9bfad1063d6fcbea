package hivepart

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/tributary-io/tributary/core/schema"
)

// ErrMissingPartition marks a file whose path lacks a partition column's
// directory, or whose directory value does not parse as the column's type.
var ErrMissingPartition = errors.New("path lacks a partition value")

// Partition is the Hive-style partition of one input file or data file.
type Partition struct {
	// Dir is the table directory of its data files ("" or "k=v/k2=v2/").
	Dir string
	// Values are the partition values by column, in Delta's partition
	// value form; nil is null.
	Values map[string]*string
}

// Columns are cloudFiles.partitionColumns: source directories named
// key=value that become partition columns of the table.
type Columns struct {
	// Names are the partition columns, in the table's order.
	Names []string
	// Types types partition columns by name (cloudFiles.schemaHints or the
	// user schema); a column not in it is STRING.
	Types map[string]schema.Type
}

// Of reads the partition columns from a source path's Hive-style
// key=value directories (values URL-unescaped, as Hive escapes them). An
// empty value and __HIVE_DEFAULT_PARTITION__ are null, as in Spark. A
// typed column's value must parse as its type (Spark's
// spark.sql.sources.validatePartitionColumns); a path that lacks a
// column's directory, or has a value that does not parse, gives
// ErrMissingPartition with the reason rather than an invented value.
func (c Columns) Of(path string) (Partition, error) {
	cols := c.Names
	if len(cols) == 0 {
		return Partition{Values: map[string]*string{}}, nil
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
	p := Partition{Values: make(map[string]*string, len(cols))}
	var dir strings.Builder
	for _, col := range cols {
		v, ok := found[col]
		if !ok {
			return Partition{}, fmt.Errorf("%w: %s has no %s=<value> directory", ErrMissingPartition, path, col)
		}
		if v == "" || v == DefaultPartition {
			p.Values[col] = nil
			dir.WriteString(Escape(col) + "=" + DefaultPartition + "/")
			continue
		}
		if t, typed := c.Types[col]; typed {
			norm, err := Value(t, v)
			if err != nil {
				return Partition{}, fmt.Errorf("%w: %s: partition column %s: %w", ErrMissingPartition, path, col, err)
			}
			v = norm
		}
		p.Values[col] = &v
		dir.WriteString(Escape(col) + "=" + Escape(v) + "/")
	}
	p.Dir = dir.String()
	return p, nil
}

// Hint is a DDL column list that may type partition columns, with the
// option that gave it (cloudFiles.schemaHints, schema).
type Hint struct {
	// Option names the option in errors.
	Option string
	// DDL is the option's value ("" is none).
	DDL string
}

// HintTypes are the partition columns' types given by the hints (a column
// named by none is STRING). Types a partition value cannot carry (binary,
// nested) are refused naming the option.
func HintTypes(cols []string, hints ...Hint) (map[string]schema.Type, error) {
	if len(cols) == 0 {
		return nil, nil
	}
	out := map[string]schema.Type{}
	for _, src := range hints {
		if src.DDL == "" {
			continue
		}
		fields, err := schema.ParseDDL(src.DDL)
		if err != nil {
			return nil, fmt.Errorf("option %s: %w", src.Option, err)
		}
		for _, h := range fields {
			for _, c := range cols {
				if len(h.Path) != 1 || !strings.EqualFold(h.Path[0], c) {
					continue
				}
				if _, err := Value(h.Type, ""); errors.Is(err, ErrBadValue) || schema.EqualType(h.Type, schema.String) {
					out[c] = h.Type
					continue
				}
				return nil, fmt.Errorf("option %s types partition column %s as %s: a partition column is STRING, a number, BOOLEAN, DATE, TIMESTAMP, TIMESTAMP_NTZ or DECIMAL", src.Option, c, schema.DDLType(h.Type))
			}
		}
	}
	return out, nil
}

// DataSchema is the table schema without the partition columns: what the
// input files hold and the Parquet files store.
func (c Columns) DataSchema(table *schema.StructType) *schema.StructType {
	if len(c.Names) == 0 {
		return table
	}
	out := &schema.StructType{}
	for _, f := range table.Fields {
		if !c.Has(f.Name) {
			out.Fields = append(out.Fields, f)
		}
	}
	return out
}

// WithPartitions appends the partition columns (STRING unless typed) to a
// data schema.
func (c Columns) WithPartitions(data *schema.StructType) *schema.StructType {
	if len(c.Names) == 0 {
		return data
	}
	out := c.DataSchema(data).Clone()
	for _, col := range c.Names {
		var t schema.Type = schema.String
		if pt, ok := c.Types[col]; ok {
			t = pt
		}
		out.Fields = append(out.Fields, schema.Field{Name: col, Type: t, Nullable: true})
	}
	return out
}

// Has reports whether name is a partition column (case-insensitively).
func (c Columns) Has(name string) bool {
	return hasFold(c.Names, name)
}

func hasFold(names []string, name string) bool {
	for _, c := range names {
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}

// By is the sink's partitionBy: the table is partitioned by data columns,
// each row's values choosing its partition directory; the partition
// columns are not stored in the data files (Delta).
type By struct {
	cols  []string      // partition column names, as in the schema
	types []schema.Type // their types
	idx   []int         // their indexes in the decoded rows
	keep  []int         // indexes of the columns the data files store
}

// NewBy resolves partitionBy's columns against the decoded schema (nil
// when there are none).
func NewBy(cols []string, in *schema.StructType) (*By, error) {
	if len(cols) == 0 {
		return nil, nil
	}
	pb := &By{}
	for _, c := range cols {
		i := in.FieldIndexFold(c)
		if i < 0 {
			return nil, fmt.Errorf("option partitionBy: column %s is not in the stream's schema", c)
		}
		t := in.Fields[i].Type
		if !Supported(t) {
			return nil, fmt.Errorf("option partitionBy: column %s is %s: a partition column is STRING, a number, BOOLEAN, DATE, TIMESTAMP, TIMESTAMP_NTZ or DECIMAL", c, schema.DDLType(t))
		}
		pb.cols, pb.types, pb.idx = append(pb.cols, in.Fields[i].Name), append(pb.types, t), append(pb.idx, i)
	}
	for i, f := range in.Fields {
		if !hasFold(pb.cols, f.Name) {
			pb.keep = append(pb.keep, i)
		}
	}
	return pb, nil
}

// FileSchema is in without the partition columns.
func (pb *By) FileSchema(in *schema.StructType) *schema.StructType {
	out := &schema.StructType{}
	for _, i := range pb.keep {
		out.Fields = append(out.Fields, in.Fields[i])
	}
	return out
}

// Split groups rows of the source partition base by partition (in
// first-seen order) and drops the partition columns from them.
func (pb *By) Split(base Partition, rows [][]any) ([]Partition, [][][]any) {
	var parts []Partition
	var groups [][][]any
	at := map[string]int{}
	for _, r := range rows {
		p := Partition{Dir: base.Dir, Values: make(map[string]*string, len(base.Values)+len(pb.cols))}
		for k, v := range base.Values {
			p.Values[k] = v
		}
		var dir strings.Builder
		dir.WriteString(base.Dir)
		for j, c := range pb.cols {
			s, ok := Format(pb.types[j], r[pb.idx[j]])
			if !ok {
				p.Values[c] = nil
				dir.WriteString(Escape(c) + "=" + DefaultPartition + "/")
				continue
			}
			p.Values[c] = &s
			dir.WriteString(Escape(c) + "=" + Escape(s) + "/")
		}
		p.Dir = dir.String()
		g, ok := at[p.Dir]
		if !ok {
			g = len(parts)
			at[p.Dir] = g
			parts, groups = append(parts, p), append(groups, nil)
		}
		out := make([]any, len(pb.keep))
		for k, i := range pb.keep {
			out[k] = r[i]
		}
		groups[g] = append(groups[g], out)
	}
	return parts, groups
}
