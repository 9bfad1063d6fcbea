package lambdafn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/ingest"
	"github.com/tributary-io/tributary/core/options"
	"github.com/tributary-io/tributary/infra/dynamostate"
	"github.com/tributary-io/tributary/infra/streams"
)

func templateEnv(over map[string]string) func(string) string {
	env := map[string]string{
		EnvStreamID:     "events",
		EnvSourceBucket: "landing-bucket",
		EnvSourcePrefix: "incoming/",
		EnvTableBucket:  "landing-bucket",
		EnvTablePrefix:  "tables/events/",
		EnvOptions:      `{"cloudFiles.format":"json","cloudFiles.maxFilesPerTrigger":"500","cloudFiles.cleanSource":"OFF","ignoreCorruptFiles":"true","ignoreMissingFiles":"false","badRecordsPath":"s3://landing-bucket/bad/"}`,
		EnvExtraOptions: `{"cloudFiles.schemaHints":"id BIGINT","cloudFiles.inferColumnTypes":true}`,
	}
	for k, v := range over {
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

func TestLoadConfigFromTemplateVariables(t *testing.T) {
	cfg, err := LoadConfigFrom(templateEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	s, ok := cfg.Stream("events")
	if !ok {
		t.Fatal("no stream")
	}
	if s.Source != "s3://landing-bucket/incoming/" || s.Table != "s3://landing-bucket/tables/events" {
		t.Fatalf("locations %s -> %s", s.Source, s.Table)
	}
	if s.CheckpointLocation() != "s3://landing-bucket/tables/events/_tributary/checkpoint/" {
		t.Fatalf("checkpoint %s", s.CheckpointLocation())
	}
	if !s.CloudFiles.UseNotifications || s.CloudFiles.MaxFilesPerTrigger != 500 || !s.CloudFiles.InferColumnTypes || s.CloudFiles.SchemaHints != "id BIGINT" {
		t.Fatalf("options %+v", s.CloudFiles)
	}
	if !s.Reader.IgnoreCorruptFiles || s.Reader.IgnoreMissingFiles || s.Reader.BadRecordsPath != "s3://landing-bucket/bad/" {
		t.Fatalf("reader options %+v", s.Reader)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		over map[string]string
		want string
	}{
		{"no stream", map[string]string{EnvStreamID: ""}, EnvStreamID},
		{"no table bucket", map[string]string{EnvTableBucket: ""}, EnvTableBucket},
		{"bad options json", map[string]string{EnvExtraOptions: `{"a":`}, EnvExtraOptions},
		{"option twice", map[string]string{EnvExtraOptions: `{"cloudFiles.format":"json"}`}, "cloudFiles.format"},
		{"bad option", map[string]string{EnvExtraOptions: `{"cloudFiles.maxFileAge":"1 day"}`}, "cloudFiles.maxFileAge"},
		{"bad config json", map[string]string{EnvConfig: `{"streams":[{"id":"x"}]}`}, EnvConfig},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadConfigFrom(templateEnv(tc.over))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to name %s", err, tc.want)
			}
		})
	}
	_, err := LoadConfigFrom(templateEnv(map[string]string{EnvExtraOptions: `{"cloudFiles.maxFileAge":"1 day"}`}))
	if !errors.Is(err, options.ErrInvalidOption) {
		t.Fatalf("want ErrInvalidOption, got %v", err)
	}
}

