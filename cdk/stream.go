// Package tributary is an AWS CDK (v2, Go) construct library for Tributary:
// NewStream builds, inside any stack, the resources that template.yaml
// deploys for one stream (source bucket with its S3→SQS notification, events
// queue and DLQ, FIFO kick queue and DLQ, DynamoDB state table, the
// discovery, backfill and commit functions with their exact-action roles,
// log groups, the backfill schedule, alarm topic, alarms and dashboard).
// Several streams may share one stack or app; each needs its own StreamId.
//
// The construct ids of the resources are the template's logical ids, so the
// synthesised logical ids read <stream id><template logical id><hash>.
package tributary

import (
	"fmt"
	"strings"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapplicationautoscaling"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awskms"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// MetricsNamespace is the CloudWatch namespace of the commit function's
// Embedded Metric Format progress record (dimension StreamId).
const MetricsNamespace = "Tributary"

// Stream is one Tributary stream's resources.
type Stream struct {
	// Construct is the stream's node, the scope of all its resources. It is
	// a field, not embedded: jsii refuses a Go struct that embeds a
	// construct when it is passed back to JavaScript.
	Construct constructs.Construct
	// SourceBucket receives the source files: created, or the existing bucket imported by name.
	SourceBucket awss3.IBucket
	// BackfillFailureQueue is the on-failure destination of the backfill schedule's invocations.
	BackfillFailureQueue awssqs.Queue
	// EventsQueue receives the S3 object-created notifications.
	EventsQueue awssqs.Queue
	// EventsDeadLetterQueue is the events queue's DLQ.
	EventsDeadLetterQueue awssqs.Queue
	// KickQueue is the FIFO queue that kicks the commit function.
	KickQueue awssqs.Queue
	// KickDeadLetterQueue is the kick queue's DLQ.
	KickDeadLetterQueue awssqs.Queue
	// StateTable holds the file state.
	StateTable awsdynamodb.Table
	// DiscoveryFunction registers files from S3 events.
	DiscoveryFunction awslambda.Function
	// BackfillFunction lists the source on a schedule.
	BackfillFunction awslambda.Function
	// CommitFunction writes Parquet and commits the Delta log.
	CommitFunction awslambda.Function
	// MaintenanceFunction compacts, cleans the log of and vacuums the table on a schedule.
	MaintenanceFunction awslambda.Function
	// AlarmTopic receives every alarm's state changes.
	AlarmTopic awssns.Topic
	// Alarms are the stream's alarms by their template logical id.
	Alarms map[string]awscloudwatch.CfnAlarm
	// Dashboard is the stream's CloudWatch dashboard.
	Dashboard awscloudwatch.CfnDashboard

	key awskms.IKey // KmsKeyArn, imported once
}

// NewStream adds one stream to scope. It panics, as CDK constructors do,
// when props are invalid (Validate returns the same error without panicking).
func NewStream(scope constructs.Construct, id string, props *StreamProps) *Stream {
	r, err := props.resolve()
	if err != nil {
		panic(fmt.Errorf("tributary.NewStream %s: %w", id, err))
	}
	s := &Stream{Construct: constructs.NewConstruct(scope, jsii.String(id)), Alarms: map[string]awscloudwatch.CfnAlarm{}}
	stack := awscdk.Stack_Of(s.Construct)
	tags := awscdk.Tags_Of(s.Construct)
	tags.Add(jsii.String("tributary:stream"), jsii.String(r.StreamId), nil)

	s.queues(r, stack)
	s.source(r)
	s.table(r)
	logs := s.logGroups(r)
	roles := s.roles(r, logs)
	s.functions(r, roles, logs)
	s.alarms(r)
	s.dashboard(r)
	s.outputs(r)
	return s
}

// encryption sets a queue's encryption: the customer-managed key, else SSE-SQS.
func (s *Stream) encryption(r *resolved, q *awssqs.QueueProps) *awssqs.QueueProps {
	q.Encryption = awssqs.QueueEncryption_SQS_MANAGED
	if r.KmsKeyArn != "" {
		q.Encryption = awssqs.QueueEncryption_KMS
		q.EncryptionMasterKey = s.kmsKey(r)
	}
	q.RemovalPolicy = awscdk.RemovalPolicy_DESTROY // transient; the file state and backfill recover anything lost
	return q
}

// kmsKey is KmsKeyArn imported once per stream.
func (s *Stream) kmsKey(r *resolved) awskms.IKey {
	if s.key == nil {
		s.key = awskms.Key_FromKeyArn(s.Construct, jsii.String("KmsKey"), jsii.String(r.KmsKeyArn))
	}
	return s.key
}

func (s *Stream) queues(r *resolved, stack awscdk.Stack) {
	fourteenDays := awscdk.Duration_Seconds(jsii.Number(1209600))
	s.EventsDeadLetterQueue = awssqs.NewQueue(s.Construct, jsii.String("EventsDeadLetterQueue"), s.encryption(r, &awssqs.QueueProps{
		RetentionPeriod: fourteenDays,
	}))
	s.EventsQueue = awssqs.NewQueue(s.Construct, jsii.String("EventsQueue"), s.encryption(r, &awssqs.QueueProps{
		// Lambda recommends at least 6x the function timeout (60 s) for SQS sources.
		VisibilityTimeout: awscdk.Duration_Seconds(jsii.Number(360)),
		RetentionPeriod:   fourteenDays,
		DeadLetterQueue:   &awssqs.DeadLetterQueue{Queue: s.EventsDeadLetterQueue, MaxReceiveCount: jsii.Number(5)},
	}))
	// Only the one sender that Notifications selects may send. The S3
	// statement names the bucket by name, not by reference, which breaks
	// the bucket -> queue policy -> bucket cycle (as in the template).
	sender := &awsiam.PolicyStatementProps{
		Effect:    awsiam.Effect_ALLOW,
		Actions:   jsii.Strings("sqs:SendMessage"),
		Resources: jsii.Strings(*s.EventsQueue.QueueArn()),
	}
	switch r.Notifications {
	case NotifyS3:
		sender.Sid = jsii.String("AllowSourceBucketNotifications")
		sender.Principals = &[]awsiam.IPrincipal{awsiam.NewServicePrincipal(jsii.String("s3.amazonaws.com"), nil)}
		sender.Conditions = &map[string]any{
			"ArnLike":      map[string]any{"aws:SourceArn": *sub("arn:${AWS::Partition}:s3:::"+r.SourceBucketName, nil)},
			"StringEquals": map[string]any{"aws:SourceAccount": *stack.Account()},
		}
	case NotifyEventBridge:
		sender.Sid = jsii.String("AllowObjectCreatedRule")
		sender.Principals = &[]awsiam.IPrincipal{awsiam.NewServicePrincipal(jsii.String("events.amazonaws.com"), nil)}
		sender.Conditions = &map[string]any{"ArnEquals": map[string]any{"aws:SourceArn": *sub(
			"arn:${AWS::Partition}:events:${AWS::Region}:${AWS::AccountId}:rule/"+r.ruleName(), nil)}}
	case NotifySNS:
		sender.Sid = jsii.String("AllowSourceTopic")
		sender.Principals = &[]awsiam.IPrincipal{awsiam.NewServicePrincipal(jsii.String("sns.amazonaws.com"), nil)}
		sender.Conditions = &map[string]any{"ArnEquals": map[string]any{"aws:SourceArn": r.SourceTopicArn}}
	case NotifyNone:
		// Directory listing: nothing sends.
		sender.Sid = jsii.String("NoSender")
		sender.Effect = awsiam.Effect_DENY
		sender.Principals = &[]awsiam.IPrincipal{awsiam.NewStarPrincipal()}
	}
	s.EventsQueue.AddToResourcePolicy(awsiam.NewPolicyStatement(sender))

	// On-failure destination of the backfill schedule's async invocations.
	s.BackfillFailureQueue = awssqs.NewQueue(s.Construct, jsii.String("BackfillFailureQueue"), s.encryption(r, &awssqs.QueueProps{
		RetentionPeriod: fourteenDays,
	}))

	// FIFO queue, one message group per stream: at most one commit in flight.
	s.KickDeadLetterQueue = awssqs.NewQueue(s.Construct, jsii.String("KickDeadLetterQueue"), s.encryption(r, &awssqs.QueueProps{
		QueueName:       jsii.String(fmt.Sprintf("tributary-%s-kick-dlq.fifo", r.StreamId)),
		Fifo:            jsii.Bool(true),
		RetentionPeriod: fourteenDays,
	}))
	s.KickQueue = awssqs.NewQueue(s.Construct, jsii.String("KickQueue"), s.encryption(r, &awssqs.QueueProps{
		QueueName:                 jsii.String(fmt.Sprintf("tributary-%s-kick.fifo", r.StreamId)),
		Fifo:                      jsii.Bool(true),
		ContentBasedDeduplication: jsii.Bool(false),
		// Commit timeout (900 s) plus a minute.
		VisibilityTimeout: awscdk.Duration_Seconds(jsii.Number(960)),
		// The processingTime trigger: kicks are delivered TriggerInterval later.
		DeliveryDelay:   awscdk.Duration_Seconds(jsii.Number(r.triggerInterval)),
		RetentionPeriod: awscdk.Duration_Seconds(jsii.Number(345600)),
		DeadLetterQueue: &awssqs.DeadLetterQueue{Queue: s.KickDeadLetterQueue, MaxReceiveCount: jsii.Number(5)},
	}))
}

func (s *Stream) source(r *resolved) {
	switch r.Notifications {
	case NotifyEventBridge:
		// The bucket sends every event to the default bus; this rule keeps
		// the objects created under the source prefix.
		awsevents.NewCfnRule(s.Construct, jsii.String("ObjectCreatedRule"), &awsevents.CfnRuleProps{
			Name:        jsii.String(r.ruleName()),
			Description: jsii.String(fmt.Sprintf("Tributary %s: Object Created in s3://%s/%s", r.StreamId, r.SourceBucketName, r.sourcePrefix)),
			State:       jsii.String("ENABLED"),
			EventPattern: map[string]any{
				"source":      []any{"aws.s3"},
				"detail-type": []any{"Object Created"},
				"detail": map[string]any{
					"bucket": map[string]any{"name": []any{r.SourceBucketName}},
					"object": map[string]any{"key": []any{map[string]any{"prefix": r.sourcePrefix}}},
				},
			},
			Targets: &[]any{&awsevents.CfnRule_TargetProperty{Id: jsii.String("events-queue"), Arn: s.EventsQueue.QueueArn()}},
		})
	case NotifySNS:
		// Without raw message delivery each body is the SNS envelope, which
		// the discovery function unwraps.
		awssns.NewCfnSubscription(s.Construct, jsii.String("SourceTopicSubscription"), &awssns.CfnSubscriptionProps{
			TopicArn:           jsii.String(r.SourceTopicArn),
			Protocol:           jsii.String("sqs"),
			Endpoint:           s.EventsQueue.QueueArn(),
			RawMessageDelivery: jsii.Bool(false),
		})
	}
	if r.ExistingSourceBucket {
		s.SourceBucket = awss3.Bucket_FromBucketName(s.Construct, jsii.String("SourceBucket"), jsii.String(r.SourceBucketName))
		return
	}
	props := &awss3.BucketProps{
		BucketName:        jsii.String(r.SourceBucketName),
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		ObjectOwnership:   awss3.ObjectOwnership_BUCKET_OWNER_ENFORCED,
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
		LifecycleRules: &[]*awss3.LifecycleRule{{
			Id:                                  jsii.String("abort-incomplete-multipart-uploads"),
			Enabled:                             jsii.Bool(true),
			AbortIncompleteMultipartUploadAfter: awscdk.Duration_Days(jsii.Number(7)),
		}},
	}
	if r.KmsKeyArn != "" {
		props.Encryption = awss3.BucketEncryption_KMS
		props.EncryptionKey = s.kmsKey(r)
		props.BucketKeyEnabled = jsii.Bool(true)
	}
	bucket := awss3.NewBucket(s.Construct, jsii.String("SourceBucket"), props)
	s.SourceBucket = bucket
	// A Deny of every S3 action over plain HTTP (the usual TLS-only guard).
	bucket.AddToResourcePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Sid:        jsii.String("DenyInsecureTransport"),
		Effect:     awsiam.Effect_DENY,
		Principals: &[]awsiam.IPrincipal{awsiam.NewStarPrincipal()},
		Actions:    jsii.Strings("s3:*"),
		Resources:  &[]*string{bucket.BucketArn(), sub("${Arn}/*", map[string]*string{"Arn": bucket.BucketArn()})},
		Conditions: &map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}},
	}))
	// The notification goes straight into the bucket's configuration, as in
	// the template (the L2 AddEventNotification would add a custom resource
	// with its own Lambda function and role).
	cfn := bucket.Node().DefaultChild().(awss3.CfnBucket)
	switch r.Notifications {
	case NotifyS3:
		qc := &awss3.CfnBucket_QueueConfigurationProperty{
			Event: jsii.String("s3:ObjectCreated:*"),
			Queue: s.EventsQueue.QueueArn(),
		}
		if r.sourcePrefix != "" {
			qc.Filter = &awss3.CfnBucket_NotificationFilterProperty{
				S3Key: &awss3.CfnBucket_S3KeyFilterProperty{Rules: &[]any{
					&awss3.CfnBucket_FilterRuleProperty{Name: jsii.String("prefix"), Value: jsii.String(r.sourcePrefix)},
				}},
			}
		}
		cfn.SetNotificationConfiguration(&awss3.CfnBucket_NotificationConfigurationProperty{
			QueueConfigurations: &[]any{qc},
		})
	case NotifyEventBridge:
		cfn.SetNotificationConfiguration(&awss3.CfnBucket_NotificationConfigurationProperty{
			EventBridgeConfiguration: &awss3.CfnBucket_EventBridgeConfigurationProperty{EventBridgeEnabled: jsii.Bool(true)},
		})
	}
	// S3 checks that it may send to the queue when the notification is set.
	cfn.AddResourceDependency(s.EventsQueue.Node().FindChild(jsii.String("Policy")).Node().DefaultChild().(awscdk.CfnResource),
		jsii.String("S3 checks at PutBucketNotificationConfiguration that it may send to the queue"))
}

