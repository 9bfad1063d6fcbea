package lambdafn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/tributary-io/tributary/core/refresh"
	tevents "github.com/tributary-io/tributary/events"
)

// ErrBadInvocation is wrapped when a direct invocation of the commit
// function is neither an SQS event nor a valid reset request.
var ErrBadInvocation = errors.New("commit function: bad invocation")

// ResetRequest is the payload of a manual invocation of the commit function
// (`aws lambda invoke --payload '{"action":"refresh","stream":"ID"}'`):
// Action is events.ActionRefresh or events.ActionResetCheckpoint.
type ResetRequest struct {
	Action string `json:"action"`
	Stream string `json:"stream"`
}

// ResetQueued answers a ResetRequest: the reset was queued in the stream's
// kick group and runs when the commit runs queued before it are done.
type ResetQueued struct {
	Queued bool   `json:"queued"`
	Stream string `json:"stream"`
	Action string `json:"action"`
	// Note says where the outcome is reported.
	Note string `json:"note"`
}

// HandleCommitInvoke is the commit function's entry point. An SQS event
// (the kick queue's event source mapping) goes to HandleCommit; a
// ConvertRequest (the function invoking itself to convert one share of a
// batch, EnvMaxConverters) to HandleConvert. A manual
// invocation with a ResetRequest does not reset anything itself: it sends
// the reset as a kick to the stream's FIFO group, so that it runs between
// two commit runs of the stream and never beside one (the group delivers
// one message batch at a time), and returns ResetQueued.
func (a *App) HandleCommitInvoke(ctx context.Context, payload json.RawMessage) (any, error) {
	var probe struct {
		Records json.RawMessage `json:"Records"`
		ResetRequest
	}
	if err := json.Unmarshal(payload, &probe); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInvocation, err)
	}
	if probe.Records != nil {
		var ev events.SQSEvent
		if err := json.Unmarshal(payload, &ev); err != nil {
			return nil, fmt.Errorf("%w: SQS event: %v", ErrBadInvocation, err)
		}
		return a.HandleCommit(ctx, ev)
	}
	if probe.Action == ActionConvert {
		var req ConvertRequest
		if err := json.Unmarshal(payload, &req); err != nil {
			return nil, fmt.Errorf("%w: convert: %v", ErrBadInvocation, err)
		}
		return a.HandleConvert(ctx, req.Request)
	}
	return a.QueueReset(ctx, probe.ResetRequest)
}

// QueueReset validates req and sends it as a kick to the stream's group.
func (a *App) QueueReset(ctx context.Context, req ResetRequest) (ResetQueued, error) {
	switch req.Action {
	case tevents.ActionRefresh, tevents.ActionResetCheckpoint:
	default:
		return ResetQueued{}, fmt.Errorf("%w: action %q: want %q or %q", ErrBadInvocation, req.Action, tevents.ActionRefresh, tevents.ActionResetCheckpoint)
	}
	if _, ok := a.Config.Stream(req.Stream); !ok {
		return ResetQueued{}, fmt.Errorf("%w: unknown stream %q", ErrBadInvocation, req.Stream)
	}
	if a.Kicker == nil {
		return ResetQueued{}, errors.New("no kick queue configured")
	}
	k := tevents.Kick{Stream: req.Stream, Reason: tevents.ReasonManual, At: a.now(), Action: req.Action}
	if err := a.Kicker.Kick(ctx, k); err != nil {
		return ResetQueued{}, err
	}
	a.Logger.Info("reset queued", "stream", req.Stream, "action", req.Action)
	return ResetQueued{Queued: true, Stream: req.Stream, Action: req.Action,
		Note: "the commit function runs it in the stream's kick group and logs \"reset done\" (or the error; a failed reset is retried and then reaches the kick DLQ)"}, nil
}

// resetStream runs a queued reset (core/refresh, as `tributary refresh`
// does): the truncating (or txn-only) commit, the checkpoint and the
// stream's entries in the state table. The opened stream is then dropped
// (its engine caches checks of the old checkpoint), the source is listed
// again (its files' events will not come again) and a commit run is
// kicked.
func (a *App) resetStream(ctx context.Context, id, action string) error {
	s, err := a.stream(ctx, id)
	if err != nil {
		return err
	}
	req, release, err := a.Env.ResetRequest(s.Options, action == tevents.ActionRefresh)
	if err != nil {
		return err
	}
	defer release()
	req.State = s.State
	res, err := refresh.Reset(ctx, req)
	a.forget(id)
	if err != nil {
		return fmt.Errorf("%s of stream %q: %w", action, id, err)
	}
	a.Logger.Info("reset done", "stream", id, "action", action, "tableVersion", res.Version,
		"numRemovedFiles", res.FilesRemoved, "numRemovedBytes", res.BytesRemoved, "restartedAppIds", res.AppIDs,
		"checkpointObjects", res.CheckpointKeys, "stateEntries", res.StateEntries)
	if len(res.AppIDs) > 1 && action == tevents.ActionRefresh {
		a.Logger.Warn("other writers of the table were restarted: each starts over from its source at its next commit run", "stream", id, "appIds", res.AppIDs)
	}
	s, err = a.stream(ctx, id)
	if err != nil {
		return err
	}
	found, err := s.Discover(ctx)
	if err != nil {
		return fmt.Errorf("listing the source of stream %q after the %s: %w", id, action, err)
	}
	a.Logger.Info("source listed after the reset", "stream", id, "numListedFiles", found.Listed, "numNewListedFiles", found.New)
	// Never collapsed with an earlier kick (as a backfill kick could be).
	return a.kick(ctx, id, tevents.ReasonContinue)
}

// forget closes and drops the opened stream id.
func (a *App) forget(id string) {
	a.mu.Lock()
	s := a.opened[id]
	delete(a.opened, id)
	a.mu.Unlock()
	if s != nil {
		if err := s.Close(); err != nil {
			a.Logger.Warn("closing the stream", "stream", id, "error", err.Error())
		}
	}
}