// Defect: a function configured with an option the CLI refuses (such as
// cloudFiles.format=csv) booted and sent every event to the dead-letter
// queue. The cold start runs the CLI's validation (streams.Env.Validate).
func TestColdStartValidatesLikeTheCLI(t *testing.T) {
	tests := []struct {
		name  string
		extra string
		want  string
		// cliToo: the CLI refuses it too (everything but the discovery mode).
		cliToo bool
	}{
		{"glob the listing cannot compile", `{"pathGlobFilter":"*.{json"}`, "pathGlobFilter", true},
		{"nested partition hint", `{"cloudFiles.partitionColumns":"date","cloudFiles.schemaHints":"date ARRAY<INT>"}`, "partition column date", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			over := map[string]string{EnvExtraOptions: tc.extra}
			getenv := templateEnv(over)
			_, err := LoadConfigFrom(getenv)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("cold start: %v, want an error naming %s", err, tc.want)
			}
			// The same stream as the CLI would see it (listing mode).
			cfg, err := loadConfig(getenv)
			if err != nil {
				t.Fatalf("the options themselves parse: %v", err)
			}
			s := cfg.Streams[0]
			s.CloudFiles.UseNotifications = false
			if err := (streams.Env{}).Validate(s); (err != nil) != tc.cliToo {
				t.Fatalf("CLI validation: %v, want refused=%v", err, tc.cliToo)
			}
		})
	}
	// A directory listing stream is run by the scheduled function.
	cfg, err := LoadConfigFrom(templateEnv(map[string]string{EnvExtraOptions: `{"cloudFiles.useNotifications":"false","cloudFiles.useIncrementalListing":"true"}`}))
	if err != nil || cfg.Streams[0].CloudFiles.UseNotifications || cfg.Streams[0].CloudFiles.UseIncrementalListing != "true" {
		t.Fatalf("directory listing stream at cold start: %v", err)
	}
	// Through TRIBUTARY_CONFIG too.
	_, err = LoadConfigFrom(func(k string) string {
		if k == EnvConfig {
			return `{"streams":[{"id":"s","source":"s3://b/in/","table":"s3://b/t","checkpointLocation":"s3://b/cp/","schemaLocation":"s3://b/cp/",` +
				`"options":{"cloudFiles.format":"avi","cloudFiles.useNotifications":true}}]}`
		}
		return ""
	})
	if err == nil || !strings.Contains(err.Error(), "cloudFiles.format") {
		t.Fatalf("%s with format avi: %v", EnvConfig, err)
	}
}

// template is template.yaml as text, with the parts these tests read.
type template struct {
	text string
	// params maps each parameter to its default ("" when none) and allowed values.
	params map[string]templateParam
}

type templateParam struct {
	def     string
	allowed []string
}

func readTemplate(t *testing.T) template {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tpl := template{text: string(data), params: map[string]templateParam{}}
	inParams, name := false, ""
	for _, line := range strings.Split(tpl.text, "\n") {
		switch {
		case line == "Parameters:":
			inParams = true
		case inParams && line != "" && line[0] != ' ' && line[0] != '#':
			inParams = false
		case !inParams:
		case strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") && strings.HasSuffix(line, ":"):
			name = strings.TrimSuffix(strings.TrimSpace(line), ":")
			tpl.params[name] = templateParam{}
		case strings.HasPrefix(line, "    Default: "):
			p := tpl.params[name]
			p.def = strings.Trim(strings.TrimPrefix(line, "    Default: "), `"`)
			tpl.params[name] = p
		case strings.HasPrefix(line, "    AllowedValues: ["):
			p := tpl.params[name]
			for _, v := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(line, "    AllowedValues: ["), "]"), ",") {
				p.allowed = append(p.allowed, strings.Trim(strings.TrimSpace(v), `"`))
			}
			tpl.params[name] = p
		}
	}
	if len(tpl.params) < 10 {
		t.Fatalf("read only %d template parameters", len(tpl.params))
	}
	return tpl
}

