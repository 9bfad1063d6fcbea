// Package lambdafn holds the AWS Lambda handlers of Tributary's three
// functions — discovery (SQS object events → file state), backfill
// (scheduled listing) and commit (per-stream, serialised batches into the
// Delta table) — on top of the stream wiring in infra/streams. The
// functions/* mains only load the configuration and start these handlers.
package lambdafn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tributary-io/tributary/core/ingest/fanout"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/events"
	"github.com/tributary-io/tributary/infra/gluecatalog"
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
	// EnvEventsQueueURL is the S3 events queue (its depth goes into the
	// progress records).
	EnvEventsQueueURL = "TRIBUTARY_EVENTS_QUEUE_URL"
	// EnvTriggerInterval is the deployed stream's processingTime trigger in
	// whole seconds (template.yaml's TriggerInterval; 0 or unset: a commit
	// run per kick). The kick queue delays every kick by that much, and the
	// kicks of found files collapse into one per stream and interval (less
	// a second, for clock skew; see sqskick.Kicker.Window): one commit run
	// per interval however the files arrive.
	EnvTriggerInterval = "TRIBUTARY_TRIGGER_INTERVAL"
	// EnvTimeMargin is how long before its deadline the commit function stops
	// starting batches (a Go duration, default 2m).
	EnvTimeMargin = "TRIBUTARY_TIME_MARGIN"
	// EnvGlueDatabase, when set, is the Glue database the commit function
	// registers each stream's table in (as Athena reads Delta tables).
	EnvGlueDatabase = "TRIBUTARY_GLUE_DATABASE"
	// EnvAlarmStreams lists, comma-separated, the streams that have their
	// own alarms (template.yaml's StreamAlarmIds). With EnvConfig, under the
	// template, a stream missing from it is refused at cold start.
	EnvAlarmStreams = "TRIBUTARY_ALARM_STREAMS"
	// EnvConfigParameter names an SSM parameter (name or name:version) that
	// holds the streams document, read at cold start instead of EnvConfig
	// (template.yaml's StreamsConfigParameter): it lifts the 4 KB limit of
	// a CloudFormation parameter and a Lambda environment.
	EnvConfigParameter = "TRIBUTARY_CONFIG_PARAMETER"
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
	// ListingClock is the clock a scheduled listing measures its time
	// budget on (time.Now when nil; tests use one that advances on each
	// reading, so that a listing stops after a known amount of work).
	ListingClock func() time.Time
	// QueueDepth, when set, reports the events queue's approximate depth
	// for the progress records (approximateQueueSize).
	QueueDepth func(ctx context.Context) (int64, error)

	// Fanout, when set, splits the wide batches of file streams into
	// shares converted by parallel invocations of the commit function
	// (EnvMaxConverters, convert.go).
	Fanout *fanout.Config

	// Continuer, when set, starts a continuation of the backfill function
	// when a listing stopped before the deadline (HandleBackfill).
	Continuer Continuer
	// MaxContinuations bounds a chain of backfill continuations
	// (MaxBackfillContinuations when zero).
	MaxContinuations int

	// Catalog, when set, registers each stream's table in the Glue Data
	// Catalog (EnvGlueDatabase).
	Catalog *gluecatalog.Catalog

	mu     sync.Mutex
	opened map[string]*streams.Stream
	synced map[string]string // stream id -> schema and location last registered
}

// The one-stream variables template.yaml sets (used when EnvConfig is unset).
const (
	EnvStreamID           = "TRIBUTARY_STREAM_ID"
	EnvSourceBucket       = "TRIBUTARY_SOURCE_BUCKET"
	EnvSourcePrefix       = "TRIBUTARY_SOURCE_PREFIX"
	EnvTableBucket        = "TRIBUTARY_TABLE_BUCKET"
	EnvTablePrefix        = "TRIBUTARY_TABLE_PREFIX"
	EnvCheckpointLocation = "TRIBUTARY_CHECKPOINT_LOCATION"
	EnvOptions            = "TRIBUTARY_OPTIONS"
	EnvExtraOptions       = "TRIBUTARY_EXTRA_OPTIONS"
	// EnvNotifications is template.yaml's Notifications: how object
	// events reach the discovery function (S3, EventBridge, SNS), or
	// NotificationsNone for a stack of directory listing streams.
	EnvNotifications = "TRIBUTARY_NOTIFICATIONS"
)

