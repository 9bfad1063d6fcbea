package dynamostate

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/core/state/statetest"
)

// spreadFamilies are realistic key families: 10,000 consecutive paths of
// each, one second's worth at 10,000 files/s.
var spreadFamilies = map[string]func(i int) string{
	"date-partitioned": func(i int) string {
		t := time.Date(2026, 12, 1, 13, 0, 0, 0, time.UTC).Add(time.Duration(i) * 360 * time.Millisecond)
		return fmt.Sprintf("events/year=%d/month=%02d/day=%02d/hour=%02d/part-%05d.json", t.Year(), t.Month(), t.Day(), t.Hour(), i)
	},
	"sequential": func(i int) string { return fmt.Sprintf("in/file-%06d.json", i) },
	"firehose": func(i int) string {
		t := time.Date(2026, 12, 1, 13, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
		return fmt.Sprintf("logs/%s/delivery-stream-1-%s-%08x-1a2b-4c3d-8e9f-0123456789ab.gz",
			t.Format("2006/01/02/15"), t.Format("2006-01-02-15-04-05"), i)
	},
	"one-dir-numbers": func(i int) string { return strconv.Itoa(i) },
	"deep-same-prefix": func(i int) string {
		return fmt.Sprintf("a/very/long/common/prefix/that/every/file/shares/tenant=42/batch-%d/%d.csv", i/100, i%100)
	},
}

// TestShardSpread: 10,000 consecutive paths of each family land on every
// shard, the busiest within 1.25 × the mean and the idlest above 0.75 ×.
// For a uniform hash the count per shard is Binomial(10000, 1/32): mean
// 312.5, standard deviation 17.4, so 1.25 × the mean is 4.5 deviations out;
// at 10,000 files/s the busiest shard then takes at most 391 WCU, 2.5×
// below DynamoDB's 1,000 WCU per partition. The hash is deterministic, so
// the test is too.
func TestShardSpread(t *testing.T) {
	const n = 10000
	for name, path := range spreadFamilies {
		t.Run(name, func(t *testing.T) {
			counts := make([]int, FileShards)
			for i := range n {
				counts[FileShard(path(i))]++
			}
			mean := float64(n) / FileShards
			hi, lo := slices.Max(counts), slices.Min(counts)
			t.Logf("%s: per shard min %d max %d (mean %.1f, max/mean %.3f)", name, lo, hi, mean, float64(hi)/mean)
			if float64(hi) > 1.25*mean || float64(lo) < 0.75*mean {
				t.Errorf("%s: per-shard counts %v: max %d / min %d outside [0.75, 1.25] × mean %.1f", name, counts, hi, lo, mean)
			}
		})
	}
}

// TestFileShardGolden pins the hash: changing it would orphan the file
// items of every existing table. UPDATE_GOLDEN=1 rewrites the file (never
// do that for a released layout).
func TestFileShardGolden(t *testing.T) {
	golden := filepath.Join("testdata", "shards.golden")
	var paths []string
	for _, path := range spreadFamilies {
		for i := range 5 {
			paths = append(paths, path(i*997))
		}
	}
	paths = append(paths, "a", "b", "ü/ñ.json", strings.Repeat("x", 1024))
	slices.Sort(paths)
	var sb strings.Builder
	for _, p := range paths {
		fmt.Fprintf(&sb, "%d\t%s\n", FileShard(p), p)
	}
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		if err := os.WriteFile(golden, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(golden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	lines := 0
	for sc.Scan() {
		shard, path, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			t.Fatalf("%s: bad line %q", golden, sc.Text())
		}
		if got := strconv.Itoa(FileShard(path)); got != shard {
			t.Errorf("FileShard(%q) = %s, golden %s", path, got, shard)
		}
		lines++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if lines < 20 {
		t.Fatalf("%s: %d lines, want the pinned paths", golden, lines)
	}
}

func TestShardPK(t *testing.T) {
	tests := []struct {
		stream string
		shard  int
		want   string
	}{
		{"s", 0, "s#f#00"},
		{"s", 7, "s#f#07"},
		{"a#b", 31, "a#b#f#31"},
	}
	for _, tc := range tests {
		if got := ShardPK(tc.stream, tc.shard); got != tc.want {
			t.Errorf("ShardPK(%q, %d) = %q, want %q", tc.stream, tc.shard, got, tc.want)
		}
	}
}

// scanAll returns every item of the table.
func scanAll(t *testing.T, client *dynamodb.Client, table string) []map[string]types.AttributeValue {
	t.Helper()
	var items []map[string]types.AttributeValue
	pages := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, page.Items...)
	}
	return items
}

// A new table gets the sharded layout: every file item sits under the
// shard of its path, the identity item records FileShards, and Entries
// merges the shards back into path order.
func TestShardedItems(t *testing.T) {
	ctx := context.Background()
	client, name, _ := newTable(t)
	st := New(client, name)
	var files []state.File
	for i := range 200 {
		files = append(files, state.File{Path: fmt.Sprintf("in/day=%02d/f-%04d.json", i%3, i), Size: 1, ETag: "e"})
	}
	if _, err := st.Register(ctx, "s", files, state.RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Register(ctx, "s#f", files[:3], state.RegisterOptions{}); err != nil { // a stream id ending like a key
		t.Fatal(err)
	}
	shards := map[string]int{}
	for _, it := range scanAll(t, client, name) {
		pk, _ := getS(it, AttrPK)
		sk, _ := getS(it, AttrSK)
		if pk == "#store" {
			if n, err := getN(it, AttrFileShards); err != nil || n == nil || *n != FileShards {
				t.Errorf("identity item %s = %v, %v; want %d", AttrFileShards, n, err, FileShards)
			}
			continue
		}
		stream := "s"
		if strings.HasPrefix(pk, "s#f#f#") {
			stream = "s#f"
		}
		if want := ShardPK(stream, FileShard(sk)); pk != want {
			t.Errorf("item %q under pk %q, want %q", sk, pk, want)
		}
		if stream == "s" {
			shards[pk]++
		}
	}
	if len(shards) != FileShards {
		t.Errorf("200 files over %d shards, want all %d: %v", len(shards), FileShards, shards)
	}
	var got []string
	for e, err := range st.Entries(ctx, "s") {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Path)
	}
	var want []string
	for _, f := range files {
		want = append(want, f.Path)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Entries = %d paths %q..., want %d in path order", len(got), got[:min(3, len(got))], len(want))
	}
	if n, err := st.DropStream(ctx, "s"); err != nil || n != len(files) {
		t.Errorf("DropStream = %d, %v; want %d", n, err, len(files))
	}
	if e, err := st.Get(ctx, "s#f", files[0].Path); err != nil || e.State != state.Pending {
		t.Errorf("the other stream after the drop: %+v, %v", e, err)
	}
}

// putLegacy writes items the way the version before sharding did.
func putLegacy(t *testing.T, client *dynamodb.Client, table string, items ...map[string]types.AttributeValue) {
	t.Helper()
	for _, it := range items {
		if _, err := client.PutItem(context.Background(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: it}); err != nil {
			t.Fatal(err)
		}
	}
}

// legacyFile is a file item of the legacy layout; batch < 0: pending.
func legacyFile(stream, path string, disc, batch int64) map[string]types.AttributeValue {
	it := map[string]types.AttributeValue{
		AttrPK: attrS(stream + "#f"), AttrSK: attrS(path),
		AttrSize: attrN(10), AttrETag: attrS("e1"), AttrDiscNanos: attrN(disc),
	}
	if batch >= 0 {
		it[AttrBatch] = attrN(batch)
	} else {
		it[AttrGSI1PK] = attrS(stream)
		it[AttrGSI1SK] = attrS(fmt.Sprintf("%019d#%s", disc, path)) // the index key of older releases
	}
	return it
}

// Tables written before sharding keep working: with items but no identity
// item (before the identity item existed) and with an identity item
// without file_shards, the old items are found by every call, nothing is
// registered twice, and new files go to the same legacy partition.
func TestLegacyTable(t *testing.T) {
	ctx := context.Background()
	for _, withIdentity := range []bool{false, true} {
		t.Run(fmt.Sprintf("identity=%v", withIdentity), func(t *testing.T) {
			client, name, _ := newTable(t)
			old := []map[string]types.AttributeValue{
				legacyFile("s", "a.json", 100, 0),
				legacyFile("s", "b.json", 200, 1),
				legacyFile("s", "c.json", 300, -1),
				{AttrPK: attrS("s#b"), AttrSK: attrS(batchSK(0)), AttrCommitNs: attrN(1000)},
			}
			if withIdentity {
				old = append(old, map[string]types.AttributeValue{AttrPK: attrS("#store"), AttrSK: attrS("id"), AttrStoreID: attrS("oldid")})
			}
			putLegacy(t, client, name, old...)
			st := New(client, name)
			id, err := st.StoreID(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if withIdentity && id != "dynamodb:"+name+"/oldid" {
				t.Errorf("StoreID = %q, want the existing id", id)
			}
			if e, err := st.Get(ctx, "s", "a.json"); err != nil || e.State != state.Committed || e.BatchID != 0 {
				t.Errorf("Get(a) = %+v, %v; want committed in batch 0", e, err)
			}
			if e, err := st.Get(ctx, "s", "b.json"); err != nil || e.State != state.Claimed {
				t.Errorf("Get(b) = %+v, %v; want claimed", e, err)
			}
			ok, err := st.Register(ctx, "s", []state.File{{Path: "a.json", ETag: "e1"}, {Path: "c.json", ETag: "e1"}, {Path: "d.json", ETag: "e1"}}, state.RegisterOptions{})
			if err != nil || !slices.Equal(ok, []bool{false, false, true}) {
				t.Errorf("Register(a, c, d) = %v, %v; want only d new", ok, err)
			}
			known, err := st.Register(ctx, "s", []state.File{{Path: "a.json", ETag: "e1"}, {Path: "b.json", ETag: "e1"}}, state.RegisterOptions{MostlyKnown: true})
			if err != nil || slices.Contains(known, true) {
				t.Errorf("Register(MostlyKnown a, b) = %v, %v; want nothing new", known, err)
			}
			pending, err := st.Pending(ctx, "s", 10)
			if err != nil || len(pending) != 2 || pending[0].Path != "c.json" || pending[1].Path != "d.json" {
				t.Errorf("Pending = %+v, %v; want c, d", pending, err)
			}
			if err := st.Claim(ctx, "s", 2, []string{"c.json", "d.json"}); err != nil {
				t.Fatal(err)
			}
			if err := st.Claim(ctx, "s", 3, []string{"b.json"}); err == nil {
				t.Error("claiming b (in batch 1) into batch 3 succeeded")
			}
			var paths []string
			for e, err := range st.Entries(ctx, "s") {
				if err != nil {
					t.Fatal(err)
				}
				paths = append(paths, fmt.Sprintf("%s:%d", e.Path, e.BatchID))
			}
			if want := []string{"a.json:0", "b.json:1", "c.json:2", "d.json:2"}; !slices.Equal(paths, want) {
				t.Errorf("Entries = %v, want %v", paths, want)
			}
			for _, it := range scanAll(t, client, name) {
				pk, _ := getS(it, AttrPK)
				if strings.Contains(pk, "#f#") {
					t.Errorf("an item under a sharded key %q in a legacy table", pk)
				}
				if pk == "#store" {
					if n, _ := getN(it, AttrFileShards); n != nil && *n != 0 {
						t.Errorf("legacy table's identity records %d shards", *n)
					}
				}
			}
			if n, err := st.DropStream(ctx, "s"); err != nil || n != 4 {
				t.Errorf("DropStream = %d, %v; want 4", n, err)
			}
		})
	}
}

// The whole contract holds on a legacy table too.
func TestConformanceLegacy(t *testing.T) {
	statetest.RunConformanceTests(t, func(t *testing.T) statetest.Harness {
		client, name, _ := newTable(t)
		putLegacy(t, client, name, map[string]types.AttributeValue{AttrPK: attrS("#store"), AttrSK: attrS("id"), AttrStoreID: attrS("legacy")})
		return harness{statetest.NewHarness(New(client, name, WithPageSize(64)), nil)}
	})
}

// A Store that cached one layout refuses a table replaced by one with
// another (deleted and created again under the same name).
func TestLayoutChangedUnderStore(t *testing.T) {
	ctx := context.Background()
	client, name, _ := newTable(t)
	st := New(client, name)
	if _, err := st.StoreID(ctx); err != nil {
		t.Fatal(err)
	}
	putLegacy(t, client, name, map[string]types.AttributeValue{AttrPK: attrS("#store"), AttrSK: attrS("id"), AttrStoreID: attrS("other"), AttrFileShards: attrN(0)})
	if _, err := st.StoreID(ctx); err == nil || !strings.Contains(err.Error(), "layout changed") {
		t.Fatalf("StoreID after the layout changed = %v, want a layout error", err)
	}
}
