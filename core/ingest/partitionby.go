package ingest

import (
	"context"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/hivepart"
	"slices"
	"strings"

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
		if !hivepart.Supported(t) {
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
			s, ok := hivepart.Format(pb.types[j], r[pb.idx[j]])
			if !ok {
				p.values[c] = nil
				dir.WriteString(hivepart.Escape(c) + "=" + hivepart.DefaultPartition + "/")
				continue
			}
			p.values[c] = &s
			dir.WriteString(hivepart.Escape(c) + "=" + hivepart.Escape(s) + "/")
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

// tablePartitions are the table's partition columns: cloudFiles.partitionColumns
// (from source directories), then partitionBy (from the data).
func (e *Engine) tablePartitions() []string {
	return slices.Concat(e.Config.PartitionColumns, e.Config.PartitionBy)
}
