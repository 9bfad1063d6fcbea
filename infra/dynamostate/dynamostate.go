// Package dynamostate provides the DynamoDB table of the file state on
// AWS: one table holds the file items and batch items of every stream. The
// deployed functions use it through infra/inboxstate, which keeps pending
// files in the stream's checkpoint and writes a file's item once, when a
// batch claims it (ClaimFile, claim.go). Store is also a complete
// state.Store on its own (pending files as items without batch), for tools
// and tests.
//
// # Table schema
//
// Keys: partition key "pk" (S), sort key "sk" (S). On-demand billing. TTL on
// "expires_at". No secondary index (tables of older releases have a sparse
// GSI "pending" on gsi1pk/gsi1sk, which nothing reads any more).
// TableSchema returns the CreateTableInput and TemplateSnippet the
// CloudFormation/SAM resource.
//
// File item (one per stream and path):
//
//	pk          S  "<stream>#f#<shard>", shard = FileShard(path) as two digits
//	               ("<stream>#f" in a table with the legacy layout; see Key layout)
//	sk          S  path (relative to the source location; at most 1024 bytes)
//	size        N  bytes
//	etag        S  ETag of the discovered version
//	mod_ns      N  modification time, unix nanoseconds (absent when unknown)
//	disc_ns     N  discovery time, unix nanoseconds
//	batch       N  batch id (absent while pending)
//	expires_at  N  expiry, unix epoch seconds (absent: kept forever) — the TTL attribute
//	skip_reason S  why the file's batch skipped it (state.SkipReason; absent
//	               unless MarkSkipped was called; dropped by an allowed overwrite),
//	               or, on an item without batch, why discovery skipped it
//	               (RegisterSkipped; dropped when the path is registered)
//	gsi1pk, gsi1sk  S  older releases' pending index keys (only on their
//	               items without batch; never written now)
//
// Batch item (one per committed batch):
//
//	pk          S  "<stream>#b"
//	sk          S  "%019d" of the batch id
//	commit_ns   N  commit time, unix nanoseconds
//
// Store identity item (one per table, written by the first StoreID call):
//
//	pk          S  "#store"   (never a file or batch partition key)
//	sk          S  "id"
//	store_id    S  a random id
//	file_shards N  the table's file key layout: FileShards, or 0 (or absent,
//	               on an item written before sharding) for the legacy layout
//
// A file's state is derived: no batch -> PENDING (SKIPPED at discovery with
// a skip_reason; such an item has no index attributes); a skip_reason -> SKIPPED
// (with the commit time of its batch item, if any); otherwise a batch
// without a batch item -> CLAIMED; a batch with a batch item -> COMMITTED at
// its commit_ns.
// Stream ids cannot collide: "<a>#f#NN" = "<b>#f#MM" only if a = b and NN =
// MM (the suffix has a fixed length), and a file key never equals a batch
// key or the identity key (the last byte differs: a digit, "b", "e"); the
// same holds for the legacy "<a>#f".
//
// # Key layout
//
// A stream's file items are spread over FileShards (32) partition keys by a
// stable hash of the path (FileShard), so that no partition takes more than
// its 1,000 write units a second: at 10,000 files/s and one write unit per
// file (items under 1 KB) each shard takes about 313 WCU on average, and
// the test TestShardSpread holds the busiest shard within 1.25 × the mean
// for 10,000 consecutive realistic paths (at most 391 WCU, a 2.5× margin).
// One partition key per stream would cap it at 1,000 files/s per write it
// costs (split-for-heat does not help: sequential names all land at the end
// of the sort key range). The batch items (one write per batch) stay in one
// partition "<stream>#b".
//
// The layout is a property of the table, recorded in the store identity item
// (file_shards) when that item is created and read once per Store: a table
// with no item at all gets FileShards; a table that already holds items
// but no identity item (written by a version before the identity item) and a
// table whose identity item has no file_shards (written before sharding)
// keep the legacy layout, one partition "<stream>#f" per stream, and work as
// before — nothing is lost or moved, but such a table is not spread. To
// spread an existing stream, let it drain (no pending files) and point it at
// a new table: the committed files are re-registered from the checkpoint's
// batch plans (docs/state-store.md).
//
// # Calls per file
//
//   - Register: one conditional PutItem per file (attribute_not_exists(pk), or
//     with AllowOverwrites "attribute_not_exists(pk) OR etag <> :etag"); a
//     duplicate fails the condition (it still costs one write unit). With RegisterOptions.MostlyKnown
//     (listing passes: backfill, directory listing) the files are first read
//     with strongly consistent BatchGetItem calls of 100 keys (one read unit
//     per file) and only those that can be new are written, so re-listing
//     known files costs reads, not writes.
//   - Claim: one conditional UpdateItem per file (SET batch). A replayed claim
//     fails the condition and costs no extra call when DynamoDB returns the old
//     item (ReturnValuesOnConditionCheckFailure); emulators that do not return
//     it cost one GetItem.
//   - RegisterSkipped: one conditional PutItem (attribute_not_exists(pk)).
//   - MarkCommitted: one conditional PutItem per batch, whatever its size.
//   - MarkSkipped: one UpdateItem per file, conditional on the item existing
//     in that batch; if_not_exists keeps the first skip_reason. Only a failed
//     condition costs one more GetItem, on emulators that do not return the
//     old item.
//   - Pending: the strongly consistent Queries of Entries filtered to items
//     without batch and skip reason — it reads the stream's whole file state
//     (the deployed path reads the checkpoint's inbox instead).
//   - Get: one GetItem, plus one for the batch item of a claimed file.
//     Entries: one Query page per 1 MB of each file shard (at least
//     FileShards Queries), merged by path, plus one GetItem per distinct batch.
//   - StoreID and the first call of a Store: one GetItem of the identity item
//     (the first user of a table adds one Scan of one item, one PutItem and
//     one more GetItem).
//   - DropStream (a full refresh): one keys-only Query page per 1 MB of each
//     of the stream's partitions (FileShards file shards, "#b" batches) and one
//     BatchWriteItem of 25 deletes per 25 items (one write unit each).
//
// Register and Claim send their per-file calls from a bounded pool of
// goroutines (WithConcurrency). No transactions are used, so there are no
// transaction conflicts; throttling (ProvisionedThroughputExceeded,
// ThrottlingException, RequestLimitExceeded) is retried with backoff by the
// SDK's standard retryer that the client is built with — raise its attempts
// with retry.AddWithMaxAttempts for bursty streams. Unprocessed keys of
// BatchGetItem are retried here with exponential backoff.
package dynamostate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/internal/ctxio"
)

