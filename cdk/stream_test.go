package tributary

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"
)

// repoRoot is the main module's root (this module lives in cdk/).
const repoRoot = ".."

// testStream is one stream of the synthesised app and the template
// parameters that describe the same stream.
type testStream struct {
	id     string // construct id
	props  *StreamProps
	params map[string]string // template.yaml parameters
}

// streamsDoc is a two-stream StreamsConfig within the Landing stream's
// SourcePrefix and TablePrefix (the defaults).
const streamsDoc = `{"streams":[` +
	`{"id":"a","source":"s3://existing-landing/incoming/a/","table":"s3://existing-landing/tables/a",` +
	`"checkpointLocation":"s3://existing-landing/tables/a/_tributary/checkpoint/","schemaLocation":"s3://existing-landing/tables/a/_tributary/checkpoint/","options":{"cloudFiles.format":"json"}},` +
	`{"id":"b","source":"s3://existing-landing/incoming/b/","table":"s3://existing-landing/tables/b",` +
	`"checkpointLocation":"s3://existing-landing/tables/b/_tributary/checkpoint/","schemaLocation":"s3://existing-landing/tables/b/_tributary/checkpoint/","options":{"cloudFiles.format":"csv"}}]}`

// testStreams exercise every condition of the template both ways.
func testStreams() []testStream {
	whole, off := "", false
	dist := filepath.Join(repoRoot, "dist")
	const key = "arn:aws:kms:us-east-1:123456789012:key/0a1b2c3d-0000-4000-8000-123456789abc"
	const topic = "arn:aws:sns:us-east-1:123456789012:landing-events"
	return []testStream{
		{
			// Created bucket, S3 notifications, table in the source bucket;
			// every optional statement on, KMS, X-Ray.
			id: "Orders",
			props: &StreamProps{
				StreamId: "orders", SourceBucketName: "tributary-test-orders", Format: "json",
				MaxBytesPerTrigger: "10g", CleanSource: "MOVE", BadRecordsPrefix: "bad/",
				AlarmEmail: "ops@example.com", KmsKeyArn: key, Tracing: true, CodeDir: dist,
			},
			params: map[string]string{
				"StreamId": "orders", "SourceBucketName": "tributary-test-orders", "Format": "json",
				"MaxBytesPerTrigger": "10g", "CleanSource": "MOVE", "BadRecordsPrefix": "bad/",
				"AlarmEmail": "ops@example.com", "KmsKeyArn": key, "Tracing": "Active",
			},
		},
		{
			// Created bucket with EventBridge, whole bucket, table elsewhere,
			// non-default values everywhere.
			id: "Clicks",
			props: &StreamProps{
				StreamId: "clicks_2", SourceBucketName: "tributary-test-clicks", SourcePrefix: &whole, Format: "csv",
				Notifications:      NotifyEventBridge,
				MaxFilesPerTrigger: 50, BackfillInterval: "rate(6 hours)", MaintenanceSchedule: "cron(0 3 * * ? *)", TriggerInterval: -1, TableBucket: "tributary-test-lake",
				TablePrefix: "clicks/", CleanSource: "DELETE", IgnoreCorruptFiles: true, IgnoreMissingFiles: true,
				ExtraOptions: map[string]string{"header": "true"}, CommitMemorySize: 4096, MaxConverters: 8, ConverterBytes: 64 << 20,
				QueueDepthAlarmThreshold: 7, QueueAgeAlarmSeconds: 60, FilesOutstandingAlarmThreshold: 9,
				CommitStalledAlarmSeconds: 120, LogRetentionDays: 90, StateTableDeletionProtection: &off,
				StateTableBillingMode: BillingProvisioned, StateTableMinWriteCapacity: 10, StateTableMaxWriteCapacity: 2000,
				StateTableMinReadCapacity: 3, StateTableMaxReadCapacity: 500, StateTableTargetUtilization: 60,
				CodeDir: dist,
			},
			params: map[string]string{
				"StreamId": "clicks_2", "SourceBucketName": "tributary-test-clicks", "SourcePrefix": "", "Format": "csv",
				"Notifications":      "EventBridge",
				"MaxFilesPerTrigger": "50", "BackfillInterval": "rate(6 hours)", "MaintenanceSchedule": "cron(0 3 * * ? *)", "TriggerInterval": "0", "TableBucket": "tributary-test-lake",
				"TablePrefix": "clicks/", "CleanSource": "DELETE", "IgnoreCorruptFiles": "true", "IgnoreMissingFiles": "true",
				"ExtraOptions": `{"header":"true"}`, "CommitMemorySize": "4096", "MaxConverters": "8", "ConverterBytes": "67108864",
				"QueueDepthAlarmThreshold": "7", "QueueAgeAlarmSeconds": "60", "FilesOutstandingAlarmThreshold": "9",
				"CommitStalledAlarmSeconds": "120", "LogRetentionDays": "90", "StateTableDeletionProtection": "false",
				"StateTableBillingMode": "PROVISIONED", "StateTableMinWriteCapacity": "10", "StateTableMaxWriteCapacity": "2000",
				"StateTableMinReadCapacity": "3", "StateTableMaxReadCapacity": "500", "StateTableTargetUtilization": "60",
			},
		},
		{
			// Existing bucket, EventBridge: the usual way onto a bucket one
			// has; two streams from a streams document.
			id: "Landing",
			props: &StreamProps{
				StreamId: "landing", SourceBucketName: "existing-landing", ExistingSourceBucket: true,
				Notifications: NotifyEventBridge, Format: "json", StreamsConfig: streamsDoc, GlueDatabase: "lake",
				CodeDir: dist,
			},
			params: map[string]string{
				"StreamId": "landing", "SourceBucketName": "existing-landing", "CreateSourceBucket": "false",
				"Notifications": "EventBridge", "Format": "json", "StreamsConfig": streamsDoc, "GlueDatabase": "lake",
				"StreamAlarmIds": "a,b",
			},
		},
		{
			// Existing bucket, directory listing streams (no events wired),
			// the streams document in SSM.
			id: "Fleet",
			props: &StreamProps{
				StreamId: "fleet", SourceBucketName: "existing-fleet", ExistingSourceBucket: true,
				Notifications: NotifyNone, Format: "json", StreamsConfigParameter: "/tributary/fleet/streams:2",
				StreamAlarmIds: []string{"x", "y.z"}, CodeDir: dist,
			},
			params: map[string]string{
				"StreamId": "fleet", "SourceBucketName": "existing-fleet", "CreateSourceBucket": "false",
				"Notifications": "None", "Format": "json", "StreamsConfigParameter": "/tributary/fleet/streams:2",
				"StreamAlarmIds": "x,y.z",
			},
		},
		{
			// Existing bucket publishing to an existing SNS topic.
			id: "Feed",
			props: &StreamProps{
				StreamId: "feed", SourceBucketName: "existing-feed", ExistingSourceBucket: true,
				Notifications: NotifySNS, SourceTopicArn: topic, Format: "json", TableBucket: "tributary-test-lake",
				CodeDir: dist,
			},
			params: map[string]string{
				"StreamId": "feed", "SourceBucketName": "existing-feed", "CreateSourceBucket": "false",
				"Notifications": "SNS", "SourceTopicArn": topic, "Format": "json", "TableBucket": "tributary-test-lake",
			},
		},
	}
}

