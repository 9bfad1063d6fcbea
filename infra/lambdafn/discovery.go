package lambdafn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/state"
	tevents "github.com/tributary-io/tributary/events"
	"github.com/tributary-io/tributary/infra/streams"
)

// DiscoveryResult counts what one discovery invocation did.
type DiscoveryResult struct {
	Messages, Failed, Notifications, Registered, Ignored int
}

// HandleDiscovery registers the files named by a batch of SQS messages. A
// message that cannot be parsed, or whose files cannot be registered, is
// reported as a batch item failure: SQS retries it alone and, after the
// redrive limit, moves it to the dead-letter queue. The other messages of
// the batch are unaffected. Streams with new files get a commit kick.
func (a *App) HandleDiscovery(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	resp, _ := a.discover(ctx, ev)
	return resp, nil
}

func (a *App) discover(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, DiscoveryResult) {
	var resp events.SQSEventResponse
	res := DiscoveryResult{Messages: len(ev.Records)}
	type pending struct {
		files    []state.File
		messages map[string]bool
	}
	byStream := map[string]*pending{}
	deltaKicks := map[string]map[string]bool{} // Delta-source stream -> messages naming a new commit
	failed := map[string]bool{}
	fail := func(id string) {
		if !failed[id] {
			failed[id] = true
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: id})
		}
	}
	for _, m := range ev.Records {
		notes, err := tevents.Parse([]byte(m.Body))
		if err != nil {
			a.Logger.Error("malformed notification message: it will reach the dead-letter queue",
				"messageId", m.MessageId, "error", err.Error(), "body", truncate(m.Body, 512))
			fail(m.MessageId)
			continue
		}
		for _, n := range notes {
			res.Notifications++
			if n.Kind != tevents.Created {
				a.Logger.Info("ignoring event", "kind", n.Kind.String(), "event", n.EventName,
					"bucket", n.Bucket, "key", n.Key, "messageId", m.MessageId)
				res.Ignored++
				continue
			}
			opts, rel, ok := a.route(n.Bucket, n.Key)
			if !ok {
				a.Logger.Info("ignoring object outside every stream's source", "bucket", n.Bucket, "key", n.Key)
				res.Ignored++
				continue
			}
			if opts.SourceFormat == options.SourceDelta {
				// A Delta source is read from its log: a new commit file
				// kicks the commit function; data files wait for theirs.
				if !isDeltaCommit(rel) {
					res.Ignored++
					continue
				}
				if deltaKicks[opts.ID] == nil {
					deltaKicks[opts.ID] = map[string]bool{}
				}
				deltaKicks[opts.ID][m.MessageId] = true
				continue
			}
			if !opts.CloudFiles.UseNotifications {
				// Directory listing mode: the scheduled listing finds the
				// stream's files; its events are not used.
				a.Logger.Debug("ignoring event of a directory listing stream", "stream", opts.ID, "key", n.Key)
				res.Ignored++
				continue
			}
			s, err := a.stream(ctx, opts.ID)
			if err != nil {
				a.Logger.Error("cannot open stream", "stream", opts.ID, "error", err.Error(), "messageId", m.MessageId)
				fail(m.MessageId)
				continue
			}
			if !s.Filter.Accept(rel) {
				a.Logger.Info("ignoring object rejected by the stream filter", "stream", opts.ID, "key", n.Key)
				res.Ignored++
				continue
			}
			mod, ok := a.modTime(ctx, s, rel, n.EventTime, m.MessageId)
			if !ok {
				fail(m.MessageId)
				continue
			}
			if !s.Filter.AcceptModTime(mod) {
				a.Logger.Info("ignoring object outside modifiedAfter/modifiedBefore", "stream", opts.ID, "key", n.Key, "lastModified", mod)
				res.Ignored++
				continue
			}
			p := byStream[opts.ID]
			if p == nil {
				p = &pending{messages: map[string]bool{}}
				byStream[opts.ID] = p
			}
			p.files = append(p.files, state.File{Path: rel, Size: n.Size, ETag: n.ETag, ModTime: mod})
			p.messages[m.MessageId] = true
		}
	}
	for id, p := range byStream {
		s, err := a.stream(ctx, id)
		if err == nil {
			var n int
			n, _, err = s.Registrar.Register(ctx, p.files)
			res.Registered += n
			if err == nil && n > 0 {
				err = a.kick(ctx, id, tevents.ReasonDiscovered)
				if err != nil {
					err = fmt.Errorf("registered %d files but could not kick the commit function: %w", n, err)
				}
			}
		}
		if err != nil {
			// Registration is idempotent: retrying these messages is safe.
			a.Logger.Error("registering files failed; their messages will be retried", "stream", id, "error", err.Error())
			for mid := range p.messages {
				fail(mid)
			}
		}
	}
	for id, msgs := range deltaKicks {
		if err := a.kick(ctx, id, tevents.ReasonDiscovered); err != nil {
			a.Logger.Error("a Delta source committed but the commit function could not be kicked; the messages will be retried", "stream", id, "error", err.Error())
			for mid := range msgs {
				fail(mid)
			}
		}
	}
	res.Failed = len(resp.BatchItemFailures)
	a.Logger.Info("discovery done", "messages", res.Messages, "failed", res.Failed,
		"notifications", res.Notifications, "registered", res.Registered, "ignored", res.Ignored)
	return resp, res
}

// modTime returns the modification time to register an object with: the
// event's time, or, when the stream filters on modification times
// (modifiedAfter, modifiedBefore), the object's LastModified as a listing
// sees it (for a multipart upload it is when the upload started, which the
// event time is not). An object deleted since its event keeps the event
// time (its batch records it SKIPPED). ok is false when the object could
// not be read: the message is retried.
func (a *App) modTime(ctx context.Context, s *streams.Stream, rel string, eventTime time.Time, messageID string) (time.Time, bool) {
	if !s.Filter.HasTimeBounds() {
		return eventTime, true
	}
	info, err := s.Source.Head(ctx, rel)
	switch {
	case err == nil:
		return info.ModTime, true
	case errors.Is(err, objstore.ErrNotFound):
		return eventTime, true
	}
	a.Logger.Error("cannot read the object's LastModified for modifiedAfter/modifiedBefore; the message will be retried",
		"stream", s.Options.ID, "key", rel, "messageId", messageID, "error", err.Error())
	return time.Time{}, false
}

// isDeltaCommit reports whether a key relative to a Delta source table is
// one of its commit files (_delta_log/<version>.json).
func isDeltaCommit(rel string) bool {
	name, ok := strings.CutPrefix(rel, "_delta_log/")
	return ok && !strings.Contains(name, "/") && strings.HasSuffix(name, ".json") && len(name) == 25
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
