package inboxstate

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/state"
)

// TestClaimTakesRecordsOut: Pending and ClaimFiles read no item; a claim
// deletes the inbox objects it took whole and replaces the one it took
// part of by the records left, so a new process's Pending returns exactly
// the unclaimed files, in discovery order, without reading an item.
func TestClaimTakesRecordsOut(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.store()
	fs := files("tidy/", 10)
	for _, part := range [][]state.File{fs[:5], fs[5:]} {
		if _, err := s.Register(ctx, "s", part, state.RegisterOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Pending(ctx, "s", 1); err != nil { // the legacy check's first use
		t.Fatal(err)
	}
	e.counts.reset()
	ps, err := s.Pending(ctx, "s", 100)
	if err != nil || len(ps) != 10 {
		t.Fatalf("Pending = %v, %v", paths(ps), err)
	}
	// A maxFilesPerTrigger cut inside the second object.
	owned, err := s.ClaimFiles(ctx, "s", 0, entriesFiles(ps[:7]))
	if err != nil || slices.Contains(owned, false) {
		t.Fatalf("ClaimFiles = %v, %v", owned, err)
	}
	if r := e.counts.get("BatchGetItem") + e.counts.get("GetItem") + e.counts.get("Query"); r != 0 {
		t.Fatalf("Pending and ClaimFiles read items %d times, want 0", r)
	}
	if p, d := e.counts.get("PutObject"), e.counts.get("DeleteObject"); p != 1 || d != 2 {
		t.Fatalf("the claim wrote %d and deleted %d inbox objects, want 1 (the records left) and 2", p, d)
	}
	if keys := listInbox(t, e.cp); len(keys) != 1 {
		t.Fatalf("inbox after the claim: %v, want one object", keys)
	}
	if err := s.MarkCommitted(ctx, "s", 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	e.counts.reset()
	for _, p := range []*Store{s, e.store()} {
		got, err := p.Pending(ctx, "s", 100)
		if err != nil || !slices.Equal(paths(got), paths(ps[7:])) {
			t.Fatalf("Pending after the claim = %v, %v; want %v", paths(got), err, paths(ps[7:]))
		}
	}
	if r := e.counts.get("BatchGetItem"); r != 0 {
		t.Fatalf("Pending read items %d times, want 0", r)
	}
	// The replacement keeps the records' facts.
	en, err := e.store().Get(ctx, "s", fs[8].Path)
	if err != nil || en.State != state.Pending || en.Size != fs[8].Size || en.ETag != fs[8].ETag || !en.ModTime.Equal(fs[8].ModTime) {
		t.Fatalf("Get(%s) = %+v, %v", fs[8].Path, en, err)
	}
}

// TestLikelyNew: with the LikelyNew hint Register reads no item and
// records a known file again; the next plan's claim drops it, and the
// inbox is empty afterwards. Without the hint the known file is dropped
// at registration.
func TestLikelyNew(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s := e.store()
	fs := files("new/", 3)
	if _, err := s.Register(ctx, "s", fs[:1], state.RegisterOptions{LikelyNew: true}); err != nil {
		t.Fatal(err)
	}
	ps, err := s.Pending(ctx, "s", 10)
	if err != nil || len(ps) != 1 {
		t.Fatalf("Pending = %v, %v", paths(ps), err)
	}
	if _, err := s.ClaimFiles(ctx, "s", 0, entriesFiles(ps)); err != nil {
		t.Fatal(err)
	}
	if err := s.MarkCommitted(ctx, "s", 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Register(ctx, "s", fs[:1], state.RegisterOptions{}); err != nil || got[0] {
		t.Fatalf("Register(committed) = %v, %v; want false", got, err)
	}
	e.counts.reset()
	// A redelivered event of the committed file, with two new files.
	got, err := s.Register(ctx, "s", fs, state.RegisterOptions{LikelyNew: true})
	if err != nil || !slices.Equal(got, []bool{true, true, true}) {
		t.Fatalf("Register(LikelyNew) = %v, %v; want every file recorded", got, err)
	}
	if r := e.counts.get("BatchGetItem"); r != 0 {
		t.Fatalf("Register(LikelyNew) read items %d times, want 0", r)
	}
	b := e.store() // the commit function: another process
	ps, err = b.Pending(ctx, "s", 10)
	if err != nil || len(ps) != 3 {
		t.Fatalf("Pending = %v, %v", paths(ps), err)
	}
	owned, err := b.ClaimFiles(ctx, "s", 1, entriesFiles(ps))
	if err != nil || !slices.Equal(owned, []bool{false, true, true}) {
		t.Fatalf("ClaimFiles(1) = %v, %v; want the committed file dropped", owned, err)
	}
	if keys := listInbox(t, e.cp); len(keys) != 0 {
		t.Fatalf("inbox after every record was claimed: %v", keys)
	}
	en, err := b.Get(ctx, "s", fs[0].Path)
	if err != nil || en.BatchID != 0 || en.State != state.Committed {
		t.Fatalf("Get = %+v, %v; want committed in batch 0", en, err)
	}
}