// options returns TRIBUTARY_OPTIONS as the stack sets it for the given
// parameter values (defaults for the others), with the !If fragments whose
// conditions are listed in on enabled.
func (tpl template) options(t *testing.T, values map[string]string, on map[string]bool) string {
	t.Helper()
	format := regexp.MustCompile(`(?m)^\s+(\{"cloudFiles\.format":.*\})\s*$`).FindStringSubmatch(tpl.text)
	if format == nil {
		t.Fatal("TRIBUTARY_OPTIONS format string not found")
	}
	frags := regexp.MustCompile(`(?m)^\s+(?:- )?(\w+): !If\n\s+- (\w+)\n\s+- (?:!Sub )?'([^']*)'\n\s+- ""`).FindAllStringSubmatch(tpl.text, -1)
	if len(frags) < 2 {
		t.Fatalf("found %d conditional option fragments", len(frags))
	}
	vals := map[string]string{}
	for n, p := range tpl.params {
		vals[n] = p.def
	}
	maps.Copy(vals, values)
	for _, f := range frags {
		vals[f[1]] = ""
		if on[f[2]] {
			vals[f[1]] = f[3]
		}
	}
	fill := func(s string) string {
		return regexp.MustCompile(`\$\{(\w+)\}`).ReplaceAllStringFunc(s, func(m string) string {
			return vals[m[2:len(m)-1]]
		})
	}
	for _, f := range frags {
		vals[f[1]] = fill(vals[f[1]])
	}
	return fill(format[1])
}

// The options the template passes load and validate at the parameters'
// defaults; BackfillInterval stays the backfill schedule (never an option).
func TestTemplateOptionsPassColdStart(t *testing.T) {
	tpl := readTemplate(t)
	for _, p := range []string{"IgnoreCorruptFiles", "IgnoreMissingFiles"} {
		if d := tpl.params[p].def; d != "false" {
			t.Errorf("parameter %s defaults to %q, want Spark's false", p, d)
		}
	}
	defaults := map[string]string{"Format": "json", "SourceBucketName": "landing-bucket"}
	opts := tpl.options(t, defaults, nil)
	if _, err := LoadConfigFrom(templateEnv(map[string]string{EnvOptions: opts, EnvExtraOptions: tpl.params["ExtraOptions"].def})); err != nil {
		t.Fatalf("template defaults %s: %v", opts, err)
	}
	if strings.Contains(strings.ToLower(opts), "backfillinterval") || !strings.Contains(tpl.text, "Schedule: !Ref BackfillInterval") {
		t.Fatal("BackfillInterval must drive the backfill schedule and not be passed as an option")
	}
	// The parameters that set options pass them to the functions.
	for param, option := range map[string]string{"IgnoreCorruptFiles": "ignoreCorruptFiles", "IgnoreMissingFiles": "ignoreMissingFiles"} {
		vals := map[string]string{"Format": "json", "SourceBucketName": "landing-bucket", param: "true"}
		opts := tpl.options(t, vals, nil)
		cfg, err := LoadConfigFrom(templateEnv(map[string]string{EnvOptions: opts, EnvExtraOptions: "{}"}))
		if err != nil {
			t.Fatalf("%s=true: %s: %v", param, opts, err)
		}
		if !cfg.Streams[0].IsSet(option) || cfg.Streams[0].Raw[option] != "true" {
			t.Errorf("%s=true does not set option %s: %s", param, option, opts)
		}
	}
	// The conditional fragments load too.
	for _, cond := range []string{"HasMaxBytes", "CleanSourceMove"} {
		vals := map[string]string{"Format": "json", "SourceBucketName": "landing-bucket", "MaxBytesPerTrigger": "10g"}
		if cond == "CleanSourceMove" {
			vals["CleanSource"] = "MOVE"
		}
		opts := tpl.options(t, vals, map[string]bool{cond: true})
		if _, err := LoadConfigFrom(templateEnv(map[string]string{EnvOptions: opts, EnvExtraOptions: "{}"})); err != nil {
			t.Errorf("%s: %s: %v", cond, opts, err)
		}
	}
	// Every MaxBytesPerTrigger the parameter's pattern admits passes the
	// cold start; values the functions refuse do not match it.
	pat := regexp.MustCompile(`(?m)^  MaxBytesPerTrigger:\n(?:    .*\n)*?    AllowedPattern: "(.*)"$`).FindStringSubmatch(tpl.text)
	if pat == nil {
		t.Fatal("MaxBytesPerTrigger has no AllowedPattern")
	}
	allowedBytes := regexp.MustCompile(pat[1])
	for _, tc := range []struct {
		v     string
		match bool
	}{
		{"1", true}, {"999999999999999", true}, {"1b", true}, {"10g", true}, {"512M", true}, {"999999t", true},
		{"0", false}, {"0g", false}, {"1.5g", false}, {"10x", false}, {"9999999t", false}, {"1p", false},
	} {
		if got := allowedBytes.MatchString(tc.v); got != tc.match {
			t.Errorf("MaxBytesPerTrigger pattern on %q: %v, want %v", tc.v, got, tc.match)
		}
		if !tc.match {
			continue
		}
		vals := map[string]string{"Format": "json", "SourceBucketName": "landing-bucket", "MaxBytesPerTrigger": tc.v}
		if _, err := LoadConfigFrom(templateEnv(map[string]string{EnvOptions: tpl.options(t, vals, map[string]bool{"HasMaxBytes": true}), EnvExtraOptions: "{}"})); err != nil {
			t.Errorf("MaxBytesPerTrigger=%s matches the parameter's pattern but stops the cold start: %v", tc.v, err)
		}
	}

	// The Format parameter allows exactly the formats the functions read:
	// each allowed one passes the cold start, every other Auto Loader format
	// stops it naming cloudFiles.format.
	allowed := tpl.params["Format"].allowed
	if len(allowed) == 0 {
		t.Fatal("the Format parameter has no AllowedValues")
	}
	for _, f := range options.FileFormats() {
		vals := map[string]string{"Format": string(f), "SourceBucketName": "landing-bucket"}
		_, err := LoadConfigFrom(templateEnv(map[string]string{EnvOptions: tpl.options(t, vals, nil), EnvExtraOptions: "{}"}))
		switch {
		case slices.Contains(allowed, string(f)) && err != nil:
			t.Errorf("Format=%s is allowed by the template but stops the cold start: %v", f, err)
		case !slices.Contains(allowed, string(f)) && err == nil:
			t.Errorf("Format=%s passes the cold start but the template does not allow it", f)
		case !slices.Contains(allowed, string(f)) && !strings.Contains(err.Error(), "cloudFiles.format"):
			t.Errorf("Format=%s: cold start error does not name cloudFiles.format: %v", f, err)
		}
	}
}