// TestStream synthesises one app with both test streams in one stack (jsii
// starts once per test binary) and checks it against template.yaml.
func TestStream(t *testing.T) {
	venv := pythonBin(t)
	ensureLambdas(t)
	if os.Getenv("JSII_RUNTIME_PACKAGE_CACHE_ROOT") == "" {
		abs, err := filepath.Abs(filepath.Join(repoRoot, ".cache", "jsii"))
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("JSII_RUNTIME_PACKAGE_CACHE_ROOT", abs)
	}
	t.Setenv("JSII_SILENCE_WARNING_UNTESTED_NODE_VERSION", "1")
	defer jsii.Close()

	app := awscdk.NewApp(&awscdk.AppProps{Outdir: jsii.String(t.TempDir())})
	stack := awscdk.NewStack(app, jsii.String("Tributary"), nil)
	streams := testStreams()
	for _, s := range streams {
		NewStream(stack, s.id, s.props)
	}
	tpl := assertions.Template_FromStack(stack, nil)
	raw, err := json.Marshal(tpl.ToJSON())
	if err != nil {
		t.Fatal(err)
	}
	var cdk cfnTemplate
	if err := json.Unmarshal(raw, &cdk); err != nil {
		t.Fatal(err)
	}
	synth := filepath.Join(t.TempDir(), "tributary.template.json")
	if err := os.WriteFile(synth, raw, 0o644); err != nil {
		t.Fatal(err)
	}

	t.Run("assertions", func(t *testing.T) {
		n := float64(len(streams))
		for typ, per := range map[string]float64{
			"AWS::SQS::Queue": 5, "AWS::SQS::QueuePolicy": 1, "AWS::DynamoDB::Table": 1,
			"AWS::Lambda::Function": 4, "AWS::Lambda::EventSourceMapping": 2, "AWS::Lambda::EventInvokeConfig": 1,
			"AWS::IAM::Role": 4, "AWS::Logs::LogGroup": 4, "AWS::Lambda::Permission": 2,
			"AWS::SNS::Topic": 1, "AWS::CloudWatch::Dashboard": 1,
			// No grant-made policy, no notification custom resource, no log-retention function.
			"Custom::S3BucketNotifications": 0, "Custom::LogRetention": 0,
		} {
			tpl.ResourceCountIs(jsii.String(typ), jsii.Number(per*n))
		}
		// No grant-made policy: each stream's backfill continuation policy
		// and Clicks' fan-out policy (MaxConverters 8).
		tpl.ResourceCountIs(jsii.String("AWS::IAM::Policy"), jsii.Number(n+1))
		tpl.HasResourceProperties(jsii.String("AWS::IAM::Policy"), map[string]any{"PolicyName": "commit-fanout"})
		tpl.HasResourceProperties(jsii.String("AWS::IAM::Policy"), map[string]any{"PolicyName": "backfill-continue"})
		// 18 per stack, and the two streams of Landing and Fleet have 2 each of their own.
		tpl.ResourceCountIs(jsii.String("AWS::CloudWatch::Alarm"), jsii.Number(18*n+2*2+2*2))
		for _, id := range []string{"a", "b", "x", "y.z"} {
			tpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), map[string]any{
				"MetricName": "numFilesOutstanding", "Dimensions": []any{map[string]any{"Name": "StreamId", "Value": id}},
				"AlarmDescription": fmt.Sprintf("Tributary %s: too many discovered files of this stream are not yet committed", id),
			})
			tpl.HasResourceProperties(jsii.String("AWS::CloudWatch::Alarm"), map[string]any{
				"MetricName": "numSkippedFiles", "Dimensions": []any{map[string]any{"Name": "StreamId", "Value": id}},
			})
		}
		tpl.ResourceCountIs(jsii.String("AWS::S3::Bucket"), jsii.Number(2))        // Orders, Clicks
		tpl.ResourceCountIs(jsii.String("AWS::SNS::Subscription"), jsii.Number(2)) // Orders' e-mail, Feed's topic
		tpl.ResourceCountIs(jsii.String("AWS::Events::Rule"), jsii.Number(2*n+2))  // backfill and maintenance schedules, Clicks' and Landing's object-created rules (Fleet wires no events)
		tpl.HasResourceProperties(jsii.String("AWS::SQS::Queue"), map[string]any{
			"QueueName": "tributary-clicks_2-kick.fifo", "FifoQueue": true, "VisibilityTimeout": 960,
		})
		// Clicks' PROVISIONED state table: write and read.
		tpl.ResourceCountIs(jsii.String("AWS::ApplicationAutoScaling::ScalableTarget"), jsii.Number(2))
		tpl.ResourceCountIs(jsii.String("AWS::ApplicationAutoScaling::ScalingPolicy"), jsii.Number(2))
		tpl.HasResourceProperties(jsii.String("AWS::DynamoDB::Table"), map[string]any{
			"BillingMode": "PROVISIONED", "ProvisionedThroughput": map[string]any{"ReadCapacityUnits": 3, "WriteCapacityUnits": 10},
		})
		tpl.HasResource(jsii.String("AWS::DynamoDB::Table"), map[string]any{
			"DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain",
		})
		tpl.AllResourcesProperties(jsii.String("AWS::Lambda::Function"), map[string]any{
			"Runtime": "provided.al2023", "Architectures": []any{"arm64"}, "Handler": "bootstrap",
		})
		tpl.HasResourceProperties(jsii.String("AWS::Lambda::Function"), map[string]any{
			"MemorySize": 4096, "EphemeralStorage": map[string]any{"Size": 2048},
			"Tags": []any{map[string]any{"Key": "tributary:stream", "Value": "clicks_2"}},
		})
	})

	for _, s := range streams {
		t.Run("parity/"+s.id, func(t *testing.T) {
			sam := renderSAM(t, venv, s.params)
			compareStream(t, sam, cdk.stream(s.id))
		})
	}

	t.Run("cfn-lint", func(t *testing.T) {
		out, err := exec.Command(filepath.Join(venv, "cfn-lint"), "--include-checks", "I", "--", synth).CombinedOutput()
		if err != nil {
			t.Fatalf("cfn-lint on the synthesised template: %v\n%s", err, out)
		}
	})
}

