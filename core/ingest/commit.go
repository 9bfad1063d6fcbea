package ingest

import (
	"context"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/guard"
	"github.com/tributary-io/tributary/core/ingest/identity"
	"runtime/trace"
	"time"

	"github.com/google/uuid"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/ingest/progress"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/schema"
	"github.com/tributary-io/tributary/core/sink"
)

// commitResult is the outcome of the commit step.
type commitResult struct {
	Committed bool
	Version   int64
	Attempts  int
}

// commit writes the batch as one Delta commit carrying txn{stream, batch id}.
func (e *Engine) commit(ctx context.Context, p *Plan, out *output) (commitResult, error) {
	mp, err := e.planMerge(ctx, p, out)
	if err != nil {
		return commitResult{}, err
	}
	rp, err := e.planReplace(ctx, p, out)
	if err != nil {
		return commitResult{}, err
	}
	metaChanged := false // the commit changes an existing table's metaData
	build := func(snap *delta.Snapshot) ([]delta.Action, error) {
		var acts []delta.Action
		metaChanged = false
		switch {
		case snap == nil:
			md := e.newMetadata(out.schema)
			proto := delta.ProtocolFor(delta.HasTimestampNTZ(out.schema), md.Configuration)
			acts = append(acts, delta.Action{Protocol: &proto}, delta.Action{Metadata: md})
		default:
			meta, err := e.tableChange(ctx, snap, out.schema, p)
			if err != nil {
				return nil, err
			}
			acts = append(acts, meta...)
			metaChanged = len(meta) > 0
		}
		switch {
		case mp != nil:
			if err := mp.Check(snap); err != nil {
				return nil, err
			}
			acts = append(acts, mp.Actions...)
		case rp != nil:
			if err := rp.Check(snap); err != nil {
				return nil, err
			}
			acts = append(acts, rp.Actions...)
		default:
			if e.Config.OutputMode == options.OutputComplete {
				acts = append(acts, sink.Overwrite(snap, e.now())...)
			}
			for i := range out.Adds {
				acts = append(acts, delta.Action{Add: &out.Adds[i]})
			}
		}
		skipped := make([]string, 0, len(out.Skipped))
		reasons := make(map[string]string, len(out.Skipped))
		for _, s := range out.Skipped {
			skipped = append(skipped, s.Path)
			reasons[s.Path] = s.Err.Error()
		}
		ci := &delta.CommitInfo{
			Timestamp: e.now().UnixMilli(),
			Operation: "STREAMING UPDATE",
			OperationParameters: map[string]any{
				"outputMode": e.outputModeName(),
				"queryId":    e.Config.StreamID,
				"epochId":    fmt.Sprint(p.BatchID),
			},
			OperationMetrics: map[string]any{
				"numOutputRows":   fmt.Sprint(out.Rows),
				"numAddedFiles":   fmt.Sprint(len(out.Adds)),
				"numOutputBytes":  fmt.Sprint(out.OutBytes),
				"numSourceFiles":  fmt.Sprint(len(p.Files)),
				"numSkippedFiles": fmt.Sprint(len(out.Skipped)),
			},
			EngineInfo: "tributary",
			Extra:      map[string]any{"skippedFiles": skipped, "skippedFileReasons": reasons, guard.CommitInfoKey: e.guard().CommitWriter()},
		}
		if mp != nil {
			mp.CommitInfo(ci, e.Config.MergeKeys)
		}
		if rp != nil {
			rp.CommitInfo(ci, e.tablePartitions())
		}
		acts = append(acts, delta.Action{CommitInfo: ci})
		return acts, nil
	}
	commitTxn := e.Table.CommitTxnFrom
	if e.snapCurrent {
		// The run listed the log (or committed) already: the first attempt
		// goes straight to the put-if-absent, which detects any writer
		// that committed since.
		commitTxn = e.Table.CommitTxnAt
	}
	res, err := commitTxn(ctx, e.snap, e.appID(), p.BatchID, build)
	if mp != nil && (err != nil || res.AlreadyCommitted) {
		mp.Discard(context.WithoutCancel(ctx), e.sinkFiles())
	}
	if rp != nil && (err != nil || res.AlreadyCommitted) {
		rp.Discard(context.WithoutCancel(ctx), e.sinkFiles())
	}
	if err != nil {
		e.snap, e.snapCurrent = nil, false // may be half-advanced; reload next time
		return commitResult{}, fmt.Errorf("committing to Delta table: %w", err)
	}
	if res.Snapshot != nil {
		e.snap = res.Snapshot // the table as committed (a new table's first version too)
	} else {
		// The commit could not be folded into the snapshot: the next
		// batch reads it from the log.
		e.snapCurrent = false
		if metaChanged {
			// The checkpoint interval may have changed with the
			// metaData: decide on the table as committed.
			e.snap = nil
		}
	}
	if !res.AlreadyCommitted {
		region := trace.StartRegion(ctx, "ingest.maybeCheckpoint")
		e.maybeCheckpoint(ctx, res.Version)
		region.End()
	}
	return commitResult{Committed: !res.AlreadyCommitted, Version: res.Version, Attempts: res.Attempts}, nil
}

