// Package objstoretest provides the conformance suite every objstore.Store
// adapter must pass, in the style of gocloud.dev's drivertest.
//
// An adapter's test calls RunConformanceTests with a function that builds a
// Harness: a fresh, empty store plus optional hooks for adapter-specific
// knobs (list page size, backend-native folder markers). The suite only uses
// the objstore.Store API, so the same tests run against the local filesystem
// and against S3 (or an S3 emulator).
package objstoretest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tributary-io/tributary/core/objstore"
)

// Harness is one adapter instance under test. newHarness builds a fresh one
// per subtest and registers its cleanup with t.Cleanup.
type Harness struct {
	// Store is the store under test. It must be empty.
	Store objstore.Store

	// StoreWithPageSize, when non-nil, returns a store over the same backing
	// data as Store whose List fetches at most n keys per backend request.
	// The pagination subtests then run with pages of 1, 2 and many keys;
	// when nil they run against Store alone.
	StoreWithPageSize func(n int) objstore.Store

	// MakeFolderMarker, when non-nil, creates the backend's native notion of
	// an empty directory named key (an S3 zero-byte object "key/", a
	// directory on a filesystem) without going through the Store API. The
	// folder-marker subtest then checks that List and Head ignore it.
	MakeFolderMarker func(t *testing.T, key string)

	// RacyPutIfAbsent marks a backend known to check the condition and
	// store the object in two steps (the moto emulator), so that racing
	// PutIfAbsent calls may rarely both succeed. The race subtest then
	// accepts several winners but still requires at least one winner,
	// ErrExists for every loser and a final object that is one winner's
	// complete content. Real adapters must leave it false.
	RacyPutIfAbsent bool
}

// RunConformanceTests runs the objstore.Store contract tests as parallel
// subtests of t, each with its own harness (so newHarness must be safe to
// call concurrently).
func RunConformanceTests(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Helper()
	tests := []struct {
		name string
		run  func(t *testing.T, h Harness)
	}{
		{"PutGetHeadRoundTrip", testRoundTrip},
		{"EmptyObject", testEmptyObject},
		{"LargeObject", testLargeObject},
		{"NotFound", testNotFound},
		{"PutIfAbsent", testPutIfAbsent},
		{"PutIfAbsentRace", testPutIfAbsentRace},
		{"ConcurrentPutIsAtomic", testConcurrentPut},
		{"ListOrder", testListOrder},
		{"ListPagination", testListPagination},
		{"ListConsistentUnderMutation", testListMutation},
		{"ListStopsEarlyAndOnCancel", testListStop},
		{"Delete", testDelete},
		{"Copy", testCopy},
		{"FailedPutLeavesNothing", testFailedPut},
		{"CancelledPutLeavesNothing", testCancelledPut},
		{"WeirdKeys", testWeirdKeys},
		{"InvalidKeys", testInvalidKeys},
		{"FolderMarkers", testFolderMarkers},
		{"Create", testCreate},
		{"CreateKeys", testCreateKeys},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			if h.Store == nil {
				t.Fatal("harness returned a nil Store")
			}
			tc.run(t, h)
		})
	}
}

// ---- helpers -------------------------------------------------------------

func put(t *testing.T, s objstore.Store, key, content string) {
	t.Helper()
	if err := s.Put(t.Context(), key, strings.NewReader(content)); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func get(t *testing.T, s objstore.Store, key string) string {
	t.Helper()
	rc, err := s.Get(t.Context(), key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("Get(%q): reading body: %v", key, err)
	}
	return string(b)
}

func head(t *testing.T, s objstore.Store, key string) objstore.ObjectInfo {
	t.Helper()
	info, err := s.Head(t.Context(), key)
	if err != nil {
		t.Fatalf("Head(%q): %v", key, err)
	}
	return info
}

func wantNotFound(t *testing.T, s objstore.Store, key string) {
	t.Helper()
	if _, err := s.Head(t.Context(), key); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("Head(%q) = %v, want ErrNotFound", key, err)
	}
}

func list(t *testing.T, s objstore.Store, opts objstore.ListOptions) []objstore.ObjectInfo {
	t.Helper()
	var out []objstore.ObjectInfo
	for info, err := range s.List(t.Context(), opts) {
		if err != nil {
			t.Fatalf("List(%+v): %v", opts, err)
		}
		out = append(out, info)
	}
	return out
}

func listKeys(t *testing.T, s objstore.Store, opts objstore.ListOptions) []string {
	t.Helper()
	keys := []string{}
	for _, info := range list(t, s, opts) {
		keys = append(keys, info.Key)
	}
	return keys
}