// pythonBin returns the bin directory of the pinned venv (cfn-lint, SAM
// translator), creating it through scripts/pyenv.sh as every test does.
func pythonBin(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(filepath.Join(repoRoot, "scripts", "pyenv.sh")).Output()
	if err != nil {
		t.Fatalf("scripts/pyenv.sh: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// ensureLambdas builds the function zips with `make lambdas` when one is missing.
func ensureLambdas(t *testing.T) {
	t.Helper()
	for _, fn := range functionNames {
		if _, err := os.Stat(filepath.Join(repoRoot, "dist", fn+".zip")); err != nil {
			out, err := exec.Command("make", "-C", repoRoot, "lambdas").CombinedOutput()
			if err != nil {
				t.Fatalf("make lambdas: %v\n%s", err, out)
			}
			return
		}
	}
}

// renderSAM expands template.yaml with the SAM translator for params and
// evaluates its conditions (testdata/sam_render.py).
func renderSAM(t *testing.T, venv string, params map[string]string) cfnTemplate {
	t.Helper()
	p, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(venv, "python"), filepath.Join("testdata", "sam_render.py"),
		filepath.Join(repoRoot, "template.yaml"), string(p))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sam_render.py: %v\n%s", err, stderr.String())
	}
	var tpl cfnTemplate
	if err := json.Unmarshal(out, &tpl); err != nil {
		t.Fatal(err)
	}
	return tpl
}

type cfnResource struct {
	Type                string         `json:"Type"`
	Properties          map[string]any `json:"Properties"`
	DependsOn           any            `json:"DependsOn"`
	DeletionPolicy      string         `json:"DeletionPolicy"`
	UpdateReplacePolicy string         `json:"UpdateReplacePolicy"`
}

type cfnTemplate struct {
	Resources map[string]cfnResource `json:"Resources"`
	Outputs   map[string]any         `json:"Outputs"`
}

// streamTemplate is one stream's part of the synthesised template, keyed
// by the template's logical ids (construct path prefix and hash removed).
type streamTemplate struct {
	cfnTemplate
	rename func(string) string
}

var hashSuffix = regexp.MustCompile(`^(.+)[0-9A-F]{8}$`)

func (c cfnTemplate) stream(id string) streamTemplate {
	names := map[string]string{}
	for name := range c.Resources {
		if m := hashSuffix.FindStringSubmatch(name); m != nil && strings.HasPrefix(m[1], id) {
			names[name] = strings.TrimPrefix(m[1], id)
		}
	}
	rename := func(name string) string {
		if n, ok := names[name]; ok {
			return n
		}
		return name
	}
	out := streamTemplate{cfnTemplate: cfnTemplate{Resources: map[string]cfnResource{}, Outputs: map[string]any{}}, rename: rename}
	for name, r := range c.Resources {
		if n, ok := names[name]; ok {
			out.Resources[n] = r
		}
	}
	for name, o := range c.Outputs {
		if m := hashSuffix.FindStringSubmatch(name); m != nil && strings.HasPrefix(m[1], id) {
			out.Outputs[strings.TrimPrefix(m[1], id)] = o
		}
	}
	return out
}

var (
	pseudo = map[string]string{"AWS::Partition": "aws", "AWS::AccountId": "123456789012", "AWS::Region": "us-east-1", "AWS::URLSuffix": "amazonaws.com"}
	subVar = regexp.MustCompile(`\$\{([^}!]+)\}`)
)

// norm rewrites a CloudFormation value into a comparable form: references
// become "${Name}" / "${Name.Attr}" with the template's logical ids,
// Fn::Join and Fn::Sub become strings, scalars become strings, and a list
// of one element becomes that element (CloudFormation accepts both).
func norm(v any, rename func(string) string) any {
	ref := func(name string) string {
		if p, ok := pseudo[name]; ok {
			return p
		}
		if i := strings.IndexByte(name, '.'); i > 0 {
			return "${" + rename(name[:i]) + name[i:] + "}"
		}
		return "${" + rename(name) + "}"
	}
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 1 {
			for k, a := range x {
				switch k {
				case "Ref":
					return ref(a.(string))
				case "Fn::GetAtt":
					parts := a.([]any)
					return ref(parts[0].(string) + "." + parts[1].(string))
				case "Fn::Sub":
					text, vars := a, map[string]any{}
					if l, ok := a.([]any); ok {
						text, vars = l[0], l[1].(map[string]any)
					}
					return subVar.ReplaceAllStringFunc(text.(string), func(m string) string {
						name := m[2 : len(m)-1]
						if v, ok := vars[name]; ok {
							return fmt.Sprint(norm(v, rename))
						}
						return ref(name)
					})
				case "Fn::Join":
					args := a.([]any)
					var b strings.Builder
					for _, p := range args[1].([]any) {
						s, ok := norm(p, rename).(string)
						if !ok {
							return x
						}
						b.WriteString(s)
					}
					return b.String()
				}
			}
		}
		out := map[string]any{}
		for k, a := range x {
			out[k] = norm(a, rename)
		}
		return out
	case []any:
		if len(x) == 1 {
			return norm(x[0], rename)
		}
		out := make([]any, len(x))
		for i, a := range x {
			out[i] = norm(a, rename)
		}
		return out
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case string:
		// Pseudo parameters left in strings rendered from the template's !Sub.
		for p, v := range pseudo {
			x = strings.ReplaceAll(x, "${"+p+"}", v)
		}
		return x
	default:
		return v
	}
}

