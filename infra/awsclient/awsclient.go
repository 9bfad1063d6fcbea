// Package awsclient builds the AWS SDK configuration the Lambda functions and
// the CLI share, and counts the API calls made through it.
//
// Load reads the usual environment (AWS_REGION, credentials chain, profile)
// plus AWS_ENDPOINT_URL for emulators (moto, LocalStack). It always uses the
// SDK's buildable HTTP client (so AWS_CA_BUNDLE works), retries throttling
// and 5xx errors (S3 503 SlowDown, DynamoDB
// ProvisionedThroughputExceededException, ...) with jittered exponential
// backoff for up to DefaultMaxAttempts attempts, and, when an endpoint
// override is set, computes checksums only when an operation requires them
// (emulators lag behind the SDK's default CRC checksums) and addresses S3
// buckets path-style (see S3Options).
package awsclient

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"
)

// Retry defaults. Throttling is expected under bursts (S3 allows about 3,500
// writes a second per prefix), so attempts are well above the SDK's 3.
const (
	// DefaultMaxAttempts is the number of attempts per API call, first included.
	DefaultMaxAttempts = 8
	// DefaultMaxBackoff caps the delay between two attempts.
	DefaultMaxBackoff = 20 * time.Second
	// EmulatorRegion is used when an endpoint override is set and no region is.
	EmulatorRegion = "us-east-1"
)

// Environment variables Load reads itself (the SDK reads the rest).
const (
	// EnvEndpoint overrides the endpoint of every service.
	EnvEndpoint = "AWS_ENDPOINT_URL"
	// EnvRetryMode selects "standard" or "adaptive" retries.
	EnvRetryMode = "AWS_RETRY_MODE"
	// EnvMaxAttempts overrides DefaultMaxAttempts.
	EnvMaxAttempts = "AWS_MAX_ATTEMPTS"
)

type settings struct {
	region      string
	endpoint    string
	retryMode   aws.RetryMode
	maxAttempts int
	maxBackoff  time.Duration
	apiOptions  []func(*middleware.Stack) error
	loadOptions []func(*config.LoadOptions) error
}

// Option configures Load. Options win over the environment.
type Option func(*settings)

// WithRegion sets the region instead of AWS_REGION / the shared config.
func WithRegion(region string) Option { return func(s *settings) { s.region = region } }

// WithEndpoint sets an endpoint override instead of AWS_ENDPOINT_URL.
func WithEndpoint(url string) Option { return func(s *settings) { s.endpoint = url } }

// WithRetryMode selects aws.RetryModeStandard (default) or
// aws.RetryModeAdaptive (adds client-side rate limiting after throttles).
func WithRetryMode(mode aws.RetryMode) Option { return func(s *settings) { s.retryMode = mode } }

// WithMaxAttempts sets the attempts per API call (default DefaultMaxAttempts).
func WithMaxAttempts(n int) Option { return func(s *settings) { s.maxAttempts = n } }

// WithMaxBackoff caps the delay between attempts (default DefaultMaxBackoff).
func WithMaxBackoff(d time.Duration) Option { return func(s *settings) { s.maxBackoff = d } }

// WithAPIOptions adds SDK middleware to every client built from the config,
// e.g. a CallCounter's AddTo.
func WithAPIOptions(fns ...func(*middleware.Stack) error) Option {
	return func(s *settings) { s.apiOptions = append(s.apiOptions, fns...) }
}

// WithLoadOptions passes extra options to config.LoadDefaultConfig (for
// example static credentials in tests).
func WithLoadOptions(fns ...func(*config.LoadOptions) error) Option {
	return func(s *settings) { s.loadOptions = append(s.loadOptions, fns...) }
}

