// Command loadtest pushes many small files through the deployed path's
// discovery and commit handlers on the AWS emulator (moto, started from the
// project's pinned venv, or the endpoint TRIBUTARY_TEST_ENDPOINT names) and
// checks the outcome. Run it with `make loadtest` (100,000 files); it is not
// part of `make test`.
//
// What it does:
//
//  1. Creates a bucket, the commit kick FIFO queue and the DynamoDB state
//     table (dynamostate.CreateTable) and writes -files one-row NDJSON
//     objects under date-partitioned keys with PutObject (-upload-workers at
//     a time).
//  2. Discovery: the S3 event notifications are synthesised, one message per
//     object in the exact format S3 sends (ObjectCreated:Put, URL-encoded key,
//     size, eTag, sequencer), and handed to lambdafn.App.HandleDiscovery in
//     SQS event batches of -batch records (the template's event source
//     mapping batch size), -discovery-workers invocations at a time, each
//     worker its own App as separate Lambda instances are. No events queue:
//     moto's S3→SQS delivery would be timed instead of discovery.
//  3. Commit: the kicks discovery sent are received from the FIFO queue one at
//     a time (the template's batch size 1) and handed to HandleCommit until the
//     queue is empty, as the Lambda poller would.
//  4. Checks: every file is COMMITTED in the state table exactly once (one
//     entry per path, in a batch), the Delta table read back by delta-rs
//     holds exactly one row per file, and the state table's file items sit
//     under the shard partition key of their path with every shard used and
//     the busiest within -max-skew × the mean.
//
// It prints one summary line that scripts can read:
//
//	LOAD files=100000 discovery_files_per_s=… commit_files_per_s=… shards=32 max_over_mean=… exactly_once=true
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/awsclient"
	"github.com/tributary-io/tributary/infra/awstest"
	"github.com/tributary-io/tributary/infra/dynamostate"
	"github.com/tributary-io/tributary/infra/lambdafn"
	"github.com/tributary-io/tributary/infra/sqskick"
	"github.com/tributary-io/tributary/infra/streams"
)

// Deployment constants.
const (
	streamID     = "load"
	sourcePrefix = "landing/"
	tablePrefix  = "tables/load"
	region       = "us-east-1"
)

// params are the command's flags.
type params struct {
	files, batch, uploadWorkers, discoveryWorkers, maxFilesPerTrigger int
	maxSkew                                                           float64
	verbose                                                           bool
	cpuProfile, callLog                                               string
	dynamoDBLocal, putObject                                          bool
}

func main() {
	var p params
	flag.IntVar(&p.files, "files", 100000, "number of source files")
	flag.IntVar(&p.batch, "batch", 1000, "S3 events per discovery invocation (template.yaml's BatchSize: 1000)")
	flag.IntVar(&p.uploadWorkers, "upload-workers", 8, "concurrent PutObject calls while writing the source files")
	flag.IntVar(&p.discoveryWorkers, "discovery-workers", 4, "concurrent discovery invocations (one App each)")
	flag.IntVar(&p.maxFilesPerTrigger, "max-files-per-trigger", 1000, "cloudFiles.maxFilesPerTrigger of the stream")
	flag.Float64Var(&p.maxSkew, "max-skew", 1.25, "largest allowed busiest-shard / mean ratio of file items")
	flag.BoolVar(&p.verbose, "v", false, "log the handlers at info level")
	flag.BoolVar(&p.dynamoDBLocal, "dynamodb-local", false, "serve DynamoDB from DynamoDB Local (scripts/dynamodb-local.sh, needs Java 17+) instead of moto; S3 and SQS stay on moto")
	flag.BoolVar(&p.putObject, "put-object", false, "write the source files with PutObject also on the moto this command starts (default there: its bulk route, same objects)")
	flag.StringVar(&p.callLog, "calllog", "", "write one line per emulator call of the handlers (start µs, duration µs, operation) to this file")
	flag.StringVar(&p.cpuProfile, "cpuprofile", "", "write a CPU profile of the commit phase to this file")
	flag.Parse()
	if err := run(context.Background(), p); err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(1)
	}
}