// compareStream checks every resource and output of the SAM template
// against the construct's, property by property. The differences allowed
// are listed here: Tags (SAM adds lambda:createdBy to functions, the
// construct tags every resource with tributary:stream), Lambda Code
// (an S3 upload vs a CDK asset), the ids of rule targets and of the
// schedule's invoke permission, and the functions' DependsOn on their role.
func compareStream(t *testing.T, sam cfnTemplate, cdk streamTemplate) {
	t.Helper()
	same := func(name string) func(string) string { return func(s string) string { return s } }("")
	var permSAM, permCDK []string
	for name, r := range sam.Resources {
		if r.Type == "AWS::Lambda::Permission" {
			permSAM = append(permSAM, name)
		}
	}
	for name, r := range cdk.Resources {
		if r.Type == "AWS::Lambda::Permission" {
			permCDK = append(permCDK, name)
		}
	}
	// One schedule permission per scheduled function (backfill,
	// maintenance): SAM names it <Function><Event>Permission, the
	// construct <Function><Event>AllowEventRule….
	permOf := map[string]string{}
	for _, sp := range permSAM {
		prefix := strings.TrimSuffix(sp, "Permission")
		for _, cp := range permCDK {
			if strings.HasPrefix(cp, prefix+"AllowEventRule") {
				permOf[sp] = cp
			}
		}
	}
	if len(permSAM) != 2 || len(permCDK) != 2 || len(permOf) != 2 {
		t.Fatalf("Lambda permissions: SAM %v, CDK %v; want the backfill and maintenance schedules' in each", permSAM, permCDK)
	}
	var names []string
	for name := range sam.Resources {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		want := sam.Resources[name]
		cname := name
		if want.Type == "AWS::Lambda::Permission" {
			cname = permOf[name]
		}
		got, ok := cdk.Resources[cname]
		if !ok {
			t.Errorf("%s (%s): in template.yaml, not built by the construct", name, want.Type)
			continue
		}
		if got.Type != want.Type {
			t.Errorf("%s: type %s, template.yaml has %s", name, got.Type, want.Type)
			continue
		}
		if got.DeletionPolicy != want.DeletionPolicy || got.UpdateReplacePolicy != want.UpdateReplacePolicy {
			t.Errorf("%s: DeletionPolicy/UpdateReplacePolicy %q/%q, template.yaml %q/%q", name,
				got.DeletionPolicy, got.UpdateReplacePolicy, want.DeletionPolicy, want.UpdateReplacePolicy)
		}
		if g := dependsOn(got.DependsOn, cdk.rename); !reflect.DeepEqual(g, dependsOn(want.DependsOn, same)) {
			t.Errorf("%s: DependsOn %v, template.yaml %v", name, g, want.DependsOn)
		}
		gp := norm(got.Properties, cdk.rename).(map[string]any)
		wp := norm(want.Properties, same).(map[string]any)
		delete(gp, "Tags")
		delete(wp, "Tags")
		switch want.Type {
		case "AWS::Lambda::Function":
			delete(gp, "Code")
			delete(wp, "Code")
			decodeOptions(t, name, gp)
			decodeOptions(t, name, wp)
		case "AWS::Lambda::Permission":
			// The CDK names the function by ARN, SAM by name: both valid.
			gp["FunctionName"] = strings.TrimSuffix(gp["FunctionName"].(string), ".Arn}") + "}"
		case "AWS::Events::Rule":
			for _, p := range []map[string]any{gp, wp} {
				if tg, ok := p["Targets"].(map[string]any); ok {
					delete(tg, "Id")
				}
			}
		case "AWS::CloudWatch::Dashboard":
			gp["DashboardBody"] = dashboardMetrics(t, name, gp["DashboardBody"])
			wp["DashboardBody"] = dashboardMetrics(t, name, wp["DashboardBody"])
		}
		diffProps(t, name, "", gp, wp)
	}
	for name, r := range cdk.Resources {
		if _, ok := sam.Resources[name]; !ok && r.Type != "AWS::Lambda::Permission" {
			t.Errorf("%s (%s): built by the construct, not in template.yaml", name, r.Type)
		}
	}
	for name, want := range sam.Outputs {
		got, ok := cdk.Outputs[name]
		if !ok {
			t.Errorf("output %s: missing", name)
			continue
		}
		if g, w := norm(got, cdk.rename), norm(want, same); !reflect.DeepEqual(g, w) {
			t.Errorf("output %s: %v, template.yaml %v", name, g, w)
		}
	}
	if len(cdk.Outputs) != len(sam.Outputs) {
		t.Errorf("%d outputs, template.yaml has %d", len(cdk.Outputs), len(sam.Outputs))
	}
	if t.Failed() {
		t.Log("the construct (cdk/stream.go, cdk/resources.go) must build what template.yaml builds: " +
			"a change to either needs the same change in the other")
	}
}

