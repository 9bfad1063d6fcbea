package tributary

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// ErrInvalidProps is wrapped by every error Validate returns.
var ErrInvalidProps = errors.New("tributary.StreamProps")

// Defaults of StreamProps, the same as the SAM template's parameter defaults.
const (
	DefaultSourcePrefix        = "incoming/"
	DefaultTablePrefix         = "tables/"
	DefaultMaxFilesPerTrigger  = 1000
	DefaultBackfillInterval    = "rate(1 day)"
	DefaultMaintenanceSchedule = "rate(1 day)"
	// DefaultTriggerInterval is the processingTime trigger in seconds.
	DefaultTriggerInterval            = 60
	DefaultCleanSourceMoveDestination = "archive/"
	DefaultCommitMemorySize           = 2048
	// DefaultMaxConverters is 1: no fan-out.
	DefaultMaxConverters = 1
	// DefaultConverterBytes is the input bytes one converter takes (128 MiB).
	DefaultConverterBytes                 = 134217728
	DefaultQueueDepthAlarmThreshold       = 10000
	DefaultQueueAgeAlarmSeconds           = 1800
	DefaultFilesOutstandingAlarmThreshold = 10000
	DefaultCommitStalledAlarmSeconds      = 1800
	DefaultLogRetentionDays               = 30
	// DefaultStateTableMinCapacity is the least write and read capacity
	// auto scaling keeps on a PROVISIONED state table.
	DefaultStateTableMinCapacity = 5
	// DefaultStateTableMaxCapacity is the most write and read capacity
	// auto scaling sets on a PROVISIONED state table.
	DefaultStateTableMaxCapacity = 4000
	// DefaultStateTableTargetUtilization is the utilisation percentage auto
	// scaling tracks on a PROVISIONED state table.
	DefaultStateTableTargetUtilization = 70
	// DefaultCodeDir is where `make lambdas` puts discovery.zip, backfill.zip
	// and commit.zip, relative to the repository root.
	DefaultCodeDir = "dist"
)

// State table billing modes (StreamProps.StateTableBillingMode).
const (
	// BillingOnDemand is DynamoDB's PAY_PER_REQUEST (the default).
	BillingOnDemand = "PAY_PER_REQUEST"
	// BillingProvisioned is provisioned capacity with auto scaling.
	BillingProvisioned = "PROVISIONED"
)

// Formats lists the values StreamProps.Format accepts (the template's
// Format parameter's AllowedValues).
var formats = []string{"avro", "binaryFile", "csv", "json", "orc", "parquet", "text"}

// Notification paths (StreamProps.Notifications).
const (
	// NotifyS3 is the bucket's own notification configuration (created bucket only).
	NotifyS3 = "S3"
	// NotifyEventBridge is a rule on "Object Created" for the bucket and prefix.
	NotifyEventBridge = "EventBridge"
	// NotifySNS is a subscription of the events queue to an existing topic.
	NotifySNS = "SNS"
	// NotifyNone wires no events: directory listing streams
	// (cloudFiles.useNotifications=false), listed by the backfill function.
	NotifyNone = "None"
)

// logRetentions are the values CloudWatch Logs accepts (the template's
// LogRetentionDays AllowedValues).
var logRetentions = []int{1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653}