func (s *Stream) table(r *resolved) {
	// Key schema owned by the DynamoDB state adapter: pk/sk, no secondary
	// index (pending files wait in the checkpoint's inbox), TTL on expires_at.
	provisioned := r.StateTableBillingMode == BillingProvisioned
	props := &awsdynamodb.TableProps{
		PartitionKey: &awsdynamodb.Attribute{Name: jsii.String("pk"), Type: awsdynamodb.AttributeType_STRING},
		SortKey:      &awsdynamodb.Attribute{Name: jsii.String("sk"), Type: awsdynamodb.AttributeType_STRING},
		BillingMode:  awsdynamodb.BillingMode_PAY_PER_REQUEST,
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(true),
		},
		TimeToLiveAttribute: jsii.String("expires_at"),
		DeletionProtection:  jsii.Bool(r.deletionProtection),
		RemovalPolicy:       awscdk.RemovalPolicy_RETAIN,
	}
	if provisioned { // the minimum capacity; auto scaling (stateTableScaling) moves it
		props.BillingMode = awsdynamodb.BillingMode_PROVISIONED
		props.ReadCapacity = jsii.Number(float64(r.StateTableMinReadCapacity))
		props.WriteCapacity = jsii.Number(float64(r.StateTableMinWriteCapacity))
	}
	s.StateTable = awsdynamodb.NewTable(s.Construct, jsii.String("StateTable"), props)
	if provisioned {
		s.stateTableScaling(r)
	}
	// SSE stated as the template does: the customer-managed key, else SSEEnabled alone.
	sse := &awsdynamodb.CfnTable_SSESpecificationProperty{SseEnabled: jsii.Bool(true)}
	if r.KmsKeyArn != "" {
		sse.SseType = jsii.String("KMS")
		sse.KmsMasterKeyId = jsii.String(r.KmsKeyArn)
	}
	cfnTable := s.StateTable.Node().DefaultChild().(awsdynamodb.CfnTable)
	cfnTable.SetSseSpecification(sse)
	if provisioned {
		// Stated as the template states it (the L2 table leaves out
		// CloudFormation's default).
		cfnTable.SetBillingMode(jsii.String(BillingProvisioned))
	}
}

