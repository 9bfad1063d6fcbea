package ingest

import (
	"context"
	"errors"
	"fmt"
	"github.com/tributary-io/tributary/core/ingest/batchplan"
	"github.com/tributary-io/tributary/core/ingest/convert"
	"github.com/tributary-io/tributary/core/ingest/evolve"
	"strings"

	"github.com/google/uuid"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/tableprops"
	"github.com/tributary-io/tributary/core/ingest/fanout"
	"github.com/tributary-io/tributary/core/ingest/schemalog"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// StepShareWritten is the point after a converter wrote its share's data
// files and before it sealed its report (fault injection of ConvertShare).
const StepShareWritten Step = "shareWritten"

// ErrBadShare is wrapped when a conversion request does not fit the
// stream's sealed plan or configuration.
var ErrBadShare = errors.New("bad share request")

// fansOut reports whether the stream's batches may be split into shares:
// fan-out is configured and the sink appends or overwrites (an update's
// MERGE and badRecordsPath's per-batch exception files need the whole
// batch in one writer).
func (e *Engine) fansOut() bool {
	return e.Fanout != nil && e.Fanout.Runner != nil && e.Fanout.MaxConverters > 1 &&
		e.Config.OutputMode != options.OutputUpdate && e.Config.Reader.BadRecordsPath == ""
}

// planSizes returns the sizes of p's files in plan order.
func planSizes(p *Plan) []int64 {
	sizes := make([]int64, len(p.Files))
	for i, f := range p.Files {
		sizes[i] = f.Size
	}
	return sizes
}

// writeBatch is the write step: the batch is split into shares converted
// by e.Fanout's runner when fan-out is on and the batch is wide enough,
// else written by this engine. The shares are written with the schema the
// committer resolved (one version of the schema history, named in every
// request); a share that finds columns the schema lacks (an evolving
// schemaEvolutionMode) makes the committer write the batch unsplit, where
// schema evolution decides on the whole batch as it does without fan-out.
func (e *Engine) writeBatch(ctx context.Context, snap *delta.Snapshot, p *Plan) (*output, error) {
	n := 1
	if e.fansOut() {
		n = e.Fanout.Width(planSizes(p))
	}
	if n <= 1 {
		return e.write(ctx, snap, p)
	}
	sch, version, isNew, err := e.resolveSchema(ctx, snap, p)
	if err != nil {
		return nil, err
	}
	tag, err := batchplan.Digest(p)
	if err != nil {
		return nil, err
	}
	base := fanout.Request{Stream: e.Config.StreamID, Batch: p.BatchID, Plan: tag, Dropped: p.Dropped, Shares: n, SchemaVersion: version, TableConfig: e.tableConfig(snap)}
	reports, err := fanout.Collect(ctx, e.Checkpoint, e.Fanout.Runner, base, n)
	if err != nil {
		return nil, err
	}
	out := &output{schema: sch, schemaNew: isNew}
	for _, r := range reports {
		if r.NewColumns != nil {
			e.log().Warn("a share found data the schema lacks: the batch is written unsplit", "stream", e.Config.StreamID,
				"batchId", p.BatchID, "share", r.Share, "shares", r.Shares, "file", r.NewColumns.File)
			return e.write(ctx, snap, p)
		}
		if age := e.now().Sub(r.CreatedAt); age > fanout.MaxAge {
			e.log().Warn("a share's report is too old to commit (VACUUM may have removed its files): the batch is written unsplit",
				"stream", e.Config.StreamID, "batchId", p.BatchID, "share", r.Share, "shares", r.Shares, "age", age.String())
			return e.write(ctx, snap, p)
		}
		out.Adds = append(out.Adds, r.Adds...)
		out.Rows += r.Rows
		out.Rescued += r.Rescued
		out.OutBytes += r.OutBytes
		for _, s := range r.Skipped {
			out.Skipped = append(out.Skipped, convert.Skipped{Path: s.Path, Err: errors.New(s.Reason)})
		}
	}
	e.log().Info("batch converted in shares", "stream", e.Config.StreamID, "batchId", p.BatchID,
		"shares", n, "files", len(p.Files), "outputFiles", len(out.Adds))
	return out, nil
}

// ConvertShare is a converter's work: it writes share req.Share of the
// sealed plan of batch req.Batch as Parquet data files under
// attempt-unique names, with schema version req.SchemaVersion, and seals
// the share's report in the checkpoint (fanout.Seal). A share whose report
// is sealed already is not converted again; an attempt that loses the
// sealing race deletes its files and returns the winner's report. Files
// that cannot be read are judged as in the unsplit write step (read again,
// skipped, or the share fails with the error).
func (e *Engine) ConvertShare(ctx context.Context, req fanout.Request) (*fanout.Report, error) {
	if req.Stream != e.Config.StreamID {
		return nil, fmt.Errorf("%w: stream %q, this is stream %q", ErrBadShare, req.Stream, e.Config.StreamID)
	}
	if e.Config.OutputMode == options.OutputUpdate || e.Config.Reader.BadRecordsPath != "" {
		return nil, fmt.Errorf("%w: stream %q writes each batch whole (outputMode update or badRecordsPath)", ErrBadShare, req.Stream)
	}
	if req.Plan == "" || strings.Contains(req.Plan, "/") || req.Shares < 1 || req.Share < 0 || req.Share >= req.Shares {
		return nil, fmt.Errorf("%w: plan %q, share %d of %d of batch %d", ErrBadShare, req.Plan, req.Share, req.Shares, req.Batch)
	}
	if r, ok, err := fanout.ReadReport(ctx, e.Checkpoint, req.Key()); err != nil || ok {
		return r, err
	}
	p, ok, err := batchplan.Read(ctx, e.Checkpoint, req.Batch)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: stream %q has no sealed plan for batch %d", ErrBadShare, req.Stream, req.Batch)
	}
	// The committer's claim dropped these (another batch holds them): the
	// shares and the digest are those of the plan it writes.
	if p, err = batchplan.WithoutDropped(p, req.Dropped); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadShare, err)
	}
	if tag, err := batchplan.Digest(p); err != nil {
		return nil, err
	} else if tag != req.Plan {
		return nil, fmt.Errorf("%w: batch %d's sealed plan is %s, the request names plan %q (a request from before a checkpoint reset?)", ErrBadShare, req.Batch, tag, req.Plan)
	}
	if req.Shares < 1 || req.Shares > len(p.Files) || req.Share < 0 || req.Share >= req.Shares {
		return nil, fmt.Errorf("%w: share %d of %d of batch %d (%d files)", ErrBadShare, req.Share, req.Shares, req.Batch, len(p.Files))
	}
	cuts := fanout.Split(planSizes(p), req.Shares)
	sub := *p
	sub.Files = p.Files[cuts[req.Share]:cuts[req.Share+1]]
	sch, err := readSchemaVersion(ctx, e.schemaStore(), req.SchemaVersion)
	if err != nil {
		return nil, err
	}
	var stats parquetio.WriterOptions
	if stats.NumIndexedCols, stats.NoStats, stats.StatsColumns, err = tableprops.StatsOptions(req.TableConfig); err != nil {
		return nil, err
	}
	rep := &fanout.Report{Batch: req.Batch, Plan: req.Plan, Shares: req.Shares, Share: req.Share, SchemaVersion: req.SchemaVersion,
		Attempt: uuid.NewString(), Files: len(sub.Files)}
	failures := convert.Failures{}
	for {
		out, err := e.writeOnce(ctx, sch, &sub, failures, e.Config.Schema.evolves(), stats)
		if nc := (*convert.NewColumns)(nil); errors.As(err, &nc) {
			rep.NewColumns = &fanout.NewColumns{File: nc.File, Paths: nc.Paths, Mismatched: nc.Mismatched}
			break
		}
		if errors.Is(err, convert.ErrRetryBatch) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("batch %d share %d of %d: %w", req.Batch, req.Share, req.Shares, err)
		}
		rep.Adds, rep.Rows, rep.Rescued, rep.OutBytes = nonNilAdds(out.Adds), out.Rows, out.Rescued, out.OutBytes
		for _, s := range out.Skipped {
			rep.Skipped = append(rep.Skipped, fanout.Skipped{Path: s.Path, Reason: s.Err.Error()})
		}
		break
	}
	if err := e.injected(StepShareWritten, req.Batch); err != nil {
		return nil, err // the files stay, unreported: orphans, as after a crash
	}
	rep.CreatedAt = e.now().UTC()
	got, mine, err := fanout.Seal(ctx, e.Checkpoint, rep)
	if err != nil {
		return nil, err
	}
	if !mine {
		e.log().Info("another attempt reported the share first: removing this attempt's files", "stream", e.Config.StreamID,
			"batchId", req.Batch, "share", req.Share, "shares", req.Shares, "files", len(rep.Adds))
		e.removeAdds(ctx, rep.Adds)
	}
	return got, nil
}

func nonNilAdds(a []delta.Add) []delta.Add {
	if a == nil {
		return []delta.Add{}
	}
	return a
}

// removeAdds deletes the data files of adds no report holds (best effort:
// leftovers are orphans that VACUUM removes).
func (e *Engine) removeAdds(ctx context.Context, adds []delta.Add) {
	for _, a := range adds {
		key, err := delta.ObjectKey(a.Path)
		if err == nil {
			err = e.Table.Store().Delete(ctx, key)
		}
		if err != nil && !errors.Is(err, objstore.ErrNotFound) {
			e.log().Warn("could not remove orphan data file", "file", a.Path, "error", err.Error())
		}
	}
}

// readSchemaVersion reads version v of the schema history.
func readSchemaVersion(ctx context.Context, st objstore.Store, v int) (*schema.StructType, error) {
	s, found, err := evolve.ReadVersion(ctx, st, v)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%w: schema history version %d (%s) does not exist", ErrBadShare, v, schemalog.Key(v))
	}
	return s, nil
}
