package deltasource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/google/uuid"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/delta/scan"
	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/parquetio"
	"github.com/tributary-io/tributary/core/schema"
)

// output is what the write step produced for one batch.
type output struct {
	s        *Source
	schema   *schema.StructType
	adds     []delta.Add
	written  []string // sink keys uploaded by this attempt
	rows     int64
	outBytes int64
	skipped  []string // source files lost (failOnDataLoss=false)
}

// discard removes this attempt's data files (best effort: leftovers are
// orphans VACUUM removes).
func (o *output) discard(ctx context.Context) {
	for _, k := range o.written {
		if err := o.s.Sink.Store().Delete(ctx, k); err != nil {
			o.s.log_().Warn("could not remove orphan data file", "file", k, "error", err.Error())
		}
	}
	o.written, o.adds = nil, nil
}

const defaultTargetFileRows = 1_000_000

// write reads the plan's source files (deletion vectors applied, column
// mapping resolved) and writes their rows as Parquet data files into the
// sink under attempt-unique names.
func (s *Source) write(ctx context.Context, p *Plan) (*output, error) {
	read, err := s.readSnapshot(ctx, p)
	if err != nil {
		return nil, err
	}
	out := &output{s: s, schema: sinkSchema(read.Schema())}
	w := &fileRoller{s: s, out: out, batch: p.BatchID}
	done := false
	defer func() {
		if !done {
			w.abort()
			out.discard(ctx)
		}
	}()
	for i := range p.Files {
		f := &p.Files[i]
		rows, err := scan.ReadAdd(ctx, read, &f.Add)
		if errors.Is(err, objstore.ErrNotFound) {
			if s.Config.Delta.FailOnDataLoss {
				return nil, s.Config.dataLossError(fmt.Sprintf("data file %s (added in version %d)", f.Add.Path, f.Version), err)
			}
			s.log_().Warn("failOnDataLoss=false: source data file is gone; its rows are skipped",
				"stream", s.Config.StreamID, "batchId", p.BatchID, "file", f.Add.Path, "version", f.Version)
			out.skipped = append(out.skipped, f.Add.Path)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading source file %s (version %d): %w", f.Add.Path, f.Version, err)
		}
		if err := w.write(ctx, rows); err != nil {
			return nil, err
		}
		out.rows += int64(len(rows))
	}
	if err := w.close(ctx); err != nil {
		return nil, err
	}
	done = true
	return out, nil
}

// fileRoller writes rows into Parquet files of at most TargetFileRows rows.
type fileRoller struct {
	s     *Source
	out   *output
	batch int64
	tmp   *os.File
	pw    *parquetio.Writer
	rows  int
	seq   int
}

func (w *fileRoller) target() int {
	if w.s.Config.TargetFileRows > 0 {
		return w.s.Config.TargetFileRows
	}
	return defaultTargetFileRows
}

