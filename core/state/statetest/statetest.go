// Package statetest provides the conformance suite that every state.Store
// adapter must pass (in the style of gocloud's drivertest).
//
// An adapter's test calls RunConformanceTests with a function that makes a
// fresh, empty store for each subtest:
//
//	func TestConformance(t *testing.T) {
//		statetest.RunConformanceTests(t, func(t *testing.T) statetest.Harness {
//			s := memstate.New()
//			return statetest.NewHarness(s, func() {})
//		})
//	}
//
// The StoreID case makes two fresh stores: their ids must differ.
//
// Stores with the state.PendingRepeater capability (Register may report a
// still-pending path as new again) get either answer from Register for
// still-pending paths, and at least one true among concurrent Register
// calls of one new path; the suite then checks that Pending lists such a
// path once. Stores with the state.FileClaimer capability are also
// checked by the ClaimFiles case (a duplicate hand-over is reported, not
// failed). Every other clause holds for every store.
//
// Besides the clauses written on state.Store, the suite pins down a few
// choices every adapter of this project makes alike:
//   - Pending with limit <= 0 returns no entries.
//   - Claim of a file that is already claimed by (or committed in) another
//     batch leaves the file where it is and returns an error naming the path;
//     the other files of the call are still claimed.
//   - Times round-trip exactly (nanoseconds) except ExpiresAt, which is kept
//     at second precision (DynamoDB TTL is in epoch seconds).
//   - Stores that implement ExpiryReader report the ExpiresAt they stored.
package statetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/state"
)

// Harness gives the suite one store under test.
type Harness interface {
	// Store returns the store under test; it holds no entries when the
	// harness is new.
	Store() state.Store
	// Close releases the store and everything the harness started.
	Close()
}

// ExpiryReader is implemented by stores that can report the expiry
// (RegisterOptions.ExpiresAt) they stored for a file; the suite checks it
// when the store under test implements it.
type ExpiryReader interface {
	// ExpiresAt returns the stored expiry of the file at path, the zero time
	// if none was stored, or an error wrapping state.ErrNotFound.
	ExpiresAt(ctx context.Context, stream, path string) (time.Time, error)
}

// NewHarness returns a Harness serving s and calling cleanup on Close.
func NewHarness(s state.Store, cleanup func()) Harness {
	return &simpleHarness{s: s, cleanup: cleanup}
}

type simpleHarness struct {
	s       state.Store
	cleanup func()
}

func (h *simpleHarness) Store() state.Store { return h.s }

func (h *simpleHarness) Close() {
	if h.cleanup != nil {
		h.cleanup()
	}
}

// LargeCount is the number of files the pagination test registers by
// default; it is larger than any page size the adapters use internally
// (DynamoDB pages of 100 keys or 1000 index entries, bbolt pages of 256, the
// committer's 1000-file batches).
const LargeCount = 2500

// LargeCounter is implemented by harnesses whose store is too slow for
// LargeCount files (emulators answer DynamoDB queries at milliseconds per
// item); such a harness must shrink its store's page sizes accordingly so
// that the test still crosses many pages.
type LargeCounter interface {
	// LargeCount is the number of files the pagination test registers
	// (at least 10).
	LargeCount() int
}

// RunConformanceTests runs the suite; newHarness is called once per subtest
// and must return a harness with a fresh, empty store.
func RunConformanceTests(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, s state.Store)
	}{
		{"RegisterOnce", testRegisterOnce},
		{"RegisterEmpty", testRegisterEmpty},
		{"RegisterDuplicateInOneCall", testRegisterDuplicateInOneCall},
		{"RegisterConcurrent", testRegisterConcurrent},
		{"RegisterOverwrites", testRegisterOverwrites},
		{"RegisterMostlyKnown", testRegisterMostlyKnown},
		{"PendingOrder", testPendingOrder},
		{"PendingLimit", testPendingLimit},
		{"Claim", testClaim},
		{"ClaimOtherBatch", testClaimOtherBatch},
		{"ClaimFiles", testClaimFiles},
		{"MarkCommitted", testMarkCommitted},
		{"MarkSkipped", testMarkSkipped},
		{"MarkSkippedNotInBatch", testMarkSkippedNotInBatch},
		{"MarkSkippedReason", testMarkSkippedReason},
		{"MarkSkippedConcurrent", testMarkSkippedConcurrent},
		{"MarkSkippedOverwrite", testMarkSkippedOverwrite},
		{"RegisterSkipped", testRegisterSkipped},
		{"RegisterSkippedKnownPaths", testRegisterSkippedKnownPaths},
		{"RegisterSkippedThenReadable", testRegisterSkippedThenReadable},
		{"GetNotFound", testGetNotFound},
		{"Entries", testEntries},
		{"EntriesSkipped", testEntriesSkipped},
		{"EntriesEarlyStop", testEntriesEarlyStop},
		{"StreamsIsolated", testStreamsIsolated},
		{"DropStream", testDropStream},
		{"WeirdPaths", testWeirdPaths},
		{"ExpiresAt", testExpiresAt},
		{"Large", nil},   // needs the harness: see below
		{"StoreID", nil}, // needs two harnesses: see below
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			defer h.Close()
			if tc.name == "StoreID" {
				other := newHarness(t)
				defer other.Close()
				testStoreID(t, h.Store(), other.Store())
				return
			}
			if tc.name == "Large" {
				large := LargeCount
				if lc, ok := h.(LargeCounter); ok {
					large = max(lc.LargeCount(), 10)
				}
				testLarge(t, h.Store(), large)
				return
			}
			tc.fn(t, h.Store())
		})
	}
}

const stream = "stream-1"

// file returns a File with a deterministic size, ETag and ModTime.
func file(path string) state.File {
	return state.File{
		Path:    path,
		Size:    int64(len(path)) * 7,
		ETag:    fmt.Sprintf("\"etag-%d\"", len(path)),
		ModTime: time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC),
	}
}

func files(paths ...string) []state.File {
	out := make([]state.File, len(paths))
	for i, p := range paths {
		out[i] = file(p)
	}
	return out
}

func register(t *testing.T, s state.Store, strm string, fs []state.File, opts state.RegisterOptions) []bool {
	t.Helper()
	got, err := s.Register(context.Background(), strm, fs, opts)
	if err != nil {
		t.Fatalf("Register(%q, %d files): %v", strm, len(fs), err)
	}
	if len(got) != len(fs) {
		t.Fatalf("Register(%q, %d files) returned %d results", strm, len(fs), len(got))
	}
	return got
}

func mustGet(t *testing.T, s state.Store, strm, path string) state.Entry {
	t.Helper()
	e, err := s.Get(context.Background(), strm, path)
	if err != nil {
		t.Fatalf("Get(%q, %q): %v", strm, path, err)
	}
	return e
}

func pending(t *testing.T, s state.Store, strm string, limit int) []state.Entry {
	t.Helper()
	es, err := s.Pending(context.Background(), strm, limit)
	if err != nil {
		t.Fatalf("Pending(%q, %d): %v", strm, limit, err)
	}
	return es
}

func claim(t *testing.T, s state.Store, strm string, batch int64, paths ...string) {
	t.Helper()
	if err := s.Claim(context.Background(), strm, batch, paths); err != nil {
		t.Fatalf("Claim(%q, %d, %d paths): %v", strm, batch, len(paths), err)
	}
}

func markCommitted(t *testing.T, s state.Store, strm string, batch int64, at time.Time) {
	t.Helper()
	if err := s.MarkCommitted(context.Background(), strm, batch, at); err != nil {
		t.Fatalf("MarkCommitted(%q, %d): %v", strm, batch, err)
	}
}

func entries(t *testing.T, s state.Store, strm string, states ...state.IngestionState) []state.Entry {
	t.Helper()
	var out []state.Entry
	for e, err := range s.Entries(context.Background(), strm, states...) {
		if err != nil {
			t.Fatalf("Entries(%q, %v): %v", strm, states, err)
		}
		out = append(out, e)
	}
	return out
}

func paths(es []state.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Path
	}
	return out
}

// checkFile compares the File facts of an entry.
func checkFile(t *testing.T, got state.Entry, want state.File) {
	t.Helper()
	if got.Path != want.Path || got.Size != want.Size || got.ETag != want.ETag || !got.ModTime.Equal(want.ModTime) {
		t.Errorf("entry file = {%q %d %q %v}, want {%q %d %q %v}",
			got.Path, got.Size, got.ETag, got.ModTime, want.Path, want.Size, want.ETag, want.ModTime)
	}
}

