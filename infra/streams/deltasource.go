package streams

import (
	"context"
	"fmt"

	"github.com/tributary-io/tributary/core/delta"
	"github.com/tributary-io/tributary/core/deltasource"
	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/options"
)

// openDelta opens a stream whose source is a Delta table (bronze ->
// silver): the source table (local or s3://, read only), the sink table and
// the checkpoint holding the batch plans. It has no file state and nothing
// to discover; its engine runs deltasource batches.
func (env Env) openDelta(ctx context.Context, opts *options.Stream, cfg ingest.Config) (*Stream, error) {
	dcfg, err := deltasource.ConfigFromOptions(opts)
	if err != nil {
		return nil, err
	}
	dcfg.SourceURI = absLocation(opts.Source)
	s := &Stream{Options: opts}
	ok := false
	defer func() {
		if !ok {
			s.Close()
		}
	}()
	srcStore, err := env.OpenExistingStore(opts.Source)
	if err != nil {
		return nil, fmt.Errorf("stream %q source table: %w", opts.ID, err)
	}
	s.Source = srcStore
	s.own(srcStore)
	tableStore, err := env.OpenStore(opts.Table)
	if err != nil {
		return nil, fmt.Errorf("stream %q table: %w", opts.ID, err)
	}
	s.own(tableStore)
	cp, err := env.OpenStore(opts.CheckpointLocation())
	if err != nil {
		return nil, fmt.Errorf("stream %q checkpointLocation: %w", opts.ID, err)
	}
	s.own(cp)
	s.Table = delta.NewTable(tableStore, delta.WithLogger(env.logger()), delta.WithEngineInfo("tributary"))
	src := &deltasource.Source{
		Config:     dcfg,
		Table:      delta.NewTable(srcStore, delta.WithLogger(env.logger()), delta.WithLocation(dcfg.SourceURI)),
		Sink:       s.Table,
		Checkpoint: cp,
		Logger:     env.logger(),
		TempDir:    env.TempDir,
	}
	cfg.SourceURI = dcfg.SourceURI
	cfg.TableURI = absLocation(opts.Table)
	cfg.CheckpointURI = absLocation(opts.CheckpointLocation())
	s.Engine = &ingest.Engine{
		Config:     cfg,
		Source:     srcStore,
		Table:      s.Table,
		Checkpoint: cp,
		Logger:     env.logger(),
		TempDir:    env.TempDir,
		Runner:     src,
	}
	if err := s.Engine.CheckIdentity(ctx); err != nil {
		return nil, err
	}
	env.removeStaleTemp(ctx, opts.ID, tableStore, cp)
	ok = true
	return s, nil
}
