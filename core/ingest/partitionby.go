package ingest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/schema"
)

// partitionBy is the sink's partitionBy: the table is partitioned by data
// columns, each row's values choosing its partition directory; the
// partition columns are not stored in the data files (Delta).
type partitionBy struct {
	cols  []string      // partition column names, as in the schema
	types []schema.Type // their types
	idx   []int         // their indexes in the decoded rows
	keep  []int         // indexes of the columns the data files store
}

// newPartitionBy resolves Config.PartitionBy against the decoded schema
// (nil when the option is not set).
func (e *Engine) newPartitionBy(in *schema.StructType) (*partitionBy, error) {
	if len(e.Config.PartitionBy) == 0 {
		return nil, nil
	}
	pb := &partitionBy{}
	for _, c := range e.Config.PartitionBy {
		i := in.FieldIndexFold(c)
		if i < 0 {
			return nil, fmt.Errorf("option partitionBy: column %s is not in the stream's schema", c)
		}
		t := in.Fields[i].Type
		if !partitionable(t) {
			return nil, fmt.Errorf("option partitionBy: column %s is %s: a partition column is STRING, a number, BOOLEAN, DATE, TIMESTAMP, TIMESTAMP_NTZ or DECIMAL", c, schema.DDLType(t))
		}
		pb.cols, pb.types, pb.idx = append(pb.cols, in.Fields[i].Name), append(pb.types, t), append(pb.idx, i)
	}
	for i, f := range in.Fields {
		if !pb.has(f.Name) {
			pb.keep = append(pb.keep, i)
		}
	}
	return pb, nil
}

func (pb *partitionBy) has(name string) bool {
	for _, c := range pb.cols {
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}

// fileSchema is in without the partition columns.
func (pb *partitionBy) fileSchema(in *schema.StructType) *schema.StructType {
	out := &schema.StructType{}
	for _, i := range pb.keep {
		out.Fields = append(out.Fields, in.Fields[i])
	}
	return out
}

// split groups rows by partition (in first-seen order) and drops the
// partition columns from them.
func (pb *partitionBy) split(base partition, rows [][]any) ([]partition, [][][]any) {
	var parts []partition
	var groups [][][]any
	at := map[string]int{}
	for _, r := range rows {
		p := partition{dir: base.dir, values: make(map[string]*string, len(base.values)+len(pb.cols))}
		for k, v := range base.values {
			p.values[k] = v
		}
		var dir strings.Builder
		dir.WriteString(base.dir)
		for j, c := range pb.cols {
			s, ok := partitionString(pb.types[j], r[pb.idx[j]])
			if !ok {
				p.values[c] = nil
				dir.WriteString(escapePartitionPath(c) + "=" + hiveDefaultPartition + "/")
				continue
			}
			p.values[c] = &s
			dir.WriteString(escapePartitionPath(c) + "=" + escapePartitionPath(s) + "/")
		}
		p.dir = dir.String()
		g, ok := at[p.dir]
		if !ok {
			g = len(parts)
			at[p.dir] = g
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

// partitionString serialises a value as a Delta partition value (false:
// NULL), in the forms partitionValue writes.
func partitionString(t schema.Type, v any) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		if x == "" {
			return "", false // Spark writes an empty string partition as NULL
		}
		return x, true
	case bool:
		return strconv.FormatBool(x), true
	case int8, int16, int32, int64, int:
		return fmt.Sprint(x), true
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case schema.Date:
		return time.Unix(int64(x)*86400, 0).UTC().Format("2006-01-02"), true
	case schema.Decimal:
		return decimalString(x), true
	case time.Time:
		if schema.EqualType(t, schema.TimestampNTZ) {
			return x.Format("2006-01-02 15:04:05.000000"), true
		}
		return x.UTC().Format("2006-01-02T15:04:05.000000Z"), true
	}
	return fmt.Sprint(v), true
}

// writeSplit writes rows of one source partition into the partitions
// their values choose.
func (fw *fileWriter) writeSplit(ctx context.Context, base partition, rows [][]any) error {
	parts, groups := fw.by.split(base, rows)
	for i := range parts {
		if err := fw.writeRows(ctx, parts[i], groups[i]); err != nil {
			return err
		}
	}
	return nil
}

// partitionable reports whether a partition value can carry type t.
func partitionable(t schema.Type) bool {
	switch t := t.(type) {
	case schema.DecimalType:
		return true
	case schema.PrimitiveType:
		switch t {
		case schema.String, schema.Byte, schema.Short, schema.Integer, schema.Long, schema.Float, schema.Double,
			schema.Boolean, schema.DateType, schema.Timestamp, schema.TimestampNTZ:
			return true
		}
	}
	return false
}

// tablePartitions are the table's partition columns: cloudFiles.partitionColumns
// (from source directories), then partitionBy (from the data).
func (e *Engine) tablePartitions() []string {
	return slices.Concat(e.Config.PartitionColumns, e.Config.PartitionBy)
}