// checkState compares the protocol facts of an entry; entries that are not
// Skipped must carry no Error.
func checkState(t *testing.T, got state.Entry, st state.IngestionState, batch int64, commit *time.Time) {
	t.Helper()
	if got.State != st || got.BatchID != batch {
		t.Errorf("%q: state %s batch %d, want %s batch %d", got.Path, got.State, got.BatchID, st, batch)
	}
	if st != state.Skipped && got.Error != "" {
		t.Errorf("%q: state %s with Error %q, want no error", got.Path, got.State, got.Error)
	}
	switch {
	case commit == nil && got.CommitTime != nil:
		t.Errorf("%q: CommitTime = %v, want nil", got.Path, *got.CommitTime)
	case commit != nil && got.CommitTime == nil:
		t.Errorf("%q: CommitTime = nil, want %v", got.Path, *commit)
	case commit != nil && !got.CommitTime.Equal(*commit):
		t.Errorf("%q: CommitTime = %v, want %v", got.Path, *got.CommitTime, *commit)
	}
	if got.DiscoveryTime.IsZero() {
		t.Errorf("%q: DiscoveryTime is zero", got.Path)
	}
}

// checkSkipped checks a skipped entry: its batch, commit time and reason.
func checkSkipped(t *testing.T, got state.Entry, batch int64, commit *time.Time, reason string) {
	t.Helper()
	checkState(t, got, state.Skipped, batch, commit)
	if got.Error != reason {
		t.Errorf("%q: Error = %q, want %q", got.Path, got.Error, reason)
	}
}

func markSkipped(t *testing.T, s state.Store, strm string, batch int64, path, reason string) {
	t.Helper()
	if err := s.MarkSkipped(context.Background(), strm, batch, path, reason); err != nil {
		t.Fatalf("MarkSkipped(%q, %d, %q): %v", strm, batch, path, err)
	}
}

// checkDiscoveryOrder fails unless es is sorted by (DiscoveryTime, Path).
func checkDiscoveryOrder(t *testing.T, es []state.Entry) {
	t.Helper()
	for i := 1; i < len(es); i++ {
		a, b := es[i-1], es[i]
		if a.DiscoveryTime.After(b.DiscoveryTime) ||
			(a.DiscoveryTime.Equal(b.DiscoveryTime) && a.Path >= b.Path) {
			t.Fatalf("pending not in discovery order at %d: (%v, %q) before (%v, %q)",
				i, a.DiscoveryTime, a.Path, b.DiscoveryTime, b.Path)
		}
	}
}

func testRegisterOnce(t *testing.T, s state.Store) {
	got := register(t, s, stream, files("a.json", "b.json"), state.RegisterOptions{})
	if !slices.Equal(got, []bool{true, true}) {
		t.Fatalf("first Register = %v, want [true true]", got)
	}
	got = register(t, s, stream, files("a.json", "c.json", "b.json"), state.RegisterOptions{})
	if state.MayRepeatPending(s) {
		// a.json and b.json are still pending: either answer.
		got[0], got[2] = false, false
	}
	if !slices.Equal(got, []bool{false, true, false}) {
		t.Fatalf("second Register = %v, want [false true false]", got)
	}
	for _, p := range []string{"a.json", "b.json", "c.json"} {
		e := mustGet(t, s, stream, p)
		checkFile(t, e, file(p))
		checkState(t, e, state.Pending, -1, nil)
	}
	// A zero ModTime round-trips as zero.
	f := state.File{Path: "zero-mod", Size: 0, ETag: ""}
	if got := register(t, s, stream, []state.File{f}, state.RegisterOptions{}); !got[0] {
		t.Fatalf("Register(zero-mod) = false, want true")
	}
	checkFile(t, mustGet(t, s, stream, "zero-mod"), f)
}

func testRegisterEmpty(t *testing.T, s state.Store) {
	got := register(t, s, stream, nil, state.RegisterOptions{})
	if len(got) != 0 {
		t.Fatalf("Register(nil) = %v, want empty", got)
	}
	if es := entries(t, s, stream); len(es) != 0 {
		t.Fatalf("entries after empty Register = %v", paths(es))
	}
}

func testRegisterDuplicateInOneCall(t *testing.T, s state.Store) {
	got := register(t, s, stream, files("dup", "dup", "other"), state.RegisterOptions{})
	if n := count(got[:2]); n != 1 || !got[2] {
		t.Fatalf("Register(dup, dup, other) = %v, want exactly one of the dups and other", got)
	}
	if es := entries(t, s, stream); !slices.Equal(paths(es), []string{"dup", "other"}) {
		t.Fatalf("entries = %v, want [dup other]", paths(es))
	}
}

// mapSlice maps es by f.
func mapSlice[E, T any](es []E, f func(E) T) []T {
	out := make([]T, len(es))
	for i, e := range es {
		out[i] = f(e)
	}
	return out
}

func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

func testRegisterConcurrent(t *testing.T, s state.Store) {
	for _, tc := range []struct {
		name string
		opts state.RegisterOptions
	}{
		{"plain", state.RegisterOptions{}},
		{"allowOverwrites", state.RegisterOptions{AllowOverwrites: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 16
			path := "concurrent-" + tc.name
			results := make([]bool, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					// Each caller also registers a path of its own.
					fs := []state.File{file(path), file(fmt.Sprintf("%s-own-%02d", path, i))}
					got, err := s.Register(context.Background(), stream, fs, tc.opts)
					errs[i] = err
					if err == nil && len(got) == 2 {
						results[i] = got[0]
						if !got[1] {
							errs[i] = fmt.Errorf("own path %d not registered", i)
						}
					}
				}()
			}
			close(start)
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Fatalf("caller %d: %v", i, err)
				}
			}
			c := count(results)
			if state.MayRepeatPending(s) {
				// The path is pending: at least one caller recorded it.
				if c < 1 {
					t.Fatalf("%d concurrent Register calls reported true for one path, want at least 1", c)
				}
				if ps := pending(t, s, stream, 1000); count(mapSlice(ps, func(e state.Entry) bool { return e.Path == path })) != 1 {
					t.Fatalf("Pending lists %q %d times, want once", path, count(mapSlice(ps, func(e state.Entry) bool { return e.Path == path })))
				}
				return
			}
			if c != 1 {
				t.Fatalf("%d concurrent Register calls reported true for one path, want exactly 1", c)
			}
		})
	}
}

func testRegisterOverwrites(t *testing.T, s state.Store) { registerOverwrites(t, s, false) }

// testRegisterMostlyKnown: the MostlyKnown hint changes nothing but cost:
// the overwrite cases, a new file, a known file, a file skipped at
// discovery and a path twice in one call give the results of a plain
// Register.
func testRegisterMostlyKnown(t *testing.T, s state.Store) {
	registerOverwrites(t, s, true)
	ctx := context.Background()
	register(t, s, stream, files("mk-known.json"), state.RegisterOptions{})
	if _, err := s.RegisterSkipped(ctx, stream, file("mk-skipped.json"), "dangling link"); err != nil {
		t.Fatal(err)
	}
	got := register(t, s, stream, files("mk-known.json", "mk-new.json", "mk-skipped.json", "mk-dup.json", "mk-dup.json"),
		state.RegisterOptions{MostlyKnown: true})
	if state.MayRepeatPending(s) {
		got[0] = false // still pending: either answer
	}
	if !got[1] || !got[2] || got[0] || got[3] == got[4] {
		t.Fatalf("Register(known, new, skipped at discovery, dup, dup; MostlyKnown) = %v, want [false true true] and exactly one of the dups", got)
	}
	for _, p := range []string{"mk-new.json", "mk-skipped.json", "mk-dup.json"} {
		if e := mustGet(t, s, stream, p); e.State != state.Pending {
			t.Errorf("%s is %s after Register, want %s", p, e.State, state.Pending)
		}
	}
	got = register(t, s, stream, files("mk-known.json", "mk-new.json", "mk-skipped.json", "mk-dup.json"),
		state.RegisterOptions{MostlyKnown: true})
	if state.MayRepeatPending(s) {
		// All four are still pending: either answer; claimed, they are known.
		claim(t, s, stream, 7, "mk-known.json", "mk-new.json", "mk-skipped.json", "mk-dup.json")
		got = register(t, s, stream, files("mk-known.json", "mk-new.json", "mk-skipped.json", "mk-dup.json"),
			state.RegisterOptions{MostlyKnown: true})
	}
	if slices.Contains(got, true) {
		t.Fatalf("Register of known files (MostlyKnown) = %v, want all false", got)
	}
}

