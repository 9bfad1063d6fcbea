package tributary

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/jsii-runtime-go"
)

func (s *Stream) functions(r *resolved, roles map[string]awsiam.Role, logs map[string]awslogs.LogGroup) {
	env := map[string]*string{
		"TRIBUTARY_STREAM_ID":         jsii.String(r.StreamId),
		"TRIBUTARY_SOURCE_BUCKET":     jsii.String(r.SourceBucketName),
		"TRIBUTARY_SOURCE_PREFIX":     jsii.String(r.sourcePrefix),
		"TRIBUTARY_TABLE_BUCKET":      jsii.String(r.tableBucket),
		"TRIBUTARY_TABLE_PREFIX":      jsii.String(r.TablePrefix),
		"TRIBUTARY_STATE_TABLE":       s.StateTable.TableName(),
		"TRIBUTARY_EVENTS_QUEUE_URL":  s.EventsQueue.QueueUrl(),
		"TRIBUTARY_KICK_QUEUE_URL":    s.KickQueue.QueueUrl(),
		"TRIBUTARY_TRIGGER_INTERVAL":  jsii.String(strconv.Itoa(r.triggerInterval)),
		"TRIBUTARY_MAX_CONVERTERS":    jsii.String(strconv.Itoa(r.MaxConverters)),
		"TRIBUTARY_CONVERTER_BYTES":   jsii.String(strconv.Itoa(r.ConverterBytes)),
		"TRIBUTARY_OPTIONS":           jsii.String(r.options()),
		"TRIBUTARY_EXTRA_OPTIONS":     jsii.String(r.extraOptions()),
		"TRIBUTARY_NOTIFICATIONS":     jsii.String(r.Notifications),
		"TRIBUTARY_METRICS_NAMESPACE": jsii.String(MetricsNamespace),
		"TRIBUTARY_CONFIG":            jsii.String(r.StreamsConfig),
		"TRIBUTARY_CONFIG_PARAMETER":  jsii.String(r.StreamsConfigParameter),
		"TRIBUTARY_GLUE_DATABASE":     jsii.String(r.GlueDatabase),
		"TRIBUTARY_ALARM_STREAMS":     jsii.String(strings.Join(r.alarmStreams, ",")),
	}
	fn := func(name, description string, memory int, timeout float64) awslambda.Function {
		props := &awslambda.FunctionProps{
			Description:   jsii.String(fmt.Sprintf("Tributary %s: %s", r.StreamId, description)),
			Runtime:       awslambda.Runtime_PROVIDED_AL2023(),
			Architecture:  awslambda.Architecture_ARM_64(),
			Handler:       jsii.String("bootstrap"),
			Code:          awslambda.Code_FromAsset(jsii.String(r.zip(name)), nil),
			Role:          roles[name],
			MemorySize:    jsii.Number(float64(memory)),
			Timeout:       awscdk.Duration_Seconds(jsii.Number(timeout)),
			LogGroup:      logs[name],
			LoggingFormat: awslambda.LoggingFormat_TEXT,
			Environment:   &env,
		}
		if name == "commit" || name == "maintenance" {
			props.EphemeralStorageSize = awscdk.Size_Mebibytes(jsii.Number(2048))
		}
		f := awslambda.NewFunction(s.Construct, jsii.String(title(name)+"Function"), props)
		// On the L1: the L2's Tracing would add a policy with the X-Ray
		// actions, which the role already states (Sid XRay). Off is
		// PassThrough, Lambda's default, stated as the template does.
		mode := "PassThrough"
		if r.Tracing {
			mode = "Active"
		}
		f.Node().DefaultChild().(awslambda.CfnFunction).SetTracingConfig(&awslambda.CfnFunction_TracingConfigProperty{Mode: jsii.String(mode)})
		// The L2 adds DependsOn on the role, which its Fn::GetAtt already
		// implies (cfn-lint W3005); the role carries its policy inline.
		f.Node().DefaultChild().(awslambda.CfnFunction).AddDeletionOverride(jsii.String("DependsOn"))
		if name == "backfill" || name == "commit" {
			// Deliberately recursive (the template's RecursiveLoop: Allow):
			// a stopped listing continues by invoking the backfill function
			// itself (bounded by its own counter); a commit run stopped for
			// time kicks its own queue while a backlog remains.
			f.Node().DefaultChild().(awslambda.CfnFunction).SetRecursiveLoop(jsii.String("Allow"))
		}
		return f
	}
	s.DiscoveryFunction = fn("discovery", "registers files from S3 event notifications", 256, 60)
	s.BackfillFunction = fn("backfill", "lists the source and registers files whose events were lost", 512, 900)
	s.CommitFunction = fn("commit", "plans batches, writes Parquet, commits the Delta log", r.CommitMemorySize, 900)
	if r.MaxConverters > 1 {
		// Fan-out: the commit function invokes itself once per share. A
		// policy of its own (as the template's CommitSelfInvokePolicy): the
		// role's inline policy cannot name the function that uses the role.
		doc := awsiam.NewPolicyDocument(&awsiam.PolicyDocumentProps{Statements: &[]awsiam.PolicyStatement{
			stmt("InvokeConverters", []string{"lambda:InvokeFunction"}, []string{*s.CommitFunction.FunctionArn()}, nil),
		}})
		awsiam.NewCfnPolicy(s.Construct, jsii.String("CommitSelfInvokePolicy"), &awsiam.CfnPolicyProps{
			PolicyName:     jsii.String("commit-fanout"),
			Roles:          &[]*string{roles["commit"].RoleName()},
			PolicyDocument: doc,
		})
	}
	// A stopped listing continues at once: the backfill function invokes
	// itself (as the template's BackfillSelfInvokePolicy).
	awsiam.NewCfnPolicy(s.Construct, jsii.String("BackfillSelfInvokePolicy"), &awsiam.CfnPolicyProps{
		PolicyName: jsii.String("backfill-continue"),
		Roles:      &[]*string{roles["backfill"].RoleName()},
		PolicyDocument: awsiam.NewPolicyDocument(&awsiam.PolicyDocumentProps{Statements: &[]awsiam.PolicyStatement{
			stmt("ContinueListing", []string{"lambda:InvokeFunction"}, []string{*s.BackfillFunction.FunctionArn()}, nil),
		}}),
	})
	s.MaintenanceFunction = fn("maintenance", "compacts, cleans the log of and vacuums the Delta table", 1024, 900)

	// Event sources as SAM expands them. The L2 SqsEventSource would also
	// grant sqs:GetQueueUrl, which the functions never call.
	awslambda.NewEventSourceMapping(s.Construct, jsii.String("DiscoveryFunctionObjectEvents"), &awslambda.EventSourceMappingProps{
		Target:         s.DiscoveryFunction,
		EventSourceArn: s.EventsQueue.QueueArn(),
		// Up to 1,000 events an invocation: one inbox object each.
		BatchSize:         jsii.Number(1000),
		MaxBatchingWindow: awscdk.Duration_Seconds(jsii.Number(5)),
		// A message that cannot be parsed fails alone and ends in the DLQ.
		ReportBatchItemFailures: jsii.Bool(true),
		MaxConcurrency:          jsii.Number(5),
		// Notifications None: nothing sends to the queue, so the mapping is
		// off and Lambda's pollers bill no empty receives.
		Enabled: jsii.Bool(r.Notifications != NotifyNone),
	})
	awslambda.NewEventSourceMapping(s.Construct, jsii.String("CommitFunctionKick"), &awslambda.EventSourceMappingProps{
		Target:                  s.CommitFunction,
		EventSourceArn:          s.KickQueue.QueueArn(),
		BatchSize:               jsii.Number(1),
		ReportBatchItemFailures: jsii.Bool(true),
	})
	// The schedule invokes asynchronously: two retries, then the event and
	// the error go to BackfillFailureQueue (alarmed). L1, as SAM renders it:
	// the L2 destination would add a policy the role already states.
	awslambda.NewCfnEventInvokeConfig(s.Construct, jsii.String("BackfillFunctionEventInvokeConfig"), &awslambda.CfnEventInvokeConfigProps{
		FunctionName:             s.BackfillFunction.FunctionName(),
		Qualifier:                jsii.String("$LATEST"),
		MaximumRetryAttempts:     jsii.Number(2),
		MaximumEventAgeInSeconds: jsii.Number(21600),
		DestinationConfig: &awslambda.CfnEventInvokeConfig_DestinationConfigProperty{
			OnFailure: &awslambda.CfnEventInvokeConfig_OnFailureProperty{Destination: s.BackfillFailureQueue.QueueArn()},
		},
	})
	rule := awsevents.NewRule(s.Construct, jsii.String("BackfillFunctionBackfill"), &awsevents.RuleProps{
		Schedule:    awsevents.Schedule_Expression(jsii.String(r.BackfillInterval)),
		Description: jsii.String("cloudFiles.backfillInterval"),
		Enabled:     jsii.Bool(true),
	})
	rule.AddTarget(awseventstargets.NewLambdaFunction(s.BackfillFunction, nil))
	maint := awsevents.NewRule(s.Construct, jsii.String("MaintenanceFunctionMaintenance"), &awsevents.RuleProps{
		Schedule:    awsevents.Schedule_Expression(jsii.String(r.MaintenanceSchedule)),
		Description: jsii.String("OPTIMIZE, log cleanup and VACUUM of every stream's table"),
		Enabled:     jsii.Bool(true),
	})
	maint.AddTarget(awseventstargets.NewLambdaFunction(s.MaintenanceFunction, nil))
}