// CheckpointFolder is where a stream deployed by template.yaml keeps its
// checkpoint, inside the table: a '_' folder, which VACUUM never touches.
const CheckpointFolder = "_tributary/checkpoint/"

// LoadConfig reads the streams configuration from the environment — the
// JSON of EnvConfig, or the one-stream variables of template.yaml — failing
// at start-up (not on the first event) with an error that names the variable
// or option.
func LoadConfig() (*options.Config, error) {
	return LoadConfigFrom(os.Getenv)
}

// runtimeEnv is the functions' stream environment without its clients:
// enough for streams.Env.Validate (Boot adds the AWS clients).
func runtimeEnv() streams.Env {
	// The functions are fed by S3 event notifications; a directory
	// listing stream is listed by the scheduled (backfill) function.
	return streams.Env{Notifications: true, ScheduledListing: true}
}

// LoadConfigFrom is LoadConfig over a lookup function (os.Getenv). Every
// stream also passes streams.Env.Validate, the check the CLI runs before a
// run (engine options, format, globs, locations, discovery mode): a stream
// the functions cannot run stops the cold start instead of sending every
// event to the dead-letter queue.
func LoadConfigFrom(getenv func(string) string) (*options.Config, error) {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return nil, err
	}
	env := runtimeEnv()
	var errs []error
	for _, s := range cfg.Streams {
		errs = append(errs, env.Validate(s))
	}
	if strings.TrimSpace(getenv(EnvConfig)) != "" && getenv(EnvSourceBucket) != "" {
		errs = append(errs, checkGranted(getenv, cfg), checkAlarmed(getenv, cfg))
	}
	errs = append(errs, checkWiring(getenv(EnvNotifications), cfg), checkTrigger(getenv(EnvTriggerInterval), cfg))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return cfg, nil
}

// checkGranted refuses, at cold start, a stream of the streams document
// (EnvConfig) that reaches outside what template.yaml's policies grant: the
// stack's variables (EnvSourceBucket, EnvSourcePrefix, EnvTableBucket,
// EnvTablePrefix, and the cleanSource and badRecordsPath of EnvOptions) are
// the scope every stream's source, table, checkpoint and side outputs must
// lie in. Without it a stream outside the scope would fail on its first
// access denied, with its events in the dead-letter queue.
func checkGranted(getenv func(string) string, cfg *options.Config) error {
	source := "s3://" + getenv(EnvSourceBucket) + "/" + getenv(EnvSourcePrefix)
	table := "s3://" + getenv(EnvTableBucket) + "/" + getenv(EnvTablePrefix)
	granted := map[string]string{}
	if js := strings.TrimSpace(getenv(EnvOptions)); js != "" {
		var m map[string]any
		if err := json.Unmarshal([]byte(js), &m); err != nil {
			return fmt.Errorf("%s: not a JSON object of options: %w", EnvOptions, err)
		}
		for k, v := range m {
			granted[strings.ToLower(k)] = fmt.Sprint(v)
		}
	}
	under := func(loc, scope string) bool {
		return strings.HasPrefix(strings.TrimSuffix(loc, "/")+"/", scope)
	}
	var errs []error
	for _, s := range cfg.Streams {
		fail := func(what, loc, scope string) {
			errs = append(errs, fmt.Errorf("%s: stream %q: %s %q is outside %s, the stack's grant (%w)", EnvConfig, s.ID, what, loc, scope, ErrNotGranted))
		}
		if !under(s.Source, source) && !(s.SourceFormat == options.SourceDelta && under(s.Source, table)) {
			// A Delta source may also be a table of this stack (bronze -> silver).
			fail("source", s.Source, source)
		}
		if !under(s.Table, table) {
			fail("table", s.Table, table)
		}
		if cp := s.CheckpointLocation(); !under(cp, table) || !strings.HasSuffix(strings.TrimSuffix(cp, "/")+"/", "/"+CheckpointFolder) {
			fail("checkpointLocation", cp, table+"…/"+CheckpointFolder)
		}
		if sl := s.CloudFiles.SchemaLocation; sl != "" && !under(sl, table) {
			fail("schemaLocation", sl, table)
		}
		if c := s.CloudFiles.CleanSource; c != "" && c != options.CleanOff && !strings.EqualFold(string(c), granted["cloudfiles.cleansource"]) {
			fail("cloudFiles.cleanSource", string(c), "cloudFiles.cleanSource="+granted["cloudfiles.cleansource"])
		}
		if d, g := s.CloudFiles.MoveDestination, granted["cloudfiles.cleansource.movedestination"]; d != "" && (g == "" || !under(d, g)) {
			fail("cloudFiles.cleanSource.moveDestination", d, g)
		}
		if b, g := s.Reader.BadRecordsPath, granted["badrecordspath"]; b != "" && (g == "" || !under(b, g)) {
			fail("badRecordsPath", b, g)
		}
	}
	return errors.Join(errs...)
}