func registerOverwrites(t *testing.T, s state.Store, mostlyKnown bool) {
	ctx := context.Background()
	commitAt := time.Date(2024, 1, 2, 3, 4, 5, 6, time.UTC)
	changed := func(f state.File) state.File {
		f.ETag += "-v2"
		f.Size += 10
		f.ModTime = f.ModTime.Add(time.Hour)
		return f
	}
	tests := []struct {
		name      string
		committed bool // the first version was ingested before re-registering
		allow     bool
		change    bool
		wantNew   bool
	}{
		{"committed/allow/changed", true, true, true, true},
		{"committed/allow/same", true, true, false, false},
		{"committed/deny/changed", true, false, true, false},
		{"committed/deny/same", true, false, false, false},
		{"pending/allow/changed", false, true, true, true},
		{"pending/allow/same", false, true, false, false},
		{"pending/deny/changed", false, false, true, false},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := fmt.Sprintf("ow-%d-%t.json", i, mostlyKnown)
			orig := file(path)
			register(t, s, stream, []state.File{orig}, state.RegisterOptions{})
			batch := int64(100 + i)
			if tc.committed {
				claim(t, s, stream, batch, path)
				markCommitted(t, s, stream, batch, commitAt)
			}
			before := mustGet(t, s, stream, path)
			again := orig
			if tc.change {
				again = changed(orig)
			}
			got := register(t, s, stream, []state.File{again}, state.RegisterOptions{AllowOverwrites: tc.allow, MostlyKnown: mostlyKnown})
			if !tc.committed && state.MayRepeatPending(s) {
				got[0] = tc.wantNew // still pending: either answer
			}
			if got[0] != tc.wantNew {
				t.Fatalf("re-Register = %v, want %v", got[0], tc.wantNew)
			}
			after := mustGet(t, s, stream, path)
			if !tc.wantNew {
				checkFile(t, after, orig)
				if !after.DiscoveryTime.Equal(before.DiscoveryTime) || after.State != before.State || after.BatchID != before.BatchID {
					t.Fatalf("unchanged entry moved: before %+v after %+v", before, after)
				}
				return
			}
			checkFile(t, after, again)
			checkState(t, after, state.Pending, -1, nil)
			if !after.DiscoveryTime.After(before.DiscoveryTime) {
				t.Errorf("DiscoveryTime %v not after the first one %v", after.DiscoveryTime, before.DiscoveryTime)
			}
			ps := pending(t, s, stream, 1000)
			if !slices.Contains(paths(ps), path) {
				t.Fatalf("reset file %q not pending: %v", path, paths(ps))
			}
			// The reset file is pending again and can be claimed into a new batch.
			if err := s.Claim(ctx, stream, batch+1000, []string{path}); err != nil {
				t.Fatalf("Claim of reset file: %v", err)
			}
			checkState(t, mustGet(t, s, stream, path), state.Claimed, batch+1000, nil)
		})
	}
}

func testPendingOrder(t *testing.T, s state.Store) {
	// Three calls; within a call, stores may give every file the same
	// DiscoveryTime (then Path orders them) or increasing ones.
	calls := [][]string{
		{"z.json", "m.json", "b.json"},
		{"a.json", "y.json"},
		{"c.json"},
	}
	for _, c := range calls {
		register(t, s, stream, files(c...), state.RegisterOptions{})
	}
	got := pending(t, s, stream, 100)
	if len(got) != 6 {
		t.Fatalf("Pending = %v, want 6 entries", paths(got))
	}
	checkDiscoveryOrder(t, got)
	// Files of an earlier call come first.
	pos := map[string]int{}
	for i, e := range got {
		pos[e.Path] = i
	}
	for ci := 1; ci < len(calls); ci++ {
		for _, early := range calls[ci-1] {
			for _, late := range calls[ci] {
				if pos[early] > pos[late] {
					t.Errorf("%q (call %d) after %q (call %d)", early, ci-1, late, ci)
				}
			}
		}
	}
	for _, e := range got {
		checkFile(t, e, file(e.Path))
		checkState(t, e, state.Pending, -1, nil)
	}
}

func testPendingLimit(t *testing.T, s state.Store) {
	var all []string
	for i := range 7 {
		p := fmt.Sprintf("f%02d", i)
		all = append(all, p)
		register(t, s, stream, files(p), state.RegisterOptions{})
	}
	for _, tc := range []struct {
		limit int
		want  []string
	}{
		{0, nil},
		{-1, nil},
		{1, all[:1]},
		{3, all[:3]},
		{7, all},
		{100, all},
	} {
		got := paths(pending(t, s, stream, tc.limit))
		if len(got) == 0 {
			got = nil
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Pending(limit %d) = %v, want %v", tc.limit, got, tc.want)
		}
	}
	if got := pending(t, s, "no-such-stream", 10); len(got) != 0 {
		t.Errorf("Pending of an unknown stream = %v", paths(got))
	}
}

func testClaim(t *testing.T, s state.Store) {
	ctx := context.Background()
	register(t, s, stream, files("a", "b", "c", "d"), state.RegisterOptions{})
	claim(t, s, stream, 0, "a", "c", "unknown")
	if got := paths(pending(t, s, stream, 10)); !slices.Equal(got, []string{"b", "d"}) {
		t.Fatalf("Pending after Claim = %v, want [b d]", got)
	}
	for _, p := range []string{"a", "c"} {
		e := mustGet(t, s, stream, p)
		checkFile(t, e, file(p))
		checkState(t, e, state.Claimed, 0, nil)
	}
	checkState(t, mustGet(t, s, stream, "b"), state.Pending, -1, nil)
	if _, err := s.Get(ctx, stream, "unknown"); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("Claim created the unknown path: Get err = %v", err)
	}
	// Idempotent: the same claim again (and a subset) changes nothing.
	claim(t, s, stream, 0, "a", "c", "unknown")
	claim(t, s, stream, 0, "c")
	checkState(t, mustGet(t, s, stream, "a"), state.Claimed, 0, nil)
	if got := paths(pending(t, s, stream, 10)); !slices.Equal(got, []string{"b", "d"}) {
		t.Fatalf("Pending after repeated Claim = %v, want [b d]", got)
	}
	// No paths: nothing happens.
	claim(t, s, stream, 1)
	// Registering a claimed path again does not make it pending.
	if got := register(t, s, stream, files("a"), state.RegisterOptions{}); got[0] {
		t.Fatalf("Register of a claimed path = true")
	}
	checkState(t, mustGet(t, s, stream, "a"), state.Claimed, 0, nil)
	claim(t, s, stream, 1, "b", "d")
	if got := pending(t, s, stream, 10); len(got) != 0 {
		t.Fatalf("Pending after claiming all = %v", paths(got))
	}
}

func testClaimOtherBatch(t *testing.T, s state.Store) {
	ctx := context.Background()
	register(t, s, stream, files("a", "b", "c"), state.RegisterOptions{})
	claim(t, s, stream, 1, "a")
	claim(t, s, stream, 2, "c")
	markCommitted(t, s, stream, 2, time.Unix(1700000000, 0))
	err := s.Claim(ctx, stream, 3, []string{"a", "b", "c"})
	if err == nil {
		t.Fatalf("Claim into batch 3 of files of batches 1 and 2 succeeded, want an error")
	}
	if !strings.Contains(err.Error(), `"a"`) || !strings.Contains(err.Error(), `"c"`) {
		t.Errorf("Claim error %q does not name the paths \"a\" and \"c\"", err)
	}
	checkState(t, mustGet(t, s, stream, "a"), state.Claimed, 1, nil)
	at := time.Unix(1700000000, 0)
	checkState(t, mustGet(t, s, stream, "c"), state.Committed, 2, &at)
	// The pending file of the same call was claimed.
	checkState(t, mustGet(t, s, stream, "b"), state.Claimed, 3, nil)
}