// deployment is the emulated stack.
type deployment struct {
	endpoint       string
	raw            aws.Config
	s3             *s3.Client
	sqs            *sqs.Client
	ddb            *dynamodb.Client
	bucket, table  string
	kickURL        string
	kickARN        string
	configJSON     string
	logger         *slog.Logger
	tempDir        string
	maxFilesPerTrg int
	calls          *opTimer
	apiOptions     []func(*middleware.Stack) error // of the handlers' clients
}

func run(ctx context.Context, p params) error {
	if p.files < 1 || p.batch < 1 || p.uploadWorkers < 1 || p.discoveryWorkers < 1 {
		return errors.New("-files, -batch and the worker counts must be at least 1")
	}
	srv, err := awstest.Start()
	if err != nil {
		return err
	}
	defer srv.Stop()
	var ddbLocal *dynamoDBLocal
	if p.dynamoDBLocal {
		if ddbLocal, err = startDynamoDBLocal(ctx); err != nil {
			return err
		}
		defer ddbLocal.stop()
		fmt.Printf("DynamoDB:  DynamoDB Local at %s\n", ddbLocal.url)
	}
	d, err := deploy(ctx, srv.URL, ddbLocal, p)
	if err != nil {
		return err
	}
	defer os.RemoveAll(d.tempDir)
	if p.callLog != "" {
		f, err := os.Create(p.callLog)
		if err != nil {
			return err
		}
		defer f.Close()
		d.calls.log = f
	}
	fmt.Printf("emulator %s, bucket %s, state table %s, %d files\n", d.endpoint, d.bucket, d.table, p.files)

	// 1. The source files.
	start := time.Now()
	upload := d.upload
	if awstest.External() == "" && !p.putObject {
		upload = d.bulkUpload // our moto (scripts/moto_atomic.py)
	}
	objs, err := upload(ctx, p.files, p.uploadWorkers)
	if err != nil {
		return err
	}
	took := time.Since(start)
	fmt.Printf("upload:    %d objects in %s (%.0f/s, not part of the pipeline)\n", len(objs), took.Round(time.Millisecond), rate(len(objs), took))

	// 2. Discovery.
	d.calls.reset()
	start = time.Now()
	registered, err := d.discover(ctx, objs, p)
	if err != nil {
		return err
	}
	disc := time.Since(start)
	fmt.Printf("discovery: %d files handled in %s: %.0f files/s (%d invocations of %d events, %d at a time)\n",
		registered, disc.Round(time.Millisecond), rate(len(objs), disc), (len(objs)+p.batch-1)/p.batch, p.batch, p.discoveryWorkers)
	if registered != len(objs) {
		return fmt.Errorf("discovery handled %d files, want %d", registered, len(objs))
	}

	d.calls.print("discovery", len(objs))

	// 3. Commit.
	d.calls.reset()
	if p.cpuProfile != "" {
		f, err := os.Create(p.cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	start = time.Now()
	invocations, err := d.commit(ctx)
	if err != nil {
		return err
	}
	commit := time.Since(start)
	if p.cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	fmt.Printf("commit:    %d kicks handled in %s: %.0f files/s\n", invocations, commit.Round(time.Millisecond), rate(len(objs), commit))
	d.calls.print("commit", len(objs))

	// 4. Checks.
	start = time.Now()
	batches, err := d.checkState(ctx, objs)
	if err != nil {
		return err
	}
	rows, version, err := d.checkTable(ctx, objs)
	if err != nil {
		return err
	}
	skew, used, err := d.checkShards(ctx, objs, p.maxSkew)
	if err != nil {
		return err
	}
	fmt.Printf("checks:    %d entries COMMITTED in %d batches, %d rows in Delta version %d, file items over %d/%d shards (max/mean %.3f) in %s\n",
		len(objs), batches, rows, version, used, dynamostate.FileShards, skew, time.Since(start).Round(time.Millisecond))
	fmt.Printf("LOAD files=%d discovery_files_per_s=%.0f commit_files_per_s=%.0f batches=%d shards=%d max_over_mean=%.3f exactly_once=true\n",
		len(objs), rate(len(objs), disc), rate(len(objs), commit), batches, used, skew)
	return nil
}

func rate(n int, d time.Duration) float64 { return float64(n) / d.Seconds() }

// awsConfig is the SDK configuration for the emulator (as awstest.Config).
func awsConfig(ctx context.Context, endpoint string) (aws.Config, error) {
	return config.LoadDefaultConfig(ctx,
		config.WithRegion(region),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("test", "test", "")),
		config.WithHTTPClient(awshttp.NewBuildableClient()),
		config.WithBaseEndpoint(endpoint),
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
	)
}

func deploy(ctx context.Context, endpoint string, ddbLocal *dynamoDBLocal, p params) (*deployment, error) {
	raw, err := awsConfig(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	var apiOptions []func(*middleware.Stack) error
	if ddbLocal != nil {
		apiOptions = append(apiOptions, ddbLocal.route)
		raw.APIOptions = append(raw.APIOptions, ddbLocal.route)
	}
	name := fmt.Sprintf("load-%d", time.Now().UnixNano())
	tmp, err := os.MkdirTemp("", "tributary-loadtest-")
	if err != nil {
		return nil, err
	}
	level := slog.LevelWarn
	if p.verbose {
		level = slog.LevelInfo
	}
	d := &deployment{
		endpoint: endpoint, raw: raw,
		s3: awsclient.NewS3(raw), sqs: sqs.NewFromConfig(raw), ddb: dynamodb.NewFromConfig(raw),
		bucket: name, table: name + "-state",
		logger:         slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
		tempDir:        tmp,
		maxFilesPerTrg: p.maxFilesPerTrigger,
		calls:          newOpTimer(),
	}
	d.apiOptions = append(apiOptions, d.calls.addTo)
	if _, err := d.s3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(d.bucket)}); err != nil {
		return nil, fmt.Errorf("create bucket: %w", err)
	}
	q, err := d.sqs.CreateQueue(ctx, &sqs.CreateQueueInput{
		QueueName:  aws.String(name + "-kick.fifo"),
		Attributes: map[string]string{"FifoQueue": "true", "VisibilityTimeout": "900"},
	})
	if err != nil {
		return nil, fmt.Errorf("create kick queue: %w", err)
	}
	d.kickURL = aws.ToString(q.QueueUrl)
	a, err := d.sqs.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
		QueueUrl: q.QueueUrl, AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameQueueArn},
	})
	if err != nil {
		return nil, fmt.Errorf("kick queue attributes: %w", err)
	}
	d.kickARN = a.Attributes[string(sqstypes.QueueAttributeNameQueueArn)]
	if err := dynamostate.CreateTable(ctx, d.ddb, d.table); err != nil {
		return nil, err
	}
	b := "s3://" + d.bucket + "/"
	cfg := map[string]any{"streams": []any{map[string]any{
		"id":                 streamID,
		"source":             b + sourcePrefix,
		"table":              b + tablePrefix,
		"checkpointLocation": b + tablePrefix + "/_tributary/checkpoint/",
		"schemaLocation":     b + tablePrefix + "/_tributary/checkpoint/",
		"options": map[string]any{
			"cloudFiles.format":             "json",
			"cloudFiles.useNotifications":   true,
			"cloudFiles.inferColumnTypes":   true,
			"cloudFiles.maxFilesPerTrigger": strconv.Itoa(p.maxFilesPerTrigger),
		},
	}}}
	js, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	d.configJSON = string(js)
	return d, nil
}