// Attribute and index names of the table (see the package doc).
const (
	AttrPK        = "pk"
	AttrSK        = "sk"
	AttrSize      = "size"
	AttrETag      = "etag"
	AttrModNanos  = "mod_ns"
	AttrDiscNanos = "disc_ns"
	AttrBatch     = "batch"
	AttrExpiresAt = "expires_at"
	AttrGSI1PK    = "gsi1pk"
	AttrGSI1SK    = "gsi1sk"
	AttrCommitNs  = "commit_ns"
	// AttrStoreID holds the random id of the store identity item (StoreID).
	AttrStoreID = "store_id"
	// AttrSkipReason is set on a file item by MarkSkipped.
	AttrSkipReason = "skip_reason"
)

const (
	// maxKeyBytes is DynamoDB's limit on a sort key (table or index).
	maxKeyBytes = 1024
	// maxStreamBytes keeps "<stream>#f" within the 2048-byte partition key limit.
	maxStreamBytes = 2000
	// nanosWidth is the zero-padded width of a non-negative int64.
	nanosWidth = 19
	// batchGetMax is BatchGetItem's per-call key limit.
	batchGetMax = 100
	// defaultConcurrency is the default number of concurrent per-file calls.
	defaultConcurrency = 16
)

// Client is the part of *dynamodb.Client the store uses.
type Client interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, optFns ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
	BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error)
	BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error)
	Scan(ctx context.Context, in *dynamodb.ScanInput, optFns ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error)
}

// Option configures a Store.
type Option func(*Store)

// WithClock makes the store take discovery times from now instead of
// time.Now (they are still forced to increase strictly within one Store).
func WithClock(now func() time.Time) Option {
	return func(s *Store) { s.now = now }
}

