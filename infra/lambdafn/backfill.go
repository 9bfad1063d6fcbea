package lambdafn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/tributary-io/tributary/core/discovery"
	"github.com/tributary-io/tributary/core/options"
	tevents "github.com/tributary-io/tributary/events"
	"github.com/tributary-io/tributary/infra/streams"
)

// BackfillResult reports one backfill run per stream.
type BackfillResult struct {
	// Streams maps stream id to its listing result.
	Streams map[string]StreamBackfill `json:"streams"`
	// Continuation is the number of this run in a chain of continuations
	// (0: a scheduled run).
	Continuation int `json:"continuation,omitempty"`
	// ContinueError is set when the streams whose listing stopped could
	// not be handed to a continuation: the next scheduled run resumes
	// them.
	ContinueError string `json:"continueError,omitempty"`
}

// BackfillEvent is the backfill function's payload. The schedule's event
// (an EventBridge "Scheduled Event") has none of these fields: every
// stream is backfilled. A continuation — the function invoking itself
// asynchronously when a listing stopped before the deadline — names the
// streams to resume: {"continue":["a","b"],"continuation":3}.
type BackfillEvent struct {
	// Continue lists the streams whose stopped listing pass this run
	// resumes; only those, and a stream whose pass is no longer pending
	// (another run completed it) is not listed again.
	Continue []string `json:"continue,omitempty"`
	// Continuation counts the continuations of the chain, this one
	// included (MaxBackfillContinuations bounds it).
	Continuation int `json:"continuation,omitempty"`
}

// MaxBackfillContinuations bounds a chain of continuations that a
// scheduled run starts (App.MaxContinuations overrides it): at about 18
// million known files checked per invocation, 96 continuations cover well
// over a billion files; past it, the next scheduled run resumes the pass.
const MaxBackfillContinuations = 96

// Continuer starts a continuation of the backfill function.
type Continuer interface {
	Continue(ctx context.Context, ev BackfillEvent) error
}

// AsyncInvoker is the Continuer of the deployed function: an asynchronous
// (InvocationType Event) invocation of the function itself, which Lambda
// queues and retries as it does the schedule's invocations (the function's
// EventInvokeConfig: two retries, then the on-failure queue).
type AsyncInvoker struct {
	// Client invokes the function.
	Client Invoker
	// Function is the backfill function's name or ARN.
	Function string
}

// Continue invokes the function asynchronously with ev.
func (r AsyncInvoker) Continue(ctx context.Context, ev BackfillEvent) error {
	payload, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	out, err := r.Client.Invoke(ctx, &lambda.InvokeInput{
		FunctionName:   aws.String(r.Function),
		InvocationType: lambdatypes.InvocationTypeEvent,
		Payload:        payload,
	})
	if err != nil {
		return fmt.Errorf("invoking %s asynchronously: %w", r.Function, err)
	}
	if out.StatusCode != 0 && out.StatusCode != 202 {
		return fmt.Errorf("invoking %s asynchronously: status %d, want 202", r.Function, out.StatusCode)
	}
	return nil
}

// StreamBackfill is one stream's backfill outcome.
type StreamBackfill struct {
	// NumListedFiles is the number of accepted files the listing saw.
	NumListedFiles int `json:"numListedFiles"`
	// NumNewListedFiles is the number of files the events had missed (in
	// directory listing mode: the new files the listing found).
	NumNewListedFiles int `json:"numNewListedFiles"`
	// Stopped is set when the listing ran out of time: its position is in
	// the stream's checkpoint (listing.json) and the next run resumes it.
	Stopped bool `json:"stopped,omitempty"`
	// Continued is set when the stopped listing was handed to a
	// continuation: an asynchronous invocation of the backfill function
	// that resumes it at once (BackfillEvent.Continue).
	Continued bool `json:"continued,omitempty"`
	// Parts is the number of key ranges the listing pass is split into.
	Parts int `json:"parts,omitempty"`
	// PartsLeft is how many of them the pass has still to list.
	PartsLeft int `json:"partsLeft,omitempty"`
	// PassRuns is how many runs have worked on the pass, this one included.
	PassRuns int `json:"passRuns,omitempty"`
	// Error is set when the stream's backfill failed.
	Error string `json:"error,omitempty"`
}

// backfillConcurrency bounds how many streams one backfill run lists at
// once (each listing reads up to streams.ListWorkers key ranges at once):
// every stream gets a share of the invocation, none waits for the others.
const backfillConcurrency = 4

