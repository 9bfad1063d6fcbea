package dynamostate

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tributary-io/tributary/core/state"
)

// partitionCursor walks the items of one partition key, page by page.
type partitionCursor struct {
	pages *dynamodb.QueryPaginator
	items []map[string]types.AttributeValue
	path  string // sort key of items[0]
}

// fill makes items[0] the next item, fetching pages as needed; it reports
// false when the partition is exhausted.
func (c *partitionCursor) fill(ctx context.Context) (bool, error) {
	for len(c.items) == 0 {
		if !c.pages.HasMorePages() {
			return false, nil
		}
		page, err := c.pages.NextPage(ctx)
		if err != nil {
			return false, err
		}
		c.items = page.Items
	}
	p, ok := getS(c.items[0], AttrSK)
	if !ok {
		return false, fmt.Errorf("dynamostate: file item without %s", AttrSK)
	}
	c.path = p
	return true, nil
}

// Entries implements state.Store: one strongly consistent Query per file
// partition of the stream (FileShards of them; one in a legacy table),
// merged by path — DynamoDB orders a partition's items by the sort key's
// UTF-8 bytes, as Go compares strings — and joined to the batch items,
// which are cached for the iteration. The first page of every partition is
// fetched concurrently (WithConcurrency), the next ones as the merge needs
// them.
func (st *Store) Entries(ctx context.Context, stream string, states ...state.IngestionState) iter.Seq2[state.Entry, error] {
	return func(yield func(state.Entry, error) bool) {
		if err := checkStream(stream); err != nil {
			yield(state.Entry{}, err)
			return
		}
		filter := entriesFilter(states)
		if filter == filterNothing {
			return
		}
		keys, err := st.keys(ctx)
		if err != nil {
			yield(state.Entry{}, err)
			return
		}
		fail := func(err error) {
			yield(state.Entry{}, fmt.Errorf("dynamostate: list stream %q (table %s): %w", stream, st.table, err))
		}
		pks := keys.filePKs(stream)
		cursors := make([]*partitionCursor, len(pks))
		live := make([]bool, len(pks))
		for i, pk := range pks {
			in := &dynamodb.QueryInput{
				TableName:                 aws.String(st.table),
				KeyConditionExpression:    aws.String("#pk = :pk"),
				ExpressionAttributeNames:  map[string]string{"#pk": AttrPK},
				ExpressionAttributeValues: map[string]types.AttributeValue{":pk": attrS(pk)},
				ConsistentRead:            aws.Bool(true),
			}
			if st.pageSize > 0 {
				in.Limit = aws.Int32(int32(st.pageSize))
			}
			if filter != "" {
				in.FilterExpression = aws.String(filter)
				// DynamoDB rejects names the expressions do not use.
				if strings.Contains(filter, "#b") {
					in.ExpressionAttributeNames["#b"] = AttrBatch
				}
				if strings.Contains(filter, "#r") {
					in.ExpressionAttributeNames["#r"] = AttrSkipReason
				}
			}
			cursors[i] = &partitionCursor{pages: dynamodb.NewQueryPaginator(st.client, in)}
		}
		err = st.forEach(ctx, len(cursors), func(i int) error {
			ok, err := cursors[i].fill(ctx)
			live[i] = ok
			return err
		})
		if err != nil {
			fail(err)
			return
		}
		commits := map[int64]*time.Time{}
		for {
			next := -1
			for i, c := range cursors {
				if live[i] && (next < 0 || c.path < cursors[next].path) {
					next = i
				}
			}
			if next < 0 {
				return
			}
			c := cursors[next]
			it := c.items[0]
			c.items = c.items[1:]
			if live[next], err = c.fill(ctx); err != nil {
				fail(err)
				return
			}
			f, err := decodeFile(it)
			if err != nil {
				yield(state.Entry{}, err)
				return
			}
			var commit *time.Time
			if f.batch != nil {
				cached, ok := commits[*f.batch]
				if !ok {
					if cached, err = st.commitTime(ctx, stream, *f.batch); err != nil {
						yield(state.Entry{}, err)
						return
					}
					commits[*f.batch] = cached
				}
				commit = cached
			}
			e := f.entry(commit)
			if len(states) > 0 && !slices.Contains(states, e.State) {
				continue
			}
			if !yield(e, nil) {
				return
			}
		}
	}
}

// StoreID implements state.Store: "dynamodb:<table>/<random id>", the id
// kept in the table's store identity item (created on first use with the
// table's file key layout, see keys.go; then one strongly consistent
// GetItem per call). A table created anew has another random id; a
// point-in-time restore copies the item but is a new table with another
// name.
func (st *Store) StoreID(ctx context.Context) (string, error) {
	idn, err := st.identity(ctx)
	if err != nil {
		return "", err
	}
	return "dynamodb:" + st.table + "/" + idn.id, nil
}