// dependsOn lists a DependsOn value with the template's logical ids.
func dependsOn(v any, rename func(string) string) []string {
	var out []string
	switch x := v.(type) {
	case string:
		out = append(out, rename(x))
	case []any:
		for _, d := range x {
			out = append(out, rename(d.(string)))
		}
	}
	sort.Strings(out)
	return out
}

// decodeOptions replaces the functions' JSON option strings by their
// decoded form (key order differs: JSON objects are unordered).
func decodeOptions(t *testing.T, name string, props map[string]any) {
	t.Helper()
	env, _ := props["Environment"].(map[string]any)
	vars, _ := env["Variables"].(map[string]any)
	for _, k := range []string{"TRIBUTARY_OPTIONS", "TRIBUTARY_EXTRA_OPTIONS"} {
		s, ok := vars[k].(string)
		if !ok {
			t.Errorf("%s: %s is %v, not a string", name, k, vars[k])
			continue
		}
		var m map[string]string
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Errorf("%s: %s %q: %v", name, k, s, err)
			continue
		}
		vars[k] = m
	}
}

// dashboardMetrics reduces a dashboard body to each widget's title and
// place and the metrics it plots (namespace, name, dimension, statistic,
// label, axis).
func dashboardMetrics(t *testing.T, name string, body any) any {
	t.Helper()
	s, ok := body.(string)
	if !ok {
		t.Errorf("%s: DashboardBody is %v, not a string", name, body)
		return nil
	}
	var dash struct {
		Widgets []struct {
			X, Y, Width, Height int
			Properties          struct {
				Title   string  `json:"title"`
				Stat    string  `json:"stat"`
				Metrics [][]any `json:"metrics"`
			} `json:"properties"`
		} `json:"widgets"`
	}
	if err := json.Unmarshal([]byte(s), &dash); err != nil {
		t.Errorf("%s: DashboardBody: %v\n%s", name, err, s)
		return nil
	}
	var out []string
	for _, w := range dash.Widgets {
		for _, m := range w.Properties.Metrics {
			var id []string
			opts := map[string]any{}
			for _, p := range m {
				if o, ok := p.(map[string]any); ok {
					opts = o
				} else {
					id = append(id, fmt.Sprint(p))
				}
			}
			stat := w.Properties.Stat
			if stat == "" {
				stat = "Average" // CloudWatch's default, which the CDK leaves out
			}
			if s, ok := opts["stat"].(string); ok {
				stat = s
			}
			out = append(out, fmt.Sprintf("%s at %d,%d %dx%d: %s %s %v %v", w.Properties.Title, w.X, w.Y, w.Width, w.Height,
				strings.Join(id, " "), stat, opts["label"], opts["yAxis"]))
		}
	}
	sort.Strings(out)
	return out
}