// newApp builds one function instance as lambdafn.Boot wires it.
func (d *deployment) newApp(ctx context.Context) (*lambdafn.App, error) {
	cfg, err := options.LoadConfig(strings.NewReader(d.configJSON))
	if err != nil {
		return nil, err
	}
	awsCfg, err := awsclient.Load(ctx,
		awsclient.WithEndpoint(d.endpoint),
		awsclient.WithRegion(region),
		awsclient.WithAPIOptions(d.apiOptions...),
		awsclient.WithLoadOptions(config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("test", "test", ""))))
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(d.tempDir, "fn-")
	if err != nil {
		return nil, err
	}
	return &lambdafn.App{
		Config:  cfg,
		Env:     streams.Env{AWS: &awsCfg, StateTable: d.table, Logger: d.logger, TempDir: dir, Notifications: true},
		Kicker:  &sqskick.Kicker{Client: sqs.NewFromConfig(awsCfg), QueueURL: d.kickURL},
		Logger:  d.logger,
		Metrics: io.Discard,
	}, nil
}

// object is one uploaded source file.
type object struct {
	key  string // full key
	etag string
	size int64
	at   time.Time
}

// keyOf is the i-th file's key: date-partitioned folders (one hour per
// 10,000 files) and sequential names, as a firehose-like producer writes.
func keyOf(i int) string {
	t := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i/10000) * time.Hour)
	return fmt.Sprintf("%s%s/events-%07d.json", sourcePrefix, t.Format("2006/01/02/15"), i)
}

