package inboxstate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/core/state/statetest"
	"github.com/tributary-io/tributary/infra/awsclient"
	"github.com/tributary-io/tributary/infra/awstest"
	"github.com/tributary-io/tributary/infra/dynamostate"
	"github.com/tributary-io/tributary/infra/s3store"
)

func TestMain(m *testing.M) { awstest.Main(m) }

// ops counts AWS operations by service and name (one per API call).
type ops struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *ops) reset() {
	c.mu.Lock()
	c.n = map[string]int{}
	c.mu.Unlock()
}

func (c *ops) get(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[op]
}

func (c *ops) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("inboxstateOps",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			op := awsmiddleware.GetOperationName(ctx)
			c.mu.Lock()
			if c.n == nil {
				c.n = map[string]int{}
			}
			c.n[op]++
			c.mu.Unlock()
			return next.HandleInitialize(ctx, in)
		}), middleware.After)
}

var seq atomic.Int64

// env is one fresh table and checkpoint bucket on the emulator.
type env struct {
	db     *dynamodb.Client
	table  string
	cp     objstore.Store
	counts *ops
}

// newEnv creates a state table (dynamostate.TableSchema) and a bucket
// whose "cp/" prefix is the checkpoint location.
func newEnv(t *testing.T) *env {
	t.Helper()
	cfg := awstest.Config(t, awstest.Endpoint(t))
	e := &env{counts: &ops{}}
	e.db = dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, e.counts.middleware) })
	s3c := awsclient.NewS3(cfg, func(o *s3.Options) { o.APIOptions = append(o.APIOptions, e.counts.middleware) })
	n := seq.Add(1)
	e.table = fmt.Sprintf("inbox-%d-%d", time.Now().UnixNano()%1e9, n)
	ctx := context.Background()
	if _, err := e.db.CreateTable(ctx, dynamostate.TableSchema(e.table)); err != nil {
		// The name is this process's alone and its emulator too (awstest):
		// a table already there is this request's own, retried by the SDK
		// after the emulator, slow under load, dropped the connection.
		var inUse *types.ResourceInUseException
		if !errors.As(err, &inUse) {
			t.Fatal(err)
		}
		if _, derr := e.db.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(e.table)}); derr != nil {
			t.Fatalf("%v; and describing it: %v", err, derr)
		}
		t.Logf("create table %s: %v: taken as this test's own request, retried", e.table, err)
	}
	bucket := fmt.Sprintf("inbox-%d-%d", time.Now().UnixNano()%1e9, n)
	if _, err := s3c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	cp, err := s3store.New(s3c, bucket, "cp/")
	if err != nil {
		t.Fatal(err)
	}
	e.cp = cp
	t.Cleanup(func() {
		_, _ = e.db.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(e.table)})
	})
	e.counts.reset()
	return e
}

func (e *env) store(opts ...dynamostate.Option) *Store {
	return New(dynamostate.New(e.db, e.table, opts...), e.cp)
}

type harness struct{ statetest.Harness }

func (harness) LargeCount() int { return 300 }

func TestConformance(t *testing.T) {
	statetest.RunConformanceTests(t, func(t *testing.T) statetest.Harness {
		e := newEnv(t)
		return harness{statetest.NewHarness(e.store(dynamostate.WithPageSize(64)), nil)}
	})
}

func files(prefix string, n int) []state.File {
	fs := make([]state.File, n)
	for i := range fs {
		fs[i] = state.File{Path: fmt.Sprintf("%s%04d.json", prefix, i), Size: int64(100 + i), ETag: fmt.Sprintf("e%d", i), ModTime: time.Unix(1700000000, int64(i))}
	}
	return fs
}

