package dynamostate

import (
	"context"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tributary-io/tributary/infra/internal/ctxio"
)

// batchWriteMax is BatchWriteItem's per-call request limit.
const batchWriteMax = 25

// DropStream implements state.Store: the stream's file items (every shard
// of the table's key layout), then its batch items, are listed with
// keys-only, strongly consistent Queries on their partition keys and deleted with BatchWriteItem (25 keys a call,
// unprocessed items retried with backoff), page by page. Deleting an item
// that is already gone is a no-op, so an interrupted call is completed by
// calling it again. Files go first, so the commit times outlive the
// entries that refer to them.
func (st *Store) DropStream(ctx context.Context, stream string) (int, error) {
	if err := checkStream(stream); err != nil {
		return 0, err
	}
	keys, err := st.keys(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, pk := range keys.filePKs(stream) {
		m, err := st.dropPartition(ctx, stream, pk)
		n += m
		if err != nil {
			return n, err
		}
	}
	if _, err := st.dropPartition(ctx, stream, batchPK(stream)); err != nil {
		return n, err
	}
	return n, nil
}

// dropPartition deletes every item of partition pk and reports how many
// it deleted.
func (st *Store) dropPartition(ctx context.Context, stream, pk string) (int, error) {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(st.table),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		ProjectionExpression:      aws.String("#pk, #sk"),
		ExpressionAttributeNames:  map[string]string{"#pk": AttrPK, "#sk": AttrSK},
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": attrS(pk)},
		ConsistentRead:            aws.Bool(true),
	}
	if st.pageSize > 0 {
		in.Limit = aws.Int32(int32(st.pageSize))
	}
	n := 0
	pages := dynamodb.NewQueryPaginator(st.client, in)
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return n, fmt.Errorf("dynamostate: drop stream %q (table %s): list %s: %w", stream, st.table, pk, err)
		}
		for chunk := range slices.Chunk(page.Items, batchWriteMax) {
			if err := st.batchDelete(ctx, stream, chunk); err != nil {
				return n, err
			}
			n += len(chunk)
		}
	}
	return n, nil
}

// batchDelete deletes the items with the given keys in one BatchWriteItem
// call, retrying unprocessed items with backoff.
func (st *Store) batchDelete(ctx context.Context, stream string, keys []map[string]types.AttributeValue) error {
	reqs := make([]types.WriteRequest, len(keys))
	for i, k := range keys {
		reqs[i] = types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: map[string]types.AttributeValue{
			AttrPK: k[AttrPK], AttrSK: k[AttrSK],
		}}}
	}
	req := map[string][]types.WriteRequest{st.table: reqs}
	for attempt := 0; len(req) > 0; attempt++ {
		if attempt > 0 {
			if err := ctxio.Sleep(ctx, backoff(attempt)); err != nil {
				return err
			}
		}
		if attempt > 10 {
			return fmt.Errorf("dynamostate: drop stream %q (table %s): deletes still unprocessed after %d attempts", stream, st.table, attempt)
		}
		res, err := st.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: req})
		if err != nil {
			return fmt.Errorf("dynamostate: drop stream %q (table %s): %w", stream, st.table, err)
		}
		req = res.UnprocessedItems
	}
	return nil
}