// stateTableScaling adds the template's Application Auto Scaling targets
// and target-tracking policies of a PROVISIONED state table: its write and
// read capacity.
func (s *Stream) stateTableScaling(r *resolved) {
	tableName := map[string]*string{"T": s.StateTable.TableName()}
	for _, c := range []struct {
		id, dimension, resource, metric, policy string
		min, max                                int
	}{
		{"StateTableWriteScaling", "dynamodb:table:WriteCapacityUnits", "table/${T}", "DynamoDBWriteCapacityUtilization", "state-write",
			r.StateTableMinWriteCapacity, r.StateTableMaxWriteCapacity},
		{"StateTableReadScaling", "dynamodb:table:ReadCapacityUnits", "table/${T}", "DynamoDBReadCapacityUtilization", "state-read",
			r.StateTableMinReadCapacity, r.StateTableMaxReadCapacity},
	} {
		target := awsapplicationautoscaling.NewCfnScalableTarget(s.Construct, jsii.String(c.id), &awsapplicationautoscaling.CfnScalableTargetProps{
			ServiceNamespace:  jsii.String("dynamodb"),
			ScalableDimension: jsii.String(c.dimension),
			ResourceId:        sub(c.resource, tableName),
			MinCapacity:       jsii.Number(float64(c.min)),
			MaxCapacity:       jsii.Number(float64(c.max)),
		})
		awsapplicationautoscaling.NewCfnScalingPolicy(s.Construct, jsii.String(c.id+"Policy"), &awsapplicationautoscaling.CfnScalingPolicyProps{
			PolicyName:      jsii.String(fmt.Sprintf("tributary-%s-%s", r.StreamId, c.policy)),
			PolicyType:      jsii.String("TargetTrackingScaling"),
			ScalingTargetId: target.Ref(),
			TargetTrackingScalingPolicyConfiguration: &awsapplicationautoscaling.CfnScalingPolicy_TargetTrackingScalingPolicyConfigurationProperty{
				TargetValue: jsii.Number(float64(r.StateTableTargetUtilization)),
				PredefinedMetricSpecification: &awsapplicationautoscaling.CfnScalingPolicy_PredefinedMetricSpecificationProperty{
					PredefinedMetricType: jsii.String(c.metric),
				},
			},
		})
	}
}

