package e2e

import (
	"context"
	"errors"
	"maps"
	"math"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	ddbtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"

	"github.com/tributary-io/tributary/infra/dynamostate"
)

// List prices, us-east-1 (standard tiers, no free tier), in dollars per
// billed unit. DynamoDB on-demand as of the November 2024 price cut.
const (
	priceWRU        = 0.625 / 1e6 // DynamoDB on-demand write request unit
	priceRRU        = 0.125 / 1e6 // DynamoDB on-demand read request unit
	priceS3Put      = 0.005 / 1e3 // S3 PUT, COPY, POST, LIST
	priceS3Get      = 0.0004 / 1e3
	priceSQS        = 0.40 / 1e6 // standard queue request (per 64 KB chunk)
	priceSQSFIFO    = 0.50 / 1e6 // FIFO queue request
	priceLambdaCall = 0.20 / 1e6 // Lambda request charge (compute is reported apart)
)

// bill is the billed units of a phase, by kind, as AWS counts them.
type bill struct {
	// WRU: DynamoDB write request units of the base table, failed
	// conditional writes included (they are billed).
	WRU float64 `json:"wru"`
	// GSIWRU: write units of global secondary index updates (an index
	// entry put or deleted by a base-table write).
	GSIWRU float64 `json:"gsiWru"`
	// FailedConditional counts conditional writes that failed (billed,
	// included in WRU).
	FailedConditional int `json:"failedConditionalWrites"`
	// RRU: DynamoDB read request units.
	RRU float64 `json:"rru"`
	// S3Put: S3 requests of the PUT/COPY/POST/LIST tier.
	S3Put int `json:"s3PutTier"`
	// S3Get: S3 requests of the GET/HEAD/other tier, source GETs included.
	S3Get int `json:"s3GetTier"`
	// SourceGets: GetObject calls on source files (in S3Get).
	SourceGets int `json:"sourceGets"`
	// S3ToSQS: notification messages S3 sent to the events queue (one per
	// object; billed to the queue owner as standard requests).
	S3ToSQS int `json:"s3ToSqsSends"`
	// SQS: standard-queue requests of the functions and of the Lambda
	// event-source pollers (receives that returned messages, deletes).
	SQS int `json:"sqsStandard"`
	// SQSFIFO: FIFO-queue requests (kicks sent, received, deleted).
	SQSFIFO int `json:"sqsFifo"`
	// IdleReceives: receives that returned nothing. On AWS the pollers'
	// long polls cost per hour, not per file; they are reported, not
	// priced per file.
	IdleReceives int `json:"idleReceives"`
	// Invocations: Lambda invocations (discovery, commit, backfill).
	Invocations int `json:"invocations"`
	// Other counts calls of any other service (priced at 0 here; a
	// non-zero value means the model needs a price).
	Other map[string]int `json:"other,omitempty"`
	// S3ByKey counts the S3 requests besides source GETs by operation and
	// the kind of key (s3Kind), deletes included: where S3Put and S3Get go.
	S3ByKey map[string]int `json:"s3ByKey,omitempty"`
}

// dollars is the bill's price.
func (b bill) dollars() float64 {
	return (b.WRU+b.GSIWRU)*priceWRU + b.RRU*priceRRU +
		float64(b.S3Put)*priceS3Put + float64(b.S3Get)*priceS3Get +
		float64(b.S3ToSQS+b.SQS)*priceSQS + float64(b.SQSFIFO)*priceSQSFIFO +
		float64(b.Invocations)*priceLambdaCall
}

// costMeter is SDK middleware that prices every call as AWS bills it:
// DynamoDB capacity units (items sized from the request or response,
// GSI writes derived from the index attributes a write sets or removes,
// failed conditional writes billed), S3 request tiers, SQS requests per
// queue type, empty receives apart. Attach it to the functions' clients and
// to the poller's.
type costMeter struct {
	mu  sync.Mutex
	b   bill
	src string // "bucket/prefix" of source objects (their GETs are counted apart)
}

func newCostMeter() *costMeter {
	return &costMeter{b: bill{Other: map[string]int{}, S3ByKey: map[string]int{}}}
}

// AddTo registers the meter on a stack (aws.Config.APIOptions).
func (m *costMeter) AddTo(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("e2e.CostMeter",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			m.record(awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx), in.Parameters, out.Result, err)
			return out, md, err
		}), middleware.After)
}

func (m *costMeter) snapshot() bill {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.b
	b.Other = maps.Clone(m.b.Other)
	b.S3ByKey = maps.Clone(m.b.S3ByKey)
	return b
}