// onlyReader hides any io.Seeker / io.WriterTo of the wrapped reader so
// adapters see a plain streaming reader.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// failingReader yields n bytes of data and then fails with err.
type failingReader struct {
	n   int
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, f.err
	}
	k := min(len(p), f.n)
	for i := range k {
		p[i] = 'x'
	}
	f.n -= k
	return k, nil
}

// cancellingReader cancels its context after the first chunk and then keeps
// producing data, so only the adapter's own context checks stop the write.
type cancellingReader struct {
	cancel context.CancelFunc
	left   int
	first  bool
}

func (c *cancellingReader) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	if c.first {
		c.cancel()
	}
	c.first = true
	k := min(len(p), c.left, 32<<10)
	for i := range k {
		p[i] = 'y'
	}
	c.left -= k
	return k, nil
}

var errBoom = errors.New("objstoretest: reader failed on purpose")

// ---- subtests ------------------------------------------------------------

func testRoundTrip(t *testing.T, h Harness) {
	s := h.Store
	ctx := t.Context()
	const key = "dir/sub/object.txt"
	put(t, s, key, "hello, world")
	if got := get(t, s, key); got != "hello, world" {
		t.Fatalf("Get = %q, want %q", got, "hello, world")
	}
	info1 := head(t, s, key)
	if info1.Key != key || info1.Size != 12 {
		t.Fatalf("Head = %+v, want key %q size 12", info1, key)
	}
	if info1.ETag == "" {
		t.Fatal("Head: empty ETag")
	}
	if info1.ModTime.IsZero() || info1.ModTime.Year() < 2000 {
		t.Fatalf("Head: ModTime %v not set", info1.ModTime)
	}

	// Same size, different content: the ETag must still change.
	if err := s.Put(ctx, key, onlyReader{strings.NewReader("HELLO, WORLD")}); err != nil {
		t.Fatalf("overwrite: %v", err)
	}
	info2 := head(t, s, key)
	if info2.ETag == info1.ETag {
		t.Fatalf("ETag %q unchanged after content changed", info2.ETag)
	}
	if got := get(t, s, key); got != "HELLO, WORLD" {
		t.Fatalf("Get after overwrite = %q", got)
	}

	// Different size.
	put(t, s, key, "short")
	info3 := head(t, s, key)
	if info3.Size != 5 || info3.ETag == info2.ETag {
		t.Fatalf("Head after second overwrite = %+v (previous ETag %q)", info3, info2.ETag)
	}

	// Delete and recreate with identical size: still a new ETag.
	if err := s.Delete(ctx, key); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	put(t, s, key, "SHORT")
	if info4 := head(t, s, key); info4.ETag == info3.ETag {
		t.Fatalf("ETag %q unchanged after delete and recreate with other content", info4.ETag)
	}

	// Listing reports the same metadata as Head.
	got := list(t, s, objstore.ListOptions{})
	if len(got) != 1 {
		t.Fatalf("List = %+v, want one object", got)
	}
	h4 := head(t, s, key)
	if got[0].Key != key || got[0].Size != h4.Size || got[0].ETag != h4.ETag {
		t.Fatalf("List entry %+v disagrees with Head %+v", got[0], h4)
	}
}

func testEmptyObject(t *testing.T, h Harness) {
	s := h.Store
	put(t, s, "empty", "")
	if got := get(t, s, "empty"); got != "" {
		t.Fatalf("Get = %q, want empty", got)
	}
	if info := head(t, s, "empty"); info.Size != 0 || info.ETag == "" {
		t.Fatalf("Head = %+v, want size 0 and an ETag", info)
	}
}

func testLargeObject(t *testing.T, h Harness) {
	s := h.Store
	ctx := t.Context()
	data := make([]byte, 3<<20+17)
	for i := range data {
		data[i] = byte(i*7 + i>>11)
	}
	want := sha256.Sum256(data)
	for _, tc := range []struct {
		name string
		r    io.Reader
	}{
		{"seekable", bytes.NewReader(data)},
		{"streaming", onlyReader{bytes.NewReader(data)}},
	} {
		key := "large/" + tc.name + ".bin"
		if err := s.Put(ctx, key, tc.r); err != nil {
			t.Fatalf("Put(%q): %v", key, err)
		}
		rc, err := s.Get(ctx, key)
		if err != nil {
			t.Fatalf("Get(%q): %v", key, err)
		}
		hsh := sha256.New()
		n, err := io.Copy(hsh, rc)
		rc.Close()
		if err != nil {
			t.Fatalf("reading %q: %v", key, err)
		}
		if n != int64(len(data)) || !bytes.Equal(hsh.Sum(nil), want[:]) {
			t.Fatalf("%q: got %d bytes with a different hash, want %d bytes", key, n, len(data))
		}
		if info := head(t, s, key); info.Size != int64(len(data)) {
			t.Fatalf("Head(%q).Size = %d, want %d", key, info.Size, len(data))
		}
	}
}

