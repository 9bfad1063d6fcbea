package tributary

import (
	"fmt"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
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
		"TRIBUTARY_OPTIONS":           jsii.String(r.options()),
		"TRIBUTARY_EXTRA_OPTIONS":     jsii.String(r.extraOptions()),
		"TRIBUTARY_METRICS_NAMESPACE": jsii.String(MetricsNamespace),
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
		if name == "commit" {
			props.EphemeralStorageSize = awscdk.Size_Mebibytes(jsii.Number(2048))
		}
		return awslambda.NewFunction(s.Construct, jsii.String(title(name)+"Function"), props)
	}
	s.DiscoveryFunction = fn("discovery", "registers files from S3 event notifications", 256, 60)
	s.BackfillFunction = fn("backfill", "lists the source and registers files whose events were lost", 512, 900)
	s.CommitFunction = fn("commit", "plans batches, writes Parquet, commits the Delta log", r.CommitMemorySize, 900)

	// Event sources as SAM expands them. The L2 SqsEventSource would also
	// grant sqs:GetQueueUrl, which the functions never call.
	awslambda.NewEventSourceMapping(s.Construct, jsii.String("DiscoveryFunctionObjectEvents"), &awslambda.EventSourceMappingProps{
		Target:            s.DiscoveryFunction,
		EventSourceArn:    s.EventsQueue.QueueArn(),
		BatchSize:         jsii.Number(100),
		MaxBatchingWindow: awscdk.Duration_Seconds(jsii.Number(5)),
		// A message that cannot be parsed fails alone and ends in the DLQ.
		ReportBatchItemFailures: jsii.Bool(true),
		MaxConcurrency:          jsii.Number(5),
	})
	awslambda.NewEventSourceMapping(s.Construct, jsii.String("CommitFunctionKick"), &awslambda.EventSourceMappingProps{
		Target:                  s.CommitFunction,
		EventSourceArn:          s.KickQueue.QueueArn(),
		BatchSize:               jsii.Number(1),
		ReportBatchItemFailures: jsii.Bool(true),
	})
	rule := awsevents.NewRule(s.Construct, jsii.String("BackfillFunctionBackfill"), &awsevents.RuleProps{
		Schedule:    awsevents.Schedule_Expression(jsii.String(r.BackfillInterval)),
		Description: jsii.String("cloudFiles.backfillInterval"),
		Enabled:     jsii.Bool(true),
	})
	rule.AddTarget(awseventstargets.NewLambdaFunction(s.BackfillFunction, nil))
}

// alarmSpec is one alarm as the template states it.
type alarmSpec struct {
	id, description   string
	namespace, metric string
	dimension, value  string
	statistic         string
	period, periods   float64
	threshold         float64
}