// body is the i-th file's content: one NDJSON row naming its file.
func body(i int) []byte {
	return []byte(fmt.Sprintf(`{"id":%d,"key":%q}`+"\n", i, keyOf(i)))
}

func (d *deployment) upload(ctx context.Context, n, workers int) ([]object, error) {
	objs := make([]object, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				b := body(i)
				out, err := d.s3.PutObject(ctx, &s3.PutObjectInput{
					Bucket: aws.String(d.bucket), Key: aws.String(keyOf(i)), Body: bytes.NewReader(b),
				})
				if err != nil {
					errs[w] = fmt.Errorf("put %s: %w", keyOf(i), err)
					next.Store(int64(n))
					return
				}
				objs[i] = object{key: keyOf(i), etag: strings.Trim(aws.ToString(out.ETag), `"`), size: int64(len(b)), at: time.Now().UTC()}
				if (i+1)%20000 == 0 {
					fmt.Printf("  uploaded %d\n", i+1)
				}
			}
		}()
	}
	wg.Wait()
	return objs, errors.Join(errs...)
}

// bulkUpload writes the source files through the bulk route of
// scripts/moto_atomic.py, 1,000 a request: the same objects as PutObject's
// (moto's S3 backend stores them), in a fraction of the time.
func (d *deployment) bulkUpload(ctx context.Context, n, _ int) ([]object, error) {
	objs := make([]object, n)
	type put struct {
		Key  string `json:"key"`
		Body string `json:"body"`
	}
	for from := 0; from < n; from += 1000 {
		to := min(from+1000, n)
		req := struct {
			Bucket  string `json:"bucket"`
			Objects []put  `json:"objects"`
		}{Bucket: d.bucket}
		for i := from; i < to; i++ {
			req.Objects = append(req.Objects, put{Key: keyOf(i), Body: string(body(i))})
		}
		js, err := json.Marshal(req)
		if err != nil {
			return nil, err
		}
		hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, d.endpoint+"/_tributary/put-objects", bytes.NewReader(js))
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(hreq)
		if err != nil {
			return nil, fmt.Errorf("bulk upload: %w", err)
		}
		var out struct {
			ETags []string `json:"etags"`
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || len(out.ETags) != to-from {
			return nil, fmt.Errorf("bulk upload: status %s, %d etags for %d objects (%v)", resp.Status, len(out.ETags), to-from, err)
		}
		at := time.Now().UTC()
		for i := from; i < to; i++ {
			objs[i] = object{key: keyOf(i), etag: strings.Trim(out.ETags[i-from], `"`), size: int64(len(body(i))), at: at}
		}
		if to%20000 == 0 {
			fmt.Printf("  uploaded %d\n", to)
		}
	}
	return objs, nil
}

// s3Key encodes a key as S3 event notifications do (URL form encoding:
// spaces as '+').
func s3Key(key string) string { return url.QueryEscape(key) }

// eventBody is the SQS message body S3 sends for one ObjectCreated:Put.
func (d *deployment) eventBody(o object, seq int) (string, error) {
	rec := map[string]any{
		"eventVersion": "2.1",
		"eventSource":  "aws:s3",
		"awsRegion":    region,
		"eventTime":    o.at.Format("2006-01-02T15:04:05.000Z"),
		"eventName":    "ObjectCreated:Put",
		"userIdentity": map[string]any{"principalId": "AWS:AIDAJDPLRKLG7UEXAMPLE"},
		"requestParameters": map[string]any{
			"sourceIPAddress": "203.0.113.15",
		},
		"responseElements": map[string]any{
			"x-amz-request-id": fmt.Sprintf("%016X", seq),
			"x-amz-id-2":       "FMyUVURIY8/IgAtTv8xRjskZQpcIZ9KG4V5Wp6S7S/JRWeUWerMUE5JgHvANOjpD",
		},
		"s3": map[string]any{
			"s3SchemaVersion": "1.0",
			"configurationId": "tributary-" + streamID + "-events",
			"bucket": map[string]any{
				"name":          d.bucket,
				"ownerIdentity": map[string]any{"principalId": "A3NL1KOZZKExample"},
				"arn":           "arn:aws:s3:::" + d.bucket,
			},
			"object": map[string]any{
				"key":       s3Key(o.key),
				"size":      o.size,
				"eTag":      o.etag,
				"sequencer": fmt.Sprintf("%018X", seq+1),
			},
		},
	}
	b, err := json.Marshal(map[string]any{"Records": []any{rec}})
	return string(b), err
}