var (
	topicPattern    = regexp.MustCompile(`^arn:[a-z-]+:sns:[a-z0-9-]+:[0-9]{12}:[A-Za-z0-9_.-]{1,256}$`)
	kmsPattern      = regexp.MustCompile(`^arn:[a-z-]+:kms:[a-z0-9-]+:[0-9]{12}:key/[0-9a-f-]{36}$`)
	streamIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$`)
	bucketPattern   = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)
	prefixPattern   = regexp.MustCompile(`^[^/].*/$`)
	gluePattern     = regexp.MustCompile(`^[a-z0-9_]{0,255}$`)
	bytesPattern    = regexp.MustCompile(`^([1-9][0-9]{0,14}|[1-9][0-9]{0,5}[bBkKmMgGtT])$`)
	schedulePattern = regexp.MustCompile(`^(rate|cron)\(.+\)$`)
)

// StreamProps configures one Tributary stream. The fields mirror the
// parameters of template.yaml (same names, same defaults, same checks); a
// zero value means the template's default unless the field says otherwise.
type StreamProps struct {
	// StreamId keys the file state, the schema history and the Delta txn
	// appId, and names resources: 1-40 letters, digits, '_' or '-'. Required;
	// unique per account and region.
	StreamId string
	// SourceBucketName is the source bucket (files land here): created by
	// the stream unless ExistingSourceBucket. Required.
	SourceBucketName string
	// ExistingSourceBucket: SourceBucketName exists already and the stream
	// does not touch it (Notifications must then be EventBridge or SNS).
	// The template's CreateSourceBucket=false.
	ExistingSourceBucket bool
	// Notifications is how object-created events reach the events queue:
	// NotifyS3 ("" = S3), NotifyEventBridge, NotifySNS or NotifyNone.
	Notifications string
	// SourceTopicArn is the existing SNS topic carrying the bucket's events (NotifySNS only).
	SourceTopicArn string
	// SourcePrefix is the key prefix of the source files, ending in '/'.
	// nil = "incoming/"; a pointer to "" = the whole bucket (allowed only
	// when TableBucket is set).
	SourcePrefix *string
	// Format is cloudFiles.format: avro, binaryFile, csv, json, orc, parquet or text (the formats the functions read). Required.
	Format string
	// MaxFilesPerTrigger is cloudFiles.maxFilesPerTrigger (0 = 1000).
	MaxFilesPerTrigger int
	// MaxBytesPerTrigger is cloudFiles.maxBytesPerTrigger, e.g. "10g" ("" = unset).
	MaxBytesPerTrigger string
	// BackfillInterval is the backfill function's schedule expression
	// (cloudFiles.backfillInterval), e.g. "rate(6 hours)" ("" = "rate(1 day)").
	BackfillInterval string
	// MaintenanceSchedule is the maintenance function's schedule expression
	// (OPTIMIZE, log cleanup and VACUUM of every stream's table; "" =
	// "rate(1 day)").
	MaintenanceSchedule string
	// TriggerInterval is the processingTime trigger in seconds (template.yaml
	// TriggerInterval): commit kicks are delayed by it and collapse per
	// interval. 0 = 60; -1 = off (a commit run per kick, at once); at most 300.
	TriggerInterval int
	// TableBucket is an existing bucket that holds the Delta table ("" = the source bucket).
	TableBucket string
	// TablePrefix is the Delta table's key prefix, ending in '/' ("" = "tables/").
	TablePrefix string
	// CleanSource is cloudFiles.cleanSource: OFF, DELETE or MOVE ("" = OFF).
	CleanSource string
	// CleanSourceMoveDestination is the MOVE destination prefix in the
	// source bucket, ending in '/' ("" = "archive/").
	CleanSourceMoveDestination string
	// IgnoreCorruptFiles is ignoreCorruptFiles.
	IgnoreCorruptFiles bool
	// IgnoreMissingFiles is ignoreMissingFiles.
	IgnoreMissingFiles bool
	// BadRecordsPrefix is badRecordsPath as a prefix in the source bucket, ending in '/' ("" = unset).
	BadRecordsPrefix string
	// ExtraOptions are further stream options, passed in TRIBUTARY_EXTRA_OPTIONS
	// and validated by the functions at cold start.
	ExtraOptions map[string]string
	// StreamsConfig is an optional streams document (the CLI's --config
	// JSON), passed in TRIBUTARY_CONFIG: the stack then serves its streams,
	// each bounded by SourcePrefix and TablePrefix (the functions refuse
	// any other at cold start), and the option props above apply to none
	// of them ("" = the one stream these props describe). The template's
	// StreamsConfig parameter.
	StreamsConfig string
	// StreamsConfigParameter is the name of an SSM parameter (starting with
	// '/', optionally ':VERSION') that holds the streams document, read by
	// the functions at cold start instead of StreamsConfig ("" = off). The
	// template's StreamsConfigParameter parameter.
	StreamsConfigParameter string
	// StreamAlarmIds are the ids of the streams that get their own alarms
	// when the streams document is in StreamsConfigParameter (with
	// StreamsConfig they are read from the document). The template's
	// StreamAlarmIds parameter.
	StreamAlarmIds []string
	// GlueDatabase is an existing Glue database in which the commit function
	// registers each stream's table as Athena reads Delta tables ("" = off).
	// The template's GlueDatabase parameter.
	GlueDatabase string
	// CommitMemorySize is the commit function's memory in MB, 512-10240 (0 = 2048).
	CommitMemorySize int
	// MaxConverters bounds the parallel converters of one batch: the commit
	// function splits a batch of more than ConverterBytes into shares and
	// invokes itself once per share, then commits them in one Delta version
	// (0 = 1: no fan-out; at most 64). The template's MaxConverters.
	MaxConverters int
	// ConverterBytes is the input bytes one converter takes (0 = 128 MiB,
	// at least 1 MiB). The template's ConverterBytes.
	ConverterBytes int
	// KmsKeyArn is an optional customer-managed key for the queues, the
	// state table, the alarm topic and a created bucket ("" = AWS-owned keys).
	KmsKeyArn string
	// LogRetentionDays is the functions' log retention (0 = 30).
	LogRetentionDays int
	// Tracing turns AWS X-Ray tracing on (Active).
	Tracing bool
	// StateTableDeletionProtection is DeletionProtectionEnabled of the
	// state table (nil = true).
	StateTableDeletionProtection *bool
	// StateTableBillingMode is the state table's billing: BillingOnDemand
	// ("" too) or BillingProvisioned, with Application Auto Scaling target
	// tracking on the table's write and read capacity. The template's StateTableBillingMode.
	StateTableBillingMode string
	// StateTableMinWriteCapacity is the least write capacity auto scaling
	// keeps, PROVISIONED only (0 = 5).
	StateTableMinWriteCapacity int
	// StateTableMaxWriteCapacity is the most write capacity auto scaling
	// sets, PROVISIONED only (0 = 4000).
	StateTableMaxWriteCapacity int
	// StateTableMinReadCapacity is the least read capacity auto scaling
	// keeps, PROVISIONED only (0 = 5).
	StateTableMinReadCapacity int
	// StateTableMaxReadCapacity is the most read capacity auto scaling sets,
	// PROVISIONED only (0 = 4000).
	StateTableMaxReadCapacity int
	// StateTableTargetUtilization is the consumed/provisioned percentage
	// auto scaling tracks, 20-90, PROVISIONED only (0 = 70).
	StateTableTargetUtilization int
	// AlarmEmail is subscribed to the alarm topic ("" = no subscription).
	AlarmEmail string
	// QueueDepthAlarmThreshold is the events-queue depth alarm threshold (0 = 10000).
	QueueDepthAlarmThreshold int
	// QueueAgeAlarmSeconds is the oldest-event age alarm threshold in seconds (0 = 1800).
	QueueAgeAlarmSeconds int
	// FilesOutstandingAlarmThreshold is the numFilesOutstanding alarm threshold (0 = 10000).
	FilesOutstandingAlarmThreshold int
	// CommitStalledAlarmSeconds alarms when the oldest commit kick is older (0 = 1800, at least 60).
	CommitStalledAlarmSeconds int
	// CodeDir holds discovery.zip, backfill.zip and commit.zip as `make
	// lambdas` builds them ("" = "dist", relative to the working directory).
	CodeDir string
}