func (s *Stream) alarms(r *resolved) {
	// Not KMS-encrypted on purpose: CloudWatch alarms cannot publish to a
	// topic encrypted with the AWS managed key.
	s.AlarmTopic = awssns.NewTopic(s.Construct, jsii.String("AlarmTopic"), &awssns.TopicProps{
		DisplayName: jsii.String(fmt.Sprintf("Tributary %s alarms", r.StreamId)),
	})
	if r.AlarmEmail != "" {
		s.AlarmTopic.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(r.AlarmEmail), nil))
	}
	events, eventsDLQ, kickDLQ := *s.EventsQueue.QueueName(), *s.EventsDeadLetterQueue.QueueName(), *s.KickDeadLetterQueue.QueueName()
	specs := []alarmSpec{
		{"EventsQueueDepthAlarm", "events are piling up in the events queue (discovery too slow or failing)",
			"AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", events, "Maximum", 300, 3, float64(r.QueueDepthAlarmThreshold)},
		{"EventsQueueAgeAlarm", "the oldest event in the events queue is too old",
			"AWS/SQS", "ApproximateAgeOfOldestMessage", "QueueName", events, "Maximum", 300, 1, float64(r.QueueAgeAlarmSeconds)},
		{"EventsDeadLetterAlarm", "events the discovery function could not handle are in the events DLQ",
			"AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", eventsDLQ, "Maximum", 60, 1, 0},
		{"KickDeadLetterAlarm", "commit kicks failed repeatedly and are in the kick DLQ",
			"AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", kickDLQ, "Maximum", 60, 1, 0},
		{"FilesOutstandingAlarm", "too many discovered files are not yet committed",
			MetricsNamespace, "numFilesOutstanding", "StreamId", r.StreamId, "Maximum", 300, 3, float64(r.FilesOutstandingAlarmThreshold)},
		{"SkippedFilesAlarm", "input files were skipped as unreadable or missing (tributary state --state SKIPPED lists them with the reason)",
			MetricsNamespace, "numSkippedFiles", "StreamId", r.StreamId, "Sum", 300, 1, 0},
	}
	for _, f := range []struct {
		name string
		fn   awslambda.Function
	}{{"discovery", s.DiscoveryFunction}, {"backfill", s.BackfillFunction}, {"commit", s.CommitFunction}} {
		name := *f.fn.FunctionName()
		specs = append(specs,
			alarmSpec{title(f.name) + "ErrorsAlarm", f.name + " function errors",
				"AWS/Lambda", "Errors", "FunctionName", name, "Sum", 300, 1, 0},
			alarmSpec{title(f.name) + "ThrottlesAlarm", f.name + " function throttled",
				"AWS/Lambda", "Throttles", "FunctionName", name, "Sum", 300, 1, 0})
	}
	action := awscloudwatchactions.NewSnsAction(s.AlarmTopic)
	for _, a := range specs {
		alarm := awscloudwatch.NewAlarm(s.Construct, jsii.String(a.id), &awscloudwatch.AlarmProps{
			AlarmDescription: jsii.String(fmt.Sprintf("Tributary %s: %s", r.StreamId, a.description)),
			Metric: awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
				Namespace:     jsii.String(a.namespace),
				MetricName:    jsii.String(a.metric),
				DimensionsMap: &map[string]*string{a.dimension: jsii.String(a.value)},
				Statistic:     jsii.String(a.statistic),
				Period:        awscdk.Duration_Seconds(jsii.Number(a.period)),
			}),
			EvaluationPeriods:  jsii.Number(a.periods),
			Threshold:          jsii.Number(a.threshold),
			ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_THRESHOLD,
			TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
		})
		alarm.AddAlarmAction(action)
		alarm.AddOkAction(action)
		s.Alarms[a.id] = alarm
	}
}

// metric is one dashboard line.
func metric(namespace, name, dimension, value, stat, label string, period float64) awscloudwatch.Metric {
	return awscloudwatch.NewMetric(&awscloudwatch.MetricProps{
		Namespace:     jsii.String(namespace),
		MetricName:    jsii.String(name),
		DimensionsMap: &map[string]*string{dimension: jsii.String(value)},
		Statistic:     jsii.String(stat),
		Label:         jsii.String(label),
		Period:        awscdk.Duration_Seconds(jsii.Number(period)),
	})
}

func graph(title string, width float64, left, right []awscloudwatch.IMetric) awscloudwatch.IWidget {
	p := &awscloudwatch.GraphWidgetProps{
		Title:  jsii.String(title),
		Width:  jsii.Number(width),
		Height: jsii.Number(6),
		Left:   &left,
	}
	if right != nil {
		p.Right = &right
	}
	return awscloudwatch.NewGraphWidget(p)
}

