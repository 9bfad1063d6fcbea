package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/glue"
	gluetypes "github.com/aws/aws-sdk-go-v2/service/glue/types"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/aws/smithy-go/middleware"

	tevents "github.com/tributary-io/tributary/events"
	"github.com/tributary-io/tributary/infra/awsclient"
	"github.com/tributary-io/tributary/infra/awstest"
	"github.com/tributary-io/tributary/infra/lambdafn"
	"github.com/tributary-io/tributary/infra/sqskick"
)

// iamRecorder is SDK middleware that records every call a function makes
// as the IAM authorisation requests it needs (action, resource ARN,
// condition keys).
type iamRecorder struct {
	mu    sync.Mutex
	calls []iamCall
}

func (r *iamRecorder) AddTo(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("e2e.IAMRecorder",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			reqs := iamRequests(awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx), in.Parameters)
			r.mu.Lock()
			r.calls = append(r.calls, reqs...)
			r.mu.Unlock()
			return next.HandleInitialize(ctx, in)
		}), middleware.After)
}

func (r *iamRecorder) snapshot() []iamCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.calls)
}

// field returns the string field name of an SDK input struct ("" if unset).
func field(params any, name string) string {
	v := reflect.ValueOf(params)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	f := v.FieldByName(name)
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() || f.Elem().Kind() != reflect.String {
		return ""
	}
	return f.Elem().String()
}

// iamRequests maps one SDK call to the IAM requests it makes (the
// documented action of each operation; HeadObject needs s3:GetObject,
// CopyObject s3:GetObject on the source and s3:PutObject on the target,
// the batch SQS operations their single-message action).
func iamRequests(service, op string, params any) []iamCall {
	switch service {
	case "S3":
		b, k := field(params, "Bucket"), field(params, "Key")
		obj := "arn:aws:s3:::" + b + "/" + k
		switch op {
		case "GetObject", "HeadObject":
			return []iamCall{{Action: "s3:GetObject", Resource: obj}}
		case "PutObject", "DeleteObject":
			return []iamCall{{Action: "s3:" + op, Resource: obj}}
		case "CopyObject":
			src, err := url.PathUnescape(field(params, "CopySource"))
			if err != nil {
				src = "(bad CopySource)"
			}
			return []iamCall{{Action: "s3:PutObject", Resource: obj}, {Action: "s3:GetObject", Resource: "arn:aws:s3:::" + src}}
		case "ListObjectsV2", "ListObjects":
			return []iamCall{{Action: "s3:ListBucket", Resource: "arn:aws:s3:::" + b, Keys: map[string]string{"s3:prefix": field(params, "Prefix")}}}
		}
		return []iamCall{{Action: "s3:" + op, Resource: obj}}
	case "DynamoDB":
		arn := func(table string) string {
			return "arn:aws:dynamodb:" + cfnRegion + ":" + cfnAccount + ":table/" + table
		}
		if op == "BatchGetItem" || op == "BatchWriteItem" {
			v := reflect.ValueOf(params).Elem().FieldByName("RequestItems")
			var out []iamCall
			for _, k := range v.MapKeys() {
				out = append(out, iamCall{Action: "dynamodb:" + op, Resource: arn(k.String())})
			}
			return out
		}
		res := arn(field(params, "TableName"))
		if idx := field(params, "IndexName"); idx != "" {
			res += "/index/" + idx
		}
		return []iamCall{{Action: "dynamodb:" + op, Resource: res}}
	case "Glue":
		// Table operations are authorised on the catalog, the database and the table.
		db := field(params, "DatabaseName")
		name := field(params, "Name")
		if name == "" {
			v := reflect.ValueOf(params).Elem().FieldByName("TableInput")
			if v.IsValid() && !v.IsNil() {
				name = field(v.Interface(), "Name")
			}
		}
		base := "arn:aws:glue:" + cfnRegion + ":" + cfnAccount + ":"
		return []iamCall{
			{Action: "glue:" + op, Resource: base + "catalog"},
			{Action: "glue:" + op, Resource: base + "database/" + db},
			{Action: "glue:" + op, Resource: base + "table/" + db + "/" + name},
		}
	case "Lambda":
		// Invoke is authorised as lambda:InvokeFunction on the function.
		fn := field(params, "FunctionName")
		if !strings.HasPrefix(fn, "arn:") {
			fn = "arn:aws:lambda:" + cfnRegion + ":" + cfnAccount + ":function:" + fn
		}
		if op == "Invoke" {
			op = "InvokeFunction"
		}
		return []iamCall{{Action: "lambda:" + op, Resource: fn}}
	case "SSM":
		name, _, _ := strings.Cut(field(params, "Name"), ":") // name:version is authorised on the name
		return []iamCall{{Action: "ssm:" + op, Resource: "arn:aws:ssm:" + cfnRegion + ":" + cfnAccount + ":parameter" + name}}
	case "SQS":
		action := strings.TrimSuffix(op, "Batch")
		u, err := url.Parse(field(params, "QueueUrl"))
		res := "(bad QueueUrl)"
		if parts := strings.Split(strings.Trim(u.Path, "/"), "/"); err == nil && len(parts) == 2 {
			res = "arn:aws:sqs:" + cfnRegion + ":" + parts[0] + ":" + parts[1]
		}
		return []iamCall{{Action: "sqs:" + action, Resource: res}}
	}
	return []iamCall{{Action: strings.ToLower(service) + ":" + op, Resource: "*"}}
}