// resolved is StreamProps with every default applied.
type resolved struct {
	StreamProps
	sourcePrefix       string
	tableBucket        string
	deletionProtection bool
	// alarmStreams are the ids of StreamsConfig's streams, each of which
	// gets its own alarms (the template's StreamAlarmIds).
	alarmStreams []string
	// triggerInterval is the processingTime trigger in seconds (0: off).
	triggerInterval int
}

// streamIDs returns the stream ids of a streams document ({"streams":[{"id":…},…]}).
func streamIDs(doc string) ([]string, error) {
	var d struct {
		Streams []struct {
			ID string `json:"id"`
		} `json:"streams"`
	}
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(d.Streams))
	for i, s := range d.Streams {
		if !alarmIDPattern.MatchString(s.ID) {
			return nil, fmt.Errorf("stream #%d: id %q: letters, digits, '_', '.' or '-', starting with a letter or digit", i+1, s.ID)
		}
		ids = append(ids, s.ID)
	}
	return ids, nil
}

// ssmNamePattern is the template's StreamsConfigParameter pattern.
var ssmNamePattern = regexp.MustCompile(`^/[a-zA-Z0-9_.\-/]+(:[0-9]+)?$`)

// alarmIDPattern is a stream id the template's StreamAlarmIds accepts.
var alarmIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// Validate checks the props as the template's parameter constraints and
// rules do, and returns the first problem found, naming the field.
func (p *StreamProps) Validate() error {
	_, err := p.resolve()
	return err
}