// testClaimFiles: state.ClaimFiles claims and reports ownership; a store
// with the FileClaimer capability reports a file another batch holds (a
// duplicate hand-over) as not owned, the same way on every replay.
func testClaimFiles(t *testing.T, s state.Store) {
	ctx := context.Background()
	register(t, s, stream, files("a", "b", "c"), state.RegisterOptions{})
	claimFiles := func(batch int64, fs []state.File) []bool {
		t.Helper()
		owned, err := state.ClaimFiles(ctx, s, stream, batch, fs)
		if err != nil {
			t.Fatalf("ClaimFiles(%d): %v", batch, err)
		}
		if len(owned) != len(fs) {
			t.Fatalf("ClaimFiles(%d) = %v for %d files", batch, owned, len(fs))
		}
		return owned
	}
	for range 2 { // a replay agrees
		if got := claimFiles(1, files("a", "b")); !slices.Equal(got, []bool{true, true}) {
			t.Fatalf("ClaimFiles(1, a b) = %v, want [true true]", got)
		}
		checkState(t, mustGet(t, s, stream, "a"), state.Claimed, 1, nil)
		checkFile(t, mustGet(t, s, stream, "b"), file("b"))
	}
	if got := paths(pending(t, s, stream, 10)); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("Pending after ClaimFiles = %v, want [c]", got)
	}
	if _, ok := s.(state.FileClaimer); !ok {
		return
	}
	at := time.Unix(1730000000, 0)
	for i := range 3 { // replays agree, before and after batch 1 commits
		if i == 2 {
			markCommitted(t, s, stream, 1, at)
		}
		if got := claimFiles(2, files("a", "c")); !slices.Equal(got, []bool{false, true}) {
			t.Fatalf("ClaimFiles(2, a c) with a in batch 1 = %v, want [false true]", got)
		}
	}
	checkState(t, mustGet(t, s, stream, "a"), state.Committed, 1, &at)
	checkState(t, mustGet(t, s, stream, "c"), state.Claimed, 2, nil)
	checkFile(t, mustGet(t, s, stream, "c"), file("c"))
	if got := pending(t, s, stream, 10); len(got) != 0 {
		t.Fatalf("Pending = %v, want none", paths(got))
	}
}

func testMarkCommitted(t *testing.T, s state.Store) {
	ctx := context.Background()
	register(t, s, stream, files("a", "b", "c", "d"), state.RegisterOptions{})
	claim(t, s, stream, 1, "a", "b")
	claim(t, s, stream, 2, "c")
	t1 := time.Date(2025, 3, 4, 5, 6, 7, 891011121, time.FixedZone("X", 3600))
	t2 := t1.Add(time.Minute)
	markCommitted(t, s, stream, 1, t1)
	for _, p := range []string{"a", "b"} {
		checkState(t, mustGet(t, s, stream, p), state.Committed, 1, &t1)
	}
	checkState(t, mustGet(t, s, stream, "c"), state.Claimed, 2, nil)
	checkState(t, mustGet(t, s, stream, "d"), state.Pending, -1, nil)
	// A second call keeps the first time.
	markCommitted(t, s, stream, 1, t2)
	checkState(t, mustGet(t, s, stream, "a"), state.Committed, 1, &t1)
	// A replayed Claim after the commit changes nothing.
	claim(t, s, stream, 1, "a", "b")
	checkState(t, mustGet(t, s, stream, "b"), state.Committed, 1, &t1)
	// A batch that claimed nothing can be marked.
	markCommitted(t, s, stream, 9, t2)
	// A file claimed into an already committed batch reports Committed.
	claim(t, s, stream, 9, "d")
	checkState(t, mustGet(t, s, stream, "d"), state.Committed, 9, &t2)
	if got := pending(t, s, stream, 10); len(got) != 0 {
		t.Fatalf("Pending = %v, want none", paths(got))
	}
	if err := s.MarkCommitted(ctx, stream, 2, t2); err != nil {
		t.Fatal(err)
	}
	checkState(t, mustGet(t, s, stream, "c"), state.Committed, 2, &t2)
}

func testMarkSkipped(t *testing.T, s state.Store) {
	ctx := context.Background()
	register(t, s, stream, files("a", "b", "c", "d"), state.RegisterOptions{})
	register(t, s, "other", files("a"), state.RegisterOptions{})
	claim(t, s, stream, 1, "a", "b")
	claim(t, s, "other", 1, "a")
	const why = "gzip: invalid header"
	markSkipped(t, s, stream, 1, "a", why)
	checkSkipped(t, mustGet(t, s, stream, "a"), 1, nil, why)
	checkState(t, mustGet(t, s, stream, "b"), state.Claimed, 1, nil)
	// Another stream's file of the same path and batch is untouched.
	checkState(t, mustGet(t, s, "other", "a"), state.Claimed, 1, nil)
	// Idempotent: a second call keeps the first reason.
	markSkipped(t, s, stream, 1, "a", "a second, different reason")
	checkSkipped(t, mustGet(t, s, stream, "a"), 1, nil, why)
	// Unknown paths and streams.
	for _, tc := range []struct{ stream, path string }{
		{stream, "unknown"},
		{stream, "a/"},
		{"no-such-stream", "a"},
	} {
		err := s.MarkSkipped(ctx, tc.stream, 1, tc.path, why)
		if !errors.Is(err, state.ErrNotFound) {
			t.Errorf("MarkSkipped(%q, %q) err = %v, want ErrNotFound", tc.stream, tc.path, err)
		}
		if _, err := s.Get(ctx, tc.stream, tc.path); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("MarkSkipped created %q in %q: Get err = %v", tc.path, tc.stream, err)
		}
	}
	// The commit of the batch keeps the file skipped and reports its time.
	at := time.Date(2025, 7, 8, 9, 10, 11, 121314151, time.UTC)
	markCommitted(t, s, stream, 1, at)
	checkSkipped(t, mustGet(t, s, stream, "a"), 1, &at, why)
	checkState(t, mustGet(t, s, stream, "b"), state.Committed, 1, &at)
	// A file of an already committed batch can be skipped (a replayed batch).
	markSkipped(t, s, stream, 1, "b", "deleted since discovery")
	checkSkipped(t, mustGet(t, s, stream, "b"), 1, &at, "deleted since discovery")
	// Skipped files never come back as pending, not even after a replayed
	// Claim or Register.
	claim(t, s, stream, 1, "a")
	if got := register(t, s, stream, files("a"), state.RegisterOptions{}); got[0] {
		t.Fatalf("Register of a skipped path = true")
	}
	checkSkipped(t, mustGet(t, s, stream, "a"), 1, &at, why)
	if got := paths(pending(t, s, stream, 10)); !slices.Equal(got, []string{"c", "d"}) {
		t.Fatalf("Pending = %v, want [c d]", got)
	}
	// A Claim into another batch fails for a skipped file, as for a committed one.
	err := s.Claim(ctx, stream, 2, []string{"a", "c"})
	if err == nil || !strings.Contains(err.Error(), `"a"`) {
		t.Fatalf("Claim of a skipped file into batch 2 = %v, want an error naming \"a\"", err)
	}
	checkSkipped(t, mustGet(t, s, stream, "a"), 1, &at, why)
	checkState(t, mustGet(t, s, stream, "c"), state.Claimed, 2, nil)
	// Skipping a file of a batch that is committed later.
	markSkipped(t, s, stream, 2, "c", why)
	checkSkipped(t, mustGet(t, s, stream, "c"), 2, nil, why)
	at2 := at.Add(time.Hour)
	markCommitted(t, s, stream, 2, at2)
	checkSkipped(t, mustGet(t, s, stream, "c"), 2, &at2, why)
	checkState(t, mustGet(t, s, stream, "d"), state.Pending, -1, nil)
}

func testMarkSkippedNotInBatch(t *testing.T, s state.Store) {
	ctx := context.Background()
	register(t, s, stream, files("pend", "claimed", "committed"), state.RegisterOptions{})
	claim(t, s, stream, 1, "claimed")
	claim(t, s, stream, 2, "committed")
	at := time.Unix(1720000000, 0)
	markCommitted(t, s, stream, 2, at)
	for _, tc := range []struct {
		path  string
		batch int64
	}{
		{"pend", 1},
		{"pend", -1},
		{"claimed", 2},
		{"committed", 1},
		{"committed", 3},
	} {
		err := s.MarkSkipped(ctx, stream, tc.batch, tc.path, "reason")
		if err == nil {
			t.Errorf("MarkSkipped(%d, %q) succeeded, want an error", tc.batch, tc.path)
			continue
		}
		if errors.Is(err, state.ErrNotFound) {
			t.Errorf("MarkSkipped(%d, %q) err = %v, want an error other than ErrNotFound", tc.batch, tc.path, err)
		}
		if !strings.Contains(err.Error(), strconv.Quote(tc.path)) {
			t.Errorf("MarkSkipped(%d, %q) err %q does not name the path", tc.batch, tc.path, err)
		}
	}
	checkState(t, mustGet(t, s, stream, "pend"), state.Pending, -1, nil)
	checkState(t, mustGet(t, s, stream, "claimed"), state.Claimed, 1, nil)
	checkState(t, mustGet(t, s, stream, "committed"), state.Committed, 2, &at)
	if got := paths(pending(t, s, stream, 10)); !slices.Equal(got, []string{"pend"}) {
		t.Fatalf("Pending = %v, want [pend]", got)
	}
}