// alarmSpec is one single-metric alarm as the template states it.
type alarmSpec struct {
	id, description   string
	namespace, metric string
	dimension, value  string
	statistic         string
	period, periods   float64
	threshold         float64
}

// metricStat is one MetricStat of a metric-math alarm.
func metricStat(id, namespace, metric, dimension string, value *string, stat string) *awscloudwatch.CfnAlarm_MetricDataQueryProperty {
	return &awscloudwatch.CfnAlarm_MetricDataQueryProperty{
		Id:         jsii.String(id),
		ReturnData: jsii.Bool(false),
		MetricStat: &awscloudwatch.CfnAlarm_MetricStatProperty{
			Metric: &awscloudwatch.CfnAlarm_MetricProperty{
				Namespace:  jsii.String(namespace),
				MetricName: jsii.String(metric),
				Dimensions: &[]any{&awscloudwatch.CfnAlarm_DimensionProperty{Name: jsii.String(dimension), Value: value}},
			},
			Period: jsii.Number(300),
			Stat:   jsii.String(stat),
		},
	}
}

func (s *Stream) alarms(r *resolved) {
	// Encrypted only with the customer-managed key: CloudWatch alarms
	// cannot publish to a topic encrypted with the AWS managed key.
	topic := &awssns.TopicProps{DisplayName: jsii.String(fmt.Sprintf("Tributary %s alarms", r.StreamId))}
	if r.KmsKeyArn != "" {
		topic.MasterKey = s.kmsKey(r)
	}
	s.AlarmTopic = awssns.NewTopic(s.Construct, jsii.String("AlarmTopic"), topic)
	if r.AlarmEmail != "" {
		awssns.NewSubscription(s.Construct, jsii.String("AlarmEmailSubscription"), &awssns.SubscriptionProps{
			Topic:    s.AlarmTopic,
			Protocol: awssns.SubscriptionProtocol_EMAIL,
			Endpoint: jsii.String(r.AlarmEmail),
		})
	}
	events, eventsDLQ, kick, kickDLQ := *s.EventsQueue.QueueName(), *s.EventsDeadLetterQueue.QueueName(), *s.KickQueue.QueueName(), *s.KickDeadLetterQueue.QueueName()
	specs := []alarmSpec{
		{"EventsQueueDepthAlarm", "events are piling up in the events queue (discovery too slow or failing)",
			"AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", events, "Maximum", 300, 3, float64(r.QueueDepthAlarmThreshold)},
		{"EventsQueueAgeAlarm", "the oldest event in the events queue is too old",
			"AWS/SQS", "ApproximateAgeOfOldestMessage", "QueueName", events, "Maximum", 300, 1, float64(r.QueueAgeAlarmSeconds)},
		{"EventsDeadLetterAlarm", "events the discovery function could not handle are in the events DLQ",
			"AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", eventsDLQ, "Maximum", 60, 1, 0},
		{"KickDeadLetterAlarm", "commit kicks failed repeatedly and are in the kick DLQ",
			"AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", kickDLQ, "Maximum", 60, 1, 0},
		{"CommitStalledAlarm", "the oldest commit kick waits too long (commits stalled)",
			"AWS/SQS", "ApproximateAgeOfOldestMessage", "QueueName", kick, "Maximum", 300, 1, float64(r.CommitStalledAlarmSeconds)},
		{"BackfillFailureAlarm", "a scheduled backfill failed after its retries (BackfillFailureQueue holds the event and the error)",
			"AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", *s.BackfillFailureQueue.QueueName(), "Maximum", 300, 1, 0},
		{"SkippedFilesAlarm", "input files were skipped as unreadable or missing (tributary state --state SKIPPED lists them with the reason)",
			MetricsNamespace, "numSkippedFiles", "StreamId", r.StreamId, "Sum", 300, 1, 0},
	}
	for _, f := range []struct {
		name    string
		fn      awslambda.Function
		timeout float64
	}{{"discovery", s.DiscoveryFunction, 60}, {"backfill", s.BackfillFunction, 900}, {"commit", s.CommitFunction, 900}} {
		name := *f.fn.FunctionName()
		// The 900 s functions stop their runs at the time margin, 2 min
		// before the timeout, so a long run is normal: their alarm fires
		// only when the work in flight overran the margin.
		duration := alarmSpec{title(f.name) + "DurationAlarm", fmt.Sprintf("%s function ran longer than 80%% of its %v s timeout", f.name, f.timeout),
			"AWS/Lambda", "Duration", "FunctionName", name, "Maximum", 300, 1, f.timeout * 800}
		if f.timeout == 900 {
			duration.description = fmt.Sprintf("%s function ran longer than 95%% of its %v s timeout (its runs stop at the time margin, 2 min before the timeout: this means the work in flight overran the margin)", f.name, f.timeout)
			duration.threshold = f.timeout * 950
		}
		specs = append(specs, duration,
			alarmSpec{title(f.name) + "ErrorsAlarm", f.name + " function errors",
				"AWS/Lambda", "Errors", "FunctionName", name, "Sum", 300, 1, 0},
			alarmSpec{title(f.name) + "ThrottlesAlarm", f.name + " function throttled",
				"AWS/Lambda", "Throttles", "FunctionName", name, "Sum", 300, 1, 0})
	}
	topicArn := &[]any{s.AlarmTopic.TopicArn()}
	base := func(description string) *awscloudwatch.CfnAlarmProps {
		return &awscloudwatch.CfnAlarmProps{
			AlarmDescription:   jsii.String(fmt.Sprintf("Tributary %s: %s", r.StreamId, description)),
			ComparisonOperator: jsii.String("GreaterThanThreshold"),
			TreatMissingData:   jsii.String("notBreaching"),
			AlarmActions:       topicArn,
			OkActions:          topicArn,
			EvaluationPeriods:  jsii.Number(1),
			Threshold:          jsii.Number(0),
		}
	}
	for _, a := range specs {
		p := base(a.description)
		p.Namespace = jsii.String(a.namespace)
		p.MetricName = jsii.String(a.metric)
		p.Dimensions = &[]any{&awscloudwatch.CfnAlarm_DimensionProperty{Name: jsii.String(a.dimension), Value: jsii.String(a.value)}}
		p.Statistic = jsii.String(a.statistic)
		p.Period = jsii.Number(a.period)
		p.EvaluationPeriods = jsii.Number(a.periods)
		p.Threshold = jsii.Number(a.threshold)
		s.Alarms[a.id] = awscloudwatch.NewCfnAlarm(s.Construct, jsii.String(a.id), p)
	}

	// A backlog above the threshold, or events arriving while the commit
	// function reports no numFilesOutstanding at all (no batches).
	p := base("too many discovered files are not yet committed, or events arrive and no batch reports progress")
	p.Metrics = &[]any{
		metricStat("outstanding", MetricsNamespace, "numFilesOutstanding", "StreamId", jsii.String(r.StreamId), "Maximum"),
		metricStat("arrived", "AWS/SQS", "NumberOfMessagesSent", "QueueName", s.EventsQueue.QueueName(), "Sum"),
		&awscloudwatch.CfnAlarm_MetricDataQueryProperty{
			Id:         jsii.String("stuck"),
			Label:      jsii.String("backlog over threshold, or events without progress"),
			ReturnData: jsii.Bool(true),
			Expression: jsii.String(fmt.Sprintf("IF(FILL(outstanding, -1) > %d OR (FILL(outstanding, -1) < 0 AND FILL(arrived, 0) > 0), 1, 0)", r.FilesOutstandingAlarmThreshold)),
		},
	}
	p.EvaluationPeriods = jsii.Number(3)
	p.DatapointsToAlarm = jsii.Number(3)
	s.Alarms["FilesOutstandingAlarm"] = awscloudwatch.NewCfnAlarm(s.Construct, jsii.String("FilesOutstandingAlarm"), p)

	p = base("DynamoDB throttles requests on the state table")
	p.Metrics = &[]any{
		metricStat("reads", "AWS/DynamoDB", "ReadThrottleEvents", "TableName", s.StateTable.TableName(), "Sum"),
		metricStat("writes", "AWS/DynamoDB", "WriteThrottleEvents", "TableName", s.StateTable.TableName(), "Sum"),
		&awscloudwatch.CfnAlarm_MetricDataQueryProperty{
			Id:         jsii.String("throttles"),
			Label:      jsii.String("read and write throttle events"),
			ReturnData: jsii.Bool(true),
			Expression: jsii.String("FILL(reads, 0) + FILL(writes, 0)"),
		},
	}
	s.Alarms["StateTableThrottlesAlarm"] = awscloudwatch.NewCfnAlarm(s.Construct, jsii.String("StateTableThrottlesAlarm"), p)

	// Each stream of the streams document gets its own alarms on its
	// StreamId dimension (the template's StreamAlarmIds slots).
	for i, id := range r.alarmStreams {
		outstanding := base("")
		outstanding.AlarmDescription = jsii.String(fmt.Sprintf("Tributary %s: too many discovered files of this stream are not yet committed", id))
		outstanding.Namespace = jsii.String(MetricsNamespace)
		outstanding.MetricName = jsii.String("numFilesOutstanding")
		outstanding.Dimensions = &[]any{&awscloudwatch.CfnAlarm_DimensionProperty{Name: jsii.String("StreamId"), Value: jsii.String(id)}}
		outstanding.Statistic = jsii.String("Maximum")
		outstanding.Period = jsii.Number(300)
		outstanding.EvaluationPeriods = jsii.Number(3)
		outstanding.DatapointsToAlarm = jsii.Number(3)
		outstanding.Threshold = jsii.Number(float64(r.FilesOutstandingAlarmThreshold))
		name := fmt.Sprintf("StreamAlarm%dFilesOutstanding", i)
		s.Alarms[name] = awscloudwatch.NewCfnAlarm(s.Construct, jsii.String(name), outstanding)

		skipped := base("")
		skipped.AlarmDescription = jsii.String(fmt.Sprintf("Tributary %s: input files of this stream were skipped as unreadable or missing (tributary state --state SKIPPED lists them with the reason)", id))
		skipped.Namespace = jsii.String(MetricsNamespace)
		skipped.MetricName = jsii.String("numSkippedFiles")
		skipped.Dimensions = &[]any{&awscloudwatch.CfnAlarm_DimensionProperty{Name: jsii.String("StreamId"), Value: jsii.String(id)}}
		skipped.Statistic = jsii.String("Sum")
		skipped.Period = jsii.Number(300)
		name = fmt.Sprintf("StreamAlarm%dSkippedFiles", i)
		s.Alarms[name] = awscloudwatch.NewCfnAlarm(s.Construct, jsii.String(name), skipped)
	}
}