func (m *costMeter) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	src := m.src
	m.b = bill{Other: map[string]int{}, S3ByKey: map[string]int{}}
	m.src = src
}

// invoked counts n Lambda invocations.
func (m *costMeter) invoked(n int) {
	m.mu.Lock()
	m.b.Invocations += n
	m.mu.Unlock()
}

func conditionFailed(err error) bool {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode() == "ConditionalCheckFailedException" || api.ErrorCode() == "TransactionCanceledException"
	}
	return false
}

func (m *costMeter) record(service, op string, params, result any, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := &m.b
	switch service {
	case "DynamoDB":
		m.dynamo(op, params, result, err)
	case "S3":
		if p, ok := params.(*s3.GetObjectInput); !ok || m.src == "" ||
			!strings.HasPrefix(aws.ToString(p.Bucket)+"/"+aws.ToString(p.Key), m.src) {
			b.S3ByKey[op+" "+s3Kind(params)]++
		}
		switch op {
		case "PutObject", "CopyObject", "ListObjectsV2", "ListObjects", "CreateMultipartUpload", "UploadPart", "CompleteMultipartUpload", "PutObjectTagging":
			b.S3Put++
		case "DeleteObject", "DeleteObjects", "AbortMultipartUpload":
			// free
		default:
			b.S3Get++
			if p, ok := params.(*s3.GetObjectInput); ok && m.src != "" &&
				strings.HasPrefix(aws.ToString(p.Bucket)+"/"+aws.ToString(p.Key), m.src) {
				b.SourceGets++
			}
		}
	case "SQS":
		url := ""
		switch p := params.(type) {
		case *sqs.ReceiveMessageInput:
			url = aws.ToString(p.QueueUrl)
			if r, ok := result.(*sqs.ReceiveMessageOutput); ok && err == nil {
				if len(r.Messages) == 0 {
					b.IdleReceives++
					return
				}
				if !strings.HasSuffix(url, ".fifo") {
					for _, msg := range r.Messages {
						if msg.Attributes["ApproximateReceiveCount"] == "1" && strings.Contains(aws.ToString(msg.Body), `"Records"`) {
							b.S3ToSQS++
						}
					}
				}
			}
		case *sqs.SendMessageInput:
			url = aws.ToString(p.QueueUrl)
		case *sqs.SendMessageBatchInput:
			url = aws.ToString(p.QueueUrl)
		case *sqs.DeleteMessageInput:
			url = aws.ToString(p.QueueUrl)
		case *sqs.DeleteMessageBatchInput:
			url = aws.ToString(p.QueueUrl)
		case *sqs.GetQueueAttributesInput:
			url = aws.ToString(p.QueueUrl)
		}
		if strings.HasSuffix(url, ".fifo") {
			b.SQSFIFO++
		} else {
			b.SQS++
		}
	default:
		b.Other[service+"."+op]++
	}
}

// s3Kind names the kind of key an S3 request is about: the checkpoint
// directory or table part it is under (its first path element below the
// checkpoint or table), or "source".
func s3Kind(params any) string {
	var key, prefix string
	switch p := params.(type) {
	case *s3.GetObjectInput:
		key = aws.ToString(p.Key)
	case *s3.HeadObjectInput:
		key = aws.ToString(p.Key)
	case *s3.PutObjectInput:
		key = aws.ToString(p.Key)
	case *s3.DeleteObjectInput:
		key = aws.ToString(p.Key)
	case *s3.ListObjectsV2Input:
		key = aws.ToString(p.Prefix) + aws.ToString(p.StartAfter)
		prefix = "list "
	default:
		return "?"
	}
	for _, root := range []string{"_checkpoints/" + streamID + "/", tablePrefix + "/"} {
		if rest, ok := strings.CutPrefix(key, root); ok {
			dir, _, _ := strings.Cut(rest, "/")
			return prefix + root + dir
		}
	}
	if strings.HasPrefix(key, sourcePrefix) {
		return prefix + "source"
	}
	return prefix + key
}

// itemBytes is DynamoDB's size of an item: attribute names plus values.
func itemBytes(item map[string]ddbtypes.AttributeValue) int {
	n := 0
	for k, v := range item {
		n += len(k) + valueBytes(v)
	}
	return n
}

