package lambdafn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"

	"github.com/tributary-io/tributary/core/ingest/fanout"
)

// Fan-out settings (template.yaml's MaxConverters and ConverterBytes).
const (
	// EnvMaxConverters bounds the converters of one batch (the commit
	// function invokes itself once per share); unset or 1: no fan-out.
	EnvMaxConverters = "TRIBUTARY_MAX_CONVERTERS"
	// EnvConverterBytes is the input bytes one converter takes (default
	// fanout.DefaultBytesPerConverter).
	EnvConverterBytes = "TRIBUTARY_CONVERTER_BYTES"
	// EnvFunctionName is set by Lambda to the function's own name: the
	// commit function invokes itself as converter.
	EnvFunctionName = "AWS_LAMBDA_FUNCTION_NAME"
)

// ActionConvert is the action of a converter invocation of the commit
// function (ConvertRequest).
const ActionConvert = "convert"

// ConvertRequest is the payload with which the commit function invokes
// itself to convert one share of a sealed batch: {"action":"convert",
// "stream":ID,"batch":N,"shares":S,"share":I,"schemaVersion":V,...}.
type ConvertRequest struct {
	Action string `json:"action"`
	fanout.Request
}

// ConvertDone answers a ConvertRequest: the share's report is sealed in the
// stream's checkpoint (fanout.ReportKey); these are its counts.
type ConvertDone struct {
	Stream  string `json:"stream"`
	Batch   int64  `json:"batch"`
	Share   int    `json:"share"`
	Shares  int    `json:"shares"`
	Attempt string `json:"attempt"`
	Files   int    `json:"files"`
	Rows    int64  `json:"rows"`
	Adds    int    `json:"adds"`
	// NewColumns is true when the share found data the schema lacks (the
	// committer then writes the batch unsplit).
	NewColumns bool `json:"newColumns,omitempty"`
}

// HandleConvert converts one share of a stream's sealed batch
// (ingest.Engine.ConvertShare) and seals its report.
func (a *App) HandleConvert(ctx context.Context, req fanout.Request) (ConvertDone, error) {
	if _, ok := a.Config.Stream(req.Stream); !ok {
		return ConvertDone{}, fmt.Errorf("%w: convert: unknown stream %q", ErrBadInvocation, req.Stream)
	}
	s, err := a.stream(ctx, req.Stream)
	if err != nil {
		return ConvertDone{}, err
	}
	if s.Engine == nil || s.Engine.Runner != nil {
		return ConvertDone{}, fmt.Errorf("%w: convert: stream %q reads a Delta table; its batches are not converted in shares", ErrBadInvocation, req.Stream)
	}
	r, err := s.Engine.ConvertShare(ctx, req)
	if err != nil {
		return ConvertDone{}, fmt.Errorf("stream %q batch %d share %d of %d: %w", req.Stream, req.Batch, req.Share, req.Shares, err)
	}
	done := ConvertDone{Stream: req.Stream, Batch: r.Batch, Share: r.Share, Shares: r.Shares, Attempt: r.Attempt,
		Files: r.Files, Rows: r.Rows, Adds: len(r.Adds), NewColumns: r.NewColumns != nil}
	a.Logger.Info("share converted", "stream", req.Stream, "batchId", r.Batch, "share", r.Share, "shares", r.Shares,
		"files", r.Files, "rows", r.Rows, "outputFiles", len(r.Adds), "attempt", r.Attempt)
	return done, nil
}

// Invoker is the part of the Lambda client that InvokeRunner calls.
type Invoker interface {
	Invoke(ctx context.Context, in *lambda.InvokeInput, opts ...func(*lambda.Options)) (*lambda.InvokeOutput, error)
}

// ErrConverterFailed is wrapped when a converter invocation ended with a
// function error.
var ErrConverterFailed = errors.New("converter invocation failed")

// InvokeRunner is the fan-out runner of the functions: each share is a
// synchronous invocation of the commit function itself with a
// ConvertRequest (fanout.Collect runs them in goroutines, at most
// MaxConverters at once). The converter seals the share's report in the
// checkpoint; the response only says it is done.
type InvokeRunner struct {
	// Client invokes the function.
	Client Invoker
	// Function is the commit function's name or ARN.
	Function string
	// Margin is kept free before the caller's deadline: a converter that
	// has not answered by then fails its share (ErrConverterTimeout), so
	// the committer still has time to fail its kick, which SQS retries
	// (DefaultTimeMargin when zero, the commit function's TimeMargin when
	// booted).
	Margin time.Duration
	// MaxWait bounds one invocation when the caller has no deadline
	// (MaxConverterWait when zero).
	MaxWait time.Duration
}

