package dynamostate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"

	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/core/state/statetest"
	"github.com/tributary-io/tributary/infra/awstest"
)

func TestMain(m *testing.M) { awstest.Main(m) }

// opCounter counts DynamoDB operations by name (one per API call, retries
// not included).
type opCounter struct {
	mu  sync.Mutex
	ops map[string]int
}

func (c *opCounter) reset() {
	c.mu.Lock()
	c.ops = map[string]int{}
	c.mu.Unlock()
}

func (c *opCounter) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.ops {
		out[k] = v
	}
	return out
}

func (c *opCounter) middleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("tributaryOpCounter",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			op := awsmiddleware.GetOperationName(ctx)
			c.mu.Lock()
			if c.ops == nil {
				c.ops = map[string]int{}
			}
			c.ops[op]++
			c.mu.Unlock()
			return next.HandleInitialize(ctx, in)
		}), middleware.After)
}

var tableSeq atomic.Int64

// newTable creates a fresh table and returns a client counting its calls.
func newTable(t testing.TB) (*dynamodb.Client, string, *opCounter) {
	t.Helper()
	cfg := awstest.Config(t, awstest.Endpoint(t))
	counter := &opCounter{}
	client := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, counter.middleware)
	})
	name := fmt.Sprintf("tributary-state-%d-%d", time.Now().UnixNano(), tableSeq.Add(1))
	ctx := context.Background()
	if err := CreateTable(ctx, client, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
			t.Errorf("delete table %s: %v", name, err)
		}
	})
	counter.reset()
	return client, name, counter
}

// harness runs the suite on a fresh table with small pages, so that the
// emulator (milliseconds per returned item) gets through the large test
// quickly while Pending, Entries and BatchGetItem still cross many pages.
type harness struct{ statetest.Harness }

func (harness) LargeCount() int { return 300 }

func TestConformance(t *testing.T) {
	statetest.RunConformanceTests(t, func(t *testing.T) statetest.Harness {
		client, name, _ := newTable(t)
		return harness{statetest.NewHarness(New(client, name, WithPageSize(64)), nil)}
	})
}

func TestCreateTableTwiceFails(t *testing.T) {
	client, name, _ := newTable(t)
	err := CreateTable(context.Background(), client, name)
	if err == nil || !strings.Contains(err.Error(), name) {
		t.Fatalf("second CreateTable = %v, want an error naming %s", err, name)
	}
}