// TestOneWritePerFile: registering costs no DynamoDB write and one inbox
// object per call; a claimed file costs one write; the batch one more.
func TestOneWritePerFile(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.store()
	if _, err := s.StoreID(ctx); err != nil { // the table's first use writes its identity
		t.Fatal(err)
	}
	e.counts.reset()
	const n, calls = 120, 4
	fs := files("in/", n)
	for c := range calls {
		if _, err := s.Register(ctx, "s", fs[c*n/calls:(c+1)*n/calls], state.RegisterOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if w := e.counts.get("UpdateItem") + e.counts.get("PutItem"); w != 0 {
		t.Fatalf("Register made %d DynamoDB writes, want 0", w)
	}
	if p := e.counts.get("PutObject"); p != calls {
		t.Fatalf("Register wrote %d inbox objects, want %d", p, calls)
	}
	e.counts.reset()
	ps, err := s.Pending(ctx, "s", 1000)
	if err != nil || len(ps) != n {
		t.Fatalf("Pending = %d entries, %v", len(ps), err)
	}
	owned, err := s.ClaimFiles(ctx, "s", 0, entriesFiles(ps))
	if err != nil || slices.Contains(owned, false) {
		t.Fatalf("ClaimFiles = %v, %v", owned, err)
	}
	if err := s.MarkCommitted(ctx, "s", 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	if w := e.counts.get("UpdateItem") + e.counts.get("PutItem"); w != n+1 {
		t.Fatalf("Pending+ClaimFiles+MarkCommitted made %d DynamoDB writes, want %d (one per file, one per batch)", w, n+1)
	}
	if g := e.counts.get("GetObject"); g != calls+1 {
		t.Fatalf("the inbox objects were read %d times, want %d (once each, and the older release's marker)", g, calls+1)
	}
	if l := e.counts.get("ListObjectsV2"); l != 1 {
		t.Fatalf("the inbox was listed %d times, want 1", l)
	}
	if d := e.counts.get("DeleteObject"); d != calls {
		t.Fatalf("MarkCommitted deleted %d inbox objects, want %d", d, calls)
	}
	if keys := listInbox(t, e.cp); len(keys) != 0 {
		t.Fatalf("inbox after the commit: %v", keys)
	}
}

func entriesFiles(es []state.Entry) []state.File {
	out := make([]state.File, len(es))
	for i, e := range es {
		out[i] = e.File
	}
	return out
}

func listInbox(t *testing.T, cp objstore.Store) []string {
	t.Helper()
	var keys []string
	for o, err := range cp.List(context.Background(), objstore.ListOptions{Prefix: Prefix}) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(o.Key, ".json") {
			keys = append(keys, o.Key)
		}
	}
	return keys
}

// TestDuplicateHandOver: a file recorded twice (a redelivered event after
// the inbox write) is pending once; after its batch claims it, a second
// process that still sees the second record drops it and claims nothing
// twice; a plan that lists it anyway owns it only in its first batch.
func TestDuplicateHandOver(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a, b := e.store(), e.store() // two processes: no shared cache
	f := files("dup/", 2)
	for range 2 {
		got, err := a.Register(ctx, "s", f[:1], state.RegisterOptions{})
		if err != nil || !got[0] {
			t.Fatalf("Register = %v, %v", got, err)
		}
	}
	if _, err := a.Register(ctx, "s", f[1:], state.RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	ps, err := b.Pending(ctx, "s", 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(ps); !slices.Equal(got, []string{f[0].Path, f[1].Path}) {
		t.Fatalf("Pending = %v, want each path once", got)
	}
	if owned, err := b.ClaimFiles(ctx, "s", 0, f[:1]); err != nil || !owned[0] {
		t.Fatalf("ClaimFiles(0) = %v, %v", owned, err)
	}
	if err := b.MarkCommitted(ctx, "s", 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	ps, err = a.Pending(ctx, "s", 10)
	if err != nil || !slices.Equal(paths(ps), []string{f[1].Path}) {
		t.Fatalf("Pending after batch 0 = %v, %v; want only %s", paths(ps), err, f[1].Path)
	}
	// A stale plan of batch 1 that lists the file again: dropped, on every replay.
	for range 2 {
		owned, err := a.ClaimFiles(ctx, "s", 1, f)
		if err != nil || !slices.Equal(owned, []bool{false, true}) {
			t.Fatalf("ClaimFiles(1) = %v, %v; want [false true]", owned, err)
		}
	}
	if err := a.MarkCommitted(ctx, "s", 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Pending(ctx, "s", 10); err != nil {
		t.Fatal(err)
	}
	if keys := listInbox(t, e.cp); len(keys) != 0 {
		t.Fatalf("inbox objects left after every file was claimed: %v", keys)
	}
	en, err := b.Get(ctx, "s", f[0].Path)
	if err != nil || en.BatchID != 0 || en.State != state.Committed {
		t.Fatalf("Get = %+v, %v; want committed in batch 0", en, err)
	}
}

func paths(es []state.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Path
	}
	return out
}

// TestLegacyPendingMoved: pending files that an older release registered
// as items without batch are moved to the inbox by the first Pending, keep
// their discovery order, and are claimed once.
func TestLegacyPendingMoved(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	old := dynamostate.New(e.db, e.table)
	fs := files("old/", 5)
	if _, err := old.Register(ctx, "s", fs[:3], state.RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := old.Claim(ctx, "s", 0, []string{fs[0].Path}); err != nil {
		t.Fatal(err)
	}
	if err := old.MarkCommitted(ctx, "s", 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	s := e.store()
	// Registered again by the new release (a redelivered event): not known.
	if got, err := s.Register(ctx, "s", fs[2:], state.RegisterOptions{}); err != nil || !slices.Equal(got, []bool{true, true, true}) {
		t.Fatalf("Register = %v, %v", got, err)
	}
	ps, err := s.Pending(ctx, "s", 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{fs[1].Path, fs[2].Path, fs[3].Path, fs[4].Path}
	if got := paths(ps); !slices.Equal(got, want) {
		t.Fatalf("Pending = %v, want %v (the older release's files first, each once)", got, want)
	}
	owned, err := s.ClaimFiles(ctx, "s", 1, entriesFiles(ps))
	if err != nil || slices.Contains(owned, false) {
		t.Fatalf("ClaimFiles = %v, %v", owned, err)
	}
	for en, err := range old.Entries(ctx, "s", state.Pending) {
		t.Fatalf("a pending item is left after the claim: %+v, %v", en, err)
	}
	// A new process moves nothing again.
	e.counts.reset()
	if ps, err := e.store().Pending(ctx, "s", 10); err != nil || len(ps) != 0 {
		t.Fatalf("Pending after the claim = %v, %v", paths(ps), err)
	}
	if q := e.counts.get("Query"); q != 0 {
		t.Fatalf("a second process queried the items %d times, want 0 (the marker says it was done)", q)
	}
}

// TestLegacyCheckOnce: the check for an older release's pending items
// costs one GET per process after the first.
func TestLegacyCheckOnce(t *testing.T) {
	e := newEnv(t)
	s := e.store()
	if _, err := s.Pending(context.Background(), "s", 10); err != nil {
		t.Fatal(err)
	}
	// The check queries the stream's file partitions (one per key shard).
	if q, p, g := e.counts.get("Query"), e.counts.get("PutObject"), e.counts.get("GetObject"); q < 1 || p != 1 || g != 1 {
		t.Fatalf("first process: %d Queries, %d PUTs, %d GETs; want the check's Queries and 1 PUT and 1 GET of its marker", q, p, g)
	}
	first := e.counts.get("Query")
	for range 2 {
		if _, err := s.Pending(context.Background(), "s", 10); err != nil {
			t.Fatal(err)
		}
	}
	if q := e.counts.get("Query"); q != first {
		t.Fatalf("later Pending calls queried the items %d more times, want 0", q-first)
	}
	e.counts.reset()
	if _, err := e.store().Pending(context.Background(), "s", 10); err != nil {
		t.Fatal(err)
	}
	if q, g := e.counts.get("Query"), e.counts.get("GetObject"); q != 0 || g != 1 {
		t.Fatalf("second process: %d Queries, %d GETs; want 0 and 1", q, g)
	}
}

// TestAllowOverwritesVersions: with allowOverwrites each version is
// claimed once, the newer by a later batch; an older record is never
// pending again once a newer version is claimed.
func TestAllowOverwritesVersions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.store()
	v1 := state.File{Path: "x.json", Size: 1, ETag: "v1"}
	v2 := state.File{Path: "x.json", Size: 2, ETag: "v2"}
	allow := state.RegisterOptions{AllowOverwrites: true}
	if _, err := s.Register(ctx, "s", []state.File{v1}, allow); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Register(ctx, "s", []state.File{v2}, allow); err != nil {
		t.Fatal(err)
	}
	ps, err := e.store().Pending(ctx, "s", 10)
	if err != nil || len(ps) != 1 || ps[0].ETag != "v2" {
		t.Fatalf("Pending = %+v, %v; want only v2 (v1 was overwritten before any batch)", ps, err)
	}
	if owned, err := s.ClaimFiles(ctx, "s", 0, []state.File{v2}); err != nil || !owned[0] {
		t.Fatalf("ClaimFiles = %v, %v", owned, err)
	}
	v3 := state.File{Path: "x.json", Size: 3, ETag: "v3"}
	if got, err := s.Register(ctx, "s", []state.File{v3}, allow); err != nil || !got[0] {
		t.Fatalf("Register(v3) = %v, %v", got, err)
	}
	ps, err = e.store().Pending(ctx, "s", 10)
	if err != nil || len(ps) != 1 || ps[0].ETag != "v3" {
		t.Fatalf("Pending = %+v, %v; want only v3", ps, err)
	}
	// A replay of batch 0 still owns only v2's claim.
	if owned, err := e.store().ClaimFiles(ctx, "s", 0, []state.File{v2}); err != nil || !owned[0] {
		t.Fatalf("replayed ClaimFiles(0) = %v, %v", owned, err)
	}
	// A new process of the stream (allowOverwrites) claims v3 without the
	// record's facts: it still takes over the older version's item.
	fresh := New(dynamostate.New(e.db, e.table), e.cp, WithAllowOverwrites(true))
	if owned, err := fresh.ClaimFiles(ctx, "s", 1, []state.File{v3}); err != nil || !owned[0] {
		t.Fatalf("ClaimFiles(1, v3) = %v, %v", owned, err)
	}
	en, err := s.Get(ctx, "s", "x.json")
	if err != nil || en.BatchID != 1 || en.ETag != "v3" {
		t.Fatalf("Get = %+v, %v", en, err)
	}
	if ps, err := e.store().Pending(ctx, "s", 10); err != nil || len(ps) != 0 {
		t.Fatalf("Pending = %v, %v; want none", paths(ps), err)
	}
}

// TestReplayedClaimKeepsFacts: a claim replayed by a new process (no inbox
// record read) records the sealed plan's modification time and, with
// WithMaxFileAge, the expiry the file's registration would have had, as
// the first claim from its record does.
func TestReplayedClaimKeepsFacts(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	const age = 14 * 24 * time.Hour
	tests := []struct {
		name    string
		file    state.File
		maxAge  time.Duration
		wantExp time.Time
	}{
		{"modTime and maxFileAge", state.File{Path: "a.json", Size: 3, ETag: "ea", ModTime: time.Unix(1700000000, 123456789)}, age, now.Add(age)},
		{"modTime, no maxFileAge", state.File{Path: "b.json", Size: 4, ETag: "eb", ModTime: time.Unix(1700000001, 5)}, 0, time.Time{}},
		{"plan without modTime (older release)", state.File{Path: "c.json", Size: 5, ETag: "ec"}, age, now.Add(age)},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fresh := New(dynamostate.New(e.db, e.table), e.cp, WithMaxFileAge(tc.maxAge), WithClock(func() time.Time { return now }))
			owned, err := fresh.ClaimFiles(ctx, "s", int64(i), []state.File{tc.file})
			if err != nil || !owned[0] {
				t.Fatalf("ClaimFiles = %v, %v", owned, err)
			}
			en, err := fresh.Get(ctx, "s", tc.file.Path)
			if err != nil || en.BatchID != int64(i) || en.Size != tc.file.Size || en.ETag != tc.file.ETag {
				t.Fatalf("Get = %+v, %v", en, err)
			}
			if !en.ModTime.Equal(tc.file.ModTime) {
				t.Errorf("modification time %v, want the plan's %v", en.ModTime, tc.file.ModTime)
			}
			exp, err := fresh.ExpiresAt(ctx, "s", tc.file.Path)
			if err != nil {
				t.Fatal(err)
			}
			if !exp.Equal(tc.wantExp) {
				t.Errorf("expiry %v, want %v (discovered now plus maxFileAge)", exp, tc.wantExp)
			}
		})
	}
}