func testNotFound(t *testing.T, h Harness) {
	s := h.Store
	ctx := t.Context()
	put(t, s, "dir/present", "x")
	for _, key := range []string{"missing", "dir/missing", "dir", "dir/present/below", "nodir/x"} {
		t.Run(key, func(t *testing.T) {
			if rc, err := s.Get(ctx, key); !errors.Is(err, objstore.ErrNotFound) {
				if err == nil {
					rc.Close()
				}
				t.Errorf("Get(%q) = %v, want ErrNotFound", key, err)
			}
			if _, err := s.Head(ctx, key); !errors.Is(err, objstore.ErrNotFound) {
				t.Errorf("Head(%q) = %v, want ErrNotFound", key, err)
			}
			if err := s.Copy(ctx, key, "copy-dst"); !errors.Is(err, objstore.ErrNotFound) {
				t.Errorf("Copy(%q, ...) = %v, want ErrNotFound", key, err)
			}
		})
	}
	wantNotFound(t, s, "copy-dst")
}

func testPutIfAbsent(t *testing.T, h Harness) {
	s := h.Store
	ctx := t.Context()
	const key = "log/00000000000000000000.json"
	if err := s.PutIfAbsent(ctx, key, strings.NewReader("first")); err != nil {
		t.Fatalf("PutIfAbsent on a free key: %v", err)
	}
	before := head(t, s, key)
	for _, r := range []io.Reader{strings.NewReader("second"), onlyReader{strings.NewReader("third!")}} {
		err := s.PutIfAbsent(ctx, key, r)
		if !errors.Is(err, objstore.ErrExists) {
			t.Fatalf("PutIfAbsent on an existing key = %v, want ErrExists", err)
		}
	}
	if got := get(t, s, key); got != "first" {
		t.Fatalf("content after refused PutIfAbsent = %q, want %q", got, "first")
	}
	if after := head(t, s, key); after.ETag != before.ETag {
		t.Fatalf("ETag changed from %q to %q by a refused PutIfAbsent", before.ETag, after.ETag)
	}
	// After a delete the key is free again.
	if err := s.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if err := s.PutIfAbsent(ctx, key, strings.NewReader("again")); err != nil {
		t.Fatalf("PutIfAbsent after Delete: %v", err)
	}
	if got := get(t, s, key); got != "again" {
		t.Fatalf("content = %q, want %q", got, "again")
	}
	if got := listKeys(t, s, objstore.ListOptions{}); !slices.Equal(got, []string{key}) {
		t.Fatalf("List = %q, want only %q", got, key)
	}
}

