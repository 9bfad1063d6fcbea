package deltasource

import (
	"context"
	"fmt"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/core/sink"
)

// The sink modes (outputMode=complete, the mergeKeys upsert,
// overwriteSchema) for a Delta-source stream; the planning is core/sink's,
// as for an Auto Loader stream.

// overwritesSchema is outputMode=complete with overwriteSchema.
func (s *Source) overwritesSchema() bool {
	return s.Config.OutputMode == options.OutputComplete && s.Config.OverwriteSchema
}

// replaceSchema returns the metaData action that makes the sink's schema
// the source's (unpartitioned), none when it already is.
func (s *Source) replaceSchema(snap *delta.Snapshot, st *schema.StructType) ([]delta.Action, error) {
	if schema.Equal(snap.Schema(), st) && len(snap.Metadata.PartitionColumns) == 0 {
		return nil, nil
	}
	var acts []delta.Action
	if delta.HasTimestampNTZ(st) && !(snap.Protocol.HasWriterFeature(delta.FeatureTimestampNTZ) && snap.Protocol.HasReaderFeature(delta.FeatureTimestampNTZ)) {
		proto := delta.WithReaderWriterFeature(snap.Protocol, delta.FeatureTimestampNTZ)
		acts = append(acts, delta.Action{Protocol: &proto})
	}
	js, err := schema.MarshalDeltaJSON(st)
	if err != nil {
		return nil, err
	}
	md := snap.Metadata
	md.SchemaString, md.PartitionColumns = js, []string{}
	return append(acts, delta.Action{Metadata: &md}), nil
}

// sinkActions appends the batch's file actions to acts: its adds (after
// removing every live file with outputMode=complete), or the merge or
// replaceWhere plan's.
func (s *Source) sinkActions(snap *delta.Snapshot, mp *sink.MergePlan, rp *sink.ReplacePlan, out *output, acts []delta.Action) ([]delta.Action, error) {
	if mp != nil {
		if err := mp.Check(snap); err != nil {
			return nil, err
		}
		return append(acts, mp.Actions...), nil
	}
	if rp != nil {
		if err := rp.Check(snap); err != nil {
			return nil, err
		}
		return append(acts, rp.Actions...), nil
	}
	if s.Config.OutputMode == options.OutputComplete {
		acts = append(acts, sink.Overwrite(snap, s.now())...)
	}
	for i := range out.adds {
		acts = append(acts, delta.Action{Add: &out.adds[i]})
	}
	return acts, nil
}

// outputModeName is the outputMode as Spark writes it in commitInfo.
func (s *Source) outputModeName() string {
	switch s.Config.OutputMode {
	case options.OutputComplete:
		return "Complete"
	case options.OutputUpdate:
		return "Update"
	}
	return "Append"
}

// sinkFiles reads and writes the sink's data files for core/sink.
func (s *Source) sinkFiles() *sink.StoreFiles {
	return &sink.StoreFiles{Store: s.Sink.Store(), TempDir: s.TempDir, Codec: s.Config.ParquetCodec, Now: s.now}
}

// planMerge plans the upsert of the batch into the sink (mergeKeys); nil
// in the other modes and when the sink already holds the batch's txn.
func (s *Source) planMerge(ctx context.Context, p *Plan, out *output) (*sink.MergePlan, error) {
	if s.Config.OutputMode != options.OutputUpdate {
		return nil, nil
	}
	m := &sink.Merge{Keys: s.Config.MergeKeys, Files: s.sinkFiles(), Now: s.now}
	mp, snap, err := m.PlanLatest(ctx, s.Sink, s.snap, s.Config.appID(), p.BatchID, out.adds)
	s.snap = snap
	return mp, err
}

// planReplace plans the selective overwrite of the sink by the batch
// (replaceWhere); nil without it and when the sink already holds the
// batch's txn.
func (s *Source) planReplace(ctx context.Context, p *Plan, out *output) (*sink.ReplacePlan, error) {
	if s.Config.ReplaceWhere == nil {
		return nil, nil
	}
	r := &sink.Replace{Where: s.Config.ReplaceWhere, Files: s.sinkFiles(), Now: s.now}
	rp, snap, err := r.PlanLatest(ctx, s.Sink, s.snap, s.Config.appID(), p.BatchID, out.schema, out.adds)
	s.snap = snap
	if err != nil {
		return nil, fmt.Errorf("%w\n(source table %s, versions %s to %s)", err, s.Config.SourceURI, p.Start, p.End)
	}
	return rp, nil
}

// sinkCompatible is readCompatible for the sink table: a nullable sink
// column the source lacks is kept (another writer added it: the stream's
// rows read NULL there), as a Delta append that omits a nullable column is
// valid; a NOT NULL one or a changed type is the reason returned.
func sinkCompatible(sinkSchema, src *schema.StructType, prefix string) string {
	for _, f := range sinkSchema.Fields {
		i := src.FieldIndex(f.Name)
		if i < 0 {
			if f.Nullable {
				continue
			}
			return fmt.Sprintf("column %s%s (NOT NULL) was dropped or renamed", prefix, f.Name)
		}
		ss, ok1 := f.Type.(*schema.StructType)
		rs, ok2 := src.Fields[i].Type.(*schema.StructType)
		if ok1 && ok2 {
			if why := sinkCompatible(ss, rs, prefix+f.Name+"."); why != "" {
				return why
			}
			continue
		}
		if !schema.EqualType(sinkType(f.Type), sinkType(src.Fields[i].Type)) {
			return fmt.Sprintf("column %s%s changed from %s to %s", prefix, f.Name, schema.DDLType(f.Type), schema.DDLType(src.Fields[i].Type))
		}
	}
	return ""
}