func testMarkSkippedReason(t *testing.T, s state.Store) {
	x := func(n int) string { return strings.Repeat("x", n) }
	tests := []struct {
		name, reason, want string
	}{
		{"short", "open in/a.json.gz: gzip: invalid header", "open in/a.json.gz: gzip: invalid header"},
		{"multiline", "line 1\nline 2\ttab \"quoted\"", "line 1\nline 2\ttab \"quoted\""},
		{"unicode", "Datei fehlt: ümlaut/ß.csv 🙂", "Datei fehlt: ümlaut/ß.csv 🙂"},
		{"exact", x(state.MaxSkipReasonBytes), x(state.MaxSkipReasonBytes)},
		{"long", x(5000), x(state.MaxSkipReasonBytes)},
		// A three-byte rune across the limit is dropped whole.
		{"runeAtLimit", x(state.MaxSkipReasonBytes-1) + "日本", x(state.MaxSkipReasonBytes - 1)},
		{"invalidUTF8", "bad \xff\xfe byte", "bad \uFFFD byte"},
		{"empty", "", "unknown"},
	}
	var ps []string
	for _, tc := range tests {
		ps = append(ps, "reason-"+tc.name)
	}
	register(t, s, stream, files(ps...), state.RegisterOptions{})
	claim(t, s, stream, 4, ps...)
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := state.SkipReason(tc.reason); got != tc.want {
				t.Fatalf("SkipReason(%.40q) = %.40q (%d bytes), want %.40q (%d bytes)", tc.reason, got, len(got), tc.want, len(tc.want))
			}
			markSkipped(t, s, stream, 4, ps[i], tc.reason)
			e := mustGet(t, s, stream, ps[i])
			checkSkipped(t, e, 4, nil, tc.want)
			if len(e.Error) > state.MaxSkipReasonBytes {
				t.Errorf("stored reason is %d bytes, want at most %d", len(e.Error), state.MaxSkipReasonBytes)
			}
		})
	}
}

func testMarkSkippedConcurrent(t *testing.T, s state.Store) {
	const n = 8
	register(t, s, stream, files("contended"), state.RegisterOptions{})
	claim(t, s, stream, 3, "contended")
	reasons := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		reasons[i] = fmt.Sprintf("reason %d", i)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = s.MarkSkipped(context.Background(), stream, 3, "contended", reasons[i])
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("caller %d: %v", i, err)
		}
	}
	e := mustGet(t, s, stream, "contended")
	if !slices.Contains(reasons, e.Error) {
		t.Fatalf("Error = %q, want one of the concurrent reasons", e.Error)
	}
	checkSkipped(t, e, 3, nil, e.Error)
	// Later calls keep the winner.
	markSkipped(t, s, stream, 3, "contended", "late")
	checkSkipped(t, mustGet(t, s, stream, "contended"), 3, nil, e.Error)
}

func testMarkSkippedOverwrite(t *testing.T, s state.Store) {
	ctx := context.Background()
	at := time.Date(2024, 9, 9, 9, 9, 9, 9, time.UTC)
	changed := file("ow.json")
	changed.ETag += "-v2"
	changed.Size++
	register(t, s, stream, files("ow.json"), state.RegisterOptions{})
	claim(t, s, stream, 5, "ow.json")
	markSkipped(t, s, stream, 5, "ow.json", "truncated")
	markCommitted(t, s, stream, 5, at)
	before := mustGet(t, s, stream, "ow.json")
	checkSkipped(t, before, 5, &at, "truncated")
	// Not an allowed overwrite: nothing changes.
	for _, tc := range []struct {
		f    state.File
		opts state.RegisterOptions
	}{
		{file("ow.json"), state.RegisterOptions{AllowOverwrites: true}},
		{changed, state.RegisterOptions{}},
	} {
		if got := register(t, s, stream, []state.File{tc.f}, tc.opts); got[0] {
			t.Fatalf("Register(%+v, %+v) = true, want false", tc.f, tc.opts)
		}
		after := mustGet(t, s, stream, "ow.json")
		checkFile(t, after, file("ow.json"))
		checkSkipped(t, after, 5, &at, "truncated")
	}
	// An allowed overwrite resets the file to pending and clears Error.
	if got := register(t, s, stream, []state.File{changed}, state.RegisterOptions{AllowOverwrites: true}); !got[0] {
		t.Fatalf("allowed overwrite of a skipped file = false, want true")
	}
	e := mustGet(t, s, stream, "ow.json")
	checkFile(t, e, changed)
	checkState(t, e, state.Pending, -1, nil)
	if got := paths(pending(t, s, stream, 10)); !slices.Equal(got, []string{"ow.json"}) {
		t.Fatalf("Pending = %v, want [ow.json]", got)
	}
	if err := s.MarkSkipped(ctx, stream, 5, "ow.json", "stale replay"); err == nil {
		t.Errorf("MarkSkipped by the old batch of a reset file succeeded")
	}
	claim(t, s, stream, 6, "ow.json")
	checkState(t, mustGet(t, s, stream, "ow.json"), state.Claimed, 6, nil)
	// The new version can be skipped in turn.
	markSkipped(t, s, stream, 6, "ow.json", "corrupt again")
	checkSkipped(t, mustGet(t, s, stream, "ow.json"), 6, nil, "corrupt again")
}

func registerSkipped(t *testing.T, s state.Store, strm string, f state.File, reason string) bool {
	t.Helper()
	ok, err := s.RegisterSkipped(context.Background(), strm, f, reason)
	if err != nil {
		t.Fatalf("RegisterSkipped(%q, %q): %v", strm, f.Path, err)
	}
	return ok
}

func testRegisterSkipped(t *testing.T, s state.Store) {
	ctx := context.Background()
	register(t, s, stream, files("a.json", "z.json"), state.RegisterOptions{})
	const why = `symbolic link to "../gone.json" whose target does not exist`
	dangling := file("dangling.json")
	loop := file("dir/loop/") // a directory: discovery records it with its slash
	loop.Size, loop.ETag = 0, ""
	for _, f := range []state.File{dangling, loop, file("caf\uFFFD.json")} {
		if !registerSkipped(t, s, stream, f, why) {
			t.Fatalf("RegisterSkipped(%q) = false for a new path", f.Path)
		}
		e := mustGet(t, s, stream, f.Path)
		checkFile(t, e, f)
		checkSkipped(t, e, -1, nil, why)
	}
	// Idempotent: the first reason is kept.
	if registerSkipped(t, s, stream, dangling, "another reason") {
		t.Fatal("second RegisterSkipped = true")
	}
	checkSkipped(t, mustGet(t, s, stream, "dangling.json"), -1, nil, why)
	// Never pending, listed as skipped.
	if got := paths(pending(t, s, stream, 10)); !slices.Equal(got, []string{"a.json", "z.json"}) {
		t.Fatalf("Pending = %v, want [a.json z.json]", got)
	}
	if got := paths(entries(t, s, stream, state.Skipped)); !slices.Equal(got, []string{"caf\uFFFD.json", "dangling.json", "dir/loop/"}) {
		t.Fatalf("Entries(SKIPPED) = %v", got)
	}
	if got := paths(entries(t, s, stream, state.Pending)); !slices.Equal(got, []string{"a.json", "z.json"}) {
		t.Fatalf("Entries(PENDING) = %v", got)
	}
	if got := paths(entries(t, s, stream)); !slices.Equal(got, []string{"a.json", "caf\uFFFD.json", "dangling.json", "dir/loop/", "z.json"}) {
		t.Fatalf("Entries = %v", got)
	}
	// Claim fails for it (naming it) and still claims the others.
	err := s.Claim(ctx, stream, 1, []string{"a.json", "dangling.json"})
	if err == nil || !strings.Contains(err.Error(), `"dangling.json"`) {
		t.Fatalf("Claim of a file skipped at discovery = %v, want an error naming it", err)
	}
	checkState(t, mustGet(t, s, stream, "a.json"), state.Claimed, 1, nil)
	checkSkipped(t, mustGet(t, s, stream, "dangling.json"), -1, nil, why)
	// It is in no batch: MarkSkipped fails, naming it, and changes nothing.
	for _, b := range []int64{-1, 0, 1} {
		err := s.MarkSkipped(ctx, stream, b, "dangling.json", "other")
		if err == nil || errors.Is(err, state.ErrNotFound) || !strings.Contains(err.Error(), `"dangling.json"`) {
			t.Errorf("MarkSkipped(%d) of a file skipped at discovery = %v, want an error naming it", b, err)
		}
	}
	// A batch commit does not touch it.
	at := time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
	markCommitted(t, s, stream, 1, at)
	checkSkipped(t, mustGet(t, s, stream, "dangling.json"), -1, nil, why)
	// Other streams do not see it.
	if _, err := s.Get(ctx, "other", "dangling.json"); !errors.Is(err, state.ErrNotFound) {
		t.Fatalf("Get in another stream: %v, want ErrNotFound", err)
	}
	// The reason is stored as SkipReason returns it.
	for i, reason := range []string{"", "bad \xff byte", strings.Repeat("é", state.MaxSkipReasonBytes)} {
		p := fmt.Sprintf("reason-%d", i)
		registerSkipped(t, s, stream, file(p), reason)
		checkSkipped(t, mustGet(t, s, stream, p), -1, nil, state.SkipReason(reason))
	}
	if _, err := s.RegisterSkipped(ctx, stream, state.File{}, why); err == nil {
		t.Error("RegisterSkipped of an empty path succeeded")
	}
}