// The state table in template.yaml has the DynamoDB adapter's schema: its
// key attributes and no secondary index (pending files wait in the
// checkpoint's inbox, infra/inboxstate; an index would cost a write per
// file).
func TestTemplateStateTableMatchesSchema(t *testing.T) {
	tpl := readTemplate(t)
	schema := dynamostate.TableSchema("x")
	block := regexp.MustCompile(`(?s)\n  StateTable:\n.*?\n\n`).FindString(tpl.text)
	if block == "" {
		t.Fatal("template.yaml has no StateTable")
	}
	if len(schema.GlobalSecondaryIndexes) != 0 || strings.Contains(block, "GlobalSecondaryIndexes") {
		t.Errorf("a secondary index: schema %d, template %v; want none", len(schema.GlobalSecondaryIndexes), strings.Contains(block, "GlobalSecondaryIndexes"))
	}
	got := regexp.MustCompile(`AttributeName: (\w+)\n\s+AttributeType: S`).FindAllStringSubmatch(block, -1)
	var names []string
	for _, g := range got {
		names = append(names, g[1])
	}
	var want []string
	for _, d := range schema.AttributeDefinitions {
		want = append(want, *d.AttributeName)
	}
	if !slices.Equal(names, want) {
		t.Errorf("StateTable attribute definitions %v, want %v", names, want)
	}
	if !strings.Contains(block, "DeletionProtectionEnabled:") {
		t.Error("StateTable has no DeletionProtectionEnabled")
	}
}