// MaxConverterWait is the longest a converter is waited for when the
// caller has no deadline: Lambda's longest invocation.
const MaxConverterWait = 15 * time.Minute

// ErrConverterTimeout is wrapped when a converter has not answered before
// the committer's deadline (less InvokeRunner.Margin): its share fails.
var ErrConverterTimeout = errors.New("converter did not answer in time")

// waitFor returns the context one invocation runs under: it ends Margin
// before ctx's deadline, or MaxWait from now without one.
func (r InvokeRunner) waitFor(ctx context.Context) (context.Context, context.CancelFunc, time.Duration) {
	wait := r.MaxWait
	if wait <= 0 {
		wait = MaxConverterWait
	}
	if deadline, ok := ctx.Deadline(); ok {
		margin := r.Margin
		if margin <= 0 {
			margin = DefaultTimeMargin
		}
		wait = min(wait, time.Until(deadline)-margin)
	}
	wait = max(wait, 0)
	ctx, cancel := context.WithTimeoutCause(ctx, wait, ErrConverterTimeout)
	return ctx, cancel, wait
}

// Convert invokes the converter for req and waits for it.
func (r InvokeRunner) Convert(ctx context.Context, req fanout.Request) error {
	payload, err := json.Marshal(ConvertRequest{Action: ActionConvert, Request: req})
	if err != nil {
		return err
	}
	call, cancel, wait := r.waitFor(ctx)
	defer cancel()
	out, err := r.Client.Invoke(call, &lambda.InvokeInput{
		FunctionName:   aws.String(r.Function),
		InvocationType: lambdatypes.InvocationTypeRequestResponse,
		Payload:        payload,
	})
	if err != nil {
		if ctx.Err() == nil && errors.Is(context.Cause(call), ErrConverterTimeout) {
			return fmt.Errorf("%w: %s, share %d of batch %d, waited %s (the commit function's deadline less its time margin): %w",
				ErrConverterTimeout, r.Function, req.Share, req.Batch, wait.Round(time.Millisecond), err)
		}
		return fmt.Errorf("invoking converter %s: %w", r.Function, err)
	}
	if out.FunctionError != nil {
		msg := string(out.Payload)
		var fe struct {
			ErrorMessage string `json:"errorMessage"`
		}
		if json.Unmarshal(out.Payload, &fe) == nil && fe.ErrorMessage != "" {
			msg = fe.ErrorMessage
		}
		return fmt.Errorf("%w (%s): %s", ErrConverterFailed, aws.ToString(out.FunctionError), msg)
	}
	return nil
}

// FanoutFrom reads the fan-out settings (EnvMaxConverters,
// EnvConverterBytes) and returns the fan-out configuration of the commit
// function over client, or nil when fan-out is off. A bad value names its
// variable.
func FanoutFrom(getenv func(string) string, client Invoker) (*fanout.Config, error) {
	raw := strings.TrimSpace(getenv(EnvMaxConverters))
	if raw == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > MaxConverters {
		return nil, fmt.Errorf("%s=%q: want a whole number from 1 to %d", EnvMaxConverters, raw, MaxConverters)
	}
	if n == 1 {
		return nil, nil
	}
	var per int64
	if b := strings.TrimSpace(getenv(EnvConverterBytes)); b != "" {
		if per, err = strconv.ParseInt(b, 10, 64); err != nil || per < 1<<20 {
			return nil, fmt.Errorf("%s=%q: want a number of bytes, at least 1 MiB", EnvConverterBytes, b)
		}
	}
	fn := getenv(EnvFunctionName)
	if fn == "" {
		return nil, fmt.Errorf("%s=%d needs %s (the commit function invokes itself as converter)", EnvMaxConverters, n, EnvFunctionName)
	}
	return &fanout.Config{Runner: InvokeRunner{Client: client, Function: fn}, MaxConverters: n, BytesPerConverter: per}, nil
}

// MaxConverters is the most converters one batch may fan out to.
const MaxConverters = 64