// testRegisterSkippedKnownPaths: RegisterSkipped leaves known paths alone,
// in every state.
func testRegisterSkippedKnownPaths(t *testing.T, s state.Store) {
	register(t, s, stream, files("pend", "claimed", "committed", "skipped"), state.RegisterOptions{})
	claim(t, s, stream, 1, "claimed")
	claim(t, s, stream, 2, "committed", "skipped")
	at := time.Unix(1720000000, 0)
	markCommitted(t, s, stream, 2, at)
	markSkipped(t, s, stream, 2, "skipped", "corrupt")
	for _, p := range []string{"pend", "claimed", "committed", "skipped"} {
		if registerSkipped(t, s, stream, file(p), "dangling") {
			t.Errorf("RegisterSkipped(%q) = true for a known path", p)
		}
	}
	checkState(t, mustGet(t, s, stream, "pend"), state.Pending, -1, nil)
	checkState(t, mustGet(t, s, stream, "claimed"), state.Claimed, 1, nil)
	checkState(t, mustGet(t, s, stream, "committed"), state.Committed, 2, &at)
	checkSkipped(t, mustGet(t, s, stream, "skipped"), 2, &at, "corrupt")
	if got := paths(pending(t, s, stream, 10)); !slices.Equal(got, []string{"pend"}) {
		t.Fatalf("Pending = %v, want [pend]", got)
	}
}

// testRegisterSkippedThenReadable: a file skipped at discovery that becomes
// readable is registered (once) and ingested like any file.
func testRegisterSkippedThenReadable(t *testing.T, s state.Store) {
	for _, opts := range []state.RegisterOptions{{}, {AllowOverwrites: true}} {
		strm := fmt.Sprintf("s-%v", opts.AllowOverwrites)
		f := file("late.json")
		registerSkipped(t, s, strm, f, "dangling")
		skippedAt := mustGet(t, s, strm, "late.json").DiscoveryTime
		if got := register(t, s, strm, []state.File{f, file("other.json")}, opts); !slices.Equal(got, []bool{true, true}) {
			t.Fatalf("%s: Register after RegisterSkipped = %v, want [true true]", strm, got)
		}
		e := mustGet(t, s, strm, "late.json")
		checkState(t, e, state.Pending, -1, nil)
		checkFile(t, e, f)
		if !e.DiscoveryTime.After(skippedAt) {
			t.Errorf("%s: DiscoveryTime %v not after the skip record's %v", strm, e.DiscoveryTime, skippedAt)
		}
		if got := paths(pending(t, s, strm, 10)); !slices.Equal(got, []string{"late.json", "other.json"}) {
			t.Fatalf("%s: Pending = %v", strm, got)
		}
		if got := register(t, s, strm, files("late.json"), opts); got[0] && !state.MayRepeatPending(s) {
			t.Fatalf("%s: second Register = true", strm)
		}
		claim(t, s, strm, 1, "late.json")
		checkState(t, mustGet(t, s, strm, "late.json"), state.Claimed, 1, nil)
		// Once it is known, a new skip record does not replace it.
		if registerSkipped(t, s, strm, f, "dangling again") {
			t.Fatalf("%s: RegisterSkipped of a claimed file = true", strm)
		}
	}
}

func testGetNotFound(t *testing.T, s state.Store) {
	ctx := context.Background()
	register(t, s, stream, files("known"), state.RegisterOptions{})
	for _, tc := range []struct{ stream, path string }{
		{stream, "unknown"},
		{stream, "know"},
		{stream, "known/"},
		{"other-stream", "known"},
	} {
		_, err := s.Get(ctx, tc.stream, tc.path)
		if !errors.Is(err, state.ErrNotFound) {
			t.Errorf("Get(%q, %q) err = %v, want ErrNotFound", tc.stream, tc.path, err)
		}
	}
}

func testEntries(t *testing.T, s state.Store) {
	register(t, s, stream, files("p2", "c1", "k1"), state.RegisterOptions{})
	register(t, s, stream, files("p1", "c2", "k2"), state.RegisterOptions{})
	claim(t, s, stream, 1, "c1", "c2")
	claim(t, s, stream, 2, "k1", "k2")
	at := time.Date(2025, 1, 1, 0, 0, 0, 5, time.UTC)
	markCommitted(t, s, stream, 1, at)
	tests := []struct {
		states []state.IngestionState
		want   []string
	}{
		{nil, []string{"c1", "c2", "k1", "k2", "p1", "p2"}},
		{[]state.IngestionState{state.Pending}, []string{"p1", "p2"}},
		{[]state.IngestionState{state.Claimed}, []string{"k1", "k2"}},
		{[]state.IngestionState{state.Committed}, []string{"c1", "c2"}},
		{[]state.IngestionState{state.Committed, state.Pending}, []string{"c1", "c2", "p1", "p2"}},
		{[]state.IngestionState{state.Pending, state.Claimed, state.Committed}, []string{"c1", "c2", "k1", "k2", "p1", "p2"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.states), func(t *testing.T) {
			got := entries(t, s, stream, tc.states...)
			if !slices.Equal(paths(got), tc.want) {
				t.Fatalf("Entries(%v) = %v, want %v", tc.states, paths(got), tc.want)
			}
			for _, e := range got {
				checkFile(t, e, file(e.Path))
				switch e.Path[0] {
				case 'c':
					checkState(t, e, state.Committed, 1, &at)
				case 'k':
					checkState(t, e, state.Claimed, 2, nil)
				default:
					checkState(t, e, state.Pending, -1, nil)
				}
			}
		})
	}
	if got := entries(t, s, "empty-stream"); len(got) != 0 {
		t.Fatalf("Entries of an unknown stream = %v", paths(got))
	}
}