// Every alarm on a Tributary metric watches a metric the commit function
// emits in its EMF line, and the skipped-file count has one.
func TestTemplateAlarmsWatchEmittedMetrics(t *testing.T) {
	tpl := readTemplate(t)
	var buf bytes.Buffer
	if err := (ingest.Progress{StreamID: "s", NumSkippedFiles: 2, DurationMs: map[string]int64{}}).WriteEMF(&buf); err != nil {
		t.Fatal(err)
	}
	var emf struct {
		AWS struct {
			CloudWatchMetrics []struct {
				Namespace string
				Metrics   []struct{ Name string }
			}
		} `json:"_aws"`
		NumSkippedFiles int `json:"numSkippedFiles"`
	}
	if err := json.Unmarshal(buf.Bytes(), &emf); err != nil {
		t.Fatal(err)
	}
	emitted := map[string]bool{}
	for _, m := range emf.AWS.CloudWatchMetrics[0].Metrics {
		emitted[m.Name] = true
	}
	if emf.NumSkippedFiles != 2 || !emitted["numSkippedFiles"] || emf.AWS.CloudWatchMetrics[0].Namespace != ingest.MetricsNamespace {
		t.Fatalf("EMF line: %s", buf.String())
	}
	alarms := regexp.MustCompile(`(?m)^\s+Namespace: Tributary\n\s+MetricName: (\w+)$`).FindAllStringSubmatch(tpl.text, -1)
	watched := map[string]bool{}
	for _, a := range alarms {
		watched[a[1]] = true
		if !emitted[a[1]] {
			t.Errorf("an alarm watches %s, which the EMF line does not emit", a[1])
		}
	}
	for _, m := range []string{"numSkippedFiles", "numFilesOutstanding"} {
		if !watched[m] {
			t.Errorf("no alarm on %s", m)
		}
	}
}

// TestStreamsDocumentWithinGrant checks the scope of a streams document
// (TRIBUTARY_CONFIG, the StreamsConfig parameter) against the stack's
// variables: every stream inside SourcePrefix/TablePrefix and the granted
// side outputs starts; any stream outside is refused at cold start, named.
func TestStreamsDocumentWithinGrant(t *testing.T) {
	stream := func(id, src, table, opts string) string {
		cp := table + "/_tributary/checkpoint/"
		return `{"id":"` + id + `","source":"` + src + `","table":"` + table + `","checkpointLocation":"` + cp +
			`","schemaLocation":"` + cp + `","options":{"cloudFiles.format":"json","cloudFiles.useNotifications":true` + opts + `}}`
	}
	const b = "s3://landing-bucket/"
	a := stream("a", b+"incoming/a/", b+"tables/events/a", "")
	tests := []struct {
		name    string
		streams []string
		want    string // "" = starts
	}{
		{"two streams inside", []string{a, stream("b", b+"incoming/b/", b+"tables/events/b", "")}, ""},
		{"table at TablePrefix", []string{stream("a", b+"incoming/", b+"tables/events", "")}, ""},
		{"granted side outputs", []string{stream("a", b+"incoming/a/", b+"tables/events/a", `,"badRecordsPath":"s3://landing-bucket/bad/a/"`)}, ""},
		{"source elsewhere", []string{a, stream("b", b+"other/b/", b+"tables/events/b", "")}, `stream "b": source`},
		{"source in another bucket", []string{stream("b", "s3://other/incoming/b/", b+"tables/events/b", "")}, `stream "b": source`},
		{"table elsewhere", []string{stream("b", b+"incoming/b/", b+"tables/other", "")}, `stream "b": table`},
		{"bad records elsewhere", []string{stream("a", b+"incoming/a/", b+"tables/events/a", `,"badRecordsPath":"s3://landing-bucket/rejects/"`)}, "badRecordsPath"},
		{"clean source not granted", []string{stream("a", b+"incoming/a/", b+"tables/events/a", `,"cloudFiles.cleanSource":"DELETE"`)}, "cloudFiles.cleanSource"},
		{"checkpoint elsewhere", []string{strings.Replace(a, `"checkpointLocation":"s3://landing-bucket/tables/events/a/_tributary/checkpoint/"`,
			`"checkpointLocation":"s3://landing-bucket/tables/events/a/_cp/"`, 1)}, "checkpointLocation"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := `{"streams":[` + strings.Join(tc.streams, ",") + `]}`
			cfg, err := LoadConfigFrom(templateEnv(map[string]string{EnvConfig: doc, EnvAlarmStreams: "a,b"}))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("cold start: %v", err)
				}
				if len(cfg.Streams) != len(tc.streams) {
					t.Fatalf("%d streams, want %d", len(cfg.Streams), len(tc.streams))
				}
				return
			}
			if !errors.Is(err, ErrNotGranted) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("cold start: %v, want %v naming %s", err, ErrNotGranted, tc.want)
			}
			// Without the stack's variables (not deployed by template.yaml) the
			// document itself is valid.
			if _, err := LoadConfigFrom(func(k string) string {
				if k == EnvConfig {
					return doc
				}
				return ""
			}); err != nil {
				t.Fatalf("the document alone: %v", err)
			}
		})
	}
}