// platformSids are the statements whose actions the Lambda service (not
// the functions' code) performs with the function's role, so no SDK call
// of the code records them: writing the function's logs; the SQS event
// source mapping polling the queue that triggers the function; the async
// invocation's on-failure destination; KMS use by SQS, S3 and DynamoDB on
// the caller's behalf (SSE-KMS); X-Ray segments sent by the runtime.
var platformSids = map[string]bool{
	"Logs": true, "ConsumeEvents": true, "ConsumeKicks": true,
	"OnFailureDestination": true, "KmsKey": true, "XRay": true,
}

// iamVariant is one deployment of a case: a fresh stack with ExtraOptions
// (which change the code path, not the rendered policy) and an order of
// first starts.
type iamVariant struct {
	extra string
	// backfillFirst starts the backfill function before any file lands
	// (the stream's first start; discovery then finds its identity record).
	backfillFirst bool
	// corrupt uploads an unreadable gzip file (with ignoreCorruptFiles the
	// commit function abandons the attempt's data files and rewrites).
	corrupt bool
	// badRecord uploads a file with a malformed JSON line.
	badRecord bool
	// lostEvents drops the files' events: the backfill function finds the
	// files, registers them and kicks the commit function.
	lostEvents bool
	// continueListing (with lostEvents) gives that backfill run a few
	// seconds of listing: it stops and continues by invoking itself
	// asynchronously (lambda:InvokeFunction on its own ARN), continuation
	// after continuation until the pass completes.
	continueListing bool
	// stopForTime runs the first commit invocation too close to its
	// deadline to start a batch: it kicks itself to continue.
	stopForTime bool
	// refresh ends the variant with a full refresh of every stream, queued
	// by a manual invocation of the commit function (docs/refresh.md).
	refresh bool
}

