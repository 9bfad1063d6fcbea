package dynamostate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/internal/ctxio"
)

// This file holds the item operations of the inbox state adapter
// (infra/inboxstate), which keeps pending files in the stream's checkpoint
// location and writes a file's item once, when a batch claims it.

// FileFacts is what a file item says about the file's place in the
// protocol.
type FileFacts struct {
	// Path is the file's path (the item's sort key).
	Path string
	// Batch is the batch holding the file, -1 when the item has none (a
	// file skipped at discovery, or a pending item of a table written
	// before the inbox).
	Batch int64
	// ETag is the recorded version of the file.
	ETag string
	// DiscNanos is the recorded discovery time, unix nanoseconds.
	DiscNanos int64
	// SkippedAtDiscovery is set on an item without batch that records why
	// discovery skipped the file (RegisterSkipped).
	SkippedAtDiscovery bool
}

// CheckFile returns an error naming the stream or path when they cannot be
// stored in the table (empty, too long, not UTF-8).
func CheckFile(stream, path string) error {
	if err := checkStream(stream); err != nil {
		return err
	}
	return checkPath(stream, path)
}

// validPath reports whether path can be the sort key of a file item.
func validPath(path string) bool {
	return path != "" && len(path) <= maxKeyBytes && utf8.ValidString(path)
}

// ReadFiles reads the file items at paths with BatchGetItem calls of 100
// keys (strongly consistent when consistent is set: one read unit per
// item, half that otherwise) and returns the facts of those that exist.
// Paths that cannot be stored are treated as missing.
func (st *Store) ReadFiles(ctx context.Context, stream string, paths []string, consistent bool) (map[string]FileFacts, error) {
	if err := checkStream(stream); err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(paths))
	keys := make([]string, 0, len(paths))
	for _, p := range paths {
		if validPath(p) && !seen[p] {
			seen[p] = true
			keys = append(keys, p)
		}
	}
	out := make(map[string]FileFacts, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	layout, err := st.keys(ctx)
	if err != nil {
		return nil, err
	}
	for chunk := range slices.Chunk(keys, batchGetMax) {
		ks := make([]map[string]types.AttributeValue, len(chunk))
		for i, p := range chunk {
			ks[i] = layout.fileKey(stream, p)
		}
		req := map[string]types.KeysAndAttributes{st.table: {
			Keys:                     ks,
			ConsistentRead:           aws.Bool(consistent),
			ProjectionExpression:     aws.String("#sk, #b, #e, #d, #r"),
			ExpressionAttributeNames: map[string]string{"#sk": AttrSK, "#b": AttrBatch, "#e": AttrETag, "#d": AttrDiscNanos, "#r": AttrSkipReason},
		}}
		for attempt := 0; len(req) > 0; attempt++ {
			if attempt > 0 {
				if err := ctxio.Sleep(ctx, backoff(attempt)); err != nil {
					return nil, err
				}
			}
			if attempt > 10 {
				return nil, fmt.Errorf("dynamostate: read files of stream %q (table %s): keys still unprocessed after %d attempts", stream, st.table, attempt)
			}
			res, err := st.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return nil, fmt.Errorf("dynamostate: read files of stream %q (table %s): %w", stream, st.table, err)
			}
			for _, it := range res.Responses[st.table] {
				f, err := factsOf(it)
				if err != nil {
					return nil, fmt.Errorf("dynamostate: read files of stream %q: %w", stream, err)
				}
				out[f.Path] = f
			}
			req = res.UnprocessedKeys
		}
	}
	return out, nil
}

// factsOf decodes the facts of a (possibly projected) file item.
func factsOf(item map[string]types.AttributeValue) (FileFacts, error) {
	f := FileFacts{Batch: -1}
	var ok bool
	if f.Path, ok = getS(item, AttrSK); !ok {
		return f, fmt.Errorf("file item without %s", AttrSK)
	}
	f.ETag, _ = getS(item, AttrETag)
	b, err := getN(item, AttrBatch)
	if err != nil {
		return f, fmt.Errorf("%q: %w", f.Path, err)
	}
	d, err := getN(item, AttrDiscNanos)
	if err != nil {
		return f, fmt.Errorf("%q: %w", f.Path, err)
	}
	if d != nil {
		f.DiscNanos = *d
	}
	_, skip := item[AttrSkipReason]
	if b != nil {
		f.Batch = *b
	} else {
		f.SkippedAtDiscovery = skip
	}
	return f, nil
}

