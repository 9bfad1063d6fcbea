package lambdafn

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tributary-io/tributary/core/options"
	tevents "github.com/tributary-io/tributary/events"
)

// BackfillResult reports one backfill run per stream.
type BackfillResult struct {
	// Streams maps stream id to its listing result.
	Streams map[string]StreamBackfill `json:"streams"`
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
func (a *App) HandleBackfill(ctx context.Context, _ any) (BackfillResult, error) {
	out := BackfillResult{Streams: map[string]StreamBackfill{}}
	stopAt := a.listingStop(ctx)
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	sem := make(chan struct{}, backfillConcurrency)
	for _, opts := range a.Config.Streams {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			sb, err := a.backfillStream(ctx, opts.ID, stopAt)
			if err != nil {
				sb.Error = err.Error()
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, fmt.Errorf("stream %q: %w", opts.ID, err))
			}
			out.Streams[opts.ID] = sb
			a.Logger.Info("backfill done", "stream", opts.ID, "numListedFiles", sb.NumListedFiles,
				"numNewListedFiles", sb.NumNewListedFiles, "stopped", sb.Stopped, "parts", sb.Parts,
				"partsLeft", sb.PartsLeft, "passRuns", sb.PassRuns, "error", sb.Error)
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
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

func (a *App) backfillStream(ctx context.Context, id string, stopAt time.Time) (StreamBackfill, error) {
	s, err := a.stream(ctx, id)
	if err != nil {
		return StreamBackfill{}, err
	}
	if s.Options.SourceFormat == options.SourceDelta {
		// A Delta source has nothing to list: the schedule kicks its
		// commit function, which reads any commit an event missed.
		return StreamBackfill{}, a.kick(ctx, id, tevents.ReasonBackfill)
	}
	res, err := s.DiscoverUntil(ctx, stopAt, a.listingNow())
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