// TestStreamsDocumentNeedsAlarms: under the template, every stream of the
// streams document must have its own alarms (StreamAlarmIds); a stream
// without is refused at cold start, named.
func TestStreamsDocumentNeedsAlarms(t *testing.T) {
	const b = "s3://landing-bucket/"
	stream := func(id string) string {
		cp := b + "tables/events/" + id + "/_tributary/checkpoint/"
		return `{"id":"` + id + `","source":"` + b + "incoming/" + id + `/","table":"` + b + "tables/events/" + id +
			`","checkpointLocation":"` + cp + `","schemaLocation":"` + cp + `","options":{"cloudFiles.format":"json","cloudFiles.useNotifications":true}}`
	}
	doc := `{"streams":[` + stream("a") + "," + stream("b.2") + `]}`
	tests := []struct {
		alarmed string
		missing []string // streams named in the error; none = starts
	}{
		{"a,b.2", nil},
		{"b.2,x,a", nil},
		{"a", []string{`"b.2"`}},
		{"", []string{`"a"`, `"b.2"`}},
		{"A,B.2", []string{`"a"`, `"b.2"`}}, // stream ids are exact
	}
	for _, tc := range tests {
		t.Run(tc.alarmed, func(t *testing.T) {
			_, err := LoadConfigFrom(templateEnv(map[string]string{EnvConfig: doc, EnvAlarmStreams: tc.alarmed}))
			if len(tc.missing) == 0 {
				if err != nil {
					t.Fatalf("cold start: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrNoAlarms) {
				t.Fatalf("cold start: %v, want %v", err, ErrNoAlarms)
			}
			for _, id := range tc.missing {
				if !strings.Contains(err.Error(), "stream "+id) {
					t.Errorf("error %q does not name stream %s", err, id)
				}
			}
			if strings.Count(err.Error(), "has no alarms") != len(tc.missing) {
				t.Errorf("error %q: want exactly %d streams refused", err, len(tc.missing))
			}
		})
	}
}

// Table properties are given through the template's ExtraOptions under
// their Delta names and reach the stream (the commit function sets them on
// the table).
func TestTablePropertiesFromTemplate(t *testing.T) {
	getenv := templateEnv(map[string]string{EnvExtraOptions: `{"cloudFiles.schemaEvolutionMode":"addNewColumnsWithTypeWidening","delta.enableTypeWidening":"true","delta.checkpointInterval":"20","delta.logRetentionDuration":"2 weeks"}`})
	cfg, err := LoadConfigFrom(getenv)
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.Streams[0].Sink.TableProperties
	want := map[string]string{"delta.enableTypeWidening": "true", "delta.checkpointInterval": "20", "delta.logRetentionDuration": "interval 14 days"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("table properties %v, want %v", got, want)
	}
	if _, err := LoadConfigFrom(templateEnv(map[string]string{EnvExtraOptions: `{"delta.enableChangeDataFeed":"true"}`})); err == nil || !strings.Contains(err.Error(), "delta.enableChangeDataFeed") {
		t.Errorf("a refused table property: %v", err)
	}
}

// TestEventWiringMatchesStreams: with the template's Notifications None a
// stream defaults to directory listing and one that asks for
// notifications is refused at cold start; with events wired, a stack whose
// streams all list is refused (its events would be billed and ignored);
// without the variable (not deployed by the template) nothing is checked.
func TestEventWiringMatchesStreams(t *testing.T) {
	tests := []struct {
		name          string
		notifications string
		extra         string
		wantListing   bool
		wantErr       bool
	}{
		{"None: listing by default", "None", `{}`, true, false},
		{"None refuses useNotifications=true", "None", `{"cloudFiles.useNotifications":"true"}`, false, true},
		{"S3: notifications by default", "S3", `{}`, false, false},
		{"EventBridge refuses a listing-only stack", "EventBridge", `{"cloudFiles.useNotifications":"false"}`, false, true},
		{"SNS: notifications", "SNS", `{"cloudFiles.useNotifications":"true"}`, false, false},
		{"unset: not checked", "", `{"cloudFiles.useNotifications":"false"}`, true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := LoadConfigFrom(templateEnv(map[string]string{EnvNotifications: tc.notifications, EnvExtraOptions: tc.extra}))
			if tc.wantErr {
				if !errors.Is(err, ErrEventWiring) || !strings.Contains(err.Error(), "Notifications") {
					t.Fatalf("want ErrEventWiring naming Notifications, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s, _ := cfg.Stream("events"); s.CloudFiles.UseNotifications == tc.wantListing {
				t.Fatalf("useNotifications=%v, want listing=%v", s.CloudFiles.UseNotifications, tc.wantListing)
			}
		})
	}
}

// TestTriggerOptionMatchesTriggerInterval: in the functions a stream's
// processingTime interval is the stack's TriggerInterval (the kick queue's
// delay and deduplication window, for every stream): a trigger option
// with another interval would be accepted and ignored, so the cold start
// refuses it; the same interval, no trigger option, or availableNow and
// once (which the commit runs honour) start.
func TestTriggerOptionMatchesTriggerInterval(t *testing.T) {
	tests := []struct {
		name, interval, extra string
		wantErr               bool
	}{
		{"no trigger option", "60", `{}`, false},
		{"the stack's interval", "60", `{"trigger":"processingTime=1 minute"}`, false},
		{"another interval", "60", `{"trigger":"processingTime=10 minutes"}`, true},
		{"0 on a stack of 60", "60", `{"trigger":"processingTime=0 seconds"}`, true},
		{"0 on a stack of 0", "0", `{"trigger":"processingTime=0 seconds"}`, false},
		{"unset variable: 0", "", `{"trigger":"processingTime=30 seconds"}`, true},
		{"availableNow", "60", `{"trigger":"availableNow"}`, false},
		{"once", "60", `{"trigger":"once"}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadConfigFrom(templateEnv(map[string]string{EnvTriggerInterval: tc.interval, EnvExtraOptions: tc.extra}))
			if !tc.wantErr {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrTriggerInterval) || !strings.Contains(err.Error(), "TriggerInterval") || !strings.Contains(err.Error(), `"events"`) {
				t.Fatalf("want ErrTriggerInterval naming the stream and TriggerInterval, got %v", err)
			}
		})
	}
}
