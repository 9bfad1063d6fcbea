package dynamostate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

// TemplateSnippet is the table as a CloudFormation/SAM resource; copy it into
// template.yaml (TableSchema is the same table for the SDK).
const TemplateSnippet = `StateTable:
  Type: AWS::DynamoDB::Table
  Properties:
    BillingMode: PAY_PER_REQUEST
    AttributeDefinitions:
      - { AttributeName: pk, AttributeType: S }
      - { AttributeName: sk, AttributeType: S }
    KeySchema:
      - { AttributeName: pk, KeyType: HASH }
      - { AttributeName: sk, KeyType: RANGE }
    TimeToLiveSpecification:
      AttributeName: expires_at
      Enabled: true
`

// TableSchema returns the CreateTableInput of a state table called name:
// keys pk/sk, no secondary index, on-demand billing. TTL (on expires_at) is a separate call; see CreateTable.
//
// Only key attributes are declared; the others (size, etag, batch,
// skip_reason, ... — see the package doc) need no schema, so a table created
// before an attribute was introduced (skip_reason came with
// state.Store.MarkSkipped) serves it without migration.
func TableSchema(name string) *dynamodb.CreateTableInput {
	str := types.ScalarAttributeTypeS
	return &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String(AttrPK), AttributeType: str},
			{AttributeName: aws.String(AttrSK), AttributeType: str},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(AttrPK), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(AttrSK), KeyType: types.KeyTypeRange},
		},
	}
}

// CreateTable creates the state table called name (TableSchema), waits until
// it is active and enables TTL on expires_at. Emulators that do not implement
// TTL are tolerated (logged). An existing table is an error
// (ResourceInUseException).
func CreateTable(ctx context.Context, client *dynamodb.Client, name string) error {
	if _, err := client.CreateTable(ctx, TableSchema(name)); err != nil {
		return fmt.Errorf("dynamostate: create table %s: %w", name, err)
	}
	w := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 100 * time.Millisecond
		o.MaxDelay = 2 * time.Second
	})
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 5*time.Minute); err != nil {
		return fmt.Errorf("dynamostate: wait for table %s: %w", name, err)
	}
	_, err := client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(AttrExpiresAt),
			Enabled:       aws.Bool(true),
		},
	})
	var api smithy.APIError
	if err != nil && errors.As(err, &api) {
		switch api.ErrorCode() {
		case "UnknownOperationException", "NotImplementedException", "NotImplemented", "InvalidAction":
			slog.WarnContext(ctx, "dynamostate: TTL not supported by this endpoint; expired entries are kept",
				"table", name, "error", err)
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("dynamostate: enable TTL on %s.%s: %w", name, AttrExpiresAt, err)
	}
	return nil
}