// HandleBackfill lists every stream's source and registers the files not
// yet known: for a stream in file notification mode the files whose events
// were lost (cloudFiles.backfillInterval, always a full listing), for a
// stream in directory listing mode (cloudFiles.useNotifications=false) its
// new files (after the last key seen when
// cloudFiles.useIncrementalListing=true). It kicks the commit function for
// streams with new files. A listing stops before the invocation's deadline
// (less TimeMargin) and the next run resumes it where it stopped. Each
// stream is backfilled independently; the invocation fails if any stream
// failed, after trying all.
//
// A run whose listing of some streams stopped before the deadline hands
// them to a continuation (App.Continuer): the function invokes itself
// asynchronously with BackfillEvent{Continue: those streams}, so a pass
// that needs several invocations runs them back to back instead of one per
// BackfillInterval. A continuation resumes only the named streams' stopped
// passes and never starts a new one; chains are bounded by
// MaxBackfillContinuations. ev is nil or empty for a scheduled run.
func (a *App) HandleBackfill(ctx context.Context, ev *BackfillEvent) (BackfillResult, error) {
	if ev == nil {
		ev = &BackfillEvent{}
	}
	out := BackfillResult{Streams: map[string]StreamBackfill{}, Continuation: ev.Continuation}
	resume := len(ev.Continue) > 0
	ids := ev.Continue
	if !resume {
		for _, opts := range a.Config.Streams {
			ids = append(ids, opts.ID)
		}
	}
	stopAt := a.listingStop(ctx)
	// A run without time to list (a time margin as long as the timeout)
	// starts no continuation: it would stop at once again.
	budgeted := stopAt.After(a.listingNow()())
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		more []string // streams whose listing stopped
	)
	sem := make(chan struct{}, backfillConcurrency)
	for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
		if _, ok := a.Config.Stream(id); !ok {
			errs = append(errs, fmt.Errorf("%w: backfill continuation: unknown stream %q", ErrBadInvocation, id))
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			sb, err := a.backfillStream(ctx, id, stopAt, resume)
			if err != nil {
				sb.Error = err.Error()
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("stream %q: %w", id, err))
			}
			if err == nil && sb.Stopped && budgeted {
				more = append(more, id)
			}
			out.Streams[id] = sb
		}()
	}
	wg.Wait()
	slices.Sort(more)
	if len(more) > 0 && a.Continuer == nil {
		a.Logger.Info("listing stopped; no continuation configured, the next scheduled run resumes it", "streams", more)
	} else if len(more) > 0 {
		if err := a.continueBackfill(ctx, ev.Continuation, more); err != nil {
			out.ContinueError = err.Error()
			a.Logger.Error("backfill continuation not started; the next scheduled run resumes the listing",
				"streams", more, "continuation", ev.Continuation+1, "error", err.Error())
		} else {
			for _, id := range more {
				sb := out.Streams[id]
				sb.Continued = true
				out.Streams[id] = sb
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(out.Streams)) {
		sb := out.Streams[id]
		a.Logger.Info("backfill done", "stream", id, "numListedFiles", sb.NumListedFiles,
			"numNewListedFiles", sb.NumNewListedFiles, "stopped", sb.Stopped, "continued", sb.Continued,
			"continuation", ev.Continuation, "parts", sb.Parts, "partsLeft", sb.PartsLeft, "passRuns", sb.PassRuns, "error", sb.Error)
	}
	return out, errors.Join(errs...)
}

// ErrContinuationsExhausted is reported (BackfillResult.ContinueError) when
// a chain of continuations reached its bound: the next scheduled run
// resumes the listing.
var ErrContinuationsExhausted = errors.New("backfill continuations exhausted")

// continueBackfill starts continuation n+1 for the streams, unless the
// chain reached its bound.
func (a *App) continueBackfill(ctx context.Context, n int, streams []string) error {
	limit := a.MaxContinuations
	if limit <= 0 {
		limit = MaxBackfillContinuations
	}
	if n >= limit {
		return fmt.Errorf("%w: %d of %d", ErrContinuationsExhausted, n, limit)
	}
	return a.Continuer.Continue(ctx, BackfillEvent{Continue: streams, Continuation: n + 1})
}

// listingStop is when a listing stops taking keys, on the listing clock:
// the invocation's deadline less TimeMargin, or, without a deadline (a
// direct call), maxListingRun from now.
func (a *App) listingStop(ctx context.Context) time.Time {
	budget := maxListingRun
	if deadline, ok := ctx.Deadline(); ok {
		margin := a.TimeMargin
		if margin <= 0 {
			margin = DefaultTimeMargin
		}
		budget = time.Until(deadline) - margin
	}
	return a.listingNow()().Add(budget)
}

// listingNow is the clock listings measure their budget on.
func (a *App) listingNow() func() time.Time {
	if a.ListingClock != nil {
		return a.ListingClock
	}
	return time.Now
}

func (a *App) backfillStream(ctx context.Context, id string, stopAt time.Time, resume bool) (StreamBackfill, error) {
	s, err := a.stream(ctx, id)
	if err != nil {
		return StreamBackfill{}, err
	}
	if resume {
		res, err := s.ResumeUntil(ctx, stopAt, a.listingNow())
		return a.listed(ctx, s, res, err)
	}
	if s.Options.SourceFormat == options.SourceDelta {
		// A Delta source has nothing to list: the schedule kicks its
		// commit function, which reads any commit an event missed.
		return StreamBackfill{}, a.kick(ctx, id, tevents.ReasonBackfill)
	}
	res, err := s.DiscoverUntil(ctx, stopAt, a.listingNow())
	return a.listed(ctx, s, res, err)
}

// listed reports a stream's listing run and kicks its commit function when
// the listing found new files.
func (a *App) listed(ctx context.Context, s *streams.Stream, res discovery.Result, err error) (StreamBackfill, error) {
	id := s.Options.ID
	sb := StreamBackfill{NumListedFiles: res.Listed, NumNewListedFiles: res.New, Stopped: res.Stopped,
		Parts: res.Parts, PartsLeft: res.PartsLeft, PassRuns: res.PassRuns}
	if err != nil {
		return sb, err
	}
	if res.New > 0 {
		reason := tevents.ReasonBackfill
		if !s.Options.CloudFiles.UseNotifications {
			reason = tevents.ReasonDiscovered // the listing is this stream's discovery
		}
		if err := a.kick(ctx, id, reason); err != nil {
			return sb, err
		}
	}
	return sb, nil
}

// maxListingRun bounds a listing run whose context has no deadline (a
// Lambda invocation lasts at most 15 minutes): the listing still keeps its
// position in the checkpoint.
const maxListingRun = 15*time.Minute - DefaultTimeMargin