// discover hands the synthesised events to HandleDiscovery and returns the
// number of files registered.
func (d *deployment) discover(ctx context.Context, objs []object, p params) (int, error) {
	type job struct{ from, to int }
	jobs := make(chan job)
	var registered atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, p.discoveryWorkers)
	for w := range p.discoveryWorkers {
		app, err := d.newApp(ctx)
		if err != nil {
			return 0, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if errs[w] != nil {
					continue
				}
				var ev events.SQSEvent
				for i := j.from; i < j.to; i++ {
					b, err := d.eventBody(objs[i], i)
					if err != nil {
						errs[w] = err
						break
					}
					ev.Records = append(ev.Records, events.SQSMessage{
						MessageId: fmt.Sprintf("m-%d", i), ReceiptHandle: fmt.Sprintf("r-%d", i), Body: b,
						EventSource: "aws:sqs", EventSourceARN: "arn:aws:sqs:" + region + ":123456789012:" + d.bucket + "-events", AWSRegion: region,
					})
				}
				resp, err := app.HandleDiscovery(ctx, ev)
				if err == nil && len(resp.BatchItemFailures) > 0 {
					err = fmt.Errorf("discovery failed %d of %d messages (first %s)", len(resp.BatchItemFailures), len(ev.Records), resp.BatchItemFailures[0].ItemIdentifier)
				}
				if err != nil {
					errs[w] = err
				}
				registered.Add(int64(j.to - j.from))
			}
		}()
	}
	for from := 0; from < len(objs); from += p.batch {
		jobs <- job{from, min(from+p.batch, len(objs))}
		if to := min(from+p.batch, len(objs)); to/20000 > from/20000 {
			fmt.Printf("  discovered %d\n", to/20000*20000)
		}
	}
	close(jobs)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	// The handlers reported no failure; what they registered is checked
	// after the commit (one COMMITTED entry and one row per file).
	return int(registered.Load()), nil
}

// commit plays the Lambda poller of the kick queue: one kick per
// HandleCommit, until the queue is empty.
func (d *deployment) commit(ctx context.Context) (int, error) {
	app, err := d.newApp(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		out, err := d.sqs.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl: aws.String(d.kickURL), MaxNumberOfMessages: 1,
			MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameAll},
		})
		if err != nil {
			return n, fmt.Errorf("receive kick: %w", err)
		}
		if len(out.Messages) == 0 {
			return n, nil
		}
		m := out.Messages[0]
		ev := events.SQSEvent{Records: []events.SQSMessage{{
			MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle), Body: aws.ToString(m.Body),
			Md5OfBody: aws.ToString(m.MD5OfBody), Attributes: m.Attributes,
			EventSource: "aws:sqs", EventSourceARN: d.kickARN, AWSRegion: region,
		}}}
		n++
		resp, err := app.HandleCommit(ctx, ev)
		if err != nil {
			return n, fmt.Errorf("commit: %w", err)
		}
		if len(resp.BatchItemFailures) > 0 {
			return n, fmt.Errorf("commit failed its kick (see the log)")
		}
		if _, err := d.sqs.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(d.kickURL), ReceiptHandle: m.ReceiptHandle}); err != nil {
			return n, fmt.Errorf("delete kick: %w", err)
		}
	}
}

// checkState asserts one COMMITTED entry per file and returns the number
// of batches.
func (d *deployment) checkState(ctx context.Context, objs []object) (int, error) {
	want := make(map[string]bool, len(objs))
	for _, o := range objs {
		want[strings.TrimPrefix(o.key, sourcePrefix)] = true
	}
	seen := make(map[string]bool, len(objs))
	batches := map[int64]int{}
	st := dynamostate.New(d.ddb, d.table)
	for e, err := range st.Entries(ctx, streamID) {
		if err != nil {
			return 0, err
		}
		switch {
		case !want[e.Path]:
			return 0, fmt.Errorf("state entry %q: not a source file", e.Path)
		case seen[e.Path]:
			return 0, fmt.Errorf("state entry %q listed twice", e.Path)
		case e.State != state.Committed:
			return 0, fmt.Errorf("state entry %q is %s, want %s", e.Path, e.State, state.Committed)
		}
		seen[e.Path] = true
		batches[e.BatchID]++
	}
	if len(seen) != len(want) {
		return 0, fmt.Errorf("state holds %d of %d files", len(seen), len(want))
	}
	return len(batches), nil
}