// unexercised are grants for code paths the variants do not reach, each
// with the code that needs it. Only these exact (function, statement,
// action) triples are exempt from the "every grant is used" check; every
// call, on these paths too, must still be allowed.
var unexercised = map[string]string{
	// core/ingest/statestore.go adoptStateStore: a state table that is not
	// the one the checkpoint recorded gets the plans' files registered
	// again at the first start of discovery or backfill (covered on the
	// emulator by TestNewStateTableIsAdopted).
	"discovery|ReregisterFiles|dynamodb:BatchGetItem": "re-registration in a new state table",
	"discovery|ReregisterFiles|dynamodb:UpdateItem":   "re-registration in a new state table",
	"discovery|CheckpointPlans|s3:GetObject":          "re-registration in a new state table",
	"discovery|ListCheckpointPlans|s3:ListBucket":     "re-registration in a new state table",
	"backfill|ReregisterFiles|dynamodb:UpdateItem":    "re-registration in a new state table",
	"backfill|CheckpointPlans|s3:GetObject":           "re-registration in a new state table",
	"backfill|ListCheckpointPlans|s3:ListBucket":      "re-registration in a new state table",
	// infra/dynamostate keys.go identity: the first user of a state table
	// (whichever function starts first) Scans one item to choose the
	// table's key layout.
	"discovery|StateStoreIdentity|dynamodb:Scan": "first use of a state table",
	// infra/dynamostate StoreID: the first user of a state table writes its
	// identity item; discovery writes nothing else to the table
	// (infra/inboxstate: pending files go to the checkpoint's inbox).
	"discovery|RegisterFiles|dynamodb:PutItem":  "first use of a state table",
	"backfill|StateStoreIdentity|dynamodb:Scan": "first use of a state table",
	"commit|FileState|dynamodb:Scan":            "first use of a state table",
	// core/ingest/write.go discardAll: an attempt that fails after
	// uploading data files removes them (needs a failure between two
	// uploads of one attempt).
	"commit|WriteTable|s3:DeleteObject": "discardAll after a failed attempt",
	// core/ingest/identity.go checkStateKnows (a checkpoint whose state was
	// replaced) and engine.go recleanLast (cleanSource only, covered by the
	// cleanSource cases).
	"commit|FileState|dynamodb:GetItem": "state probes on recovery",
	// infra/inboxstate: Pending reads no item (a claim takes its files'
	// records out of the inbox); a record still in the inbox is checked
	// against the items by a reset's DropStream, a skip of an overwritten
	// file (MarkSkipped) and the legacy Claim.
	"commit|FileState|dynamodb:BatchGetItem": "inbox records checked on reset or a skip",
	// infra/gluecatalog Sync updates the catalog table when the schema or
	// location changed (covered on moto by infra/gluecatalog's tests).
	"commit|GlueCatalog|glue:UpdateTable": "catalog update on a schema change",
}

