package objstoretest

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/tributary-io/tributary/core/objstore"
)

// create starts an object at key with the store's objstore.Creator and
// writes content to it in pieces of step bytes.
func create(t *testing.T, cr objstore.Creator, key string, content []byte, step int) objstore.PendingObject {
	t.Helper()
	p, err := cr.Create(t.Context(), key)
	if err != nil {
		t.Fatalf("Create(%q): %v", key, err)
	}
	for b := content; len(b) > 0; {
		n := min(step, len(b))
		if k, err := p.Write(b[:n]); k != n || err != nil {
			p.Abort()
			t.Fatalf("Create(%q): Write = %d, %v, want %d, nil", key, k, err, n)
		}
		b = b[n:]
	}
	return p
}

// testCreate checks the objstore.Creator contract, for a store that has it.
func testCreate(t *testing.T, h Harness) {
	s := h.Store
	cr, ok := s.(objstore.Creator)
	if !ok {
		t.Log("the store is no objstore.Creator: nothing to check")
		return
	}
	ctx := t.Context()

	// Until Commit the key keeps its old object; Commit replaces it.
	put(t, s, "cr/replaced", "old")
	p := create(t, cr, "cr/replaced", []byte("the new content"), 4)
	if got := get(t, s, "cr/replaced"); got != "old" {
		t.Fatalf("Get before Commit = %q, want the old object", got)
	}
	if got := list(t, s, objstore.ListOptions{}); len(got) != 1 || got[0].Key != "cr/replaced" || got[0].Size != 3 {
		t.Fatalf("List before Commit = %+v, want the old object alone", got)
	}
	if err := p.Commit(ctx); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	p.Abort() // does nothing after Commit
	if got := get(t, s, "cr/replaced"); got != "the new content" {
		t.Fatalf("Get after Commit = %q", got)
	}
	if info := head(t, s, "cr/replaced"); info.Size != int64(len("the new content")) || info.ETag == "" {
		t.Fatalf("Head after Commit = %+v", info)
	}
	if _, err := p.Write([]byte("more")); err == nil {
		t.Fatal("Write after Commit succeeded")
	}
	if err := p.Commit(ctx); err == nil {
		t.Fatal("a second Commit succeeded")
	}

	// A new key, in new directories: nothing before Commit, nothing after
	// Abort.
	p = create(t, cr, "cr/new/deep/object", []byte("never published"), 1<<10)
	wantNotFound(t, s, "cr/new/deep/object")
	if got := listKeys(t, s, objstore.ListOptions{Prefix: "cr/new"}); len(got) != 0 {
		t.Fatalf("List of a pending object's directory = %q, want nothing", got)
	}
	p.Abort()
	p.Abort()
	wantNotFound(t, s, "cr/new/deep/object")
	if _, err := p.Write([]byte("x")); err == nil {
		t.Fatal("Write after Abort succeeded")
	}
	if err := p.Commit(ctx); err == nil {
		t.Fatal("Commit after Abort succeeded")
	}
	wantNotFound(t, s, "cr/new/deep/object")

	// An aborted overwrite keeps the old object.
	p = create(t, cr, "cr/replaced", []byte("aborted"), 3)
	p.Abort()
	if got := get(t, s, "cr/replaced"); got != "the new content" {
		t.Fatalf("Get after an aborted overwrite = %q", got)
	}

	// A Commit with a cancelled context publishes nothing.
	for _, key := range []string{"cr/replaced", "cr/cancelled"} {
		c, cancel := context.WithCancel(ctx)
		p = create(t, cr, key, []byte("cancelled"), 5)
		cancel()
		if err := p.Commit(c); !errors.Is(err, context.Canceled) {
			t.Fatalf("Commit(%q) with a cancelled context = %v, want context.Canceled", key, err)
		}
		p.Abort()
	}
	if got := get(t, s, "cr/replaced"); got != "the new content" {
		t.Fatalf("Get after a cancelled Commit = %q", got)
	}
	wantNotFound(t, s, "cr/cancelled")

	// Empty and large objects, written in odd pieces.
	data := make([]byte, 3<<20+17)
	for i := range data {
		data[i] = byte(i*13 + i>>9)
	}
	for _, tc := range []struct {
		key  string
		data []byte
		step int
	}{{"cr/empty", nil, 1}, {"cr/large", data, 65<<10 + 3}, {"cr/bytes", data[:1000], 1}} {
		p := create(t, cr, tc.key, tc.data, tc.step)
		if err := p.Commit(ctx); err != nil {
			t.Fatalf("Commit(%q): %v", tc.key, err)
		}
		if got := get(t, s, tc.key); !bytes.Equal([]byte(got), tc.data) {
			t.Fatalf("Get(%q): %d bytes, not the %d written", tc.key, len(got), len(tc.data))
		}
	}

	// Two pending objects of one key: the last Commit wins.
	a := create(t, cr, "cr/twice", []byte("first"), 2)
	b := create(t, cr, "cr/twice", []byte("second"), 2)
	if err := a.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, "cr/twice"); got != "first" {
		t.Fatalf("Get after the first Commit = %q", got)
	}
	if err := b.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := get(t, s, "cr/twice"); got != "second" {
		t.Fatalf("Get after the second Commit = %q", got)
	}

	want := []string{"cr/bytes", "cr/empty", "cr/large", "cr/replaced", "cr/twice"}
	if got := listKeys(t, s, objstore.ListOptions{}); !slices.Equal(got, want) {
		t.Fatalf("List = %q, want %q (no pending, aborted or temporary objects)", got, want)
	}
}

// testCreateKeys creates objects under the weird keys and refuses the
// invalid ones, for a store that is an objstore.Creator.
func testCreateKeys(t *testing.T, h Harness) {
	s := h.Store
	cr, ok := s.(objstore.Creator)
	if !ok {
		t.Log("the store is no objstore.Creator: nothing to check")
		return
	}
	ctx := t.Context()
	keys := WeirdKeys()
	for _, key := range keys {
		p := create(t, cr, key, []byte("created "+key), 7)
		if err := p.Commit(ctx); err != nil {
			t.Fatalf("Commit(%q): %v", key, err)
		}
		if got := get(t, s, key); got != "created "+key {
			t.Errorf("Get(%q) = %q", key, got)
		}
	}
	for _, key := range []string{"", "/a", "a//b", "a/./b", "../x", "a/..", "a/", ".", "..", "/", "a/b/", "\xff\xfe"} {
		if p, err := cr.Create(ctx, key); !errors.Is(err, objstore.ErrInvalidKey) {
			if err == nil {
				p.Abort()
			}
			t.Errorf("Create(%q) = %v, want ErrInvalidKey", key, err)
		}
	}
	slices.Sort(keys)
	if got := listKeys(t, s, objstore.ListOptions{}); !slices.Equal(got, keys) {
		t.Errorf("List =\n %q\nwant\n %q", got, keys)
	}
}