// WithConcurrency sets how many per-file calls Register and Claim have in
// flight at once (default 16; values below 1 mean 1).
func WithConcurrency(n int) Option {
	return func(s *Store) { s.concurrency = max(n, 1) }
}

// WithPageSize caps the items per Query page of Pending and Entries (default:
// 1000 index entries for Pending, DynamoDB's 1 MB pages for Entries). Small
// values make tests exercise pagination with few items.
func WithPageSize(n int) Option {
	return func(s *Store) { s.pageSize = max(n, 1) }
}

// Store is a state.Store on one DynamoDB table, safe for concurrent use.
type Store struct {
	client      Client
	table       string
	now         func() time.Time
	concurrency int
	pageSize    int // 0: defaults

	mu     sync.Mutex
	last   time.Time
	layout *keyLayout // the table's file key layout, once read (keys.go)
}

var _ state.Store = (*Store)(nil)

// New returns a Store on the existing table (see CreateTable).
func New(client Client, table string, opts ...Option) *Store {
	s := &Store{client: client, table: table, now: time.Now, concurrency: defaultConcurrency}
	for _, o := range opts {
		o(s)
	}
	return s
}

func batchPK(stream string) string { return stream + "#b" }
func batchSK(batch int64) string   { return fmt.Sprintf("%0*d", nanosWidth, batch) }

func checkStream(stream string) error {
	if stream == "" {
		return errors.New("dynamostate: empty stream id")
	}
	if len(stream) > maxStreamBytes {
		return fmt.Errorf("dynamostate: stream id %.40q... longer than %d bytes", stream, maxStreamBytes)
	}
	return nil
}

func checkPath(stream, path string) error {
	if path == "" {
		return fmt.Errorf("dynamostate: empty path in stream %q", stream)
	}
	if len(path) > maxKeyBytes {
		return fmt.Errorf("dynamostate: path %.60q... in stream %q longer than %d bytes", path, stream, maxKeyBytes)
	}
	if !utf8.ValidString(path) {
		return fmt.Errorf("dynamostate: path %q in stream %q is not valid UTF-8", path, stream)
	}
	return nil
}

// attrS is a string attribute value.
func attrS(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }

// attrN is a number attribute value.
func attrN(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}

// discoveryTime returns the clock's time forced past the last one this Store
// gave out.
func (st *Store) discoveryTime() time.Time {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.now()
	if !t.After(st.last) {
		t = st.last.Add(time.Nanosecond)
	}
	st.last = t
	return t
}

// forEach runs fn(i) for i in [0, count) on up to st.concurrency goroutines
// and returns the errors joined; it stops starting work once ctx is done.
func (st *Store) forEach(ctx context.Context, count int, fn func(i int) error) error {
	errs := make([]error, count)
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(st.concurrency, count) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				errs[i] = fn(i)
			}
		}()
	}
	var ctxErr error
	for i := range count {
		if ctxErr = ctx.Err(); ctxErr != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	return errors.Join(append(errs, ctxErr)...)
}

// updateElseOld makes the conditional UpdateItem in. When its condition
// fails it returns failed and the item as it was: from the failure itself
// (ALL_OLD), or from a strongly consistent read where DynamoDB leaves it
// out; old is nil when there is no such item. Any other error is returned
// unwrapped, for the caller to name its operation.
func (st *Store) updateElseOld(ctx context.Context, in *dynamodb.UpdateItemInput) (old map[string]types.AttributeValue, failed bool, err error) {
	in.ReturnValuesOnConditionCheckFailure = types.ReturnValuesOnConditionCheckFailureAllOld
	_, err = st.client.UpdateItem(ctx, in)
	ccf, failed := isConditionFailed(err)
	switch {
	case !failed:
		return nil, false, err
	case ccf.Item != nil:
		return ccf.Item, true, nil
	}
	got, err := st.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: in.TableName, Key: in.Key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, true, err
	}
	return got.Item, true, nil
}

func isConditionFailed(err error) (*types.ConditionalCheckFailedException, bool) {
	var ccf *types.ConditionalCheckFailedException
	ok := errors.As(err, &ccf)
	return ccf, ok
}

