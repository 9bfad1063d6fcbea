package dynamostate

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
	ctx := context.Background()
	var name string
	for attempt := 1; ; attempt++ {
		name = fmt.Sprintf("tributary-state-%d-%d", time.Now().UnixNano(), tableSeq.Add(1))
		err := CreateTable(ctx, client, name)
		// The SDK retries a CreateTable whose response it could not read
		// (the emulator sometimes closes the connection mid-body); the
		// retry then finds the table its first attempt created, and
		// CreateTable fails before enabling TTL. A fresh name again.
		var inUse *types.ResourceInUseException
		if err != nil && errors.As(err, &inUse) && attempt < 3 {
			t.Logf("attempt %d: %v; creating a table under another name", attempt, err)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		break
	}
	t.Cleanup(func() {
		_, err := client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		// The SDK retries a DeleteTable whose response it could not read
		// (the emulator sometimes closes the connection mid-body, failing
		// its checksum); the retry then finds the table gone.
		var gone *types.ResourceNotFoundException
		if err != nil && !errors.As(err, &gone) {
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
		// The item store's own Pending reads the stream's items (the
		// deployed path reads the checkpoint's inbox, infra/inboxstate).
		{"Pending", func() error { _, err := st.Pending(ctx, "s", files); return err },
			map[string]int{"Query": FileShards}},
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
		// The inbox store's calls: items read 100 a call, one write a claim.
		{"ReadFiles", func() error { _, err := st.ReadFiles(ctx, "s", paths, true); return err },
			map[string]int{"BatchGetItem": (files + 99) / 100}},
		{"ClaimFile", func() error {
			_, _, err := st.ClaimFile(ctx, "s", 0, ClaimInput{File: state.File{Path: "in/claimed.json", Size: 1, ETag: "e"}, DiscNanos: 1})
			return err
		}, map[string]int{"UpdateItem": 1}},
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
