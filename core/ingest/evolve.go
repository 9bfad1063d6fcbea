package ingest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/schema"
)

// Schema evolution errors. Both stop the batch before anything is
// committed; its sealed plan is replayed by the next run.
var (
	// ErrSchemaEvolved (addNewColumns): new columns were appended to the
	// schema history; the next run ingests the batch with the new schema,
	// as Auto Loader stops with an UnknownFieldException and restarts.
	ErrSchemaEvolved = errors.New("new columns found: schema evolved, run again to continue with the new schema")
	// ErrNewColumns (failOnNewColumns): the data has columns the schema
	// lacks; the stream fails until the schema is changed by hand.
	ErrNewColumns = errors.New("new columns found and cloudFiles.schemaEvolutionMode is failOnNewColumns")
)

// newColumns is returned by the write step when a file holds fields the
// schema lacks and the evolution mode reacts to them.
type newColumns struct {
	file  string
	paths []string
}

func (n *newColumns) Error() string {
	return fmt.Sprintf("file %s has columns not in the schema: %s", n.file, strings.Join(n.paths, ", "))
}

// evolves reports whether the mode stops a batch on new columns.
func (c SchemaConfig) evolves() bool {
	switch c.EvolutionMode {
	case options.EvolveAddNewColumns, options.EvolveAddNewColumnsWithTypeWidening, options.EvolveFailOnNewColumns:
		return true
	}
	return false
}

// onNewColumns handles new columns found in plan p's files under schema
// version v: failOnNewColumns fails; addNewColumns infers the new columns
// from the files that hold them, appends them to the schema history as
// version v+1 and stops the batch. It returns nil when inference finds
// nothing to add (the values stay rescued).
func (e *Engine) onNewColumns(ctx context.Context, current *schema.StructType, v int, nc *newColumns, p *Plan) error {
	if e.Config.Schema.EvolutionMode == options.EvolveFailOnNewColumns {
		return fmt.Errorf("%w: %v", ErrNewColumns, nc)
	}
	cfg := e.Config.Schema
	// The file that holds the new columns is sampled first and whole: the
	// inference sample budget (sampleSize.numBytes) bounds the initial
	// inference only, and must not hide the very columns that stopped the
	// batch (they would be rescued silently instead of added).
	inf := e.Config.Format.NewInferrer(e.inferOptions(nil, 0))
	files := slices.Clone(p.Files)
	slices.SortStableFunc(files, func(a, b PlanFile) int {
		return cmp.Compare(boolRank(a.Path != nc.file), boolRank(b.Path != nc.file))
	})
	for _, f := range files {
		if inf.Full() {
			break
		}
		if err := e.sampleFile(ctx, inf, f); err != nil {
			return err
		}
	}
	next, added := addMissing(e.dataSchema(current), e.dataSchema(inf.Schema()), cfg.rescuedColumn())
	if len(added) == 0 {
		return nil
	}
	next = e.withPartitions(next)
	if _, err := saveSchema(ctx, e.schemaStore(), v+1, next); err != nil {
		return err
	}
	e.log().Warn("schema evolved", "stream", e.Config.StreamID, "batchId", p.BatchID,
		"schemaVersion", v+1, "newColumns", added, "file", nc.file)
	return fmt.Errorf("%w: added %s (schema version %d, from file %s)", ErrSchemaEvolved, strings.Join(added, ", "), v+1, nc.file)
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// addMissing returns current with every field of inferred that it lacks
// appended (recursively inside structs), the rescued column kept last, and
// the dotted paths it added. Existing fields keep their types.
func addMissing(current, inferred *schema.StructType, rescued string) (*schema.StructType, []string) {
	var added []string
	out := mergeStruct(current, inferred, "", rescued, &added)
	return out, added
}

func mergeStruct(cur, inf *schema.StructType, prefix, rescued string, added *[]string) *schema.StructType {
	out := cur.Clone()
	for _, f := range inf.Fields {
		if prefix == "" && f.Name == rescued {
			continue
		}
		i := out.FieldIndexFold(f.Name)
		if i < 0 {
			nf := f
			nf.Nullable = true
			*added = append(*added, prefix+f.Name)
			out.Fields = append(out.Fields, nf)
			continue
		}
		cs, ok1 := out.Fields[i].Type.(*schema.StructType)
		is, ok2 := f.Type.(*schema.StructType)
		if ok1 && ok2 {
			out.Fields[i].Type = mergeStruct(cs, is, prefix+out.Fields[i].Name+".", "", added)
		}
	}
	if prefix == "" && rescued != "" {
		if i := out.FieldIndex(rescued); i >= 0 && i != len(out.Fields)-1 {
			r := out.Fields[i]
			out.Fields = append(append(out.Fields[:i:i], out.Fields[i+1:]...), r)
		}
	}
	return out
}