// checkAlarmed refuses, at cold start, a stream of the streams document
// that has no alarms of its own (it is not in EnvAlarmStreams): its backlog
// or skipped files would go unnoticed.
func checkAlarmed(getenv func(string) string, cfg *options.Config) error {
	alarmed := map[string]bool{}
	for _, id := range strings.Split(getenv(EnvAlarmStreams), ",") {
		alarmed[strings.TrimSpace(id)] = true
	}
	var errs []error
	for _, s := range cfg.Streams {
		if !alarmed[s.ID] {
			errs = append(errs, fmt.Errorf("%s: stream %q: %w", EnvConfig, s.ID, ErrNoAlarms))
		}
	}
	return errors.Join(errs...)
}

// NotificationsNone is the EnvNotifications of a stack that wires no
// object events (template.yaml's Notifications None).
const NotificationsNone = "None"

// ErrEventWiring marks a stream whose discovery mode does not match the
// stack's event wiring (EnvNotifications).
var ErrEventWiring = errors.New("does not match the stack's event wiring (the Notifications parameter)")

// checkWiring refuses, at cold start, streams whose discovery mode the
// stack's event wiring does not serve: with Notifications None no event
// arrives, so a stream with cloudFiles.useNotifications=true would never be
// fed by events; with events wired and every stream in directory listing
// mode (useNotifications=false), every event would be delivered, billed and
// ignored. An unset EnvNotifications (not deployed by the template) is
// not checked.
func checkWiring(notifications string, cfg *options.Config) error {
	if notifications == "" {
		return nil
	}
	var errs []error
	files, listing := 0, 0
	for _, s := range cfg.Streams {
		if s.SourceFormat == options.SourceDelta {
			continue // fed by its upstream's commits and the schedule
		}
		files++
		switch {
		case !s.CloudFiles.UseNotifications:
			listing++
		case notifications == NotificationsNone:
			errs = append(errs, fmt.Errorf("stream %q: cloudFiles.useNotifications=true %w: Notifications is None, so no object event arrives; set cloudFiles.useNotifications=false or deploy with Notifications S3, EventBridge or SNS", s.ID, ErrEventWiring))
		}
	}
	if notifications != NotificationsNone && listing > 0 && listing == files {
		errs = append(errs, fmt.Errorf("%s=%s: every stream is in directory listing mode (cloudFiles.useNotifications=false), which %w: its object events would be sent, billed and ignored; deploy with Notifications None", EnvNotifications, notifications, ErrEventWiring))
	}
	return errors.Join(errs...)
}

// ErrTriggerInterval marks a stream whose trigger option sets a
// processingTime interval other than the stack's (EnvTriggerInterval).
var ErrTriggerInterval = errors.New("is not the stack's processingTime trigger (the TriggerInterval parameter)")