// ClaimInput is one file a batch claims: the facts its item records.
type ClaimInput struct {
	// File is the claimed version of the file.
	File state.File
	// DiscNanos is its discovery time, unix nanoseconds.
	DiscNanos int64
	// ExpiresAt is the item's expiry in unix epoch seconds (0: none).
	ExpiresAt int64
	// AllowOverwrites (cloudFiles.allowOverwrites): an item of another
	// batch with another ETag, discovered before this version, is taken
	// over (the file was overwritten and is ingested again).
	AllowOverwrites bool
}

// ClaimFile writes the item of one file claimed by batch, in one
// conditional UpdateItem that creates it: the write succeeds when the
// file has no item, or an item without batch (skipped at discovery, or a
// pending item of a table written before the inbox), or (with
// AllowOverwrites) an item of an older, different version. Otherwise
// nothing is written and owned reports whether the item is in batch
// already (a replayed claim) — holder is the batch that holds it. The
// answer never changes for a given item once its batch is set, so replays
// of a plan agree.
func (st *Store) ClaimFile(ctx context.Context, stream string, batch int64, in ClaimInput) (owned bool, holder int64, err error) {
	if err := CheckFile(stream, in.File.Path); err != nil {
		return false, -1, err
	}
	if batch < 0 {
		return false, -1, fmt.Errorf("dynamostate: claim in stream %q: negative batch id %d", stream, batch)
	}
	layout, err := st.keys(ctx)
	if err != nil {
		return false, -1, err
	}
	f := in.File
	names := map[string]string{
		"#pk": AttrPK, "#b": AttrBatch, "#size": AttrSize, "#e": AttrETag, "#d": AttrDiscNanos,
		"#m": AttrModNanos, "#x": AttrExpiresAt, "#r": AttrSkipReason,
	}
	values := map[string]types.AttributeValue{
		":b": attrN(batch), ":size": attrN(f.Size), ":e": attrS(f.ETag), ":d": attrN(in.DiscNanos),
	}
	set := []string{"#b = :b", "#size = :size", "#e = :e", "#d = :d"}
	// An older release's index attributes stay on its items: nothing
	// reads them, and removing them would cost an index write on a table
	// that still has the index.
	remove := []string{"#r"}
	if f.ModTime.IsZero() {
		remove = append(remove, "#m")
	} else {
		set = append(set, "#m = :m")
		values[":m"] = attrN(f.ModTime.UnixNano())
	}
	if in.ExpiresAt == 0 {
		remove = append(remove, "#x")
	} else {
		set = append(set, "#x = :x")
		values[":x"] = attrN(in.ExpiresAt)
	}
	cond := "attribute_not_exists(#pk) OR attribute_not_exists(#b)"
	if in.AllowOverwrites {
		cond += " OR (#e <> :e AND #d < :d)"
	}
	old, failed, err := st.updateElseOld(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(st.table),
		Key:                       layout.fileKey(stream, f.Path),
		UpdateExpression:          aws.String("SET " + strings.Join(set, ", ") + " REMOVE " + strings.Join(remove, ", ")),
		ConditionExpression:       aws.String(cond),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	})
	if err != nil {
		return false, -1, fmt.Errorf("dynamostate: claim %q into batch %d in stream %q (table %s): %w", f.Path, batch, stream, st.table, err)
	}
	if !failed {
		return true, batch, nil
	}
	if old == nil {
		// Deleted between the write and the read (DropStream, TTL).
		return false, -1, fmt.Errorf("dynamostate: claim %q into batch %d in stream %q: changed concurrently, retry", f.Path, batch, stream)
	}
	facts, err := factsOf(old)
	if err != nil {
		return false, -1, fmt.Errorf("dynamostate: claim %q in stream %q: %w", f.Path, stream, err)
	}
	if facts.Batch < 0 {
		return false, -1, fmt.Errorf("dynamostate: claim %q into batch %d in stream %q: changed concurrently, retry", f.Path, batch, stream)
	}
	return facts.Batch == batch, facts.Batch, nil
}

// ForEach runs fn(i) for i in [0, count) on the store's bounded pool of
// goroutines (WithConcurrency) and returns the errors joined.
func (st *Store) ForEach(ctx context.Context, count int, fn func(i int) error) error {
	return st.forEach(ctx, count, fn)
}