func testEntriesSkipped(t *testing.T, s state.Store) {
	register(t, s, stream, files("p", "k", "c", "s1", "s2"), state.RegisterOptions{})
	claim(t, s, stream, 1, "c", "s1")
	claim(t, s, stream, 2, "k", "s2")
	markSkipped(t, s, stream, 1, "s1", "reason one")
	markSkipped(t, s, stream, 2, "s2", "reason two")
	at := time.Date(2025, 2, 3, 4, 5, 6, 7, time.UTC)
	markCommitted(t, s, stream, 1, at)
	tests := []struct {
		states []state.IngestionState
		want   []string
	}{
		{nil, []string{"c", "k", "p", "s1", "s2"}},
		{[]state.IngestionState{state.Skipped}, []string{"s1", "s2"}},
		{[]state.IngestionState{state.Committed}, []string{"c"}},
		{[]state.IngestionState{state.Claimed}, []string{"k"}},
		{[]state.IngestionState{state.Pending}, []string{"p"}},
		{[]state.IngestionState{state.Skipped, state.Pending}, []string{"p", "s1", "s2"}},
		{[]state.IngestionState{state.Committed, state.Skipped}, []string{"c", "s1", "s2"}},
		{[]state.IngestionState{state.Claimed, state.Committed, state.Pending}, []string{"c", "k", "p"}},
		{[]state.IngestionState{state.Pending, state.Claimed, state.Committed, state.Skipped}, []string{"c", "k", "p", "s1", "s2"}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.states), func(t *testing.T) {
			got := entries(t, s, stream, tc.states...)
			if !slices.Equal(paths(got), tc.want) {
				t.Fatalf("Entries(%v) = %v, want %v", tc.states, paths(got), tc.want)
			}
			for _, e := range got {
				checkFile(t, e, file(e.Path))
				switch e.Path {
				case "p":
					checkState(t, e, state.Pending, -1, nil)
				case "k":
					checkState(t, e, state.Claimed, 2, nil)
				case "c":
					checkState(t, e, state.Committed, 1, &at)
				case "s1":
					checkSkipped(t, e, 1, &at, "reason one")
				case "s2":
					checkSkipped(t, e, 2, nil, "reason two")
				}
			}
		})
	}
}

func testEntriesEarlyStop(t *testing.T, s state.Store) {
	var ps []string
	for i := range 30 {
		ps = append(ps, fmt.Sprintf("e%03d", i))
	}
	register(t, s, stream, files(ps...), state.RegisterOptions{})
	var got []string
	for e, err := range s.Entries(context.Background(), stream) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Path)
		if len(got) == 3 {
			break
		}
	}
	if !slices.Equal(got, ps[:3]) {
		t.Fatalf("first three entries = %v, want %v", got, ps[:3])
	}
	// The store is still usable after an abandoned iteration.
	claim(t, s, stream, 0, ps[0])
	if n := len(entries(t, s, stream, state.Pending)); n != 29 {
		t.Fatalf("pending entries = %d, want 29", n)
	}
}

func testStreamsIsolated(t *testing.T, s state.Store) {
	// Stream ids that an adapter joining strings naively might confuse.
	streams := []string{"s1", "s1#f", "s1#b", "s", "s1/x", "s2"}
	for _, strm := range streams {
		got := register(t, s, strm, files("shared.json", "only-"+strm), state.RegisterOptions{})
		if !slices.Equal(got, []bool{true, true}) {
			t.Fatalf("Register in %q = %v, want [true true]", strm, got)
		}
	}
	at := time.Unix(1710000000, 42)
	claim(t, s, "s1", 5, "shared.json", "only-s1#f")
	markCommitted(t, s, "s1", 5, at)
	checkState(t, mustGet(t, s, "s1", "shared.json"), state.Committed, 5, &at)
	for _, strm := range streams[1:] {
		checkState(t, mustGet(t, s, strm, "shared.json"), state.Pending, -1, nil)
		if got := paths(entries(t, s, strm)); !slices.Equal(got, []string{"only-" + strm, "shared.json"}) {
			t.Errorf("Entries(%q) = %v", strm, got)
		}
		if got := paths(pending(t, s, strm, 10)); len(got) != 2 {
			t.Errorf("Pending(%q) = %v, want 2 entries", strm, got)
		}
	}
	// The same batch id in another stream has its own commit state.
	claim(t, s, "s2", 5, "shared.json")
	checkState(t, mustGet(t, s, "s2", "shared.json"), state.Claimed, 5, nil)
	if got := paths(pending(t, s, "s1", 10)); !slices.Equal(got, []string{"only-s1"}) {
		t.Errorf("Pending(s1) = %v, want [only-s1]", got)
	}
}