func bad(field, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalidProps, field, fmt.Sprintf(format, args...))
}

func (p *StreamProps) resolve() (*resolved, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: props are required", ErrInvalidProps)
	}
	r := &resolved{StreamProps: *p}
	if !streamIDPattern.MatchString(r.StreamId) {
		return nil, bad("StreamId", "%q: 1-40 characters, letters, digits, '_' or '-', starting with a letter or digit", r.StreamId)
	}
	if !bucketPattern.MatchString(r.SourceBucketName) {
		return nil, bad("SourceBucketName", "%q is not a valid S3 bucket name", r.SourceBucketName)
	}
	if r.Notifications == "" {
		r.Notifications = NotifyS3
	}
	switch r.Notifications {
	case NotifyS3:
		if r.ExistingSourceBucket {
			return nil, bad("Notifications", "S3 writes the bucket's notification configuration, which only a bucket the stream creates may have; for an existing bucket use EventBridge or SNS")
		}
	case NotifyEventBridge, NotifyNone:
	case NotifySNS:
		if r.SourceTopicArn == "" {
			return nil, bad("SourceTopicArn", "Notifications SNS needs SourceTopicArn")
		}
	default:
		return nil, bad("Notifications", "%q: S3, EventBridge, SNS or None", r.Notifications)
	}
	if r.SourceTopicArn != "" && !topicPattern.MatchString(r.SourceTopicArn) {
		return nil, bad("SourceTopicArn", "%q is not an SNS topic ARN", r.SourceTopicArn)
	}
	if r.KmsKeyArn != "" && !kmsPattern.MatchString(r.KmsKeyArn) {
		return nil, bad("KmsKeyArn", "%q: a KMS key ARN (arn:...:kms:REGION:ACCOUNT:key/UUID; not an alias)", r.KmsKeyArn)
	}
	if r.LogRetentionDays == 0 {
		r.LogRetentionDays = DefaultLogRetentionDays
	}
	if !containsInt(logRetentions, r.LogRetentionDays) {
		return nil, bad("LogRetentionDays", "%d: one of %v", r.LogRetentionDays, logRetentions)
	}
	r.deletionProtection = p.StateTableDeletionProtection == nil || *p.StateTableDeletionProtection
	if err := r.resolveBilling(); err != nil {
		return nil, err
	}
	r.sourcePrefix = DefaultSourcePrefix
	if p.SourcePrefix != nil {
		r.sourcePrefix = *p.SourcePrefix
	}
	if r.sourcePrefix != "" && !prefixPattern.MatchString(r.sourcePrefix) {
		return nil, bad("SourcePrefix", "%q: empty, or a prefix that does not start with '/' and ends with '/'", r.sourcePrefix)
	}
	if !contains(formats, r.Format) {
		return nil, bad("Format", "%q: one of %s", r.Format, strings.Join(formats, ", "))
	}
	if r.MaxFilesPerTrigger == 0 {
		r.MaxFilesPerTrigger = DefaultMaxFilesPerTrigger
	}
	if r.MaxFilesPerTrigger < 1 {
		return nil, bad("MaxFilesPerTrigger", "%d: at least 1", r.MaxFilesPerTrigger)
	}
	if r.MaxBytesPerTrigger != "" && !bytesPattern.MatchString(r.MaxBytesPerTrigger) {
		return nil, bad("MaxBytesPerTrigger", "%q: a positive number of bytes (up to 15 digits) or of b/k/m/g/t units (up to 6 digits), e.g. 10g", r.MaxBytesPerTrigger)
	}
	if r.BackfillInterval == "" {
		r.BackfillInterval = DefaultBackfillInterval
	}
	switch {
	case r.TriggerInterval == 0:
		r.triggerInterval = DefaultTriggerInterval
	case r.TriggerInterval == -1:
		r.triggerInterval = 0
	case r.TriggerInterval < -1 || r.TriggerInterval > 300:
		return nil, bad("TriggerInterval", "%d: 1 to 300 seconds (0: %d, -1: off)", r.TriggerInterval, DefaultTriggerInterval)
	default:
		r.triggerInterval = r.TriggerInterval
	}
	if !schedulePattern.MatchString(r.BackfillInterval) {
		return nil, bad("BackfillInterval", "%q: rate(...) or cron(...)", r.BackfillInterval)
	}
	if r.MaintenanceSchedule == "" {
		r.MaintenanceSchedule = DefaultMaintenanceSchedule
	}
	if !schedulePattern.MatchString(r.MaintenanceSchedule) {
		return nil, bad("MaintenanceSchedule", "%q: rate(...) or cron(...)", r.MaintenanceSchedule)
	}
	if r.TableBucket != "" && !bucketPattern.MatchString(r.TableBucket) {
		return nil, bad("TableBucket", "%q is not a valid S3 bucket name", r.TableBucket)
	}
	if r.TablePrefix == "" {
		r.TablePrefix = DefaultTablePrefix
	}
	if !prefixPattern.MatchString(r.TablePrefix) {
		return nil, bad("TablePrefix", "%q: a prefix that does not start with '/' and ends with '/'", r.TablePrefix)
	}
	r.tableBucket = r.TableBucket
	if r.tableBucket == "" {
		r.tableBucket = r.SourceBucketName
		// The template's TableOutsideSourcePrefix rule.
		if r.sourcePrefix == "" {
			return nil, bad("SourcePrefix", "must not be empty with the table in the source bucket: the table's own files would be ingested as source files")
		}
		if r.sourcePrefix == r.TablePrefix {
			return nil, bad("TablePrefix", "%q: SourcePrefix and TablePrefix must differ", r.TablePrefix)
		}
	}
	if r.CleanSource == "" {
		r.CleanSource = "OFF"
	}
	if !contains([]string{"OFF", "DELETE", "MOVE"}, r.CleanSource) {
		return nil, bad("CleanSource", "%q: OFF, DELETE or MOVE", r.CleanSource)
	}
	if r.CleanSourceMoveDestination == "" {
		r.CleanSourceMoveDestination = DefaultCleanSourceMoveDestination
	}
	if !prefixPattern.MatchString(r.CleanSourceMoveDestination) {
		return nil, bad("CleanSourceMoveDestination", "%q: a prefix that does not start with '/' and ends with '/'", r.CleanSourceMoveDestination)
	}
	if r.StreamsConfig != "" && r.StreamsConfigParameter != "" {
		return nil, bad("StreamsConfigParameter", "give the streams document in StreamsConfig or in StreamsConfigParameter, not both")
	}
	if r.StreamsConfigParameter != "" && !ssmNamePattern.MatchString(r.StreamsConfigParameter) {
		return nil, bad("StreamsConfigParameter", "%q: an SSM parameter name starting with '/' (optionally with ':VERSION')", r.StreamsConfigParameter)
	}
	switch {
	case r.StreamsConfig != "":
		if len(r.StreamAlarmIds) > 0 {
			return nil, bad("StreamAlarmIds", "only with StreamsConfigParameter: with StreamsConfig the ids are read from the document")
		}
		ids, err := streamIDs(r.StreamsConfig)
		if err != nil {
			return nil, bad("StreamsConfig", "%v", err)
		}
		r.alarmStreams = ids
	case r.StreamsConfigParameter != "":
		if len(r.StreamAlarmIds) == 0 {
			return nil, bad("StreamAlarmIds", "required with StreamsConfigParameter: list the document's stream ids (each stream gets its own alarms)")
		}
		for _, id := range r.StreamAlarmIds {
			if !alarmIDPattern.MatchString(id) {
				return nil, bad("StreamAlarmIds", "%q: letters, digits, '_', '.' or '-', starting with a letter or digit", id)
			}
		}
		r.alarmStreams = r.StreamAlarmIds
	case len(r.StreamAlarmIds) > 0:
		return nil, bad("StreamAlarmIds", "only with StreamsConfigParameter")
	}
	if !gluePattern.MatchString(r.GlueDatabase) {
		return nil, bad("GlueDatabase", "%q: empty, or a Glue database name (lower-case letters, digits, '_')", r.GlueDatabase)
	}
	if r.BadRecordsPrefix != "" && !prefixPattern.MatchString(r.BadRecordsPrefix) {
		return nil, bad("BadRecordsPrefix", "%q: empty, or a prefix that does not start with '/' and ends with '/'", r.BadRecordsPrefix)
	}
	if r.CommitMemorySize == 0 {
		r.CommitMemorySize = DefaultCommitMemorySize
	}
	if r.CommitMemorySize < 512 || r.CommitMemorySize > 10240 {
		return nil, bad("CommitMemorySize", "%d: between 512 and 10240", r.CommitMemorySize)
	}
	if r.MaxConverters == 0 {
		r.MaxConverters = DefaultMaxConverters
	}
	if r.MaxConverters < 1 || r.MaxConverters > 64 {
		return nil, bad("MaxConverters", "%d: between 1 and 64", r.MaxConverters)
	}
	if r.ConverterBytes == 0 {
		r.ConverterBytes = DefaultConverterBytes
	}
	if r.ConverterBytes < 1<<20 {
		return nil, bad("ConverterBytes", "%d: at least 1048576 (1 MiB)", r.ConverterBytes)
	}
	if r.QueueDepthAlarmThreshold == 0 {
		r.QueueDepthAlarmThreshold = DefaultQueueDepthAlarmThreshold
	}
	if r.QueueAgeAlarmSeconds == 0 {
		r.QueueAgeAlarmSeconds = DefaultQueueAgeAlarmSeconds
	}
	if r.FilesOutstandingAlarmThreshold == 0 {
		r.FilesOutstandingAlarmThreshold = DefaultFilesOutstandingAlarmThreshold
	}
	if r.FilesOutstandingAlarmThreshold < 1 {
		return nil, bad("FilesOutstandingAlarmThreshold", "%d: at least 1", r.FilesOutstandingAlarmThreshold)
	}
	if r.CommitStalledAlarmSeconds == 0 {
		r.CommitStalledAlarmSeconds = DefaultCommitStalledAlarmSeconds
	}
	if r.CommitStalledAlarmSeconds < 60 {
		return nil, bad("CommitStalledAlarmSeconds", "%d: at least 60", r.CommitStalledAlarmSeconds)
	}
	if r.CodeDir == "" {
		r.CodeDir = DefaultCodeDir
	}
	return r, nil
}