// Register implements state.Store: one conditional PutItem per file. With
// opts.MostlyKnown the files are first read with strongly consistent
// BatchGetItem calls (one read unit per file, 100 files a call) and only
// those that can be new are written: a known file then costs a read unit
// instead of a failed conditional write (five times the price on demand).
// The conditional write still decides; the read only spares writes that
// would fail.
func (st *Store) Register(ctx context.Context, stream string, files []state.File, opts state.RegisterOptions) ([]bool, error) {
	if err := checkStream(stream); err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := checkPath(stream, f.Path); err != nil {
			return nil, err
		}
	}
	out := make([]bool, len(files))
	if len(files) == 0 {
		return out, nil
	}
	keys, err := st.keys(ctx)
	if err != nil {
		return nil, err
	}
	disc := st.discoveryTime().UnixNano()
	if disc < 0 {
		return nil, fmt.Errorf("dynamostate: discovery time %d before 1970", disc)
	}
	// A new path, or one skipped at discovery (no batch, a skip reason).
	cond := "attribute_not_exists(#pk) OR (attribute_not_exists(#b) AND attribute_exists(#r))"
	names := map[string]string{"#pk": AttrPK, "#b": AttrBatch, "#r": AttrSkipReason}
	if opts.AllowOverwrites {
		cond += " OR #etag <> :etag"
		names["#etag"] = AttrETag
	}
	todo := make([]int, 0, len(files))
	if opts.MostlyKnown {
		known, err := st.knownFiles(ctx, keys, stream, files, opts.AllowOverwrites)
		if err != nil {
			return nil, err
		}
		for i, f := range files {
			if !known[f.Path] {
				todo = append(todo, i)
			}
		}
	} else {
		for i := range files {
			todo = append(todo, i)
		}
	}
	err = st.forEach(ctx, len(todo), func(j int) error {
		i := todo[j]
		f := files[i]
		item := map[string]types.AttributeValue{
			AttrPK:        attrS(keys.filePK(stream, f.Path)),
			AttrSK:        attrS(f.Path),
			AttrSize:      attrN(f.Size),
			AttrETag:      attrS(f.ETag),
			AttrDiscNanos: attrN(disc),
		}
		if !f.ModTime.IsZero() {
			item[AttrModNanos] = attrN(f.ModTime.UnixNano())
		}
		if !opts.ExpiresAt.IsZero() {
			item[AttrExpiresAt] = attrN(opts.ExpiresAt.Unix())
		}
		in := &dynamodb.PutItemInput{
			TableName:                aws.String(st.table),
			Item:                     item,
			ConditionExpression:      aws.String(cond),
			ExpressionAttributeNames: names,
		}
		if opts.AllowOverwrites {
			in.ExpressionAttributeValues = map[string]types.AttributeValue{":etag": attrS(f.ETag)}
		}
		_, err := st.client.PutItem(ctx, in)
		if _, ok := isConditionFailed(err); ok {
			return nil
		}
		if err != nil {
			return fmt.Errorf("dynamostate: register %q in stream %q (table %s): %w", f.Path, stream, st.table, err)
		}
		out[i] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// knownFiles reads the items of files and returns the paths a conditional
// Register write would refuse: the item exists, was not skipped at
// discovery, and (with allowOverwrites) has the file's ETag.
func (st *Store) knownFiles(ctx context.Context, keys keyLayout, stream string, files []state.File, allowOverwrites bool) (map[string]bool, error) {
	paths := make([]string, 0, len(files))
	etags := make(map[string]string, len(files))
	for _, f := range files {
		if _, dup := etags[f.Path]; !dup {
			paths = append(paths, f.Path)
		}
		etags[f.Path] = f.ETag
	}
	items, err := st.batchGetFiles(ctx, keys, stream, paths)
	if err != nil {
		return nil, fmt.Errorf("dynamostate: register: %w", err)
	}
	known := make(map[string]bool, len(items))
	for _, item := range items {
		path, _ := getS(item, AttrSK)
		_, hasBatch := item[AttrBatch]
		_, hasReason := item[AttrSkipReason]
		if !hasBatch && hasReason {
			continue // skipped at discovery: Register replaces it
		}
		if etag, _ := getS(item, AttrETag); allowOverwrites && etag != etags[path] {
			continue // overwritten since: Register resets it
		}
		known[path] = true
	}
	return known, nil
}

// RegisterSkipped implements state.Store: one conditional PutItem of an
// item without batch and index attributes, with the skip reason.
func (st *Store) RegisterSkipped(ctx context.Context, stream string, f state.File, reason string) (bool, error) {
	if err := checkStream(stream); err != nil {
		return false, err
	}
	if err := checkPath(stream, f.Path); err != nil {
		return false, err
	}
	keys, err := st.keys(ctx)
	if err != nil {
		return false, err
	}
	disc := st.discoveryTime().UnixNano()
	item := map[string]types.AttributeValue{
		AttrPK:         attrS(keys.filePK(stream, f.Path)),
		AttrSK:         attrS(f.Path),
		AttrSize:       attrN(f.Size),
		AttrETag:       attrS(f.ETag),
		AttrDiscNanos:  attrN(disc),
		AttrSkipReason: attrS(state.SkipReason(reason)),
	}
	if !f.ModTime.IsZero() {
		item[AttrModNanos] = attrN(f.ModTime.UnixNano())
	}
	_, err = st.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                aws.String(st.table),
		Item:                     item,
		ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
		ExpressionAttributeNames: map[string]string{"#pk": AttrPK},
	})
	if _, ok := isConditionFailed(err); ok {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("dynamostate: register skipped %q in stream %q (table %s): %w", f.Path, stream, st.table, err)
	}
	return true, nil
}