// ErrFullRefreshNeeded reports a change the stream cannot resume from
// (SPEC §8): the table must be rebuilt.
var ErrFullRefreshNeeded = identity.ErrFullRefreshNeeded

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// maybeCheckpoint writes a checkpoint once a multiple of the table's
// delta.checkpointInterval (default 10) has been passed since the last
// checkpoint — also when another writer committed that multiple — so
// snapshot loading stays bounded. The batch is already committed: a
// failure is only logged, the next commit tries again.
func (e *Engine) maybeCheckpoint(ctx context.Context, version int64) {
	if e.snap == nil {
		snap, err := e.Table.Snapshot(ctx)
		if err != nil {
			e.log().Warn("checkpoint skipped: cannot load snapshot", "error", err.Error())
			return
		}
		e.snap, e.snapCurrent = snap, true
	}
	wrote, err := e.Table.MaybeCheckpoint(ctx, e.snap, version)
	if err != nil {
		e.snap, e.snapCurrent = nil, false // may be half-advanced; reload next time
		e.log().Warn("writing checkpoint failed", "version", version, "error", err.Error())
		return
	}
	if wrote {
		e.log().Info("checkpoint written", "stream", e.Config.StreamID, "version", e.snap.Version)
	}
}

func (e *Engine) newMetadata(s *schema.StructType) *delta.Metadata {
	js, _ := schema.MarshalDeltaJSON(s)
	created := e.now().UnixMilli()
	return &delta.Metadata{
		ID:               uuid.NewString(),
		Name:             e.Config.TableName,
		Format:           delta.Format{Provider: "parquet", Options: map[string]string{}},
		SchemaString:     js,
		PartitionColumns: append([]string{}, e.tablePartitions()...),
		Configuration:    e.tableConfig(nil),
		CreatedTime:      &created,
	}
}

// progress assembles the batch's progress record.
func (e *Engine) progress(p *Plan, out *output, res commitResult, start, planned, written, committed time.Time) Progress {
	total := committed.Sub(start)
	return Progress{
		StreamID:               e.Config.StreamID,
		BatchID:                p.BatchID,
		Timestamp:              start.UTC(),
		NumInputFiles:          len(p.Files),
		NumInputBytes:          p.Bytes(),
		NumInputRows:           out.Rows,
		NumRescuedRows:         out.Rescued,
		NumSkippedFiles:        len(out.Skipped),
		InputRowsPerSecond:     progress.PerSecond(out.Rows, total),
		ProcessedRowsPerSecond: progress.PerSecond(out.Rows, committed.Sub(planned)),
		DurationMs: map[string]int64{
			"planBatch":        planned.Sub(start).Milliseconds(),
			"writeFiles":       written.Sub(planned).Milliseconds(),
			"commitLog":        committed.Sub(written).Milliseconds(),
			"triggerExecution": total.Milliseconds(),
		},
		NumFilesOutstanding:  out.outstanding.files,
		NumBytesOutstanding:  out.outstanding.bytes,
		BacklogCapped:        out.outstanding.capped,
		ApproximateQueueSize: -1,
		TableVersion:         res.Version,
		NumOutputFiles:       len(out.Adds),
		NumOutputBytes:       out.OutBytes,
		CommitAttempts:       res.Attempts,
	}
}

// backlog is what remained pending after a batch was planned.
type backlog struct {
	files, bytes int64
	capped       bool
}