// options renders TRIBUTARY_OPTIONS as the template's !Sub does.
func (r *resolved) options() string {
	o := map[string]string{
		"cloudFiles.format":             r.Format,
		"cloudFiles.maxFilesPerTrigger": fmt.Sprint(r.MaxFilesPerTrigger),
		"cloudFiles.cleanSource":        r.CleanSource,
		"ignoreCorruptFiles":            fmt.Sprint(r.IgnoreCorruptFiles),
		"ignoreMissingFiles":            fmt.Sprint(r.IgnoreMissingFiles),
	}
	if r.MaxBytesPerTrigger != "" {
		o["cloudFiles.maxBytesPerTrigger"] = r.MaxBytesPerTrigger
	}
	if r.CleanSource == "MOVE" {
		o["cloudFiles.cleanSource.moveDestination"] = "s3://" + r.SourceBucketName + "/" + r.CleanSourceMoveDestination
	}
	if r.BadRecordsPrefix != "" {
		o["badRecordsPath"] = "s3://" + r.SourceBucketName + "/" + r.BadRecordsPrefix
	}
	return mustJSON(o)
}

// ruleName is the EventBridge rule's name (NotifyEventBridge).
func (r *resolved) ruleName() string {
	return "tributary-" + r.StreamId + "-object-created"
}