// dashWidget is one graph of the dashboard body, as the template writes it.
type dashWidget struct {
	Type       string         `json:"type"`
	X          int            `json:"x"`
	Y          int            `json:"y"`
	Width      int            `json:"width"`
	Height     int            `json:"height"`
	Properties map[string]any `json:"properties"`
}

// dashboard builds the dashboard body as the template does, a JSON
// document in Fn::Sub whose ${...} name the queues and functions. (The L2
// Dashboard renders Fn::Join, which cfn-lint reports as I1022.)
func (s *Stream) dashboard(r *resolved) {
	vars := map[string]*string{
		"EventsQueue": s.EventsQueue.QueueName(), "KickQueue": s.KickQueue.QueueName(),
		"EventsDLQ": s.EventsDeadLetterQueue.QueueName(), "KickDLQ": s.KickDeadLetterQueue.QueueName(),
		"Discovery": s.DiscoveryFunction.FunctionName(), "Backfill": s.BackfillFunction.FunctionName(),
		"Commit": s.CommitFunction.FunctionName(),
	}
	q := func(name, queue, label string) []any {
		return []any{"AWS/SQS", name, "QueueName", "${" + queue + "}", map[string]any{"label": label}}
	}
	t := func(name string, opts map[string]any) []any {
		return []any{MetricsNamespace, name, "StreamId", r.StreamId, opts}
	}
	l := func(name, fn, label string) []any {
		return []any{"AWS/Lambda", name, "FunctionName", "${" + fn + "}", map[string]any{"label": label}}
	}
	label := func(l string) map[string]any { return map[string]any{"label": l} }
	graph := func(x, y, width int, title, stat string, period int, metrics ...[]any) dashWidget {
		p := map[string]any{"title": title, "region": "${AWS::Region}", "view": "timeSeries", "period": period, "metrics": metrics}
		if stat != "" {
			p["stat"] = stat
		}
		return dashWidget{Type: "metric", X: x, Y: y, Width: width, Height: 6, Properties: p}
	}
	widgets := []dashWidget{
		graph(0, 0, 12, "Events queue depth", "Maximum", 60,
			q("ApproximateNumberOfMessagesVisible", "EventsQueue", "visible"),
			q("ApproximateNumberOfMessagesNotVisible", "EventsQueue", "in flight")),
		graph(12, 0, 12, "Age of oldest event (s)", "Maximum", 60,
			q("ApproximateAgeOfOldestMessage", "EventsQueue", "events"),
			q("ApproximateAgeOfOldestMessage", "KickQueue", "kicks")),
		graph(0, 6, 12, "Dead-letter queues", "Maximum", 60,
			q("ApproximateNumberOfMessagesVisible", "EventsDLQ", "events DLQ"),
			q("ApproximateNumberOfMessagesVisible", "KickDLQ", "kick DLQ")),
		graph(12, 6, 12, "Backlog", "Maximum", 60,
			t("numFilesOutstanding", label("files outstanding")),
			t("numBytesOutstanding", map[string]any{"label": "bytes outstanding", "yAxis": "right"})),
		graph(0, 12, 12, "Rows per second", "Average", 60,
			t("inputRowsPerSecond", label("input rows/s")),
			t("processedRowsPerSecond", label("processed rows/s"))),
		graph(12, 12, 12, "Batch duration (ms)", "", 60,
			t("triggerExecutionMs", map[string]any{"stat": "Average", "label": "average"}),
			t("triggerExecutionMs", map[string]any{"stat": "Maximum", "label": "max"})),
		graph(0, 18, 24, "Files skipped (unreadable or missing) and rescued rows", "Sum", 300,
			t("numSkippedFiles", label("files skipped")),
			t("numRescuedRows", map[string]any{"label": "rows with rescued data", "yAxis": "right"})),
		graph(0, 24, 24, "Function errors and throttles", "Sum", 300,
			l("Errors", "Discovery", "discovery errors"),
			l("Errors", "Backfill", "backfill errors"),
			l("Errors", "Commit", "commit errors"),
			l("Throttles", "Discovery", "discovery throttles"),
			l("Throttles", "Backfill", "backfill throttles"),
			l("Throttles", "Commit", "commit throttles")),
	}
	body, err := json.Marshal(map[string]any{"widgets": widgets})
	if err != nil {
		panic(err) // maps of strings, numbers and slices always marshal
	}
	s.Dashboard = awscloudwatch.NewCfnDashboard(s.Construct, jsii.String("Dashboard"), &awscloudwatch.CfnDashboardProps{
		DashboardName: jsii.String("tributary-" + r.StreamId),
		DashboardBody: sub(string(body), vars),
	})
}