func valueBytes(v ddbtypes.AttributeValue) int {
	switch v := v.(type) {
	case *ddbtypes.AttributeValueMemberS:
		return len(v.Value)
	case *ddbtypes.AttributeValueMemberN:
		return (len(v.Value)+1)/2 + 1
	case *ddbtypes.AttributeValueMemberB:
		return len(v.Value)
	case *ddbtypes.AttributeValueMemberBOOL, *ddbtypes.AttributeValueMemberNULL:
		return 1
	case *ddbtypes.AttributeValueMemberL:
		n := 3
		for _, e := range v.Value {
			n += 1 + valueBytes(e)
		}
		return n
	case *ddbtypes.AttributeValueMemberM:
		return 3 + itemBytes(v.Value)
	case *ddbtypes.AttributeValueMemberSS:
		n := 0
		for _, s := range v.Value {
			n += len(s)
		}
		return n
	}
	return 1
}

func writeUnits(bytes int) float64 { return math.Max(1, math.Ceil(float64(bytes)/1024)) }

func readUnits(bytes int, consistent bool) float64 {
	u := math.Max(1, math.Ceil(float64(bytes)/4096))
	if !consistent {
		u /= 2
	}
	return u
}

func hasGSI(item map[string]ddbtypes.AttributeValue) bool {
	_, ok := item[dynamostate.AttrGSI1PK]
	return ok
}

// dynamo prices one DynamoDB call (m.mu held).
func (m *costMeter) dynamo(op string, params, result any, err error) {
	b := &m.b
	failed := conditionFailed(err)
	if err != nil && !failed {
		return // throttled or invalid: not billed
	}
	if failed {
		b.FailedConditional++
	}
	switch p := params.(type) {
	case *dynamodb.PutItemInput:
		b.WRU += writeUnits(itemBytes(p.Item))
		if !failed && hasGSI(p.Item) {
			b.GSIWRU++
		}
		if r, ok := result.(*dynamodb.PutItemOutput); ok && r != nil && hasGSI(r.Attributes) && !hasGSI(p.Item) {
			b.GSIWRU++ // the replaced item's index entry is deleted
		}
	case *dynamodb.UpdateItemInput:
		b.WRU++ // items are far below 1 KB
		expr := aws.ToString(p.UpdateExpression)
		if !failed {
			// Setting or removing the index key puts or deletes an index entry.
			touches := strings.Contains(expr, dynamostate.AttrGSI1PK)
			for name, attr := range p.ExpressionAttributeNames {
				if attr == dynamostate.AttrGSI1PK && strings.Contains(expr, name) {
					touches = true
				}
			}
			if touches {
				b.GSIWRU++
			}
		}
	case *dynamodb.DeleteItemInput:
		b.WRU++
	case *dynamodb.TransactWriteItemsInput:
		b.WRU += 2 * float64(len(p.TransactItems))
	case *dynamodb.BatchWriteItemInput:
		for _, reqs := range p.RequestItems {
			for _, r := range reqs {
				if r.PutRequest != nil {
					b.WRU += writeUnits(itemBytes(r.PutRequest.Item))
					if hasGSI(r.PutRequest.Item) {
						b.GSIWRU++
					}
				} else {
					b.WRU++
				}
			}
		}
	case *dynamodb.GetItemInput:
		size := 0
		if r, ok := result.(*dynamodb.GetItemOutput); ok && r != nil {
			size = itemBytes(r.Item)
		}
		b.RRU += readUnits(size, aws.ToBool(p.ConsistentRead))
	case *dynamodb.BatchGetItemInput:
		r, _ := result.(*dynamodb.BatchGetItemOutput)
		for table, ka := range p.RequestItems {
			consistent := aws.ToBool(ka.ConsistentRead)
			n := len(ka.Keys)
			if r != nil {
				n -= len(r.UnprocessedKeys[table].Keys)
				for _, it := range r.Responses[table] {
					b.RRU += readUnits(itemBytes(it), consistent)
					n--
				}
			}
			// Keys not found still cost one unit each.
			b.RRU += float64(max(n, 0)) * readUnits(0, consistent)
		}
	case *dynamodb.QueryInput:
		size := 0
		if r, ok := result.(*dynamodb.QueryOutput); ok && r != nil {
			for _, it := range r.Items {
				size += itemBytes(it)
			}
		}
		b.RRU += readUnits(size, aws.ToBool(p.ConsistentRead))
	case *dynamodb.ScanInput:
		size := 0
		if r, ok := result.(*dynamodb.ScanOutput); ok && r != nil {
			for _, it := range r.Items {
				size += itemBytes(it)
			}
		}
		b.RRU += readUnits(size, aws.ToBool(p.ConsistentRead))
	default:
		b.Other["DynamoDB."+op]++
	}
}