// extraOptions renders TRIBUTARY_EXTRA_OPTIONS.
func (r *resolved) extraOptions() string {
	if r.ExtraOptions == nil {
		return "{}"
	}
	return mustJSON(r.ExtraOptions)
}

// zip is the path of one function's bundle.
func (r *resolved) zip(fn string) string {
	return filepath.Join(r.CodeDir, fn+".zip")
}

func mustJSON(v map[string]string) string {
	b, err := json.Marshal(v) // a map of strings always marshals
	if err != nil {
		panic(err)
	}
	return string(b)
}

func containsInt(list []int, n int) bool {
	for _, v := range list {
		if v == n {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// resolveBilling applies the state table billing defaults and checks them
// as the template's parameter constraints do (and min <= max, which
// Application Auto Scaling would refuse at deploy time).
func (r *resolved) resolveBilling() error {
	if r.StateTableBillingMode == "" {
		r.StateTableBillingMode = BillingOnDemand
	}
	if r.StateTableBillingMode != BillingOnDemand && r.StateTableBillingMode != BillingProvisioned {
		return bad("StateTableBillingMode", "%q: %s or %s", r.StateTableBillingMode, BillingOnDemand, BillingProvisioned)
	}
	for _, c := range []struct {
		field string
		v     *int
		def   int
	}{
		{"StateTableMinWriteCapacity", &r.StateTableMinWriteCapacity, DefaultStateTableMinCapacity},
		{"StateTableMaxWriteCapacity", &r.StateTableMaxWriteCapacity, DefaultStateTableMaxCapacity},
		{"StateTableMinReadCapacity", &r.StateTableMinReadCapacity, DefaultStateTableMinCapacity},
		{"StateTableMaxReadCapacity", &r.StateTableMaxReadCapacity, DefaultStateTableMaxCapacity},
	} {
		if *c.v == 0 {
			*c.v = c.def
		}
		if *c.v < 1 {
			return bad(c.field, "%d: at least 1", *c.v)
		}
	}
	if r.StateTableMinWriteCapacity > r.StateTableMaxWriteCapacity {
		return bad("StateTableMaxWriteCapacity", "%d: below StateTableMinWriteCapacity %d", r.StateTableMaxWriteCapacity, r.StateTableMinWriteCapacity)
	}
	if r.StateTableMinReadCapacity > r.StateTableMaxReadCapacity {
		return bad("StateTableMaxReadCapacity", "%d: below StateTableMinReadCapacity %d", r.StateTableMaxReadCapacity, r.StateTableMinReadCapacity)
	}
	if r.StateTableTargetUtilization == 0 {
		r.StateTableTargetUtilization = DefaultStateTableTargetUtilization
	}
	if r.StateTableTargetUtilization < 20 || r.StateTableTargetUtilization > 90 {
		return bad("StateTableTargetUtilization", "%d: 20 to 90 (percent)", r.StateTableTargetUtilization)
	}
	return nil
}