func (s *Stream) dashboard(r *resolved) {
	q := func(queue *string, name, stat, label string) awscloudwatch.IMetric {
		return metric("AWS/SQS", name, "QueueName", *queue, stat, label, 60)
	}
	t := func(name, stat, label string, period float64) awscloudwatch.IMetric {
		return metric(MetricsNamespace, name, "StreamId", r.StreamId, stat, label, period)
	}
	l := func(fn awslambda.Function, name, label string) awscloudwatch.IMetric {
		return metric("AWS/Lambda", name, "FunctionName", *fn.FunctionName(), "Sum", label, 300)
	}
	ev, kick := s.EventsQueue.QueueName(), s.KickQueue.QueueName()
	type m = []awscloudwatch.IMetric
	s.Dashboard = awscloudwatch.NewDashboard(s.Construct, jsii.String("Dashboard"), &awscloudwatch.DashboardProps{
		DashboardName: jsii.String("tributary-" + r.StreamId),
		Widgets: &[]*[]awscloudwatch.IWidget{
			{
				graph("Events queue depth", 12, m{q(ev, "ApproximateNumberOfMessagesVisible", "Maximum", "visible"),
					q(ev, "ApproximateNumberOfMessagesNotVisible", "Maximum", "in flight")}, nil),
				graph("Age of oldest event (s)", 12, m{q(ev, "ApproximateAgeOfOldestMessage", "Maximum", "events"),
					q(kick, "ApproximateAgeOfOldestMessage", "Maximum", "kicks")}, nil),
			},
			{
				graph("Dead-letter queues", 12, m{q(s.EventsDeadLetterQueue.QueueName(), "ApproximateNumberOfMessagesVisible", "Maximum", "events DLQ"),
					q(s.KickDeadLetterQueue.QueueName(), "ApproximateNumberOfMessagesVisible", "Maximum", "kick DLQ")}, nil),
				graph("Backlog", 12, m{t("numFilesOutstanding", "Maximum", "files outstanding", 60)},
					m{t("numBytesOutstanding", "Maximum", "bytes outstanding", 60)}),
			},
			{
				graph("Rows per second", 12, m{t("inputRowsPerSecond", "Average", "input rows/s", 60),
					t("processedRowsPerSecond", "Average", "processed rows/s", 60)}, nil),
				graph("Batch duration (ms)", 12, m{t("triggerExecutionMs", "Average", "average", 60),
					t("triggerExecutionMs", "Maximum", "max", 60)}, nil),
			},
			{
				graph("Files skipped (unreadable or missing) and rescued rows", 24,
					m{t("numSkippedFiles", "Sum", "files skipped", 300)}, m{t("numRescuedRows", "Sum", "rows with rescued data", 300)}),
			},
			{
				graph("Function errors and throttles", 24, m{
					l(s.DiscoveryFunction, "Errors", "discovery errors"),
					l(s.BackfillFunction, "Errors", "backfill errors"),
					l(s.CommitFunction, "Errors", "commit errors"),
					l(s.DiscoveryFunction, "Throttles", "discovery throttles"),
					l(s.BackfillFunction, "Throttles", "backfill throttles"),
					l(s.CommitFunction, "Throttles", "commit throttles"),
				}, nil),
			},
		},
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
	out("SourceUri", "Stream source location.", jsii.String(fmt.Sprintf("s3://%s/%s", r.SourceBucketName, r.sourcePrefix)))
	out("TableUri", "Delta table location.", jsii.String(fmt.Sprintf("s3://%s/%s", r.tableBucket, r.TablePrefix)))
	out("EventsQueueUrl", "Queue that receives the S3 object-created notifications.", s.EventsQueue.QueueUrl())
	out("EventsDeadLetterQueueUrl", "Dead-letter queue of the events queue.", s.EventsDeadLetterQueue.QueueUrl())
	out("KickQueueUrl", "FIFO queue that kicks the commit function (MessageGroupId = stream id).", s.KickQueue.QueueUrl())
	out("KickDeadLetterQueueUrl", "Dead-letter queue of the kick queue.", s.KickDeadLetterQueue.QueueUrl())
	out("StateTableName", "DynamoDB table with the file state.", s.StateTable.TableName())
	out("DiscoveryFunctionName", "", s.DiscoveryFunction.FunctionName())
	out("BackfillFunctionName", "", s.BackfillFunction.FunctionName())
	out("CommitFunctionName", "", s.CommitFunction.FunctionName())
	out("AlarmTopicArn", "", s.AlarmTopic.TopicArn())
	out("DashboardName", "", s.Dashboard.DashboardName())
}