func testDropStream(t *testing.T, s state.Store) {
	ctx := context.Background()
	const n = 60 // more than a DynamoDB BatchWriteItem (25)
	var all []string
	for i := range n {
		all = append(all, fmt.Sprintf("f%03d.json", i))
	}
	at := time.Unix(1710000000, 42)
	// The dropped stream holds files in every state and two committed
	// batches; its neighbours (names an adapter might confuse) hold files too.
	neighbours := []string{"s1#f", "s1#b", "s", "s2"}
	for _, strm := range append([]string{"s1"}, neighbours...) {
		register(t, s, strm, files(all...), state.RegisterOptions{})
		claim(t, s, strm, 0, all[:20]...)
		markCommitted(t, s, strm, 0, at)
	}
	claim(t, s, "s1", 1, all[20:30]...)
	markSkipped(t, s, "s1", 1, all[21], "corrupt")
	markCommitted(t, s, "s1", 1, at)
	claim(t, s, "s1", 2, all[30:40]...)
	registerSkipped(t, s, "s1", file("dangling"), "dangling link")

	dropped, err := s.DropStream(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if dropped != n+1 {
		t.Errorf("DropStream = %d, want %d", dropped, n+1)
	}
	if got := entries(t, s, "s1"); len(got) != 0 {
		t.Fatalf("Entries after DropStream = %v, want none", paths(got))
	}
	if got := pending(t, s, "s1", 1000); len(got) != 0 {
		t.Fatalf("Pending after DropStream = %v, want none", paths(got))
	}
	for _, p := range []string{all[0], all[21], all[35], all[59], "dangling"} {
		if _, err := s.Get(ctx, "s1", p); !errors.Is(err, state.ErrNotFound) {
			t.Errorf("Get(%q) after DropStream: err = %v, want ErrNotFound", p, err)
		}
	}
	for _, strm := range neighbours {
		if got := entries(t, s, strm); len(got) != n {
			t.Errorf("Entries(%q) after dropping s1: %d, want %d", strm, len(got), n)
		}
		checkState(t, mustGet(t, s, strm, all[0]), state.Committed, 0, &at)
		checkState(t, mustGet(t, s, strm, all[59]), state.Pending, -1, nil)
	}

	// The stream starts over: every former path is new, and the reused
	// batch ids carry no commit time of the dropped stream.
	got := register(t, s, "s1", files(all[:5]...), state.RegisterOptions{})
	if count(got) != 5 {
		t.Fatalf("Register after DropStream = %v, want all new", got)
	}
	if got := registerSkipped(t, s, "s1", file("dangling"), "still dangling"); !got {
		t.Errorf("RegisterSkipped after DropStream reported a known path")
	}
	claim(t, s, "s1", 0, all[:2]...)
	checkState(t, mustGet(t, s, "s1", all[0]), state.Claimed, 0, nil)
	at2 := at.Add(time.Hour)
	markCommitted(t, s, "s1", 0, at2)
	checkState(t, mustGet(t, s, "s1", all[1]), state.Committed, 0, &at2)
	if got := paths(pending(t, s, "s1", 10)); !slices.Equal(got, all[2:5]) {
		t.Errorf("Pending after DropStream and a new claim = %v, want %v", got, all[2:5])
	}

	// Idempotent: a second drop, and a drop of an unknown stream.
	if dropped, err := s.DropStream(ctx, "s1"); err != nil || dropped != 6 {
		t.Errorf("second DropStream = %d, %v; want 6, nil", dropped, err)
	}
	for _, strm := range []string{"s1", "never-seen"} {
		if dropped, err := s.DropStream(ctx, strm); err != nil || dropped != 0 {
			t.Errorf("DropStream(%q) of an empty stream = %d, %v; want 0, nil", strm, dropped, err)
		}
	}
	if got := entries(t, s, "s1"); len(got) != 0 {
		t.Errorf("Entries after the second DropStream = %v", paths(got))
	}
}

// WeirdPaths are paths with characters that URL-, key- or separator-based
// encodings tend to mangle, and lengths near S3's 1024-byte key limit.
func WeirdPaths() []string {
	long := strings.Repeat("d/", 400) + strings.Repeat("x", 1000-800-5) + ".json"
	// 1024 bytes with a three-byte rune across byte 1004 (where an index
	// key with a 20-byte prefix must cut).
	uni := strings.Repeat("ü", 491) + strings.Repeat("日", 10) + "e.json"
	uni += strings.Repeat("z", 1024-len(uni))
	return []string{
		"a",
		"a b",
		"a/b",
		"a+b.csv",
		"a%2Fb.csv",
		"100%.json",
		"has space/and+plus/%41.json",
		"#",
		"a#b#f",
		"trailing/",
		"/leading",
		"dir//double",
		"日本語/ファイル.json",
		"ümlaut/ß.csv",
		"emoji/🙂.json",
		"quote\"and'apos",
		"back\\slash",
		"tab\there",
		"?query=1&x=y",
		long,
		long[:len(long)-1],
		uni,
		strings.Repeat("x", 1024),
		strings.Repeat("x", 1020) + "yyyy", // shares 1020 bytes with the one above
	}
}

func testWeirdPaths(t *testing.T, s state.Store) {
	ps := WeirdPaths()
	got := register(t, s, stream, files(ps...), state.RegisterOptions{})
	if count(got) != len(ps) {
		t.Fatalf("Register(weird paths) = %v, want all true", got)
	}
	if got := register(t, s, stream, files(ps...), state.RegisterOptions{}); count(got) != 0 && !state.MayRepeatPending(s) {
		t.Fatalf("second Register(weird paths) = %v, want all false", got)
	}
	for _, p := range ps {
		e := mustGet(t, s, stream, p)
		checkFile(t, e, file(p))
	}
	sorted := slices.Clone(ps)
	sort.Strings(sorted)
	if got := paths(entries(t, s, stream)); !slices.Equal(got, sorted) {
		t.Fatalf("Entries order = %q, want %q", got, sorted)
	}
	pend := pending(t, s, stream, 1000)
	checkDiscoveryOrder(t, pend)
	gotPending := paths(pend)
	sort.Strings(gotPending)
	if !slices.Equal(gotPending, sorted) {
		t.Fatalf("Pending = %q, want every path", paths(pend))
	}
	claim(t, s, stream, 7, ps...)
	if got := pending(t, s, stream, 1000); len(got) != 0 {
		t.Fatalf("Pending after claiming every weird path = %q", paths(got))
	}
	for _, p := range ps {
		checkState(t, mustGet(t, s, stream, p), state.Claimed, 7, nil)
	}
	for _, p := range ps[:len(ps)/2] {
		markSkipped(t, s, stream, 7, p, "cannot read "+p)
	}
	for i, p := range ps {
		if i < len(ps)/2 {
			checkSkipped(t, mustGet(t, s, stream, p), 7, nil, state.SkipReason("cannot read "+p))
		} else {
			checkState(t, mustGet(t, s, stream, p), state.Claimed, 7, nil)
		}
	}
	if got := entries(t, s, stream, state.Skipped); len(got) != len(ps)/2 {
		t.Fatalf("Entries(Skipped) = %d entries, want %d", len(got), len(ps)/2)
	}
}

func testExpiresAt(t *testing.T, s state.Store) {
	ctx := context.Background()
	exp := time.Date(2030, 6, 7, 8, 9, 10, 0, time.UTC)
	register(t, s, stream, files("expiring"), state.RegisterOptions{ExpiresAt: exp})
	register(t, s, stream, files("forever"), state.RegisterOptions{})
	e := mustGet(t, s, stream, "expiring")
	checkFile(t, e, file("expiring"))
	checkState(t, e, state.Pending, -1, nil)
	claim(t, s, stream, 3, "expiring", "forever")
	markCommitted(t, s, stream, 3, exp.Add(-time.Hour))
	if got := entries(t, s, stream, state.Committed); len(got) != 2 {
		t.Fatalf("committed entries = %v, want 2", paths(got))
	}
	// An allowed overwrite stores the new expiry.
	exp2 := exp.Add(48 * time.Hour)
	changed := file("expiring")
	changed.ETag = "v2"
	if got := register(t, s, stream, []state.File{changed}, state.RegisterOptions{AllowOverwrites: true, ExpiresAt: exp2}); !got[0] {
		t.Fatalf("overwrite of expiring = false")
	}
	er, ok := s.(ExpiryReader)
	if !ok {
		return
	}
	for _, tc := range []struct {
		path string
		want time.Time
	}{
		{"expiring", exp2},
		{"forever", time.Time{}},
	} {
		got, err := er.ExpiresAt(ctx, stream, tc.path)
		if err != nil {
			t.Fatalf("ExpiresAt(%q): %v", tc.path, err)
		}
		if got.IsZero() != tc.want.IsZero() || (!got.IsZero() && got.Unix() != tc.want.Unix()) {
			t.Errorf("ExpiresAt(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
	if _, err := er.ExpiresAt(ctx, stream, "unknown"); !errors.Is(err, state.ErrNotFound) {
		t.Errorf("ExpiresAt(unknown) err = %v, want ErrNotFound", err)
	}
}

func testLarge(t *testing.T, s state.Store, large int) {
	// Five Register calls (so discovery order is not path order), then
	// batches of two fifths (1000 of 2500, like the committer's default).
	perCall := (large + 4) / 5
	batchSize := max(large*2/5, 1)
	var all []string
	for i := range large {
		// 7919 is prime, so this permutes [0, large) unless large is a multiple of it.
		all = append(all, fmt.Sprintf("large/part-%05d.json", (i*7919)%large))
	}
	for i := 0; i < len(all); i += perCall {
		chunk := all[i:min(i+perCall, len(all))]
		got := register(t, s, stream, files(chunk...), state.RegisterOptions{})
		if count(got) != len(chunk) {
			t.Fatalf("Register chunk %d: %d new, want %d", i/perCall, count(got), len(chunk))
		}
	}
	full := pending(t, s, stream, large+10)
	if len(full) != large {
		t.Fatalf("Pending(all) = %d entries, want %d", len(full), large)
	}
	checkDiscoveryOrder(t, full)
	// Claim in committer-sized batches, the way the ingest protocol does.
	seen := map[string]bool{}
	var batch int64
	for {
		next := pending(t, s, stream, batchSize)
		if len(next) == 0 {
			break
		}
		want := full[len(seen):min(len(seen)+batchSize, len(full))]
		if !slices.Equal(paths(next), paths(want)) {
			t.Fatalf("batch %d: Pending differs from the full pending order", batch)
		}
		for _, e := range next {
			if seen[e.Path] {
				t.Fatalf("batch %d: %q returned again after Claim", batch, e.Path)
			}
			seen[e.Path] = true
		}
		claim(t, s, stream, batch, paths(next)...)
		markCommitted(t, s, stream, batch, time.Unix(1700000000+batch, 0))
		batch++
	}
	if len(seen) != large || batch != int64((large+batchSize-1)/batchSize) {
		t.Fatalf("claimed %d files in %d batches, want %d", len(seen), batch, large)
	}
	es := entries(t, s, stream)
	if len(es) != large {
		t.Fatalf("Entries = %d, want %d", len(es), large)
	}
	for i, e := range es {
		if i > 0 && es[i-1].Path >= e.Path {
			t.Fatalf("Entries not ordered at %d: %q, %q", i, es[i-1].Path, e.Path)
		}
		if e.State != state.Committed || e.CommitTime == nil || e.CommitTime.Unix() != 1700000000+e.BatchID {
			t.Fatalf("entry %q: state %s batch %d commit %v", e.Path, e.State, e.BatchID, e.CommitTime)
		}
	}
	if n := len(entries(t, s, stream, state.Pending, state.Claimed)); n != 0 {
		t.Fatalf("%d entries still pending or claimed", n)
	}
}

// testStoreID: a non-empty id, the same for every call (concurrent first
// calls included) and unchanged by writes; another fresh store has another.
func testStoreID(t *testing.T, s, other state.Store) {
	ctx := context.Background()
	ids := make([]string, 8)
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i := range ids {
		wg.Go(func() { ids[i], errs[i] = s.StoreID(ctx) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("StoreID: %v", err)
		}
		if ids[i] == "" || ids[i] != ids[0] {
			t.Fatalf("concurrent StoreID calls returned %q, want one non-empty id", ids)
		}
	}
	register(t, s, stream, files("a"), state.RegisterOptions{})
	claim(t, s, stream, 0, "a")
	markCommitted(t, s, stream, 0, time.Unix(1, 0))
	again, err := s.StoreID(ctx)
	if err != nil || again != ids[0] {
		t.Errorf("StoreID after writes = %q, %v; want %q", again, err, ids[0])
	}
	if got := entries(t, s, stream); len(got) != 1 {
		t.Errorf("entries after StoreID = %v, want only a (the identity is not an entry)", paths(got))
	}
	o, err := other.StoreID(ctx)
	if err != nil {
		t.Fatalf("StoreID of another store: %v", err)
	}
	if o == ids[0] {
		t.Errorf("two fresh stores have the same id %q", o)
	}
}