// fileItem is a decoded file item.
type fileItem struct {
	path      string
	size      int64
	etag      string
	modNanos  *int64
	discNanos int64
	batch     *int64
	expiresAt *int64
	skip      string // skip_reason, "" if absent
}

func getS(item map[string]types.AttributeValue, name string) (string, bool) {
	v, ok := item[name].(*types.AttributeValueMemberS)
	if !ok {
		return "", false
	}
	return v.Value, true
}

func getN(item map[string]types.AttributeValue, name string) (*int64, error) {
	v, ok := item[name]
	if !ok {
		return nil, nil
	}
	nv, ok := v.(*types.AttributeValueMemberN)
	if !ok {
		return nil, fmt.Errorf("attribute %s is %T, want a number", name, v)
	}
	x, err := strconv.ParseInt(nv.Value, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("attribute %s: %w", name, err)
	}
	return &x, nil
}

// decodeFile decodes a file item.
func decodeFile(item map[string]types.AttributeValue) (fileItem, error) {
	var f fileItem
	var ok bool
	if f.path, ok = getS(item, AttrSK); !ok {
		return f, fmt.Errorf("dynamostate: file item without %s", AttrSK)
	}
	f.etag, _ = getS(item, AttrETag)
	f.skip, _ = getS(item, AttrSkipReason)
	var err error
	wrap := func(e error) error { return fmt.Errorf("dynamostate: decode %q: %w", f.path, e) }
	size, err := getN(item, AttrSize)
	if err != nil {
		return f, wrap(err)
	}
	if size != nil {
		f.size = *size
	}
	disc, err := getN(item, AttrDiscNanos)
	if err != nil {
		return f, wrap(err)
	}
	if disc == nil {
		return f, wrap(fmt.Errorf("missing %s", AttrDiscNanos))
	}
	f.discNanos = *disc
	if f.modNanos, err = getN(item, AttrModNanos); err != nil {
		return f, wrap(err)
	}
	if f.batch, err = getN(item, AttrBatch); err != nil {
		return f, wrap(err)
	}
	if f.expiresAt, err = getN(item, AttrExpiresAt); err != nil {
		return f, wrap(err)
	}
	return f, nil
}

// entry builds the public view; commit is the batch's commit time (nil if
// the batch is not committed or the file is pending).
func (f fileItem) entry(commit *time.Time) state.Entry {
	e := state.Entry{
		File:          state.File{Path: f.path, Size: f.size, ETag: f.etag},
		DiscoveryTime: time.Unix(0, f.discNanos),
		State:         state.Pending,
		BatchID:       -1,
	}
	if f.modNanos != nil {
		e.ModTime = time.Unix(0, *f.modNanos)
	}
	if f.batch == nil && f.skip != "" {
		e.State, e.Error = state.Skipped, f.skip
	}
	if f.batch != nil {
		e.BatchID = *f.batch
		e.State = state.Claimed
		if commit != nil {
			c := *commit
			e.State, e.CommitTime = state.Committed, &c
		}
		if f.skip != "" {
			e.State, e.Error = state.Skipped, f.skip
		}
	}
	return e
}