func (s *Stream) outputs(r *resolved) {
	out := func(id, description string, value *string) {
		p := &awscdk.CfnOutputProps{Value: value}
		if description != "" {
			p.Description = jsii.String(description)
		}
		awscdk.NewCfnOutput(s.Construct, jsii.String(id), p)
	}
	out("SourceBucketName", "Bucket that receives the source files.", s.SourceBucket.BucketName())
	out("SourceUri", "Stream source location.", jsii.String("s3://"+r.SourceBucketName+"/"+r.sourcePrefix))
	out("TableUri", "Delta table location.", jsii.String("s3://"+r.tableBucket+"/"+r.TablePrefix))
	out("EventsQueueUrl", "Queue that receives the object-created notifications (S3, EventBridge or SNS).", s.EventsQueue.QueueUrl())
	out("EventsDeadLetterQueueUrl", "Dead-letter queue of the events queue.", s.EventsDeadLetterQueue.QueueUrl())
	out("KickQueueUrl", "FIFO queue that kicks the commit function (MessageGroupId = stream id).", s.KickQueue.QueueUrl())
	out("BackfillFailureQueueUrl", "On-failure destination of the backfill schedule's invocations.", s.BackfillFailureQueue.QueueUrl())
	out("KickDeadLetterQueueUrl", "Dead-letter queue of the kick queue.", s.KickDeadLetterQueue.QueueUrl())
	out("StateTableName", "DynamoDB table with the file state.", s.StateTable.TableName())
	out("DiscoveryFunctionName", "", s.DiscoveryFunction.FunctionName())
	out("BackfillFunctionName", "", s.BackfillFunction.FunctionName())
	out("CommitFunctionName", "", s.CommitFunction.FunctionName())
	out("MaintenanceFunctionName", "", s.MaintenanceFunction.FunctionName())
	out("AlarmTopicArn", "", s.AlarmTopic.TopicArn())
	out("DashboardName", "", s.Dashboard.Ref())
}