func testPutIfAbsentRace(t *testing.T, h Harness) {
	s := h.Store
	ctx := t.Context()
	const writers = 8
	for round := range 3 {
		key := fmt.Sprintf("race/%d.json", round)
		errs := make([]error, writers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range writers {
			wg.Go(func() {
				<-start
				body := strings.Repeat(fmt.Sprintf("writer-%d;", i), 2000)
				errs[i] = s.PutIfAbsent(ctx, key, strings.NewReader(body))
			})
		}
		close(start)
		wg.Wait()
		winner := -1
		var winners []int
		for i, err := range errs {
			switch {
			case err == nil:
				if winner >= 0 && !h.RacyPutIfAbsent {
					t.Fatalf("round %d: writers %d and %d both won PutIfAbsent", round, winner, i)
				}
				winners = append(winners, i)
				winner = i
			case !errors.Is(err, objstore.ErrExists):
				t.Fatalf("round %d: writer %d: %v, want nil or ErrExists", round, i, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no writer won PutIfAbsent", round)
		}
		got := get(t, s, key)
		if !slices.ContainsFunc(winners, func(w int) bool { return got == strings.Repeat(fmt.Sprintf("writer-%d;", w), 2000) }) {
			t.Fatalf("round %d: content is not a winner's (winners %v)", round, winners)
		}
	}
}

func testConcurrentPut(t *testing.T, h Harness) {
	s := h.Store
	ctx := t.Context()
	const key = "hot/object"
	const writers = 4
	bodies := make([]string, writers)
	for i := range bodies {
		bodies[i] = strings.Repeat(string(rune('a'+i)), 64<<10+i)
	}
	put(t, s, key, bodies[0])
	var wg sync.WaitGroup
	stop := make(chan struct{})
	readerErr := make(chan error, 1)
	go func() {
		defer close(readerErr)
		for {
			select {
			case <-stop:
				return
			default:
			}
			rc, err := s.Get(ctx, key)
			if err != nil {
				readerErr <- fmt.Errorf("Get during concurrent Put: %w", err)
				return
			}
			b, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				readerErr <- fmt.Errorf("reading during concurrent Put: %w", err)
				return
			}
			if !slices.Contains(bodies, string(b)) {
				readerErr <- fmt.Errorf("reader saw a partial or mixed object of %d bytes", len(b))
				return
			}
		}
	}()
	for i := range writers {
		wg.Go(func() {
			for range 3 {
				if err := s.Put(ctx, key, onlyReader{strings.NewReader(bodies[i])}); err != nil {
					t.Errorf("Put by writer %d: %v", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	if err := <-readerErr; err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, key); !slices.Contains(bodies, got) {
		t.Fatalf("final object (%d bytes) is not one writer's content", len(got))
	}
	if got := listKeys(t, s, objstore.ListOptions{}); !slices.Equal(got, []string{key}) {
		t.Fatalf("List = %q, want only %q (no temporary files)", got, key)
	}
}

// orderKeys are chosen so that a directory walk in name order differs from
// byte order of full keys ('-' and '.' sort before '/', '0' after it).
var orderKeys = []string{
	"a", "a-b", "a.b", "a/b", "a/b/c", "a/b-c", "a/b.c", "a/b0", "a0", "aa/x",
	"b", "B", "_u", "é", "z~", "Z/0", "a/b/c/d", "a/c",
}

func testListOrder(t *testing.T, h Harness) {
	s := h.Store
	// "a" cannot be both a file and a directory on a filesystem; keep the
	// set free of such collisions: drop "a" and "a/b" (they have children).
	keys := slices.DeleteFunc(slices.Clone(orderKeys), func(k string) bool { return k == "a" || k == "a/b" || k == "a/b/c" })
	for _, k := range keys {
		put(t, s, k, "v:"+k)
	}
	tests := []struct {
		name string
		opts objstore.ListOptions
		want []string
	}{
		{"all", objstore.ListOptions{},
			[]string{"B", "Z/0", "_u", "a-b", "a.b", "a/b-c", "a/b.c", "a/b/c/d", "a/b0", "a/c", "a0", "aa/x", "b", "z~", "é"}},
		{"prefix dir", objstore.ListOptions{Prefix: "a/"},
			[]string{"a/b-c", "a/b.c", "a/b/c/d", "a/b0", "a/c"}},
		{"prefix partial name", objstore.ListOptions{Prefix: "a/b"},
			[]string{"a/b-c", "a/b.c", "a/b/c/d", "a/b0"}},
		{"prefix a", objstore.ListOptions{Prefix: "a"},
			[]string{"a-b", "a.b", "a/b-c", "a/b.c", "a/b/c/d", "a/b0", "a/c", "a0", "aa/x"}},
		{"prefix deep", objstore.ListOptions{Prefix: "a/b/c/"},
			[]string{"a/b/c/d"}},
		{"prefix no match", objstore.ListOptions{Prefix: "nothing/"}, []string{}},
		{"prefix is a full key", objstore.ListOptions{Prefix: "a0"}, []string{"a0"}},
		{"start after", objstore.ListOptions{StartAfter: "a/b"},
			[]string{"a/b-c", "a/b.c", "a/b/c/d", "a/b0", "a/c", "a0", "aa/x", "b", "z~", "é"}},
		{"start after existing key", objstore.ListOptions{StartAfter: "a/b.c"},
			[]string{"a/b/c/d", "a/b0", "a/c", "a0", "aa/x", "b", "z~", "é"}},
		{"start after dir", objstore.ListOptions{StartAfter: "a/"},
			[]string{"a/b-c", "a/b.c", "a/b/c/d", "a/b0", "a/c", "a0", "aa/x", "b", "z~", "é"}},
		{"start after inside skipped dir", objstore.ListOptions{StartAfter: "a/b/c/d"},
			[]string{"a/b0", "a/c", "a0", "aa/x", "b", "z~", "é"}},
		{"start after everything", objstore.ListOptions{StartAfter: "\U0010FFFF"}, []string{}},
		{"prefix and start after", objstore.ListOptions{Prefix: "a/", StartAfter: "a/b/"},
			[]string{"a/b/c/d", "a/b0", "a/c"}},
		{"start after before prefix", objstore.ListOptions{Prefix: "a/", StartAfter: "0"},
			[]string{"a/b-c", "a/b.c", "a/b/c/d", "a/b0", "a/c"}},
		{"start after beyond prefix", objstore.ListOptions{Prefix: "a/", StartAfter: "b"}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := listKeys(t, s, tc.opts); !slices.Equal(got, tc.want) {
				t.Fatalf("List(%+v) =\n %q\nwant\n %q", tc.opts, got, tc.want)
			}
		})
	}
	for _, info := range list(t, s, objstore.ListOptions{}) {
		if want := int64(len("v:" + info.Key)); info.Size != want || info.ETag == "" || info.ModTime.IsZero() {
			t.Fatalf("List entry %+v: want size %d, an ETag and a ModTime", info, want)
		}
	}
}

func pagedStores(h Harness) map[string]objstore.Store {
	if h.StoreWithPageSize == nil {
		return map[string]objstore.Store{"default": h.Store}
	}
	return map[string]objstore.Store{
		"page1":    h.StoreWithPageSize(1),
		"page2":    h.StoreWithPageSize(2),
		"page7":    h.StoreWithPageSize(7),
		"page1000": h.StoreWithPageSize(1000),
	}
}

func testListPagination(t *testing.T, h Harness) {
	var keys []string
	for i := range 23 {
		keys = append(keys, fmt.Sprintf("p/%02d", i))
	}
	keys = append(keys, "p/sub/x", "q")
	for _, k := range keys {
		put(t, h.Store, k, k)
	}
	for name, s := range pagedStores(h) {
		t.Run(name, func(t *testing.T) {
			if got := listKeys(t, s, objstore.ListOptions{}); !slices.Equal(got, keys) {
				t.Fatalf("List all = %q, want %q", got, keys)
			}
			if got := listKeys(t, s, objstore.ListOptions{Prefix: "p/"}); !slices.Equal(got, keys[:24]) {
				t.Fatalf("List p/ = %q, want %q", got, keys[:24])
			}
			if got := listKeys(t, s, objstore.ListOptions{Prefix: "p/", StartAfter: "p/20"}); !slices.Equal(got, keys[21:24]) {
				t.Fatalf("List p/ after p/20 = %q, want %q", got, keys[21:24])
			}
		})
	}
}

func testListMutation(t *testing.T, h Harness) {
	for name, s := range pagedStores(h) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			prefix := "m-" + name + "/"
			stable := map[string]bool{}
			for i := range 20 {
				k := fmt.Sprintf("%sk%02d", prefix, i)
				put(t, s, k, "v")
				if i != 3 && i != 12 && i != 13 {
					stable[k] = true
				}
			}
			seen := map[string]int{}
			last := ""
			n := 0
			for info, err := range s.List(ctx, objstore.ListOptions{Prefix: prefix}) {
				if err != nil {
					t.Fatalf("List: %v", err)
				}
				if info.Key <= last {
					t.Fatalf("List yielded %q after %q: not strictly increasing", info.Key, last)
				}
				last = info.Key
				seen[info.Key]++
				n++
				if n == 5 {
					// Delete one already listed and two not yet listed; insert
					// keys before and after the current position.
					for _, k := range []string{"k03", "k12", "k13"} {
						if err := s.Delete(ctx, prefix+k); err != nil {
							t.Fatal(err)
						}
					}
					for _, k := range []string{"k00a", "k10a", "k15a", "k99", "k05x/nested"} {
						put(t, s, prefix+k, "new")
					}
				}
			}
			for k := range stable {
				if seen[k] != 1 {
					t.Errorf("key %q present throughout was listed %d times", k, seen[k])
				}
			}
		})
	}
}

func testListStop(t *testing.T, h Harness) {
	s := h.Store
	for i := range 5 {
		put(t, s, fmt.Sprintf("s/%d", i), "v")
	}
	n := 0
	for _, err := range s.List(t.Context(), objstore.ListOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Fatalf("iterated %d times after break at 2", n)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	var gotErr error
	count := 0
	for _, err := range s.List(ctx, objstore.ListOptions{}) {
		count++
		if err != nil {
			gotErr = err
			break
		}
		if count > 10 {
			break
		}
	}
	if !errors.Is(gotErr, context.Canceled) {
		t.Fatalf("List with a cancelled context: error %v after %d items, want context.Canceled", gotErr, count-1)
	}
}

func testDelete(t *testing.T, h Harness) {
	s := h.Store
	ctx := t.Context()
	put(t, s, "d/x", "1")
	put(t, s, "d/y/z", "2")
	for i := range 2 {
		if err := s.Delete(ctx, "d/x"); err != nil {
			t.Fatalf("Delete #%d: %v", i+1, err)
		}
	}
	wantNotFound(t, s, "d/x")
	for _, k := range []string{"never", "d/never/x", "d/y"} {
		if err := s.Delete(ctx, k); err != nil {
			t.Fatalf("Delete(%q) of a missing key: %v", k, err)
		}
	}
	if got := get(t, s, "d/y/z"); got != "2" {
		t.Fatalf("Delete of a prefix touched %q: %q", "d/y/z", got)
	}
	if err := s.Delete(ctx, "d/y/z"); err != nil {
		t.Fatal(err)
	}
	if got := listKeys(t, s, objstore.ListOptions{}); len(got) != 0 {
		t.Fatalf("List after deleting everything = %q", got)
	}
	// Deleted parents do not get in the way of new objects.
	put(t, s, "d/y/z", "3")
	if got := get(t, s, "d/y/z"); got != "3" {
		t.Fatalf("Get = %q, want 3", got)
	}
}

func testCopy(t *testing.T, h Harness) {
	s := h.Store
	ctx := t.Context()
	put(t, s, "src/a", "alpha")
	if err := s.Copy(ctx, "src/a", "dst/deep/a"); err != nil {
		t.Fatalf("Copy: %v", err)
	}
	if got := get(t, s, "dst/deep/a"); got != "alpha" {
		t.Fatalf("copy content = %q", got)
	}
	if got := get(t, s, "src/a"); got != "alpha" {
		t.Fatalf("source content after copy = %q", got)
	}
	// Copy replaces an existing destination.
	put(t, s, "dst/other", "old content that is longer")
	if err := s.Copy(ctx, "src/a", "dst/other"); err != nil {
		t.Fatalf("Copy over existing: %v", err)
	}
	if got := get(t, s, "dst/other"); got != "alpha" {
		t.Fatalf("overwritten copy content = %q", got)
	}
	if info := head(t, s, "dst/other"); info.Size != 5 {
		t.Fatalf("overwritten copy size = %d", info.Size)
	}
	// Copy onto itself keeps the object.
	if err := s.Copy(ctx, "src/a", "src/a"); err != nil {
		t.Fatalf("Copy onto itself: %v", err)
	}
	if got := get(t, s, "src/a"); got != "alpha" {
		t.Fatalf("content after self-copy = %q", got)
	}
	// A missing source leaves an existing destination alone.
	if err := s.Copy(ctx, "src/missing", "dst/other"); !errors.Is(err, objstore.ErrNotFound) {
		t.Fatalf("Copy from missing = %v, want ErrNotFound", err)
	}
	if got := get(t, s, "dst/other"); got != "alpha" {
		t.Fatalf("destination changed by failed copy: %q", got)
	}
	want := []string{"dst/deep/a", "dst/other", "src/a"}
	if got := listKeys(t, s, objstore.ListOptions{}); !slices.Equal(got, want) {
		t.Fatalf("List = %q, want %q", got, want)
	}
}

func testFailedPut(t *testing.T, h Harness) {
	s := h.Store
	ctx := t.Context()
	for _, size := range []int{0, 100, 2 << 20} {
		for _, ifAbsent := range []bool{false, true} {
			name := fmt.Sprintf("size%d-ifabsent%v", size, ifAbsent)
			t.Run(name, func(t *testing.T) {
				key := "fail/" + name
				putFn := s.Put
				if ifAbsent {
					putFn = s.PutIfAbsent
				}
				err := putFn(ctx, key, &failingReader{n: size, err: errBoom})
				if !errors.Is(err, errBoom) {
					t.Fatalf("Put with failing reader = %v, want it to wrap the reader's error", err)
				}
				wantNotFound(t, s, key)
				// The key is still free for PutIfAbsent.
				if err := s.PutIfAbsent(ctx, key, strings.NewReader("good")); err != nil {
					t.Fatalf("PutIfAbsent after failed put: %v", err)
				}
				// A failed overwrite keeps the old object.
				err = s.Put(ctx, key, &failingReader{n: size, err: errBoom})
				if !errors.Is(err, errBoom) {
					t.Fatalf("overwrite with failing reader = %v, want it to wrap the reader's error", err)
				}
				if got := get(t, s, key); got != "good" {
					t.Fatalf("content after failed overwrite = %q, want %q", got, "good")
				}
			})
		}
	}
	want := []string{}
	for _, size := range []int{0, 100, 2 << 20} {
		for _, ifAbsent := range []bool{false, true} {
			want = append(want, fmt.Sprintf("fail/size%d-ifabsent%v", size, ifAbsent))
		}
	}
	slices.Sort(want)
	if got := listKeys(t, s, objstore.ListOptions{}); !slices.Equal(got, want) {
		t.Fatalf("List = %q, want %q (no partial or temporary objects)", got, want)
	}
}

func testCancelledPut(t *testing.T, h Harness) {
	s := h.Store
	put(t, s, "c/existing", "old")
	for _, tc := range []struct {
		name     string
		key      string
		ifAbsent bool
		midway   bool
	}{
		{"before-new", "c/new1", false, false},
		{"before-new-ifabsent", "c/new2", true, false},
		{"midway-new", "c/new3", false, true},
		{"midway-new-ifabsent", "c/new4", true, true},
		{"before-existing", "c/existing", false, false},
		{"midway-existing", "c/existing", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var r io.Reader
			if tc.midway {
				r = &cancellingReader{cancel: cancel, left: 1 << 20}
			} else {
				cancel()
				r = strings.NewReader("never stored")
			}
			putFn := s.Put
			if tc.ifAbsent {
				putFn = s.PutIfAbsent
			}
			if err := putFn(ctx, tc.key, r); !errors.Is(err, context.Canceled) {
				t.Fatalf("Put with cancelled context = %v, want context.Canceled", err)
			}
			if tc.key == "c/existing" {
				if got := get(t, s, tc.key); got != "old" {
					t.Fatalf("content after cancelled overwrite = %q, want %q", got, "old")
				}
			} else {
				wantNotFound(t, s, tc.key)
			}
		})
	}
	if got := listKeys(t, s, objstore.ListOptions{}); !slices.Equal(got, []string{"c/existing"}) {
		t.Fatalf("List = %q, want only c/existing", got)
	}
}

// WeirdKeys lists keys that are valid but tend to break URL encoding, XML
// escaping or filesystem mapping. Adapters may reuse it in their own tests.
func WeirdKeys() []string {
	long := strings.Repeat("L", 199) + "/" + strings.Repeat("ö", 99) + "/" + strings.Repeat("長", 66) + "/" +
		strings.Repeat("m", 200) + "/"
	long += strings.Repeat("z", 1000-len(long))
	return []string{
		"with space/file name.txt",
		" leading and trailing ",
		"plus+sign+",
		"percent%",
		"pct%20encoded%2Fslash",
		"%41%zz%",
		"unicodé/日本語/ファイル.json",
		"cafe\u0301 and caf\u00e9",
		"emoji/🙂🚀",
		"hash#fragment",
		"question?x=1&y=2",
		"equals=sign/k=v/part=1",
		"amp&lt;gt>quot\"apos'",
		"tilde~back\\slash",
		"brackets[]{}()<>",
		"star*comma,semi;colon:at@dollar$",
		"caret^pipe|backtick`",
		"dots.../...x/x...",
		".hidden/..dotdot",
		"_delta_log/00000000000000000000.json",
		long,
	}
}

func testWeirdKeys(t *testing.T, h Harness) {
	s := h.Store
	ctx := t.Context()
	keys := WeirdKeys()
	if n := len(keys[len(keys)-1]); n != 1000 {
		t.Fatalf("long key is %d bytes, want 1000", n)
	}
	var all []string
	for _, key := range keys {
		put(t, s, key, "content of "+key)
		all = append(all, key)
	}
	for _, key := range keys {
		if got := get(t, s, key); got != "content of "+key {
			t.Errorf("Get(%q) = %q", key, got)
		}
		if info := head(t, s, key); info.Key != key || info.Size != int64(len("content of "+key)) {
			t.Errorf("Head(%q) = %+v", key, info)
		}
		dst := key + ".copy+%20 ü"
		if err := s.Copy(ctx, key, dst); err != nil {
			t.Errorf("Copy(%q, %q): %v", key, dst, err)
			continue
		}
		all = append(all, dst)
		if got := get(t, s, dst); got != "content of "+key {
			t.Errorf("Get(%q) = %q", dst, got)
		}
		if err := s.PutIfAbsent(ctx, key, strings.NewReader("no")); !errors.Is(err, objstore.ErrExists) {
			t.Errorf("PutIfAbsent(%q) on existing = %v, want ErrExists", key, err)
		}
		if got := listKeys(t, s, objstore.ListOptions{Prefix: key}); !slices.Contains(got, key) || !slices.Contains(got, dst) {
			t.Errorf("List(prefix %q) = %q, want it to hold the key and its copy", key, got)
		}
	}
	slices.Sort(all)
	if got := listKeys(t, s, objstore.ListOptions{}); !slices.Equal(got, all) {
		t.Errorf("List =\n %q\nwant\n %q", got, all)
	}
	for i, key := range all {
		if got := listKeys(t, s, objstore.ListOptions{StartAfter: key}); !slices.Equal(got, all[i+1:]) {
			t.Errorf("List(StartAfter %q) = %q, want %q", key, got, all[i+1:])
		}
	}
	for _, key := range all {
		if err := s.Delete(ctx, key); err != nil {
			t.Errorf("Delete(%q): %v", key, err)
		}
		if _, err := s.Head(ctx, key); !errors.Is(err, objstore.ErrNotFound) {
			t.Errorf("Head(%q) after Delete = %v", key, err)
		}
	}
	if got := listKeys(t, s, objstore.ListOptions{}); len(got) != 0 {
		t.Errorf("List after deleting all = %q", got)
	}
}

func testInvalidKeys(t *testing.T, h Harness) {
	s := h.Store
	ctx := t.Context()
	put(t, s, "valid", "v")
	invalid := []string{"", "/a", "a//b", "a/./b", "../x", "a/..", "a/", ".", "..", "/", "a/b/", "\xff\xfe"}
	for _, key := range invalid {
		t.Run(fmt.Sprintf("%q", key), func(t *testing.T) {
			ops := map[string]error{}
			rc, err := s.Get(ctx, key)
			if err == nil {
				rc.Close()
			}
			ops["Get"] = err
			_, ops["Head"] = s.Head(ctx, key)
			ops["Put"] = s.Put(ctx, key, strings.NewReader("x"))
			ops["PutIfAbsent"] = s.PutIfAbsent(ctx, key, strings.NewReader("x"))
			ops["Delete"] = s.Delete(ctx, key)
			ops["Copy src"] = s.Copy(ctx, key, "dst")
			ops["Copy dst"] = s.Copy(ctx, "valid", key)
			for op, err := range ops {
				if !errors.Is(err, objstore.ErrInvalidKey) {
					t.Errorf("%s(%q) = %v, want ErrInvalidKey", op, key, err)
				}
			}
		})
	}
	if got := listKeys(t, s, objstore.ListOptions{}); !slices.Equal(got, []string{"valid"}) {
		t.Fatalf("List = %q, want only %q", got, "valid")
	}
}

func testFolderMarkers(t *testing.T, h Harness) {
	s := h.Store
	ctx := t.Context()
	// Objects whose parents were removed leave no listing entries behind.
	put(t, s, "gone/deep/x", "x")
	if err := s.Delete(ctx, "gone/deep/x"); err != nil {
		t.Fatal(err)
	}
	if got := listKeys(t, s, objstore.ListOptions{}); len(got) != 0 {
		t.Fatalf("List after delete = %q, want nothing", got)
	}
	if h.MakeFolderMarker == nil {
		return
	}
	h.MakeFolderMarker(t, "empty")
	h.MakeFolderMarker(t, "full")
	h.MakeFolderMarker(t, "full/inner")
	put(t, s, "full/inner/obj", "o")
	put(t, s, "full/x", "x")
	want := []string{"full/inner/obj", "full/x"}
	if got := listKeys(t, s, objstore.ListOptions{}); !slices.Equal(got, want) {
		t.Fatalf("List = %q, want %q", got, want)
	}
	if got := listKeys(t, s, objstore.ListOptions{Prefix: "full/"}); !slices.Equal(got, want) {
		t.Fatalf("List(full/) = %q, want %q", got, want)
	}
	if got := listKeys(t, s, objstore.ListOptions{Prefix: "empty"}); len(got) != 0 {
		t.Fatalf("List(empty) = %q, want nothing", got)
	}
	for _, k := range []string{"empty", "full", "full/inner"} {
		wantNotFound(t, s, k)
		if rc, err := s.Get(ctx, k); !errors.Is(err, objstore.ErrNotFound) {
			if err == nil {
				rc.Close()
			}
			t.Fatalf("Get(%q) of a folder marker = %v, want ErrNotFound", k, err)
		}
	}
}