// checkTrigger refuses, at cold start, a stream whose trigger option is
// processingTime=INTERVAL with an INTERVAL other than the stack's trigger
// interval: in the functions the interval is the kick queue's delivery
// delay and deduplication window (EnvTriggerInterval, whole seconds, the
// same for every stream of the stack; unset: 0, a commit run per kick), so
// another one would be accepted and ignored. A malformed EnvTriggerInterval
// is reported by the cold start (KickWindow).
func checkTrigger(seconds string, cfg *options.Config) error {
	n := 0
	if v := strings.TrimSpace(seconds); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			return nil
		}
	}
	stack := time.Duration(n) * time.Second
	var errs []error
	for _, s := range cfg.Streams {
		if t := s.Sink.Trigger; s.IsSet("trigger") && t.Kind == options.TriggerProcessingTime && t.Interval != stack {
			errs = append(errs, fmt.Errorf("stream %q: option trigger=%s %w (%s=%d seconds, which paces the commit runs of every stream of the stack): deploy with TriggerInterval=%g (whole seconds, 0 to 300), or leave trigger unset", s.ID, t, ErrTriggerInterval, EnvTriggerInterval, n, t.Interval.Seconds()))
		}
	}
	return errors.Join(errs...)
}

// ErrNoAlarms marks a stream of the streams document that has no alarms.
var ErrNoAlarms = errors.New("has no alarms: add its id to the stack's StreamAlarmIds parameter (" + EnvAlarmStreams + ")")

// ErrNotGranted marks a stream of the streams document that the stack's
// policies do not cover.
var ErrNotGranted = errors.New("not granted by the stack's IAM policies: keep every stream under SourcePrefix and TablePrefix")

func loadConfig(getenv func(string) string) (*options.Config, error) {
	if raw := getenv(EnvConfig); strings.TrimSpace(raw) != "" {
		cfg, err := options.LoadConfig(strings.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", EnvConfig, err)
		}
		return cfg, nil
	}
	id := getenv(EnvStreamID)
	if id == "" {
		return nil, fmt.Errorf("neither %s nor %s is set: the function has no stream configuration", EnvConfig, EnvStreamID)
	}
	for _, v := range []string{EnvSourceBucket, EnvTableBucket, EnvTablePrefix} {
		if getenv(v) == "" {
			return nil, fmt.Errorf("%s is not set (stream %q)", v, id)
		}
	}
	raw := map[string]string{}
	for _, v := range []string{EnvOptions, EnvExtraOptions} {
		js := strings.TrimSpace(getenv(v))
		if js == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(js), &m); err != nil {
			return nil, fmt.Errorf("%s: not a JSON object of options: %w", v, err)
		}
		for k, val := range m {
			if _, dup := raw[k]; dup {
				return nil, fmt.Errorf("%s: option %s is also set by %s", v, k, EnvOptions)
			}
			raw[k] = fmt.Sprint(val)
		}
	}
	if _, ok := raw["cloudFiles.useNotifications"]; !ok {
		// A deployment fed by S3 events, unless the stack wires none.
		raw["cloudFiles.useNotifications"] = fmt.Sprint(getenv(EnvNotifications) != NotificationsNone)
	}
	table := "s3://" + getenv(EnvTableBucket) + "/" + strings.TrimSuffix(getenv(EnvTablePrefix), "/")
	cp := getenv(EnvCheckpointLocation)
	if cp == "" {
		cp = table + "/" + CheckpointFolder
	}
	s, err := options.Parse(raw, options.Locations{
		StreamID:           id,
		Source:             "s3://" + getenv(EnvSourceBucket) + "/" + getenv(EnvSourcePrefix),
		Table:              table,
		CheckpointLocation: cp,
		SchemaLocation:     cp,
	})
	if err != nil {
		return nil, err
	}
	cfg := &options.Config{Streams: []*options.Stream{s}}
	return cfg, cfg.Validate()
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
	if s.Engine != nil && s.Engine.StateStoreAdopted() {
		// The last batch's files wait, claimed, in the new state table.
		if err := a.kick(ctx, id, events.ReasonStateAdopted); err != nil {
			s.Close()
			return nil, fmt.Errorf("stream %q: asking for a commit run after registering its plans' files in a new state table: %w", id, err)
		}
	}
	if s.Engine != nil && s.Engine.Runner == nil {
		s.Engine.Fanout = a.Fanout
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