// TestTemplateIAM renders template.yaml's roles for several allowed
// parameter combinations, runs the three functions (booted by
// lambdafn.BootFrom from the environment the template renders, one App per
// function as in Lambda) through a deployment on the emulator, records
// every SDK call each makes, and checks that (a) the function's rendered
// policy allows each call and (b) each action on each resource the policy
// allows is used by some call (platform statements excepted).
func TestTemplateIAM(t *testing.T) {
	tpl := loadTemplate(t)
	const kmsKey = "arn:aws:kms:us-east-1:123456789012:key/0f9a3c52-7d1e-4b8a-9a43-6f1f2d3e4c5b"
	// modifiedAfter makes discovery read each object's LastModified;
	// includeExistingFiles=false makes the first start record its time.
	const since = `{"modifiedAfter":"2000-01-01T00:00:00Z"}`
	const fresh = `{"cloudFiles.includeExistingFiles":"false"}`
	cases := []struct {
		name       string
		params     map[string]string
		otherTable bool
		// streams deploys two streams (landing/a/, landing/b/ into
		// tables/events/a, tables/events/b) through StreamsConfig.
		streams  bool
		variants []iamVariant
	}{
		{
			name:   "defaults",
			params: map[string]string{"MaxFilesPerTrigger": "2"},
			variants: []iamVariant{
				{extra: "{}", stopForTime: true, refresh: true},
				{extra: since, backfillFirst: true},
				{extra: "{}", lostEvents: true, continueListing: true},
				{extra: fresh, backfillFirst: true},
			},
		},
		{
			name:       "cleanSource DELETE, badRecordsPath, table in another bucket",
			params:     map[string]string{"CleanSource": "DELETE", "BadRecordsPrefix": "bad/", "MaxFilesPerTrigger": "2"},
			otherTable: true,
			variants: []iamVariant{
				{extra: "{}", badRecord: true, lostEvents: true, continueListing: true, refresh: true},
				{extra: since, backfillFirst: true, stopForTime: true},
				{extra: fresh, backfillFirst: true},
			},
		},
		{
			name:       "StreamsConfig: two streams, table in another bucket, Glue catalog",
			params:     map[string]string{"MaxFilesPerTrigger": "2", "GlueDatabase": "*"},
			otherTable: true,
			streams:    true,
			variants: []iamVariant{
				{extra: "{}", stopForTime: true, refresh: true},
				{extra: since, backfillFirst: true},
				{extra: "{}", lostEvents: true, continueListing: true},
				{extra: fresh, backfillFirst: true},
			},
		},
		{
			name:    "StreamsConfigParameter: the two streams' document in SSM",
			params:  map[string]string{"MaxFilesPerTrigger": "2", "StreamsConfigParameter": "*"},
			streams: true,
			variants: []iamVariant{
				{extra: "{}", stopForTime: true, refresh: true},
				{extra: since, backfillFirst: true},
				{extra: "{}", lostEvents: true, continueListing: true},
				{extra: fresh, backfillFirst: true},
			},
		},
		{
			// The same objects read by another reader: the JSON lines
			// arrive as CSV rows (no header), which is enough for the calls.
			name:   "format csv",
			params: map[string]string{"Format": "csv", "MaxFilesPerTrigger": "2"},
			variants: []iamVariant{
				{extra: "{}", stopForTime: true, refresh: true},
				{extra: since, backfillFirst: true},
				{extra: "{}", lostEvents: true, continueListing: true},
				{extra: fresh, backfillFirst: true},
			},
		},
		{
			name: "cleanSource MOVE, ignoreCorruptFiles, KMS key, X-Ray",
			params: map[string]string{"CleanSource": "MOVE", "CleanSourceMoveDestination": "archive/", "IgnoreCorruptFiles": "true",
				"IgnoreMissingFiles": "true", "MaxBytesPerTrigger": "1m", "MaxFilesPerTrigger": "2", "KmsKeyArn": kmsKey, "Tracing": "Active"},
			variants: []iamVariant{
				{extra: "{}", corrupt: true, stopForTime: true, refresh: true},
				{extra: since, backfillFirst: true},
				{extra: "{}", lostEvents: true, continueListing: true},
				{extra: fresh, backfillFirst: true},
			},
		},
	}
	roles := map[string]string{"discovery": "DiscoveryRole", "backfill": "BackfillRole", "commit": "CommitRole", "maintenance": "MaintenanceRole"}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// used marks (function, statement, action, resource) grants some
			// call used in some variant; every variant renders the same
			// statements (the parameters are the case's), only the names differ.
			used, exempt := map[string]bool{}, map[string]bool{}
			var grants []string
			for i, v := range tc.variants {
				calls, stmts := runIAMVariant(t, tc.params, tc.otherTable, tc.streams, v, i, tpl)
				grants = grants[:0]
				for fn, role := range roles {
					checkAllowed(t, fn, role, stmts[fn], calls[fn])
					for si, st := range stmts[fn] {
						if st.Effect != "Allow" || platformSids[st.Sid] {
							continue
						}
						for _, a := range st.Actions {
							for ri, r := range st.Resources {
								key := fmt.Sprintf("%s (%s) statement %s [%d] allows %s on resource #%d", fn, role, st.Sid, si, a, ri)
								grants = append(grants, key+" ("+r+")")
								if _, ok := unexercised[fn+"|"+st.Sid+"|"+a]; ok {
									exempt[key+" ("+r+")"] = true
								}
								one := iamStatement{Sid: st.Sid, Effect: st.Effect, Actions: []string{a}, Resources: []string{r}, Condition: st.Condition}
								if slices.ContainsFunc(calls[fn], func(c iamCall) bool { return one.matches(c, t) }) {
									used[key] = true
								}
							}
						}
					}
				}
			}
			if len(grants) == 0 {
				t.Fatal("no grant rendered")
			}
			sort.Strings(grants)
			for _, g := range grants {
				if !used[g[:strings.LastIndex(g, " (")]] && !exempt[g] {
					t.Errorf("%s, which no call of the function uses in any variant", g)
				}
			}
		})
	}
}