// checkTable reads the Delta table with delta-rs and asserts one row per
// file; it returns the row count and the table version.
func (d *deployment) checkTable(ctx context.Context, objs []object) (int, int64, error) {
	root := repoRoot()
	out, err := exec.CommandContext(ctx, filepath.Join(root, "scripts", "pyenv.sh")).Output()
	if err != nil {
		return 0, 0, fmt.Errorf("scripts/pyenv.sh: %w", err)
	}
	py := filepath.Join(strings.TrimSpace(string(out)), "python")
	cmd := exec.CommandContext(ctx, py, filepath.Join(root, "tests", "e2e", "testdata", "read_table.py"), d.endpoint, "s3://"+d.bucket+"/"+tablePrefix)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	raw, err := cmd.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("reading the table with delta-rs: %w\n%s", err, stderr.String())
	}
	var snap struct {
		Version int64 `json:"version"`
		Rows    []struct {
			ID  *int64 `json:"id"`
			Key string `json:"key"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(raw, &snap); err != nil {
		return 0, 0, fmt.Errorf("reader output: %w", err)
	}
	got := make([]int, len(objs))
	for _, r := range snap.Rows {
		if r.ID == nil || *r.ID < 0 || int(*r.ID) >= len(objs) || r.Key != objs[*r.ID].key {
			return 0, 0, fmt.Errorf("unexpected row %+v", r)
		}
		got[*r.ID]++
	}
	for i, c := range got {
		if c != 1 {
			return 0, 0, fmt.Errorf("file %s has %d rows in the table, want 1", objs[i].key, c)
		}
	}
	return len(snap.Rows), snap.Version, nil
}

// checkShards scans the state table and asserts that each file item is
// under the shard partition key of its path, that every shard holds some,
// and that the busiest holds at most maxSkew × the mean.
func (d *deployment) checkShards(ctx context.Context, objs []object, maxSkew float64) (float64, int, error) {
	counts := map[string]int{}
	pages := dynamodb.NewScanPaginator(d.ddb, &dynamodb.ScanInput{
		TableName: aws.String(d.table), ProjectionExpression: aws.String("pk, sk"),
	})
	files := 0
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return 0, 0, fmt.Errorf("scan %s: %w", d.table, err)
		}
		for _, it := range page.Items {
			pk, sk := attrString(it["pk"]), attrString(it["sk"])
			if !strings.HasPrefix(pk, streamID+"#f") {
				continue // batch and identity items
			}
			if want := dynamostate.ShardPK(streamID, dynamostate.FileShard(sk)); pk != want {
				return 0, 0, fmt.Errorf("file item %q under %q, want %q", sk, pk, want)
			}
			counts[pk]++
			files++
		}
	}
	if files != len(objs) {
		return 0, 0, fmt.Errorf("%d file items in the table, want %d", files, len(objs))
	}
	if len(counts) != dynamostate.FileShards {
		return 0, len(counts), fmt.Errorf("file items over %d shards, want all %d", len(counts), dynamostate.FileShards)
	}
	vals := make([]int, 0, len(counts))
	for _, c := range counts {
		vals = append(vals, c)
	}
	mean := float64(files) / float64(len(counts))
	skew := float64(slices.Max(vals)) / mean
	if skew > maxSkew {
		return skew, len(counts), fmt.Errorf("busiest shard holds %d items, %.3f × the mean %.1f (limit %.2f)", slices.Max(vals), skew, mean, maxSkew)
	}
	return skew, len(counts), nil
}

// attrString is a string attribute's value ("" for another type).
func attrString(v ddbtypes.AttributeValue) string {
	if s, ok := v.(*ddbtypes.AttributeValueMemberS); ok {
		return s.Value
	}
	return ""
}

// repoRoot finds the module root from this source file's location.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}