// functionNames are the four functions.
var functionNames = []string{"discovery", "backfill", "commit", "maintenance"}

func (s *Stream) logGroups(r *resolved) map[string]awslogs.LogGroup {
	out := map[string]awslogs.LogGroup{}
	for _, fn := range functionNames {
		out[fn] = awslogs.NewLogGroup(s.Construct, jsii.String(title(fn)+"LogGroup"), &awslogs.LogGroupProps{
			LogGroupName:  jsii.String(fmt.Sprintf("/tributary/%s/%s", r.StreamId, fn)),
			RemovalPolicy: awscdk.RemovalPolicy_DESTROY,
		})
		out[fn].Node().DefaultChild().(awslogs.CfnLogGroup).SetRetentionInDays(jsii.Number(float64(r.LogRetentionDays)))
	}
	return out
}

// sub is Fn::Sub, as the template writes ARNs (cfn-lint prefers it to the
// Fn::Join that string formatting of tokens renders).
func sub(body string, vars map[string]*string) *string {
	if vars == nil {
		return awscdk.Fn_Sub(jsii.String(body), nil)
	}
	return awscdk.Fn_Sub(jsii.String(body), &vars)
}

func title(fn string) string {
	return string(fn[0]-'a'+'A') + fn[1:]
}

// stmt is one Allow statement; a resource naming ${AWS::Partition} is
// rendered as Fn::Sub.
func stmt(sid string, actions []string, resources []string, conditions map[string]any) awsiam.PolicyStatement {
	res := make([]*string, len(resources))
	for i, r := range resources {
		res[i] = jsii.String(r)
		if strings.Contains(r, "${AWS::Partition}") {
			res[i] = sub(r, nil)
		}
	}
	p := &awsiam.PolicyStatementProps{
		Sid:       jsii.String(sid),
		Effect:    awsiam.Effect_ALLOW,
		Actions:   jsii.Strings(actions...),
		Resources: &res,
	}
	if conditions != nil {
		p.Conditions = &conditions
	}
	return awsiam.NewPolicyStatement(p)
}

