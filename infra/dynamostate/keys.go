package dynamostate

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tributary-io/tributary/core/state"
)

// FileShards is the number of partition keys a stream's file items are
// spread over in a table whose layout this version chose (see the package
// doc, "Key layout"): at 10,000 files/s and one write unit per file each
// shard takes about 313 writes/s, a third of DynamoDB's 1,000 WCU
// per-partition limit. Changing it orphans every file item of existing
// tables, so it is recorded in the table (AttrFileShards) and read back.
const FileShards = 32

// AttrFileShards is the store identity item's record of the table's file
// key layout: the number of shards, 0 (or absent, on an item written before
// sharding) for the legacy single partition "<stream>#f".
const AttrFileShards = "file_shards"

// shardWidth is the zero-padded width of a shard number in a partition key.
const shardWidth = 2

// FileShard returns the shard of path among FileShards: the first 8 bytes
// of the SHA-256 of the path, big-endian, modulo FileShards. It is part of
// the table format (pinned by a golden test).
func FileShard(path string) int { return shardOf(path, FileShards) }

func shardOf(path string, n int) int {
	h := sha256.Sum256([]byte(path))
	return int(binary.BigEndian.Uint64(h[:8]) % uint64(n))
}

// ShardPK returns the partition key of the file items of stream in shard
// ("<stream>#f#07" for shard 7).
func ShardPK(stream string, shard int) string {
	return fmt.Sprintf("%s#f#%0*d", stream, shardWidth, shard)
}

// legacyFilePK is the one partition key of a stream's file items in a table
// with the legacy layout.
func legacyFilePK(stream string) string { return stream + "#f" }

// keyLayout is a table's file key layout: shards == 0 is the legacy single
// partition, otherwise file items live under ShardPK(stream, shardOf(path)).
type keyLayout struct{ shards int }

// filePK is the partition key of the file item of path.
func (l keyLayout) filePK(stream, path string) string {
	if l.shards == 0 {
		return legacyFilePK(stream)
	}
	return ShardPK(stream, shardOf(path, l.shards))
}

// fileKey is the primary key of the file item of path.
func (l keyLayout) fileKey(stream, path string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{AttrPK: attrS(l.filePK(stream, path)), AttrSK: attrS(path)}
}

// filePKs lists every partition key that can hold a file item of stream.
func (l keyLayout) filePKs(stream string) []string {
	if l.shards == 0 {
		return []string{legacyFilePK(stream)}
	}
	pks := make([]string, l.shards)
	for i := range pks {
		pks[i] = ShardPK(stream, i)
	}
	return pks
}

// identity is the decoded store identity item.
type identity struct {
	id     string
	layout keyLayout
}

// readIdentity reads the store identity item (ok false when there is none).
func (st *Store) readIdentity(ctx context.Context) (identity, bool, error) {
	out, err := st.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(st.table),
		Key:            storeIDKey(),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return identity{}, false, fmt.Errorf("dynamostate: reading the store identity of table %s: %w", st.table, err)
	}
	if out.Item == nil {
		return identity{}, false, nil
	}
	id, _ := getS(out.Item, AttrStoreID)
	if id == "" {
		return identity{}, false, fmt.Errorf("dynamostate: table %s: the store identity item has no %s", st.table, AttrStoreID)
	}
	shards, err := getN(out.Item, AttrFileShards)
	if err != nil {
		return identity{}, false, fmt.Errorf("dynamostate: table %s: store identity item: %w", st.table, err)
	}
	l := keyLayout{}
	if shards != nil {
		if *shards < 0 || *shards > 1000 {
			return identity{}, false, fmt.Errorf("dynamostate: table %s: store identity item: bad %s %d", st.table, AttrFileShards, *shards)
		}
		l.shards = int(*shards)
	}
	return identity{id: id, layout: l}, true, nil
}

// identity returns the table's identity item, creating it on first use:
// with this version's layout (FileShards) on a table that holds no item,
// with the legacy layout on a table written before the identity item
// existed (one strongly consistent Scan of one item tells them apart).
// Concurrent creators agree through a conditional put. The layout is
// cached; an identity item whose layout differs from the cached one (the
// table was deleted and created again under a running Store) is an error.
func (st *Store) identity(ctx context.Context) (identity, error) {
	idn, ok, err := st.readIdentity(ctx)
	if err != nil {
		return identity{}, err
	}
	if !ok {
		shards := FileShards
		scan, err := st.client.Scan(ctx, &dynamodb.ScanInput{
			TableName:      aws.String(st.table),
			Limit:          aws.Int32(1),
			ConsistentRead: aws.Bool(true),
		})
		if err != nil {
			return identity{}, fmt.Errorf("dynamostate: probing table %s for items older than its store identity: %w", st.table, err)
		}
		if len(scan.Items) > 0 {
			shards = 0 // written by a version without the identity item: legacy keys
		}
		item := storeIDKey()
		item[AttrStoreID] = attrS(state.NewStoreID())
		item[AttrFileShards] = &types.AttributeValueMemberN{Value: strconv.Itoa(shards)}
		_, err = st.client.PutItem(ctx, &dynamodb.PutItemInput{
			TableName:                aws.String(st.table),
			Item:                     item,
			ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
			ExpressionAttributeNames: map[string]string{"#pk": AttrPK},
		})
		if _, failed := isConditionFailed(err); !failed && err != nil {
			return identity{}, fmt.Errorf("dynamostate: recording the store identity of table %s: %w", st.table, err)
		}
		if idn, ok, err = st.readIdentity(ctx); err != nil {
			return identity{}, err
		}
		if !ok {
			return identity{}, fmt.Errorf("dynamostate: table %s: the store identity item vanished after it was written", st.table)
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.layout != nil && *st.layout != idn.layout {
		return identity{}, fmt.Errorf("dynamostate: table %s: file key layout changed from %d to %d shards under a running store (the table was replaced); start again",
			st.table, st.layout.shards, idn.layout.shards)
	}
	l := idn.layout
	st.layout = &l
	return idn, nil
}

// keys returns the table's file key layout, read once per Store.
func (st *Store) keys(ctx context.Context) (keyLayout, error) {
	st.mu.Lock()
	l := st.layout
	st.mu.Unlock()
	if l != nil {
		return *l, nil
	}
	idn, err := st.identity(ctx)
	if err != nil {
		return keyLayout{}, err
	}
	return idn.layout, nil
}