func TestTTLEnabled(t *testing.T) {
	client, name, _ := newTable(t)
	out, err := client.DescribeTimeToLive(context.Background(), &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil {
		t.Fatal(err)
	}
	d := out.TimeToLiveDescription
	if d == nil || aws.ToString(d.AttributeName) != AttrExpiresAt || d.TimeToLiveStatus != "ENABLED" {
		t.Fatalf("TTL = %+v, want ENABLED on %s", d, AttrExpiresAt)
	}
}

// TestCallsPerFile pins the number of DynamoDB calls the protocol costs.
func TestCallsPerFile(t *testing.T) {
	client, name, counter := newTable(t)
	st := New(client, name)
	ctx := context.Background()
	// The first call of a Store reads (here: creates) the identity item.
	counter.reset()
	if _, err := st.StoreID(ctx); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(counter.snapshot()), fmt.Sprint(map[string]int{"GetItem": 2, "PutItem": 1, "Scan": 1}); got != want {
		t.Errorf("first StoreID on a new table: calls %v, want %v", got, want)
	}
	const files = 120
	var fs []state.File
	var paths []string
	for i := range files {
		p := fmt.Sprintf("in/file-%04d.json", i)
		fs = append(fs, state.File{Path: p, Size: 1, ETag: "e"})
		paths = append(paths, p)
	}
	tests := []struct {
		name string
		run  func() error
		want map[string]int
	}{
		{"Register", func() error { _, err := st.Register(ctx, "s", fs, state.RegisterOptions{}); return err },
			map[string]int{"PutItem": files}},
		{"RegisterDuplicates", func() error { _, err := st.Register(ctx, "s", fs, state.RegisterOptions{}); return err },
			map[string]int{"PutItem": files}},
		// A listing over known files reads them, 100 a call, and writes none.
		{"RegisterMostlyKnown", func() error {
			_, err := st.Register(ctx, "s", fs, state.RegisterOptions{MostlyKnown: true})
			return err
		}, map[string]int{"BatchGetItem": (files + 99) / 100}},
		// One new file among them: one write.
		{"RegisterMostlyKnownOneNew", func() error {
			_, err := st.Register(ctx, "s", append(slices.Clone(fs), state.File{Path: "in/new.json", Size: 1, ETag: "e"}), state.RegisterOptions{MostlyKnown: true})
			return err
		}, map[string]int{"BatchGetItem": (files + 100) / 100, "PutItem": 1}},
		{"Pending", func() error { _, err := st.Pending(ctx, "s", files); return err },
			map[string]int{"Query": 1, "BatchGetItem": (files + 99) / 100}},
		{"Claim", func() error { return st.Claim(ctx, "s", 0, paths) },
			map[string]int{"UpdateItem": files}},
		{"MarkCommitted", func() error { return st.MarkCommitted(ctx, "s", 0, time.Now()) },
			map[string]int{"PutItem": 1}},
		{"ClaimReplay", func() error { return st.Claim(ctx, "s", 0, paths) },
			map[string]int{"UpdateItem": files}}, // plus GetItem where the emulator omits the old item
		{"MarkSkipped", func() error { return st.MarkSkipped(ctx, "s", 0, paths[0], "corrupt") },
			map[string]int{"UpdateItem": 1}},
		{"MarkSkippedReplay", func() error { return st.MarkSkipped(ctx, "s", 0, paths[0], "again") },
			map[string]int{"UpdateItem": 1}},
		{"Entries", func() error {
			for _, err := range st.Entries(ctx, "s") {
				if err != nil {
					return err
				}
			}
			return nil
		}, map[string]int{"Query": FileShards, "GetItem": 1}},
	}
	for _, tc := range tests {
		counter.reset()
		if err := tc.run(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := counter.snapshot()
		if tc.name == "ClaimReplay" {
			delete(got, "GetItem")
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s of %d files: calls %v, want %v", tc.name, files, got, tc.want)
		}
		t.Logf("%-18s %d files: %v", tc.name, files, got)
	}
}

// staleIndex replays an earlier answer of the pending index, as a lagging
// GSI would.
type staleIndex struct {
	Client
	mu     sync.Mutex
	replay *dynamodb.QueryOutput
	last   *dynamodb.QueryOutput
}

func (c *staleIndex) Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if in.IndexName != nil && c.replay != nil {
		return c.replay, nil
	}
	out, err := c.Client.Query(ctx, in, opts...)
	if in.IndexName != nil {
		c.last = out
	}
	return out, err
}

func TestPendingIgnoresStaleIndex(t *testing.T) {
	client, name, _ := newTable(t)
	stale := &staleIndex{Client: client}
	st := New(stale, name)
	ctx := context.Background()
	if _, err := st.Register(ctx, "s", []state.File{{Path: "a", ETag: "1"}, {Path: "b"}, {Path: "c"}}, state.RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Pending(ctx, "s", 10); err != nil || len(got) != 3 {
		t.Fatalf("Pending = %v, %v", got, err)
	}
	stale.replay = stale.last
	if err := st.Claim(ctx, "s", 0, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	// b is re-registered (new version): the index's old entry is stale too.
	if _, err := st.Register(ctx, "s", []state.File{{Path: "b", ETag: "2"}}, state.RegisterOptions{AllowOverwrites: true}); err != nil {
		t.Fatal(err)
	}
	got, err := st.Pending(ctx, "s", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Path != "c" {
		t.Fatalf("Pending through a stale index = %+v, want only c", got)
	}
}

func TestTemplateSnippetMatchesSchema(t *testing.T) {
	in := TableSchema("x")
	var want []string
	for _, a := range in.AttributeDefinitions {
		want = append(want, fmt.Sprintf("{ AttributeName: %s, AttributeType: %s }", *a.AttributeName, a.AttributeType))
	}
	for _, k := range in.KeySchema {
		want = append(want, fmt.Sprintf("{ AttributeName: %s, KeyType: %s }", *k.AttributeName, k.KeyType))
	}
	for _, g := range in.GlobalSecondaryIndexes {
		want = append(want, "IndexName: "+*g.IndexName, "ProjectionType: "+string(g.Projection.ProjectionType))
		for _, k := range g.KeySchema {
			want = append(want, fmt.Sprintf("{ AttributeName: %s, KeyType: %s }", *k.AttributeName, k.KeyType))
		}
	}
	want = append(want, "BillingMode: "+string(in.BillingMode), "AttributeName: "+AttrExpiresAt)
	for _, w := range want {
		if !strings.Contains(TemplateSnippet, w) {
			t.Errorf("TemplateSnippet lacks %q", w)
		}
	}
}

func TestEntriesFilter(t *testing.T) {
	const (
		pending = "(attribute_not_exists(#b) AND attribute_not_exists(#r))"
		batched = "(attribute_exists(#b) AND attribute_not_exists(#r))"
		skipped = "attribute_exists(#r)"
	)
	tests := []struct {
		states []state.IngestionState
		want   string
	}{
		{nil, ""},
		{[]state.IngestionState{state.Pending}, pending},
		{[]state.IngestionState{state.Claimed}, batched},
		{[]state.IngestionState{state.Committed, state.Claimed}, batched},
		{[]state.IngestionState{state.Skipped}, skipped},
		{[]state.IngestionState{state.Skipped, state.Pending}, pending + " OR " + skipped},
		{[]state.IngestionState{state.Pending, state.Committed, state.Skipped}, ""},
		{[]state.IngestionState{"BOGUS"}, filterNothing},
	}
	for _, tc := range tests {
		if got := entriesFilter(tc.states); got != tc.want {
			t.Errorf("entriesFilter(%v) = %q, want %q", tc.states, got, tc.want)
		}
	}
}

func TestGSISortKey(t *testing.T) {
	tests := []struct {
		name  string
		nanos int64
		path  string
		want  string
	}{
		{"short", 5, "a/b.json", "0000000000000000005#a/b.json"},
		{"hash in path", 1700000000000000000, "a#b", "1700000000000000000#a#b"},
		{"exactly fits", 1, strings.Repeat("x", gsiPathBytes), "0000000000000000001#" + strings.Repeat("x", gsiPathBytes)},
		{"cut ascii", 1, strings.Repeat("x", maxKeyBytes), "0000000000000000001#" + strings.Repeat("x", gsiPathBytes)},
		{"cut before rune", 1, strings.Repeat("x", gsiPathBytes-1) + "日本", "0000000000000000001#" + strings.Repeat("x", gsiPathBytes-1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := gsiSortKey(tc.nanos, tc.path); got != tc.want {
				t.Fatalf("gsiSortKey = %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzGSISortKey(f *testing.F) {
	f.Add(int64(0), "a", int64(0), "b")
	f.Add(int64(1700000000000000000), "日本語/ファイル.json", int64(1700000000000000001), "a")
	f.Add(int64(7), strings.Repeat("ü", 510)+"a", int64(7), strings.Repeat("ü", 501)+"a")
	f.Add(int64(7), strings.Repeat("x", 1003)+"b", int64(7), strings.Repeat("x", 1002)+"é")
	f.Fuzz(func(t *testing.T, n1 int64, p1 string, n2 int64, p2 string) {
		if n1 < 0 || n2 < 0 || !utf8.ValidString(p1) || !utf8.ValidString(p2) || len(p1) > maxKeyBytes || len(p2) > maxKeyBytes {
			return
		}
		k1, k2 := gsiSortKey(n1, p1), gsiSortKey(n2, p2)
		if len(k1) > maxKeyBytes || !utf8.ValidString(k1) {
			t.Fatalf("gsiSortKey(%d, %q) = %q: %d bytes or invalid UTF-8", n1, p1, k1, len(k1))
		}
		o1, err := parseGSISortKey(k1)
		if err != nil || o1 != orderKeyOf(n1, p1) {
			t.Fatalf("parseGSISortKey(%q) = %v, %v, want %v", k1, o1, err, orderKeyOf(n1, p1))
		}
		// Whenever the order keys differ, the index and the full order agree.
		full := cmpPending(fileItem{path: p1, discNanos: n1}, fileItem{path: p2, discNanos: n2})
		o2 := orderKeyOf(n2, p2)
		if o1.less(o2) && (full >= 0 || k1 >= k2) {
			t.Fatalf("order of (%d,%q) < (%d,%q) but full %d, index %q vs %q", n1, p1, n2, p2, full, k1, k2)
		}
		if o2.less(o1) && (full <= 0 || k2 >= k1) {
			t.Fatalf("order of (%d,%q) > (%d,%q) but full %d", n1, p1, n2, p2, full)
		}
	})
}

func FuzzParseGSISortKey(f *testing.F) {
	for _, seed := range []string{"", "#", "0000000000000000005#a", "000000000000000000x#a", "-000000000000000005#a", "+000000000000000005#a", "00000000000000000050a", "9999999999999999999#a"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, sk string) {
		o, err := parseGSISortKey(sk)
		if err != nil {
			return
		}
		if o.nanos < 0 || gsiSortKey(o.nanos, o.prefix)[:nanosWidth] != sk[:nanosWidth] {
			t.Fatalf("parseGSISortKey(%q) = %+v", sk, o)
		}
	})
}

// BenchmarkProtocol reports the DynamoDB calls per file of one
// register-claim-commit cycle against the emulator.
func BenchmarkProtocol(b *testing.B) {
	client, name, counter := newTable(b)
	st := New(client, name)
	ctx := context.Background()
	const batch = 100
	counter.reset()
	for i := 0; b.Loop(); i++ {
		var fs []state.File
		var ps []string
		for j := range batch {
			p := fmt.Sprintf("b%06d/f%03d", i, j)
			fs = append(fs, state.File{Path: p, Size: 1, ETag: "e"})
			ps = append(ps, p)
		}
		if _, err := st.Register(ctx, "bench", fs, state.RegisterOptions{}); err != nil {
			b.Fatal(err)
		}
		pend, err := st.Pending(ctx, "bench", batch)
		if err != nil || len(pend) != batch {
			b.Fatalf("Pending = %d, %v", len(pend), err)
		}
		if err := st.Claim(ctx, "bench", int64(i), ps); err != nil {
			b.Fatal(err)
		}
		if err := st.MarkCommitted(ctx, "bench", int64(i), time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	ops := counter.snapshot()
	nfiles := float64(b.N * batch)
	writes := ops["PutItem"] + ops["UpdateItem"]
	b.ReportMetric(float64(writes)/nfiles, "writes/file")
	b.ReportMetric(float64(ops["Query"]+ops["BatchGetItem"]+ops["GetItem"])/nfiles, "reads/file")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/nfiles, "µs/file")
}

// The store id lives in the table: another Store on the same table reads
// it, a new table has another; it names the table.
func TestStoreIDPersists(t *testing.T) {
	ctx := context.Background()
	client, name, _ := newTable(t)
	id, err := New(client, name).StoreID(ctx)
	if err != nil || !strings.HasPrefix(id, "dynamodb:"+name+"/") {
		t.Fatalf("StoreID = %q, %v", id, err)
	}
	if got, err := New(client, name).StoreID(ctx); err != nil || got != id {
		t.Errorf("StoreID of a second Store = %q, %v; want %q", got, err, id)
	}
	client2, name2, _ := newTable(t)
	if got, err := New(client2, name2).StoreID(ctx); err != nil || got == id {
		t.Errorf("StoreID of a new table = %q, %v", got, err)
	}
}
