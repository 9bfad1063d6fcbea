package lambdafn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/ingest/identity"
	"github.com/tributary-io/tributary/core/options"
	tevents "github.com/tributary-io/tributary/events"
	"github.com/tributary-io/tributary/infra/streams"
)

// DefaultTimeMargin is kept free before the invocation deadline.
const DefaultTimeMargin = 2 * time.Minute

// HandleCommit runs availableNow batches for each stream named by the kicks
// until its backlog is empty or the invocation's time is nearly spent; then
// it kicks the stream again so another invocation carries on. A kick that
// cannot be parsed is reported as failed (it reaches the kick DLQ); a stream
// whose run fails is reported as failed so SQS retries it. A kick with an
// Action (a queued reset, see HandleCommitInvoke) runs the reset in its
// place in the stream's group; when it fails, it and the stream's later
// kicks of the batch are reported as failed, so they are retried in order.
func (a *App) HandleCommit(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	var resp events.SQSEventResponse
	seen := map[string]bool{}
	blocked := map[string]bool{} // streams whose reset failed in this batch
	for _, m := range ev.Records {
		k, err := tevents.UnmarshalKick([]byte(m.Body))
		if err != nil {
			a.Logger.Error("malformed kick message", "messageId", m.MessageId, "error", err.Error())
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
			continue
		}
		if blocked[k.Stream] {
			// Behind a failed reset: retried after it, in order.
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
			continue
		}
		if k.Action != "" {
			if err := a.resetStream(ctx, k.Stream, k.Action); err != nil {
				a.Logger.Error("reset failed; it will be retried", "stream", k.Stream, "action", k.Action, "error", err.Error())
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
				blocked[k.Stream] = true
			}
			seen[k.Stream] = false // a later kick of the batch runs the new checkpoint
			continue
		}
		if seen[k.Stream] {
			continue // one run drains the backlog for every kick of the batch
		}
		seen[k.Stream] = true
		if err := a.commitStream(ctx, k.Stream); err != nil {
			a.Logger.Error("commit run failed; the kick will be retried", "stream", k.Stream, "error", err.Error())
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: m.MessageId})
		}
	}
	return resp, nil
}

func (a *App) commitStream(ctx context.Context, id string) error {
	s, err := a.stream(ctx, id)
	if err != nil {
		return err
	}
	margin := a.TimeMargin
	if margin <= 0 {
		margin = DefaultTimeMargin
	}
	deadline, hasDeadline := ctx.Deadline()
	depth := int64(-1)
	if a.QueueDepth != nil {
		// One call per invocation, not per batch.
		if d, err := a.QueueDepth(ctx); err == nil {
			depth = d
		} else {
			a.Logger.Warn("cannot read the events queue depth", "error", err.Error())
		}
	}
	s.Engine.OnBatch = func(p ingest.Progress) {
		p.ApproximateQueueSize = depth
		if a.Metrics != nil {
			if err := p.WriteEMF(a.Metrics); err != nil {
				a.Logger.Warn("writing metrics failed", "error", err.Error())
			}
		}
	}
	var slowest time.Duration
	keepGoing := func() bool {
		if !hasDeadline {
			return true
		}
		// Leave the margin, and room for one more batch as slow as the slowest so far.
		return time.Until(deadline) > margin+slowest
	}
	s.Engine.OnBatch = chain(s.Engine.OnBatch, func(p ingest.Progress) {
		if d := time.Duration(p.DurationMs["triggerExecution"]) * time.Millisecond; d > slowest {
			slowest = d
		}
	})
	sum, err := s.Engine.RunAvailableNow(ctx, keepGoing)
	a.Logger.Info("commit run done", "stream", id, "batches", len(sum.Batches), "rows", sum.Rows(),
		"skippedBatches", sum.Skipped, "stoppedForTime", sum.Stopped)
	if errors.Is(err, identity.ErrRestartedByReset) {
		// Another stream's full refresh emptied the table and restarted
		// this one: it starts over from its source (seed 004), as a
		// queued reset-checkpoint would, in its place in the group.
		a.Logger.Warn("the table restarted this stream: starting over from its source", "stream", id, "reason", err.Error())
		return a.resetStream(ctx, id, tevents.ActionResetCheckpoint)
	}
	if err != nil {
		return err
	}
	if err := a.syncCatalog(ctx, s); err != nil {
		return err
	}
	if len(sum.Batches) > 0 {
		if err := a.kickDownstream(ctx, s.Options); err != nil {
			return err
		}
	}
	if sum.Stopped {
		return a.kick(ctx, id, tevents.ReasonContinue)
	}
	return nil
}

// kickDownstream kicks the Delta-source streams of this deployment that
// read up's table (bronze -> silver): a table under TablePrefix sends no S3
// events (only SourcePrefix does), so its commits are announced here.
func (a *App) kickDownstream(ctx context.Context, up *options.Stream) error {
	table := strings.TrimSuffix(up.Table, "/")
	for _, d := range a.Config.Streams {
		if d.SourceFormat != options.SourceDelta || strings.TrimSuffix(d.Source, "/") != table {
			continue
		}
		if err := a.kick(ctx, d.ID, tevents.ReasonUpstream); err != nil {
			return fmt.Errorf("stream %q committed but its downstream stream %q could not be kicked: %w", up.ID, d.ID, err)
		}
	}
	return nil
}

func chain(a, b func(ingest.Progress)) func(ingest.Progress) {
	return func(p ingest.Progress) {
		a(p)
		b(p)
	}
}

// syncCatalog registers the stream's table in the Glue Data Catalog
// (App.Catalog) when the instance has not yet registered its current schema:
// on the first run of a warm instance after a commit loaded the table, and
// after every schema change. A failure fails the kick, which comes back.
func (a *App) syncCatalog(ctx context.Context, s *streams.Stream) error {
	if a.Catalog == nil {
		return nil
	}
	snap := s.Engine.Snapshot()
	if snap == nil {
		return nil // nothing committed or loaded in this run
	}
	id := s.Options.ID
	a.mu.Lock()
	key := snap.Metadata.SchemaString + "\x00" + s.Options.Table + "\x00" + strings.Join(snap.Metadata.PartitionColumns, "\x00")
	done := a.synced[id] == key
	a.mu.Unlock()
	if done {
		return nil
	}
	name := CatalogTableName(id)
	act, err := a.Catalog.Sync(ctx, name, s.Options.Table, snap.Metadata.SchemaString, snap.Metadata.PartitionColumns)
	if err != nil {
		return fmt.Errorf("stream %q: registering the table in the Glue Data Catalog: %w", id, err)
	}
	a.Logger.Info("catalog table synced", "stream", id, "database", a.Catalog.Database, "table", name, "action", string(act))
	a.mu.Lock()
	if a.synced == nil {
		a.synced = map[string]string{}
	}
	a.synced[id] = key
	a.mu.Unlock()
	return nil
}

// CatalogTableName is the Glue table name of a stream: its id in lower case
// with every character other than a-z, 0-9 and '_' replaced by '_' (Glue and
// Athena table names).
func CatalogTableName(id string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return '_'
	}, id)
}
