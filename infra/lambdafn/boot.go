package lambdafn

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/aws/aws-sdk-go-v2/service/glue"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/tributary-io/tributary/core/ingest/fanout"
	"github.com/tributary-io/tributary/infra/awsclient"
	"github.com/tributary-io/tributary/infra/gluecatalog"
	"github.com/tributary-io/tributary/infra/sqskick"
)

// Boot builds the App from the environment: configuration, AWS clients,
// state table and kick queue. Every configuration error surfaces here, at
// cold start, naming the variable or option.
func Boot(ctx context.Context) (*App, error) {
	return BootFrom(ctx, os.Getenv)
}

// BootFrom is Boot over a lookup function (os.Getenv) and extra AWS client
// options (tests add an emulator endpoint, credentials and middleware that
// records the calls).
func BootFrom(ctx context.Context, getenv func(string) string, opts ...awsclient.Option) (*App, error) {
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	awsCfg, err := awsclient.Load(ctx, opts...)
	if err != nil {
		return nil, err
	}
	if name := getenv(EnvConfigParameter); name != "" {
		getenv, err = withConfigParameter(ctx, ssm.NewFromConfig(awsCfg), getenv, name)
		if err != nil {
			return nil, err
		}
	}
	cfg, err := LoadConfigFrom(getenv)
	if err != nil {
		return nil, err
	}
	env := runtimeEnv()
	env.AWS, env.StateTable, env.Logger, env.TempDir = &awsCfg, getenv(EnvStateTable), logger, os.TempDir()
	app := &App{
		Config:  cfg,
		Env:     env,
		Logger:  logger,
		Metrics: os.Stdout,
	}
	if app.Env.StateTable == "" {
		return nil, fmt.Errorf("%s is not set: the functions keep the file state in DynamoDB", EnvStateTable)
	}
	if q := getenv(EnvKickQueueURL); q != "" {
		window, err := KickWindow(getenv(EnvTriggerInterval))
		if err != nil {
			return nil, err
		}
		app.Kicker = &sqskick.Kicker{Client: sqs.NewFromConfig(awsCfg), QueueURL: q, Window: window}
	}
	if q := getenv(EnvEventsQueueURL); q != "" {
		client := sqs.NewFromConfig(awsCfg)
		app.QueueDepth = func(ctx context.Context) (int64, error) {
			return sqskick.ApproximateDepth(ctx, client, q)
		}
	}
	if m := getenv(EnvTimeMargin); m != "" {
		d, err := time.ParseDuration(m)
		if err != nil {
			return nil, fmt.Errorf("%s=%q: %w", EnvTimeMargin, m, err)
		}
		app.TimeMargin = d
	}
	invoker := lambda.NewFromConfig(awsCfg)
	if app.Fanout, err = FanoutFrom(getenv, invoker); err != nil {
		return nil, err
	}
	if fn := getenv(EnvFunctionName); fn != "" {
		// The backfill function continues a stopped listing by invoking
		// itself (the other functions never call it).
		app.Continuer = AsyncInvoker{Client: invoker, Function: fn}
	}
	if r, ok := fanoutRunner(app.Fanout); ok {
		// A converter is waited for until the deadline less the margin.
		r.Margin = app.TimeMargin
		app.Fanout.Runner = r
	}
	if db := getenv(EnvGlueDatabase); db != "" {
		app.Catalog = &gluecatalog.Catalog{Client: glue.NewFromConfig(awsCfg), Database: db}
	}
	return app, nil
}

// MustBoot is Boot for a function's main: it logs the error and exits.
func MustBoot() *App {
	app, err := Boot(context.Background())
	if err != nil {
		slog.New(slog.NewJSONHandler(os.Stderr, nil)).Error("tributary function cannot start", "error", err.Error())
		os.Exit(1)
	}
	return app
}

// ParameterGetter is the part of the SSM client that reads the streams
// document (ssm:GetParameter).
type ParameterGetter interface {
	GetParameter(ctx context.Context, in *ssm.GetParameterInput, opts ...func(*ssm.Options)) (*ssm.GetParameterOutput, error)
}

// withConfigParameter reads the streams document from the SSM parameter
// name (EnvConfigParameter: a name, or name:version to pin one version;
// SecureString values are decrypted) and returns getenv with EnvConfig set
// to it. Setting both EnvConfig and EnvConfigParameter is an error, as is a
// missing or empty parameter: both name the variable and the parameter.
func withConfigParameter(ctx context.Context, client ParameterGetter, getenv func(string) string, name string) (func(string) string, error) {
	if getenv(EnvConfig) != "" {
		return nil, fmt.Errorf("%s and %s are both set: give the streams document in one of them", EnvConfig, EnvConfigParameter)
	}
	out, err := client.GetParameter(ctx, &ssm.GetParameterInput{Name: &name, WithDecryption: aws.Bool(true)})
	if err != nil {
		return nil, fmt.Errorf("%s=%q: reading the streams document: %w", EnvConfigParameter, name, err)
	}
	doc := ""
	if out.Parameter != nil {
		doc = aws.ToString(out.Parameter.Value)
	}
	if strings.TrimSpace(doc) == "" {
		return nil, fmt.Errorf("%s=%q: the parameter is empty: it must hold a streams document", EnvConfigParameter, name)
	}
	return func(k string) string {
		if k == EnvConfig {
			return doc
		}
		return getenv(k)
	}, nil
}

// KickWindow returns the kick deduplication window for a trigger interval
// of seconds (EnvTriggerInterval): the interval less one second, so that
// the queue's delivery delay (the whole interval) outlasts it despite clock
// skew between instances; zero for "" and for intervals under 2 seconds.
// SQS keeps deduplication ids for 5 minutes: intervals above 300 seconds
// are refused.
func KickWindow(seconds string) (time.Duration, error) {
	if strings.TrimSpace(seconds) == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(seconds))
	if err != nil || n < 0 || n > 300 {
		return 0, fmt.Errorf("%s=%q: want whole seconds from 0 to 300", EnvTriggerInterval, seconds)
	}
	if n < 2 {
		return 0, nil
	}
	return time.Duration(n-1) * time.Second, nil
}

// fanoutRunner returns cfg's InvokeRunner, if it has one.
func fanoutRunner(cfg *fanout.Config) (InvokeRunner, bool) {
	if cfg == nil {
		return InvokeRunner{}, false
	}
	r, ok := cfg.Runner.(InvokeRunner)
	return r, ok
}
