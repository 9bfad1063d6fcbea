package objstoretest

import (
	"context"
	"slices"
	"testing"

	"github.com/tributary-io/tributary/core/objstore"
)

// RunLevelListerTests checks the objstore.LevelLister and
// objstore.PrefixLister contracts for adapters that implement them (call it
// beside RunConformanceTests).
func RunLevelListerTests(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Helper()
	h := newHarness(t)
	ll, ok := h.Store.(objstore.LevelLister)
	if !ok {
		t.Fatalf("%T does not implement objstore.LevelLister", h.Store)
	}
	for _, k := range []string{"top.json", "a/1.json", "a/2.json", "a/b/3.json", "a b/4.json", "a+b/5.json", "é/6.json", "z/y/x/7.json"} {
		put(t, h.Store, k, k)
	}
	ctx := context.Background()
	tests := []struct {
		prefix       string
		wantObjects  []string
		wantPrefixes []string
	}{
		{"", []string{"top.json"}, []string{"a b/", "a+b/", "a/", "z/", "é/"}},
		{"a/", []string{"a/1.json", "a/2.json"}, []string{"a/b/"}},
		{"a b/", []string{"a b/4.json"}, nil},
		{"z/", nil, []string{"z/y/"}},
		{"missing/", nil, nil},
	}
	for _, tc := range tests {
		objs, prefixes, err := ll.ListLevel(ctx, tc.prefix)
		if err != nil {
			t.Fatalf("ListLevel(%q): %v", tc.prefix, err)
		}
		var keys []string
		for _, o := range objs {
			keys = append(keys, o.Key)
			if o.Size != int64(len(o.Key)) || o.ETag == "" {
				t.Errorf("ListLevel(%q): %s has size %d, etag %q", tc.prefix, o.Key, o.Size, o.ETag)
			}
		}
		if !slices.Equal(keys, tc.wantObjects) || !slices.Equal(prefixes, tc.wantPrefixes) {
			t.Errorf("ListLevel(%q) = %q, %q; want %q, %q", tc.prefix, keys, prefixes, tc.wantObjects, tc.wantPrefixes)
		}
	}
	pl, ok := h.Store.(objstore.PrefixLister)
	if !ok {
		t.Fatalf("%T does not implement objstore.PrefixLister", h.Store)
	}
	for _, tc := range tests {
		prefixes, err := pl.ListPrefixes(ctx, tc.prefix, 0)
		if err != nil {
			t.Fatalf("ListPrefixes(%q): %v", tc.prefix, err)
		}
		if !slices.Equal(prefixes, tc.wantPrefixes) {
			t.Errorf("ListPrefixes(%q) = %q, want %q", tc.prefix, prefixes, tc.wantPrefixes)
		}
	}
	// A bounded call returns a lexical head of the prefixes (at least the
	// entries it had to read), never a prefix out of order.
	all := []string{"a b/", "a+b/", "a/", "z/", "é/"}
	prefixes, err := pl.ListPrefixes(ctx, "", 2)
	if err != nil {
		t.Fatalf("ListPrefixes bounded: %v", err)
	}
	if len(prefixes) == 0 || !slices.Equal(prefixes, all[:len(prefixes)]) {
		t.Errorf("ListPrefixes(\"\", 2) = %q, want a head of %q", prefixes, all)
	}
}
