package lambdafn

import (
	"context"
	"errors"
	"fmt"

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
	// NumNewListedFiles is the number of files the events had missed.
	NumNewListedFiles int `json:"numNewListedFiles"`
	// Error is set when the stream's backfill failed.
	Error string `json:"error,omitempty"`
}

// HandleBackfill lists every stream's source and registers files whose
// events were lost (cloudFiles.backfillInterval), then kicks the commit
// function for streams with new files. Each stream is backfilled
// independently; the invocation fails if any stream failed, after trying all.
func (a *App) HandleBackfill(ctx context.Context, _ any) (BackfillResult, error) {
	out := BackfillResult{Streams: map[string]StreamBackfill{}}
	var errs []error
	for _, opts := range a.Config.Streams {
		sb, err := a.backfillStream(ctx, opts.ID)
		if err != nil {
			sb.Error = err.Error()
			errs = append(errs, fmt.Errorf("stream %q: %w", opts.ID, err))
		}
		out.Streams[opts.ID] = sb
		a.Logger.Info("backfill done", "stream", opts.ID, "numListedFiles", sb.NumListedFiles,
			"numNewListedFiles", sb.NumNewListedFiles, "error", sb.Error)
	}
	return out, errors.Join(errs...)
}

func (a *App) backfillStream(ctx context.Context, id string) (StreamBackfill, error) {
	s, err := a.stream(ctx, id)
	if err != nil {
		return StreamBackfill{}, err
	}
	if s.Options.SourceFormat == options.SourceDelta {
		// A Delta source has nothing to list: the schedule kicks its
		// commit function, which reads any commit an event missed.
		return StreamBackfill{}, a.kick(ctx, id, tevents.ReasonBackfill)
	}
	res, err := s.Discover(ctx)
	sb := StreamBackfill{NumListedFiles: res.Listed, NumNewListedFiles: res.New}
	if err != nil {
		return sb, err
	}
	if res.New > 0 {
		if err := a.kick(ctx, id, tevents.ReasonBackfill); err != nil {
			return sb, err
		}
	}
	return sb, nil
}
