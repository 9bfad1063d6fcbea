// Package lambdafn holds the AWS Lambda handlers of Tributary's three
// functions — discovery (SQS object events → file state), backfill
// (scheduled listing) and commit (per-stream, serialised batches into the
// Delta table) — on top of the stream wiring in infra/streams. The
// functions/* mains only load the configuration and start these handlers.
package lambdafn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/events"
	"github.com/tributary-io/tributary/infra/streams"
)

// Environment variables the functions read.
const (
	// EnvConfig holds the streams configuration as JSON (options.LoadConfig format).
	EnvConfig = "TRIBUTARY_CONFIG"
	// EnvStateTable is the DynamoDB file-state table.
	EnvStateTable = "TRIBUTARY_STATE_TABLE"
	// EnvKickQueueURL is the commit kick FIFO queue.
	EnvKickQueueURL = "TRIBUTARY_KICK_QUEUE_URL"
	// EnvTimeMargin is how long before its deadline the commit function stops
	// starting batches (a Go duration, default 2m).
	EnvTimeMargin = "TRIBUTARY_TIME_MARGIN"
)

// Kicker asks for a commit run of a stream.
type Kicker interface {
	Kick(ctx context.Context, k events.Kick) error
}

// App is the shared state of a function instance: configuration, adapters
// and opened streams (kept across warm invocations).
type App struct {
	// Config lists the streams this deployment serves.
	Config *options.Config
	// Env opens adapters.
	Env streams.Env
	// Kicker sends commit kicks.
	Kicker Kicker
	// Logger receives structured logs.
	Logger *slog.Logger
	// Metrics receives one Embedded Metric Format line per committed batch
	// (os.Stdout in Lambda, where CloudWatch Logs picks it up).
	Metrics io.Writer
	// TimeMargin is kept free before the invocation deadline.
	TimeMargin time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	mu     sync.Mutex
	opened map[string]*streams.Stream
}

// LoadConfig parses the streams configuration from EnvConfig, failing at
// start-up (not on the first event) when it is missing or invalid.
func LoadConfig() (*options.Config, error) {
	raw := os.Getenv(EnvConfig)
	if strings.TrimSpace(raw) == "" {
		return nil, fmt.Errorf("%s is not set: the function has no stream configuration", EnvConfig)
	}
	cfg, err := options.LoadConfig(strings.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvConfig, err)
	}
	return cfg, nil
}

func (a *App) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// stream returns the opened stream with the given id.
func (a *App) stream(ctx context.Context, id string) (*streams.Stream, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s, ok := a.opened[id]; ok {
		return s, nil
	}
	opts, ok := a.Config.Stream(id)
	if !ok {
		return nil, fmt.Errorf("unknown stream %q", id)
	}
	s, err := a.Env.Open(ctx, opts)
	if err != nil {
		return nil, err
	}
	if a.opened == nil {
		a.opened = map[string]*streams.Stream{}
	}
	a.opened[id] = s
	return s, nil
}

// route finds the stream whose S3 source holds bucket/key and returns the
// key relative to the stream's source prefix.
func (a *App) route(bucket, key string) (*options.Stream, string, bool) {
	for _, s := range a.Config.Streams {
		if !streams.IsS3(s.Source) {
			continue
		}
		b, prefix, ok := strings.Cut(strings.TrimPrefix(s.Source, "s3://"), "/")
		if !ok {
			prefix = ""
		}
		if b != bucket {
			continue
		}
		if prefix != "" && !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
		if rel, ok := strings.CutPrefix(key, prefix); ok && rel != "" {
			return s, rel, true
		}
	}
	return nil, "", false
}

func (a *App) kick(ctx context.Context, stream, reason string) error {
	if a.Kicker == nil {
		return errors.New("no kick queue configured")
	}
	return a.Kicker.Kick(ctx, events.Kick{Stream: stream, Reason: reason, At: a.now()})
}