// fileStateActions are the commit function's DynamoDB calls on the table;
// Query and BatchWriteItem drop a stream's entries on a queued refresh or
// reset-checkpoint (dynamostate DropStream). Discovery and backfill
// register files with one conditional PutItem each (dynamostate Register).
// The table's first user Scans one item to choose its key layout
// (dynamostate keys.go).
var fileStateActions = []string{"dynamodb:Scan", "dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:UpdateItem",
	"dynamodb:Query", "dynamodb:BatchWriteItem"}

var consumeActions = []string{"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility", "sqs:GetQueueAttributes"}

// roles builds one role per function with exact actions on exact resources
// and no managed policy, mirroring the template.
func (s *Stream) roles(r *resolved, logs map[string]awslogs.LogGroup) map[string]awsiam.Role {
	srcBucket := "arn:${AWS::Partition}:s3:::" + r.SourceBucketName
	srcObjects := srcBucket + "/" + r.sourcePrefix + "*"
	tableBucket := "arn:${AWS::Partition}:s3:::" + r.tableBucket
	checkpoint := fmt.Sprintf("%s/%s_tributary/checkpoint/", tableBucket, r.TablePrefix)
	if r.StreamsConfig != "" || r.StreamsConfigParameter != "" { // every stream's checkpoint under TablePrefix
		checkpoint = fmt.Sprintf("%s/%s*_tributary/checkpoint/", tableBucket, r.TablePrefix)
	}
	kick := *s.KickQueue.QueueArn()
	table := *s.StateTable.TableArn()
	// A state table that is not the one the checkpoint recorded: the files
	// of the checkpoint's batch plans are registered again (docs/state-store.md).
	plansPrefix := strings.TrimPrefix(checkpoint, tableBucket+"/") + "offsets/"
	readopt := func(reregister []string) []awsiam.PolicyStatement {
		return []awsiam.PolicyStatement{
			stmt("StateStoreIdentity", []string{"dynamodb:GetItem", "dynamodb:Scan"}, []string{table}, nil),
			stmt("ReregisterFiles", reregister, []string{table}, nil),
			stmt("CheckpointPlans", []string{"s3:GetObject"}, []string{checkpoint + "offsets/*"}, nil),
			stmt("ListCheckpointPlans", []string{"s3:ListBucket"}, []string{tableBucket},
				map[string]any{"StringLike": map[string]any{"s3:prefix": plansPrefix}}),
		}
	}
	// Pending files go to the stream's inbox in its checkpoint
	// (infra/inboxstate): one object per invocation, never read there.
	inbox := func() []awsiam.PolicyStatement {
		return []awsiam.PolicyStatement{
			stmt("Inbox", []string{"s3:PutObject"}, []string{checkpoint + "inbox/*"}, nil),
		}
	}
	// Every role starts with its logs, then the KMS key and X-Ray when set.
	common := func(fn string, extra ...awsiam.PolicyStatement) []awsiam.PolicyStatement {
		out := []awsiam.PolicyStatement{
			stmt("Logs", []string{"logs:CreateLogStream", "logs:PutLogEvents"}, []string{*logs[fn].LogGroupArn()}, nil),
		}
		out = append(out, extra...)
		if r.KmsKeyArn != "" { // SSE-KMS queues, table and bucket objects
			out = append(out, stmt("KmsKey", []string{"kms:Decrypt", "kms:GenerateDataKey"}, []string{r.KmsKeyArn}, nil))
		}
		if r.Tracing { // X-Ray does not support resource-level permissions
			out = append(out, stmt("XRay", []string{"xray:PutTraceSegments", "xray:PutTelemetryRecords"}, []string{"*"}, nil))
		}
		if r.StreamsConfigParameter != "" { // the streams document, read at cold start
			name, _, _ := strings.Cut(r.StreamsConfigParameter, ":")
			out = append(out, stmt("StreamsDocument", []string{"ssm:GetParameter"},
				[]string{"arn:${AWS::Partition}:ssm:${AWS::Region}:${AWS::AccountId}:parameter" + name}, nil))
		}
		return out
	}

	var listCond map[string]any
	if r.sourcePrefix != "" {
		listCond = map[string]any{"StringLike": map[string]any{"s3:prefix": r.sourcePrefix + "*"}}
	}
	commit := append(common("commit"),
		stmt("ConsumeKicks", consumeActions, []string{kick}, nil),
		stmt("SendKick", []string{"sqs:SendMessage"}, []string{kick}, nil),
		stmt("ReadEventsBacklog", []string{"sqs:GetQueueAttributes"}, []string{*s.EventsQueue.QueueArn()}, nil),
		stmt("FileState", fileStateActions, []string{table}, nil),
		// A reset lists the source again (the files' events do not come again).
		stmt("ListSource", []string{"s3:ListBucket"}, []string{srcBucket}, listCond),
		stmt("ReadSourceFiles", []string{"s3:GetObject"}, []string{srcObjects}, nil),
		stmt("ListTable", []string{"s3:ListBucket"}, []string{tableBucket},
			map[string]any{"StringLike": map[string]any{"s3:prefix": r.TablePrefix + "*"}}),
		// DeleteObject removes the data files of an abandoned attempt.
		stmt("WriteTable", []string{"s3:GetObject", "s3:PutObject", "s3:DeleteObject"},
			[]string{fmt.Sprintf("%s/%s*", tableBucket, r.TablePrefix)}, nil),
	)
	if r.CleanSource != "OFF" {
		commit = append(commit, stmt("CleanSource", []string{"s3:DeleteObject"}, []string{srcObjects}, nil))
	}
	if r.CleanSource == "MOVE" {
		commit = append(commit, stmt("CleanSourceMoveDestination", []string{"s3:PutObject"},
			[]string{fmt.Sprintf("%s/%s*", srcBucket, r.CleanSourceMoveDestination)}, nil))
	}
	if r.BadRecordsPrefix != "" {
		commit = append(commit, stmt("BadRecordsPath", []string{"s3:PutObject"},
			[]string{fmt.Sprintf("%s/%s*", srcBucket, r.BadRecordsPrefix)}, nil))
	}
	if r.GlueDatabase != "" { // infra/gluecatalog Sync
		glue := "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:"
		commit = append(commit, stmt("GlueCatalog", []string{"glue:GetTable", "glue:CreateTable", "glue:UpdateTable"},
			[]string{glue + "catalog", glue + "database/" + r.GlueDatabase, glue + "table/" + r.GlueDatabase + "/*"}, nil))
	}

	policies := map[string][]awsiam.PolicyStatement{
		"discovery": append(append(append(append(common("discovery"),
			stmt("ConsumeEvents", consumeActions, []string{*s.EventsQueue.QueueArn()}, nil),
			stmt("SendKick", []string{"sqs:SendMessage"}, []string{kick}, nil),
			// Notified files' items are not read (a repeated event's file
			// is dropped by its claim).
			stmt("RegisterFiles", []string{"dynamodb:PutItem"}, []string{table}, nil)),
			inbox()...),
			stmt("HeadSourceObjects", []string{"s3:GetObject"}, []string{srcObjects}, nil)),
			append(readopt([]string{"dynamodb:BatchGetItem", "dynamodb:UpdateItem"}),
				// Stream identity: one conditional put or get per cold start.
				// The stream's identity and first start (includeExistingFiles=false).
				stmt("StreamIdentity", []string{"s3:GetObject", "s3:PutObject"}, []string{checkpoint + "source.json", checkpoint + "metadata"}, nil))...,
		),
		// Lambda sends failed scheduled runs to the on-failure destination with the function's role.
		"backfill": append(append(append(common("backfill", stmt("OnFailureDestination", []string{"sqs:SendMessage"}, []string{*s.BackfillFailureQueue.QueueArn()}, nil)),
			stmt("ListSource", []string{"s3:ListBucket"}, []string{srcBucket}, listCond),
			stmt("SendKick", []string{"sqs:SendMessage"}, []string{kick}, nil),
			// The listing's position (listing.json) too.
			stmt("StreamMetadata", []string{"s3:GetObject", "s3:PutObject"},
				[]string{checkpoint + "metadata", checkpoint + "source.json", checkpoint + "listing.json"}, nil),
			// Listed files are read 100 a call; only unknown ones are written.
			stmt("RegisterFiles", []string{"dynamodb:BatchGetItem", "dynamodb:PutItem"}, []string{table}, nil)),
			inbox()...),
			readopt([]string{"dynamodb:UpdateItem"})...,
		),
		"commit": commit,
		"maintenance": append(common("maintenance"),
			// The log from the last checkpoint, and VACUUM's listing.
			stmt("ListTable", []string{"s3:ListBucket"}, []string{tableBucket},
				map[string]any{"StringLike": map[string]any{"s3:prefix": r.TablePrefix + "*"}}),
			// OPTIMIZE reads small files, writes the compacted one and commits; VACUUM and log cleanup delete.
			stmt("MaintainTable", []string{"s3:GetObject", "s3:PutObject", "s3:DeleteObject"},
				[]string{fmt.Sprintf("%s/%s*", tableBucket, r.TablePrefix)}, nil),
		),
	}
	out := map[string]awsiam.Role{}
	for _, fn := range functionNames {
		statements := policies[fn]
		out[fn] = awsiam.NewRole(s.Construct, jsii.String(title(fn)+"Role"), &awsiam.RoleProps{
			AssumedBy: awsiam.NewServicePrincipal(jsii.String("lambda.amazonaws.com"), nil),
			InlinePolicies: &map[string]awsiam.PolicyDocument{
				fn: awsiam.NewPolicyDocument(&awsiam.PolicyDocumentProps{Statements: &statements}),
			},
		})
	}
	return out
}