// checkAllowed fails the test for every call the role's statements do not allow.
func checkAllowed(t *testing.T, fn, role string, stmts []iamStatement, calls []iamCall) {
	t.Helper()
	denied := map[string]bool{}
	for _, c := range calls {
		if len(allowedBy(stmts, c, t)) == 0 {
			denied[c.String()] = true
		}
	}
	for _, d := range sortedKeys(denied) {
		t.Errorf("%s (%s) calls %s, which its policy does not allow", fn, role, d)
	}
	var seen []string
	for _, c := range calls {
		seen = append(seen, c.Action)
	}
	slices.Sort(seen)
	t.Logf("%s: %d calls, actions %v", fn, len(calls), slices.Compact(seen))
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// runIAMVariant deploys one variant and returns each function's calls and
// its rendered role statements.
func runIAMVariant(t *testing.T, params map[string]string, otherTable, twoStreams bool, v iamVariant, n int, tpl map[string]any) (map[string][]iamCall, map[string][]iamStatement) {
	f := newFixture(t)
	defer f.use(t)()
	ctx := t.Context()
	tableBucket := f.bucket
	p := map[string]string{
		"StreamId": streamID, "SourceBucketName": f.bucket, "SourcePrefix": sourcePrefix,
		"TablePrefix": "tables/events/", "Format": "json", "ExtraOptions": v.extra,
		// The test hands kicks over at once (its kick queue has no delivery
		// delay), so kicks must not collapse per interval.
		"TriggerInterval": "0",
	}
	if otherTable {
		tableBucket = f.bucket + "-table"
		if _, err := f.s3.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(tableBucket)}); err != nil {
			t.Fatal(err)
		}
		p["TableBucket"] = tableBucket
	}
	for k, val := range params {
		p[k] = val
	}
	if p["GlueDatabase"] == "*" { // a fresh database on the emulator
		p["GlueDatabase"] = strings.ReplaceAll(f.bucket, "-", "_")
		gl := glue.NewFromConfig(awstest.Config(t, f.endpoint))
		if _, err := gl.CreateDatabase(ctx, &glue.CreateDatabaseInput{DatabaseInput: &gluetypes.DatabaseInput{Name: aws.String(p["GlueDatabase"])}}); err != nil {
			t.Fatal(err)
		}
	}
	// With twoStreams the stack serves streams a and b of a streams
	// document (v.extra goes into each stream's options).
	ids, tables := []string{streamID}, []string{"s3://" + tableBucket + "/tables/events"}
	if twoStreams {
		ids, tables = []string{"a", "b"}, nil
		var list []any
		for _, id := range ids {
			table := "s3://" + tableBucket + "/tables/events/" + id
			tables = append(tables, table)
			opts := map[string]any{"cloudFiles.format": "json", "cloudFiles.useNotifications": true, "cloudFiles.maxFilesPerTrigger": "2"}
			var extra map[string]any
			if err := json.Unmarshal([]byte(v.extra), &extra); err != nil {
				t.Fatal(err)
			}
			maps.Copy(opts, extra)
			list = append(list, map[string]any{
				"id": id, "source": "s3://" + f.bucket + "/" + sourcePrefix + id + "/", "table": table,
				"checkpointLocation": table + "/" + lambdafn.CheckpointFolder, "schemaLocation": table + "/" + lambdafn.CheckpointFolder, "options": opts,
			})
		}
		doc, err := json.Marshal(map[string]any{"streams": list})
		if err != nil {
			t.Fatal(err)
		}
		p["StreamAlarmIds"] = strings.Join(ids, ",")
		if p["StreamsConfigParameter"] == "*" {
			// The document in an SSM parameter, pinned to its version.
			name := "/tributary-test/" + f.bucket + "/streams"
			out, err := ssm.NewFromConfig(awstest.Config(t, f.endpoint)).PutParameter(ctx, &ssm.PutParameterInput{
				Name: aws.String(name), Value: aws.String(string(doc)), Type: ssmtypes.ParameterTypeString, Tier: ssmtypes.ParameterTierAdvanced})
			if err != nil {
				t.Fatal(err)
			}
			p["StreamsConfigParameter"] = fmt.Sprintf("%s:%d", name, out.Version)
		} else {
			p["StreamsConfig"] = string(doc)
		}
	}
	backfillName := "tributary-" + streamID + "-backfill"
	logGroup := func(fn string) string {
		return "arn:aws:logs:" + cfnRegion + ":" + cfnAccount + ":log-group:/tributary/" + streamID + "/" + fn + ":*"
	}
	stack := newStack(t, tpl, p,
		map[string]string{"StateTable": f.stateTable, "EventsQueue": f.eventsURL, "KickQueue": f.kickURL, "SourceBucket": f.bucket},
		map[string]string{
			"StateTable.Arn":           "arn:aws:dynamodb:" + cfnRegion + ":" + cfnAccount + ":table/" + f.stateTable,
			"EventsQueue.Arn":          f.eventsARN,
			"KickQueue.Arn":            f.kickARN,
			"BackfillFailureQueue.Arn": "arn:aws:sqs:" + cfnRegion + ":" + cfnAccount + ":" + f.bucket + "-backfill-failures",
			"DiscoveryLogGroup.Arn":    logGroup("discovery"),
			"BackfillLogGroup.Arn":     logGroup("backfill"),
			"CommitLogGroup.Arn":       logGroup("commit"),
			"MaintenanceLogGroup.Arn":  logGroup("maintenance"),
			"BackfillFunction.Arn":     "arn:aws:lambda:" + cfnRegion + ":" + cfnAccount + ":function:" + backfillName,
		})
	globals := stack.render(tpl["Globals"].(map[string]any)["Function"].(map[string]any)["Environment"]).(map[string]any)["Variables"].(map[string]any)
	env := map[string]string{}
	for k, val := range globals {
		env[k] = stack.str(val)
	}
	logger := slog.New(slog.NewTextHandler(testWriter{t}, nil))
	asyncInvocations := &asyncLambda{}
	invokeAPI := httptest.NewServer(asyncInvocations)
	defer invokeAPI.Close()
	recs := map[string]*iamRecorder{"discovery": {}, "backfill": {}, "commit": {}, "maintenance": {}}
	apps := map[string]*lambdafn.App{}
	boot := func(fn string) *lambdafn.App {
		if apps[fn] == nil {
			getenv := func(k string) string {
				if k == lambdafn.EnvFunctionName { // set by Lambda for each function
					return "tributary-" + streamID + "-" + fn
				}
				return env[k]
			}
			app, err := lambdafn.BootFrom(ctx, getenv,
				awsclient.WithEndpoint(f.endpoint), awsclient.WithRegion(cfnRegion),
				awsclient.WithLoadOptions(config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("test", "test", ""))),
				awsclient.WithAPIOptions(recs[fn].AddTo))
			if err != nil {
				t.Fatalf("boot %s with the template's environment %v: %v", fn, env, err)
			}
			app.Logger, app.Env.Logger, app.Env.TempDir, app.Metrics = logger, logger, t.TempDir(), io.Discard
			if fn == "backfill" {
				// The booted continuation, with the SDK client pointed at
				// the test's Invoke endpoint (the emulator runs no functions).
				inv, ok := app.Continuer.(lambdafn.AsyncInvoker)
				if !ok || inv.Function != backfillName {
					t.Fatalf("backfill booted with continuation %+v, want an async invocation of %s", app.Continuer, backfillName)
				}
				inv.Client = lambda.NewFromConfig(*app.Env.AWS, func(o *lambda.Options) { o.BaseEndpoint = aws.String(invokeAPI.URL) })
				app.Continuer = inv
			}
			apps[fn] = app
		}
		return apps[fn]
	}
	// backfill runs a scheduled backfill invocation, then the
	// continuations it starts, as Lambda would deliver them; with budget
	// (listing-clock seconds) each invocation lists only that long. It
	// returns the number of continuations.
	backfill := func(budget ...time.Duration) int {
		app := boot("backfill")
		run := ctx
		if len(budget) > 0 {
			clock := &tickClock{t: time.Now(), step: time.Second}
			app.ListingClock = clock.now
			defer func() { app.ListingClock = nil }()
		}
		var ev *lambdafn.BackfillEvent
		for n := 0; ; n++ {
			if len(budget) > 0 {
				c, cancel := context.WithTimeout(ctx, lambdafn.DefaultTimeMargin+budget[0])
				defer cancel()
				run = c
			}
			res, err := app.HandleBackfill(run, ev)
			if err != nil || res.ContinueError != "" {
				t.Fatalf("HandleBackfill(%+v): %v %+v", ev, err, res)
			}
			next, ok := asyncInvocations.next()
			if !ok {
				return n
			}
			if n > 50 {
				t.Fatal("the backfill continuations never ended")
			}
			ev = &next
		}
	}
	// commitOnce hands one kick to the commit function.
	commitOnce := func(ctx context.Context) bool {
		msgs := f.receive(f.kickURL, 1)
		if len(msgs) == 0 {
			return false
		}
		resp, err := boot("commit").HandleCommit(ctx, sqsEvent(f.kickARN, msgs))
		if err != nil || len(resp.BatchItemFailures) > 0 {
			t.Fatalf("HandleCommit: %v %+v", err, resp.BatchItemFailures)
		}
		f.deleteMessages(f.kickURL, msgs, nil)
		return true
	}
	drain := func() {
		for {
			msgs := f.receive(f.eventsURL, 10)
			for len(msgs) > 0 {
				f.app = boot("discovery")
				if resp := f.deliverEvents(msgs); len(resp.BatchItemFailures) > 0 {
					t.Fatalf("discovery failed messages %+v", resp.BatchItemFailures)
				}
				msgs = f.receive(f.eventsURL, 10)
			}
			if v.stopForTime {
				// An hour left and a margin of a thousand: no batch starts.
				app := boot("commit")
				app.TimeMargin = 1000 * time.Hour
				short, cancel := context.WithTimeout(ctx, time.Hour)
				ran := commitOnce(short)
				cancel()
				app.TimeMargin = 0
				if ran {
					v.stopForTime = false
				}
			}
			if !commitOnce(ctx) {
				return
			}
			for commitOnce(ctx) {
			}
		}
	}

	if v.backfillFirst {
		backfill()
	}
	files := makeInputs(fmt.Sprintf("iam%d", n), 5)
	if twoStreams {
		files = append(makeInputs("a", 3), makeInputs("b", 3)...)
	}
	f.upload(files)
	good := 0
	for _, in := range files {
		good += len(in.Rows)
	}
	put := func(key string, body []byte) {
		if _, err := f.s3.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(f.bucket), Key: aws.String(key), Body: strings.NewReader(string(body))}); err != nil {
			t.Fatal(err)
		}
	}
	if v.badRecord {
		put(sourcePrefix+"bad/records.json", []byte("{\"file\":\"bad\",\"line\":0,\"msg\":\"ok\"}\n{\"file\": not json\n"))
		good++
	}
	if v.corrupt {
		put(sourcePrefix+"corrupt/broken.json.gz", []byte("\x1f\x8b\x08\x00this is not deflate data at all"))
	}
	if v.lostEvents {
		for msgs := f.receive(f.eventsURL, 10); len(msgs) > 0; msgs = f.receive(f.eventsURL, 10) {
			f.deleteMessages(f.eventsURL, msgs, nil)
		}
		if !v.continueListing {
			backfill()
		} else if n := backfill(8 * time.Second); n == 0 {
			t.Fatal("the short backfill listing never stopped: no continuation was exercised")
		}
	}
	drain()
	if !v.backfillFirst && !v.lostEvents {
		backfill()
		drain()
	}
	// Cold starts of every function over the existing stream (its
	// checkpoint, identity and state are now read, not created).
	apps = map[string]*lambdafn.App{}
	backfill()
	kicker := &sqskick.Kicker{Client: f.sqs, QueueURL: f.kickURL}
	for _, id := range ids {
		if err := kicker.Kick(ctx, tevents.Kick{Stream: id, Reason: tevents.ReasonBackfill, At: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	drain()
	// With includeExistingFiles=false a file uploaded within the clock
	// granularity of the first start counts as existing (and is not
	// ingested): that variant is there for the calls only.
	if !strings.Contains(v.extra, "includeExistingFiles") {
		rows := 0
		for _, table := range tables {
			snap := readDeltaTable(t, f.endpoint, table)
			if len(snap.Rows) == 0 {
				t.Fatalf("the table %s is empty: the pipeline did not run through", table)
			}
			rows += len(snap.Rows)
		}
		if rows < good {
			t.Fatalf("the tables have %d rows, want at least %d: the pipeline did not run through", rows, good)
		}
	}

	// A later batch leaves a second small file, then the maintenance
	// schedule runs: compaction now, then (a week and a day later) log
	// cleanup and a vacuum that deletes the compacted files.
	tag := fmt.Sprintf("iam%d", n)
	if twoStreams {
		tag = "a"
	}
	late := makeInputs(tag, 2)
	for i := range late {
		late[i].Key = strings.Replace(late[i].Key, tag+"/", tag+"/late-", 1)
	}
	f.upload(late)
	drain()
	maint := boot("maintenance")
	res, err := maint.HandleMaintenance(ctx, lambdafn.MaintenanceEvent{})
	if err != nil {
		t.Fatalf("HandleMaintenance: %v", err)
	}
	compacted := 0
	for _, tm := range res.Tables {
		if tm.Optimize != nil {
			compacted += tm.Optimize.FilesRemoved
		}
	}
	if compacted == 0 {
		t.Fatalf("maintenance compacted nothing: %+v", res)
	}
	maint.Now = func() time.Time { return time.Now().Add(8 * 24 * time.Hour) }
	if _, err := maint.HandleMaintenance(ctx, lambdafn.MaintenanceEvent{}); err != nil {
		t.Fatalf("HandleMaintenance a week later: %v", err)
	}

	if v.refresh {
		// A full refresh of every stream: the invocation queues it in the
		// stream's kick group, the commit function runs it (truncate, the
		// checkpoint, the stream's entries in the state table), lists the
		// source again and ingests every file still there once.
		before := map[string]int{}
		for _, table := range tables {
			before[table] = len(readDeltaTable(t, f.endpoint, table).Rows)
		}
		for _, id := range ids {
			out, err := boot("commit").HandleCommitInvoke(ctx, json.RawMessage(fmt.Sprintf(`{"action":"refresh","stream":%q}`, id)))
			if q, ok := out.(lambdafn.ResetQueued); err != nil || !ok || !q.Queued {
				t.Fatalf("refresh invocation of %s: %+v %v", id, out, err)
			}
		}
		drain()
		for _, table := range tables {
			after := len(readDeltaTable(t, f.endpoint, table).Rows)
			// cleanSource removed the ingested files: they do not come back.
			if want := before[table]; after != want && (params["CleanSource"] == "" || after > want) {
				t.Fatalf("the table %s has %d rows after the refresh, want %d (every file still in the source once)", table, after, want)
			}
		}
	}

	calls := map[string][]iamCall{}
	for fn, r := range recs {
		calls[fn] = r.snapshot()
	}
	stmts := map[string][]iamStatement{
		"discovery":   stack.roleStatements("DiscoveryRole"),
		"backfill":    stack.roleStatements("BackfillRole"),
		"commit":      stack.roleStatements("CommitRole"),
		"maintenance": stack.roleStatements("MaintenanceRole"),
	}
	return calls, stmts
}

// asyncLambda serves the Lambda Invoke API for asynchronous invocations
// (InvocationType Event): it queues each payload as a backfill event and
// answers 202, as Lambda does; the test delivers the events.
type asyncLambda struct {
	mu     sync.Mutex
	queued []lambdafn.BackfillEvent
}

func (a *asyncLambda) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var ev lambdafn.BackfillEvent
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/invocations") || r.Header.Get("X-Amz-Invocation-Type") != "Event" {
		http.Error(w, "not an asynchronous Invoke", http.StatusBadRequest)
		return
	}
	if err := json.NewDecoder(r.Body).Decode(&ev); err != nil || len(ev.Continue) == 0 {
		http.Error(w, fmt.Sprintf("not a backfill continuation: %v", err), http.StatusBadRequest)
		return
	}
	a.mu.Lock()
	a.queued = append(a.queued, ev)
	a.mu.Unlock()
	w.WriteHeader(http.StatusAccepted)
}

func (a *asyncLambda) next() (lambdafn.BackfillEvent, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.queued) == 0 {
		return lambdafn.BackfillEvent{}, false
	}
	ev := a.queued[0]
	a.queued = a.queued[1:]
	return ev, true
}