// Load builds an aws.Config from the environment and opts.
func Load(ctx context.Context, opts ...Option) (aws.Config, error) {
	s := settings{
		endpoint:    os.Getenv(EnvEndpoint),
		retryMode:   aws.RetryModeStandard,
		maxAttempts: DefaultMaxAttempts,
		maxBackoff:  DefaultMaxBackoff,
	}
	if v := os.Getenv(EnvRetryMode); v != "" {
		m, err := aws.ParseRetryMode(v)
		if err != nil {
			return aws.Config{}, fmt.Errorf("awsclient: %s=%q: %w", EnvRetryMode, v, err)
		}
		s.retryMode = m
	}
	if v := os.Getenv(EnvMaxAttempts); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return aws.Config{}, fmt.Errorf("awsclient: %s=%q: want a positive integer", EnvMaxAttempts, v)
		}
		s.maxAttempts = n
	}
	for _, o := range opts {
		o(&s)
	}
	if s.maxAttempts < 1 {
		return aws.Config{}, fmt.Errorf("awsclient: max attempts %d: want at least 1", s.maxAttempts)
	}
	retryer, err := newRetryer(s)
	if err != nil {
		return aws.Config{}, err
	}

	lo := []func(*config.LoadOptions) error{
		config.WithHTTPClient(awshttp.NewBuildableClient()),
		config.WithRetryer(retryer),
	}
	if s.region != "" {
		lo = append(lo, config.WithRegion(s.region))
	}
	if s.endpoint != "" {
		lo = append(lo,
			config.WithBaseEndpoint(s.endpoint),
			config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
			config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
		)
	}
	lo = append(lo, s.loadOptions...)
	cfg, err := config.LoadDefaultConfig(ctx, lo...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("awsclient: loading AWS config: %w", err)
	}
	if cfg.Region == "" {
		if s.endpoint == "" {
			return aws.Config{}, fmt.Errorf("awsclient: no region configured: set AWS_REGION")
		}
		cfg.Region = EmulatorRegion
	}
	cfg.APIOptions = append(cfg.APIOptions, s.apiOptions...)
	return cfg, nil
}

// newRetryer returns the retryer factory for s.
//
// The standard mode's client-side retry quota (a token bucket that refuses
// retries after many failures) is disabled: a Lambda invocation is short
// and a burst of S3 SlowDown or DynamoDB throttling errors is exactly when
// retrying with backoff is wanted. Adaptive mode keeps its rate limiter.
func newRetryer(s settings) (func() aws.Retryer, error) {
	std := func(o *retry.StandardOptions) {
		o.MaxAttempts = s.maxAttempts
		o.MaxBackoff = s.maxBackoff
		o.RateLimiter = ratelimit.None
	}
	switch s.retryMode {
	case aws.RetryModeStandard:
		return func() aws.Retryer { return retry.NewStandard(std) }, nil
	case aws.RetryModeAdaptive:
		return func() aws.Retryer {
			return retry.NewAdaptiveMode(func(o *retry.AdaptiveModeOptions) {
				o.StandardOptions = append(o.StandardOptions, func(so *retry.StandardOptions) {
					so.MaxAttempts = s.maxAttempts
					so.MaxBackoff = s.maxBackoff
				})
			})
		}, nil
	default:
		return nil, fmt.Errorf("awsclient: retry mode %q: want standard or adaptive", s.retryMode)
	}
}

// HasEndpointOverride reports whether cfg talks to a custom endpoint (an
// emulator) rather than the default AWS endpoints.
func HasEndpointOverride(cfg aws.Config) bool {
	return cfg.BaseEndpoint != nil && *cfg.BaseEndpoint != ""
}

// S3Options returns the S3 client options cfg needs: path-style addressing
// when an endpoint override is set (emulators on 127.0.0.1 cannot serve
// bucket.host virtual-hosted names).
func S3Options(cfg aws.Config) func(*s3.Options) {
	override := HasEndpointOverride(cfg)
	return func(o *s3.Options) {
		if override {
			o.UsePathStyle = true
		}
	}
}

// NewS3 builds an S3 client from cfg with S3Options applied before optFns.
func NewS3(cfg aws.Config, optFns ...func(*s3.Options)) *s3.Client {
	return s3.NewFromConfig(cfg, append([]func(*s3.Options){S3Options(cfg)}, optFns...)...)
}