// diffProps reports each differing leaf with its path.
func diffProps(t *testing.T, name, path string, got, want any) {
	t.Helper()
	gm, gok := got.(map[string]any)
	wm, wok := want.(map[string]any)
	if gok && wok {
		keys := map[string]bool{}
		for k := range gm {
			keys[k] = true
		}
		for k := range wm {
			keys[k] = true
		}
		for k := range keys {
			diffProps(t, name, path+"."+k, gm[k], wm[k])
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s%s:\n  construct:     %s\n  template.yaml: %s", name, path, g, w)
	}
}

// TestValidate checks that bad props fail with an error naming the field,
// before any resource is built, and that defaults are the template's.
func TestValidate(t *testing.T) {
	ok := func() StreamProps {
		return StreamProps{StreamId: "s1", SourceBucketName: "my-bucket", Format: "json"}
	}
	empty, same := "", "tables/"
	cases := []struct {
		name  string
		edit  func(*StreamProps)
		field string // "" = valid
	}{
		{"defaults", func(*StreamProps) {}, ""},
		{"stream id with a dot", func(p *StreamProps) { p.StreamId = "a.b" }, "StreamId"},
		{"stream id too long", func(p *StreamProps) { p.StreamId = strings.Repeat("a", 41) }, "StreamId"},
		{"bucket name", func(p *StreamProps) { p.SourceBucketName = "My_Bucket" }, "SourceBucketName"},
		{"format", func(p *StreamProps) { p.Format = "delta" }, "Format"},
		{"format the functions do not read", func(p *StreamProps) { p.Format = "xml" }, "Format"},
		{"S3 notifications on an existing bucket", func(p *StreamProps) { p.ExistingSourceBucket = true }, "Notifications"},
		{"existing bucket via EventBridge", func(p *StreamProps) { p.ExistingSourceBucket = true; p.Notifications = NotifyEventBridge }, ""},
		{"SNS without a topic", func(p *StreamProps) { p.Notifications = NotifySNS }, "SourceTopicArn"},
		{"unknown notifications", func(p *StreamProps) { p.Notifications = "Kinesis" }, "Notifications"},
		{"topic ARN", func(p *StreamProps) { p.Notifications = NotifySNS; p.SourceTopicArn = "landing-events" }, "SourceTopicArn"},
		{"KMS alias", func(p *StreamProps) { p.KmsKeyArn = "alias/tributary" }, "KmsKeyArn"},
		{"log retention", func(p *StreamProps) { p.LogRetentionDays = 31 }, "LogRetentionDays"},
		{"commit stalled", func(p *StreamProps) { p.CommitStalledAlarmSeconds = 30 }, "CommitStalledAlarmSeconds"},
		{"prefix without slash", func(p *StreamProps) { p.SourcePrefix = jsii.String("in") }, "SourcePrefix"},
		{"whole bucket needs another table bucket", func(p *StreamProps) { p.SourcePrefix = &empty }, "SourcePrefix"},
		{"whole bucket, table elsewhere", func(p *StreamProps) { p.SourcePrefix = &empty; p.TableBucket = "lake" }, ""},
		{"table prefix = source prefix", func(p *StreamProps) { p.SourcePrefix = &same }, "TablePrefix"},
		{"max bytes", func(p *StreamProps) { p.MaxBytesPerTrigger = "10 GB" }, "MaxBytesPerTrigger"},
		{"max bytes zero", func(p *StreamProps) { p.MaxBytesPerTrigger = "0g" }, "MaxBytesPerTrigger"},
		{"max bytes past int64", func(p *StreamProps) { p.MaxBytesPerTrigger = "1234567t" }, "MaxBytesPerTrigger"},
		{"negative max files", func(p *StreamProps) { p.MaxFilesPerTrigger = -1 }, "MaxFilesPerTrigger"},
		{"schedule", func(p *StreamProps) { p.BackfillInterval = "daily" }, "BackfillInterval"},
		{"trigger interval", func(p *StreamProps) { p.TriggerInterval = 301 }, "TriggerInterval"},
		{"clean source", func(p *StreamProps) { p.CleanSource = "ARCHIVE" }, "CleanSource"},
		{"move destination", func(p *StreamProps) { p.CleanSourceMoveDestination = "/abs/" }, "CleanSourceMoveDestination"},
		{"bad records prefix", func(p *StreamProps) { p.BadRecordsPrefix = "bad" }, "BadRecordsPrefix"},
		{"memory", func(p *StreamProps) { p.CommitMemorySize = 128 }, "CommitMemorySize"},
		{"too many converters", func(p *StreamProps) { p.MaxConverters = 65 }, "MaxConverters"},
		{"tiny converter bytes", func(p *StreamProps) { p.ConverterBytes = 1000 }, "ConverterBytes"},
		{"table bucket", func(p *StreamProps) { p.TableBucket = "x" }, "TableBucket"},
		{"streams document in SSM", func(p *StreamProps) { p.StreamsConfigParameter = "/t/s:3"; p.StreamAlarmIds = []string{"a"} }, ""},
		{"SSM document without alarm ids", func(p *StreamProps) { p.StreamsConfigParameter = "/t/s" }, "StreamAlarmIds"},
		{"SSM name without slash", func(p *StreamProps) { p.StreamsConfigParameter = "t/s"; p.StreamAlarmIds = []string{"a"} }, "StreamsConfigParameter"},
		{"both documents", func(p *StreamProps) {
			p.StreamsConfig = `{"streams":[{"id":"a"}]}`
			p.StreamsConfigParameter = "/t/s"
		}, "StreamsConfigParameter"},
		{"alarm ids with an inline document", func(p *StreamProps) {
			p.StreamsConfig = `{"streams":[{"id":"a"}]}`
			p.StreamAlarmIds = []string{"a"}
		}, "StreamAlarmIds"},
		{"alarm ids without a document", func(p *StreamProps) { p.StreamAlarmIds = []string{"a"} }, "StreamAlarmIds"},
		{"stream id in the document", func(p *StreamProps) { p.StreamsConfig = `{"streams":[{"id":"a b"}]}` }, "StreamsConfig"},
		{"provisioned", func(p *StreamProps) { p.StateTableBillingMode = BillingProvisioned }, ""},
		{"billing mode", func(p *StreamProps) { p.StateTableBillingMode = "ON_DEMAND" }, "StateTableBillingMode"},
		{"negative capacity", func(p *StreamProps) { p.StateTableMinReadCapacity = -1 }, "StateTableMinReadCapacity"},
		{"min above max", func(p *StreamProps) { p.StateTableMinWriteCapacity = 5000 }, "StateTableMaxWriteCapacity"},
		{"target utilization", func(p *StreamProps) { p.StateTableTargetUtilization = 95 }, "StateTableTargetUtilization"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := ok()
			c.edit(&p)
			err := p.Validate()
			if c.field == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), ": "+c.field+": ") {
				t.Fatalf("Validate = %v, want an error naming %s", err, c.field)
			}
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), c.field) {
					t.Fatalf("NewStream recovered %v, want a panic naming %s", r, c.field)
				}
			}()
			NewStream(nil, "S", &p) // panics before touching the scope
		})
	}
	r, err := (&StreamProps{StreamId: "s", SourceBucketName: "my-bucket", Format: "csv"}).resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r.sourcePrefix != "incoming/" || r.TablePrefix != "tables/" || r.MaxFilesPerTrigger != 1000 ||
		r.BackfillInterval != "rate(1 day)" || r.CommitMemorySize != 2048 || r.tableBucket != "my-bucket" ||
		r.Notifications != NotifyS3 || r.LogRetentionDays != 30 || !r.deletionProtection || r.CommitStalledAlarmSeconds != 1800 ||
		r.StateTableBillingMode != "PAY_PER_REQUEST" || r.StateTableMinWriteCapacity != 5 || r.StateTableMaxWriteCapacity != 4000 ||
		r.StateTableMinReadCapacity != 5 || r.StateTableMaxReadCapacity != 4000 || r.StateTableTargetUtilization != 70 {
		t.Fatalf("defaults: %+v", r)
	}
}