// Pending implements state.Store: Entries filtered to pending items (no
// batch, no skip reason), in discovery order. It reads every pending item
// of the stream; the deployed functions keep pending files in the
// checkpoint's inbox (infra/inboxstate) and never call it.
func (st *Store) Pending(ctx context.Context, stream string, limit int) ([]state.Entry, error) {
	if err := checkStream(stream); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	var es []state.Entry
	for e, err := range st.Entries(ctx, stream, state.Pending) {
		if err != nil {
			return nil, err
		}
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b state.Entry) int {
		return cmp.Or(a.DiscoveryTime.Compare(b.DiscoveryTime), strings.Compare(a.Path, b.Path))
	})
	return es[:min(limit, len(es))], nil
}

// batchGetFiles reads the file items at paths with strongly consistent
// BatchGetItem calls, retrying unprocessed keys with backoff. Missing items
// are left out; order is not preserved.
func (st *Store) batchGetFiles(ctx context.Context, keys keyLayout, stream string, paths []string) ([]map[string]types.AttributeValue, error) {
	var out []map[string]types.AttributeValue
	for chunk := range slices.Chunk(paths, batchGetMax) {
		ks := make([]map[string]types.AttributeValue, len(chunk))
		for i, p := range chunk {
			ks[i] = keys.fileKey(stream, p)
		}
		req := map[string]types.KeysAndAttributes{st.table: {Keys: ks, ConsistentRead: aws.Bool(true)}}
		for attempt := 0; len(req) > 0; attempt++ {
			if attempt > 0 {
				if err := ctxio.Sleep(ctx, backoff(attempt)); err != nil {
					return nil, err
				}
			}
			if attempt > 10 {
				return nil, fmt.Errorf("dynamostate: batch get of stream %q (table %s): keys still unprocessed after %d attempts", stream, st.table, attempt)
			}
			res, err := st.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return nil, fmt.Errorf("dynamostate: batch get of stream %q (table %s): %w", stream, st.table, err)
			}
			out = append(out, res.Responses[st.table]...)
			req = res.UnprocessedKeys
		}
	}
	return out, nil
}

// backoff is the wait before retry attempt (1-based): 25ms doubling, at most 2s.
func backoff(attempt int) time.Duration {
	return min(25*time.Millisecond<<min(attempt-1, 10), 2*time.Second)
}

// Claim implements state.Store: one conditional UpdateItem per file. Files
// already in another batch stay there and are named in the returned error.
func (st *Store) Claim(ctx context.Context, stream string, batch int64, paths []string) error {
	if err := checkStream(stream); err != nil {
		return err
	}
	if batch < 0 {
		return fmt.Errorf("dynamostate: claim in stream %q: negative batch id %d", stream, batch)
	}
	keys, err := st.keys(ctx)
	if err != nil {
		return err
	}
	return st.forEach(ctx, len(paths), func(i int) error {
		p := paths[i]
		if p == "" || len(p) > maxKeyBytes || !utf8.ValidString(p) {
			return nil // cannot be a registered path
		}
		old, failed, err := st.updateElseOld(ctx, &dynamodb.UpdateItemInput{
			TableName:                 aws.String(st.table),
			Key:                       keys.fileKey(stream, p),
			UpdateExpression:          aws.String("SET #b = :b"),
			ConditionExpression:       aws.String("attribute_exists(#pk) AND attribute_not_exists(#b) AND attribute_not_exists(#r)"),
			ExpressionAttributeNames:  map[string]string{"#b": AttrBatch, "#pk": AttrPK, "#r": AttrSkipReason},
			ExpressionAttributeValues: map[string]types.AttributeValue{":b": attrN(batch)},
		})
		if err != nil {
			return fmt.Errorf("dynamostate: claim %q into batch %d in stream %q (table %s): %w", p, batch, stream, st.table, err)
		}
		if !failed {
			return nil
		}
		if old == nil {
			return nil // unknown path
		}
		b, err := getN(old, AttrBatch)
		if err != nil {
			return fmt.Errorf("dynamostate: claim %q in stream %q: %w", p, stream, err)
		}
		if b == nil {
			if r, ok := getS(old, AttrSkipReason); ok {
				return fmt.Errorf("dynamostate: claim %q into batch %d in stream %q: skipped at discovery (%s)", p, batch, stream, r)
			}
			// Reset to pending (allowed overwrite) between our update and read.
			return fmt.Errorf("dynamostate: claim %q into batch %d in stream %q: changed concurrently, retry", p, batch, stream)
		}
		if *b != batch {
			return fmt.Errorf("dynamostate: claim %q into batch %d in stream %q: already in batch %d", p, batch, stream, *b)
		}
		return nil
	})
}

