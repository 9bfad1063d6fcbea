package ingest

import (
	"context"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/schemamerge"
	"slices"
	"strings"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/tableprops"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/refresh"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/core/sink"
)

// tableChange returns the protocol and metaData actions a batch with
// schema ours needs on the existing table at snap (none when the table's
// schema stays). The table's columns that the stream lacks are adopted
// when nullable (another writer added them: the batch's rows read NULL
// there); a retyped column, a missing NOT NULL column or changed partition
// columns need a full refresh — unless outputMode=complete with
// overwriteSchema, which replaces schema and partitioning. A schema that
// needs a table feature the protocol lacks (timestamp_ntz) upgrades it.
func (e *Engine) tableChange(ctx context.Context, snap *delta.Snapshot, ours *schema.StructType, p *Plan) ([]delta.Action, error) {
	parts := nonNil(e.tablePartitions())
	// A table emptied by a full refresh takes the stream's schema and
	// partitioning as they are now.
	overwrite := e.Config.OutputMode == options.OutputComplete && e.Config.OverwriteSchema || refresh.Refreshed(snap, e.appID())
	target := ours
	if !overwrite {
		if !slices.Equal(snap.Metadata.PartitionColumns, parts) {
			return nil, fmt.Errorf("%w: the table is partitioned by %v, cloudFiles.partitionColumns and partitionBy say %v: %s",
				ErrFullRefreshNeeded, snap.Metadata.PartitionColumns, parts, RefreshHowTo)
		}
		// ours with the table's field metadata kept and widened columns'
		// delta.typeChanges recorded; failing that (a column ours lacks),
		// the table's schema adopting ours' new columns.
		var werr error
		if target, werr = e.schemas().TableSchema(snap, ours); werr != nil {
			var err error
			if target, err = schemamerge.Adopt(snap.Schema(), ours); err != nil {
				return nil, werr
			}
			if target != ours {
				if e.adopted == nil {
					e.adopted = map[string]bool{}
				}
				if err := e.guard().CheckAdopted(ctx, snap, schemamerge.MissingPaths(snap.Schema(), ours, ""), e.adopted); err != nil {
					return nil, err
				}
			}
		}
		if err := e.schemas().CheckMergeSchema(snap, ours, p); err != nil {
			return nil, err
		}
	}
	// Table properties this stream sets are changed with the metaData
	// action (and a protocol upgrade for type widening).
	conf, confChanged := tableprops.Merge(snap.Metadata.Configuration, e.Config.TableProperties)
	if schema.Equal(snap.Schema(), target) && slices.Equal(snap.Metadata.PartitionColumns, parts) && !confChanged {
		return nil, nil
	}
	var acts []delta.Action
	proto, upgraded := snap.Protocol, false
	if delta.HasTimestampNTZ(target) && !(snap.Protocol.MinWriterVersion == 7 && snap.Protocol.HasWriterFeature(delta.FeatureTimestampNTZ) &&
		snap.Protocol.HasReaderFeature(delta.FeatureTimestampNTZ)) {
		proto, upgraded = delta.WithReaderWriterFeature(proto, delta.FeatureTimestampNTZ), true
		e.log().Warn("upgrading the table's protocol: a timestamp_ntz column needs the timestampNtz feature",
			"stream", e.Config.StreamID, "from", fmt.Sprintf("(%d,%d)", snap.Protocol.MinReaderVersion, snap.Protocol.MinWriterVersion), "to", "(3,7)")
	}
	if p, up := tableprops.Upgrade(proto, conf); up {
		proto, upgraded = p, true
		e.log().Warn("upgrading the table's protocol: delta.enableTypeWidening needs the typeWidening feature",
			"stream", e.Config.StreamID, "from", fmt.Sprintf("(%d,%d)", snap.Protocol.MinReaderVersion, snap.Protocol.MinWriterVersion), "to", "(3,7)")
	}
	if upgraded {
		acts = append(acts, delta.Action{Protocol: &proto})
	}
	md := snap.Metadata
	md.Configuration = conf
	js, err := schema.MarshalDeltaJSON(target)
	if err != nil {
		return nil, err
	}
	md.SchemaString = js
	md.PartitionColumns = slices.Clone(parts)
	return append(acts, delta.Action{Metadata: &md}), nil
}

// outputModeName is the outputMode as Spark writes it in commitInfo.
func (e *Engine) outputModeName() string {
	switch e.Config.OutputMode {
	case options.OutputComplete:
		return "Complete"
	case options.OutputUpdate:
		return "Update"
	}
	return "Append"
}

// sinkFiles reads and writes the table's data files for core/sink.
func (e *Engine) sinkFiles() *sink.StoreFiles {
	f := &sink.StoreFiles{Store: e.Table.Store(), TempDir: e.TempDir, Codec: e.Config.ParquetCodec,
		Infix: parquetio.CodecInfix(e.Config.ParquetCodec), Now: e.now}
	// As the write step's files (which already failed on a bad value).
	f.Stats.NumIndexedCols, f.Stats.NoStats, f.Stats.StatsColumns, _ = tableprops.StatsOptions(e.tableConfig(e.snap))
	return f
}

// planMerge plans the upsert of the batch's files into the table
// (outputMode=update with mergeKeys); nil in the other modes and when the
// table already holds the batch's txn (the commit then skips).
func (e *Engine) planMerge(ctx context.Context, p *Plan, out *output) (*sink.MergePlan, error) {
	if e.Config.OutputMode != options.OutputUpdate {
		return nil, nil
	}
	for _, k := range e.Config.MergeKeys {
		if out.schema.FieldIndexFold(k) < 0 {
			var names []string
			for _, f := range out.schema.Fields {
				names = append(names, f.Name)
			}
			return nil, fmt.Errorf("option mergeKeys: column %s is not in the stream's schema (%s)", k, strings.Join(names, ", "))
		}
	}
	m := &sink.Merge{Keys: e.Config.MergeKeys, Files: e.sinkFiles(), Now: e.now}
	mp, snap, err := m.PlanLatest(ctx, e.Table, e.snap, e.appID(), p.BatchID, out.Adds)
	e.snap = snap
	return mp, err
}

// planReplace plans the selective overwrite of the batch (replaceWhere);
// nil without replaceWhere and when the table already holds the batch's
// txn (the commit then skips). A batch row outside the predicate fails the
// batch, naming its source files; nothing is committed.
func (e *Engine) planReplace(ctx context.Context, p *Plan, out *output) (*sink.ReplacePlan, error) {
	if e.Config.ReplaceWhere == nil {
		return nil, nil
	}
	r := &sink.Replace{Where: e.Config.ReplaceWhere, Files: e.sinkFiles(), Now: e.now}
	rp, snap, err := r.PlanLatest(ctx, e.Table, e.snap, e.appID(), p.BatchID, out.schema, out.Adds)
	e.snap = snap
	if errors.Is(err, sink.ErrReplaceWhereMismatch) {
		names := make([]string, 0, 3)
		for i, f := range p.Files {
			if i == 3 {
				names = append(names, fmt.Sprintf("and %d more", len(p.Files)-3))
				break
			}
			names = append(names, f.Path)
		}
		return nil, fmt.Errorf("%w\n(a row of the batch's source files %s)", err, strings.Join(names, ", "))
	}
	return rp, err
}