func (w *fileRoller) write(ctx context.Context, rows [][]any) error {
	for len(rows) > 0 {
		if w.pw == nil {
			tmp, err := os.CreateTemp(w.s.TempDir, "tributary-*.parquet")
			if err != nil {
				return fmt.Errorf("creating temporary Parquet file: %w", err)
			}
			pw, err := parquetio.NewWriter(tmp, w.out.schema, parquetio.WriterOptions{TempDir: w.s.TempDir, Compression: w.s.Config.ParquetCodec})
			if err != nil {
				tmp.Close()
				os.Remove(tmp.Name())
				return fmt.Errorf("creating Parquet writer: %w", err)
			}
			w.tmp, w.pw, w.rows = tmp, pw, 0
		}
		n := min(len(rows), w.target()-w.rows)
		if err := w.pw.Write(rows[:n]); err != nil {
			return fmt.Errorf("writing Parquet: %w", err)
		}
		w.rows += n
		rows = rows[n:]
		if w.rows >= w.target() {
			if err := w.close(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// close finishes the open file and uploads it.
func (w *fileRoller) close(ctx context.Context) error {
	if w.pw == nil {
		return nil
	}
	tmp, pw := w.tmp, w.pw
	w.tmp, w.pw = nil, nil
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	stats, err := pw.Close()
	if err != nil {
		return fmt.Errorf("finishing Parquet file: %w", err)
	}
	size, err := tmp.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	key := fmt.Sprintf("part-%05d-%s-c000%s.parquet", w.seq, uuid.NewString(), parquetio.CodecInfix(w.s.Config.ParquetCodec))
	w.seq++
	if err := w.s.Sink.Store().Put(ctx, key, tmp); err != nil {
		return fmt.Errorf("uploading data file %s: %w", key, err)
	}
	w.out.written = append(w.out.written, key)
	stats.TightBounds = false
	js, err := stats.JSON()
	if err != nil {
		return err
	}
	w.out.adds = append(w.out.adds, delta.Add{
		Path: delta.EncodePath(key), PartitionValues: map[string]*string{}, Size: size,
		ModificationTime: w.s.now().UnixMilli(), DataChange: true, Stats: js,
	})
	w.out.outBytes += size
	return nil
}

// abort drops a file still being written.
func (w *fileRoller) abort() {
	if w.tmp != nil {
		w.tmp.Close()
		os.Remove(w.tmp.Name())
		w.tmp, w.pw = nil, nil
	}
}

// commit writes the batch as one sink commit carrying txn{appId, batch}.
// A sink whose schema lacks source columns evolves (mergeSchema, the
// default); a sink whose columns the source no longer has, or that is
// partitioned, needs a full refresh.
func (s *Source) commit(ctx context.Context, p *Plan, out *output) (delta.CommitResult, error) {
	mp, err := s.planMerge(ctx, p, out)
	if err != nil {
		return delta.CommitResult{}, err
	}
	rp, err := s.planReplace(ctx, p, out)
	if err != nil {
		return delta.CommitResult{}, err
	}
	build := func(snap *delta.Snapshot) ([]delta.Action, error) {
		var acts []delta.Action
		if snap == nil {
			js, err := schema.MarshalDeltaJSON(out.schema)
			if err != nil {
				return nil, err
			}
			created := s.now().UnixMilli()
			md := &delta.Metadata{
				ID: uuid.NewString(), Format: delta.Format{Provider: "parquet", Options: map[string]string{}},
				SchemaString: js, PartitionColumns: []string{}, Configuration: map[string]string{}, CreatedTime: &created,
			}
			proto := delta.ProtocolFor(delta.HasTimestampNTZ(out.schema), md.Configuration)
			acts = append(acts, delta.Action{Protocol: &proto}, delta.Action{Metadata: md})
		} else if s.overwritesSchema() {
			meta, err := s.replaceSchema(snap, out.schema)
			if err != nil {
				return nil, err
			}
			acts = append(acts, meta...)
		} else {
			if len(snap.Metadata.PartitionColumns) > 0 {
				return nil, fmt.Errorf("%w: the sink table is partitioned by %v; a Delta-source stream writes an unpartitioned table", ingest.ErrFullRefreshNeeded, snap.Metadata.PartitionColumns)
			}
			if why := sinkCompatible(snap.Schema(), out.schema, ""); why != "" {
				return nil, fmt.Errorf("%w: sink column: %s in the source", ingest.ErrFullRefreshNeeded, why)
			}
			if !schema.Equal(snap.Schema(), out.schema) {
				if s.Config.NoMergeSchema {
					return nil, fmt.Errorf("mergeSchema=false: the source has columns the sink table does not have (source %s, sink %s): set mergeSchema=true to add them",
						schema.DDLType(out.schema), schema.DDLType(snap.Schema()))
				}
				md := snap.Metadata
				merged := snap.Schema().Clone()
				for _, f := range out.schema.Fields {
					if merged.FieldIndex(f.Name) < 0 {
						merged.Fields = append(merged.Fields, f)
					}
				}
				if !schema.Equal(snap.Schema(), merged) {
					js, err := schema.MarshalDeltaJSON(merged)
					if err != nil {
						return nil, err
					}
					md.SchemaString = js
					acts = append(acts, delta.Action{Metadata: &md})
				}
			}
		}
		acts, err := s.sinkActions(snap, mp, rp, out, acts)
		if err != nil {
			return nil, err
		}
		ci := &delta.CommitInfo{
			Operation: "STREAMING UPDATE",
			OperationParameters: map[string]any{
				"outputMode": s.outputModeName(),
				"queryId":    s.Config.StreamID,
				"epochId":    strconv.FormatInt(p.BatchID, 10),
			},
			OperationMetrics: map[string]any{
				"numOutputRows":  strconv.FormatInt(out.rows, 10),
				"numAddedFiles":  strconv.Itoa(len(out.adds)),
				"numOutputBytes": strconv.FormatInt(out.outBytes, 10),
				"numSourceFiles": strconv.Itoa(len(p.Files)),
			},
			EngineInfo: "tributary",
			Extra: map[string]any{"deltaSource": map[string]any{
				"table": s.Config.SourceURI, "startOffset": p.Start.String(), "endOffset": p.End.String(),
				"lostFiles": out.skipped,
			}},
		}
		if mp != nil {
			mp.CommitInfo(ci, s.Config.MergeKeys)
		}
		if rp != nil {
			rp.CommitInfo(ci, nil)
		}
		acts = append(acts, delta.Action{CommitInfo: ci})
		return acts, nil
	}
	// lastCommitted listed the sink's log for this batch: the commit goes
	// straight to the put-if-absent (a writer since makes it fail, which
	// brings s.snap up to date and runs build again).
	res, err := s.Sink.CommitTxnAt(ctx, s.snap, s.Config.appID(), p.BatchID, build)
	if mp != nil && (err != nil || res.AlreadyCommitted) {
		mp.Discard(context.WithoutCancel(ctx), s.sinkFiles())
	}
	if rp != nil && (err != nil || res.AlreadyCommitted) {
		rp.Discard(context.WithoutCancel(ctx), s.sinkFiles())
	}
	if err != nil {
		s.snap = nil
		return res, fmt.Errorf("committing to the sink Delta table: %w", err)
	}
	if res.Snapshot != nil {
		s.snap = res.Snapshot // a new sink table's first version too
	}
	if !res.AlreadyCommitted {
		s.maybeCheckpoint(ctx, res.Version)
	}
	return res, nil
}

// maybeCheckpoint writes a sink checkpoint when one is due (failures are
// only logged: the batch is committed).
func (s *Source) maybeCheckpoint(ctx context.Context, version int64) {
	if s.snap == nil {
		snap, err := s.Sink.Snapshot(ctx)
		if err != nil {
			return
		}
		s.snap = snap
	}
	if _, err := s.Sink.MaybeCheckpoint(ctx, s.snap, version); err != nil {
		s.snap = nil
		s.log_().Warn("writing checkpoint failed", "version", version, "error", err.Error())
	}
}