// MarkCommitted implements state.Store: one conditional PutItem of the batch
// item; a second call keeps the first time.
func (st *Store) MarkCommitted(ctx context.Context, stream string, batch int64, t time.Time) error {
	if err := checkStream(stream); err != nil {
		return err
	}
	if batch < 0 {
		return fmt.Errorf("dynamostate: mark committed in stream %q: negative batch id %d", stream, batch)
	}
	_, err := st.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(st.table),
		Item: map[string]types.AttributeValue{
			AttrPK:       attrS(batchPK(stream)),
			AttrSK:       attrS(batchSK(batch)),
			AttrCommitNs: attrN(t.UnixNano()),
		},
		ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
		ExpressionAttributeNames: map[string]string{"#pk": AttrPK},
	})
	if _, ok := isConditionFailed(err); ok {
		return nil
	}
	if err != nil {
		return fmt.Errorf("dynamostate: mark batch %d committed in stream %q (table %s): %w", batch, stream, st.table, err)
	}
	return nil
}

// MarkSkipped implements state.Store: one UpdateItem, conditional on the
// file item existing in batch, that sets skip_reason unless it is set.
func (st *Store) MarkSkipped(ctx context.Context, stream string, batch int64, path, reason string) error {
	if err := checkStream(stream); err != nil {
		return err
	}
	if path == "" || len(path) > maxKeyBytes || !utf8.ValidString(path) {
		return fmt.Errorf("dynamostate: mark %q skipped in stream %q: %w", path, stream, state.ErrNotFound)
	}
	keys, err := st.keys(ctx)
	if err != nil {
		return err
	}
	old, failed, err := st.updateElseOld(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(st.table),
		Key:                       keys.fileKey(stream, path),
		UpdateExpression:          aws.String("SET #r = if_not_exists(#r, :r)"),
		ConditionExpression:       aws.String("attribute_exists(#pk) AND #b = :b"),
		ExpressionAttributeNames:  map[string]string{"#r": AttrSkipReason, "#pk": AttrPK, "#b": AttrBatch},
		ExpressionAttributeValues: map[string]types.AttributeValue{":r": attrS(state.SkipReason(reason)), ":b": attrN(batch)},
	})
	if err != nil {
		return fmt.Errorf("dynamostate: mark %q skipped by batch %d in stream %q (table %s): %w", path, batch, stream, st.table, err)
	}
	if !failed {
		return nil
	}
	if old == nil {
		return fmt.Errorf("dynamostate: mark %q skipped in stream %q: %w", path, stream, state.ErrNotFound)
	}
	b, err := getN(old, AttrBatch)
	switch {
	case err != nil:
		return fmt.Errorf("dynamostate: mark %q skipped in stream %q: %w", path, stream, err)
	case b == nil:
		if _, ok := getS(old, AttrSkipReason); ok {
			return fmt.Errorf("dynamostate: mark %q skipped by batch %d in stream %q: the file was skipped at discovery and is in no batch", path, batch, stream)
		}
		return fmt.Errorf("dynamostate: mark %q skipped by batch %d in stream %q: the file is pending", path, batch, stream)
	case *b != batch:
		return fmt.Errorf("dynamostate: mark %q skipped by batch %d in stream %q: the file is in batch %d", path, batch, stream, *b)
	}
	// Reset and claimed again into batch between our update and read.
	return fmt.Errorf("dynamostate: mark %q skipped by batch %d in stream %q: changed concurrently, retry", path, batch, stream)
}

// commitTime reads a batch's commit time (nil if not committed).
func (st *Store) commitTime(ctx context.Context, stream string, batch int64) (*time.Time, error) {
	out, err := st.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(st.table),
		Key:            map[string]types.AttributeValue{AttrPK: attrS(batchPK(stream)), AttrSK: attrS(batchSK(batch))},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("dynamostate: read batch %d of stream %q (table %s): %w", batch, stream, st.table, err)
	}
	if out.Item == nil {
		return nil, nil
	}
	c, err := getN(out.Item, AttrCommitNs)
	if err != nil || c == nil {
		return nil, fmt.Errorf("dynamostate: batch %d of stream %q: bad %s: %v", batch, stream, AttrCommitNs, err)
	}
	t := time.Unix(0, *c)
	return &t, nil
}

// getFile reads one file item or returns ErrNotFound.
func (st *Store) getFile(ctx context.Context, stream, path string) (fileItem, error) {
	if err := checkStream(stream); err != nil {
		return fileItem{}, err
	}
	if path == "" || len(path) > maxKeyBytes || !utf8.ValidString(path) {
		return fileItem{}, fmt.Errorf("dynamostate: %q in stream %q: %w", path, stream, state.ErrNotFound)
	}
	keys, err := st.keys(ctx)
	if err != nil {
		return fileItem{}, err
	}
	out, err := st.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName: aws.String(st.table), Key: keys.fileKey(stream, path), ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return fileItem{}, fmt.Errorf("dynamostate: get %q in stream %q (table %s): %w", path, stream, st.table, err)
	}
	if out.Item == nil {
		return fileItem{}, fmt.Errorf("dynamostate: %q in stream %q: %w", path, stream, state.ErrNotFound)
	}
	return decodeFile(out.Item)
}

// Get implements state.Store.
func (st *Store) Get(ctx context.Context, stream, path string) (state.Entry, error) {
	f, err := st.getFile(ctx, stream, path)
	if err != nil {
		return state.Entry{}, err
	}
	var commit *time.Time
	if f.batch != nil {
		if commit, err = st.commitTime(ctx, stream, *f.batch); err != nil {
			return state.Entry{}, err
		}
	}
	return f.entry(commit), nil
}

// ExpiresAt returns the expiry stored for the file at path (zero if none), at
// second precision; it implements statetest.ExpiryReader.
func (st *Store) ExpiresAt(ctx context.Context, stream, path string) (time.Time, error) {
	f, err := st.getFile(ctx, stream, path)
	if err != nil || f.expiresAt == nil {
		return time.Time{}, err
	}
	return time.Unix(*f.expiresAt, 0), nil
}

// filterNothing is what entriesFilter returns when no state can match.
const filterNothing = "-"

// entriesFilter returns the Query filter (on "#b", the batch, and "#r", the
// skip reason) that keeps the file items which can be in one of states: ""
// when every item can, filterNothing when none can. CLAIMED and COMMITTED
// differ only by the batch item, so the caller still checks each entry.
func entriesFilter(states []state.IngestionState) string {
	if len(states) == 0 {
		return ""
	}
	var terms []string
	if slices.Contains(states, state.Pending) {
		terms = append(terms, "(attribute_not_exists(#b) AND attribute_not_exists(#r))")
	}
	if slices.Contains(states, state.Claimed) || slices.Contains(states, state.Committed) {
		terms = append(terms, "(attribute_exists(#b) AND attribute_not_exists(#r))")
	}
	if slices.Contains(states, state.Skipped) {
		terms = append(terms, "attribute_exists(#r)") // by a batch, or at discovery
	}
	switch len(terms) {
	case 0:
		return filterNothing
	case 3:
		return ""
	}
	return strings.Join(terms, " OR ")
}

// storeIDKey is the key of the store identity item.
func storeIDKey() map[string]types.AttributeValue {
	return map[string]types.AttributeValue{AttrPK: attrS("#store"), AttrSK: attrS("id")}
}
