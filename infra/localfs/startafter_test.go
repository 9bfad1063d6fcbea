package localfs_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/infra/localfs"
)

// TestListStartAfterMatchesFullListing checks the name-only fast path of
// listings with StartAfter against the full listing filtered by key, on
// random trees (files, nested directories, Delta-log-like names, names
// around '/' in sort order) and random StartAfter values, with and without
// following links.
func TestListStartAfterMatchesFullListing(t *testing.T) {
	ctx := context.Background()
	segs := []string{"a", "a.b", "a-b", "a0", "b", "00000000000000000001.json", "00000000000000000010.checkpoint.parquet", "_last_checkpoint", "z", "é"}
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 7))
		for _, follow := range []bool{false, true} {
			var opts []localfs.Option
			if follow {
				opts = append(opts, localfs.WithFollowLinks())
			}
			s, err := localfs.New(t.TempDir(), opts...)
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for range 40 {
				depth := 1 + r.IntN(3)
				k := "log/"
				for d := range depth {
					if d > 0 {
						k += "/"
					}
					k += segs[r.IntN(len(segs))]
				}
				if err := s.Put(ctx, k, bytes.NewReader([]byte("x"))); err == nil {
					keys = append(keys, k)
				}
			}
			all := list(t, s, objstore.ListOptions{Prefix: "log/"})
			for range 20 {
				after := "log/"
				if len(all) > 0 && r.IntN(3) > 0 {
					after = all[r.IntN(len(all))]
					if r.IntN(2) == 0 {
						after = after[:1+r.IntN(len(after))]
					}
				}
				var want []string
				for _, k := range all {
					if k > after {
						want = append(want, k)
					}
				}
				got := list(t, s, objstore.ListOptions{Prefix: "log/", StartAfter: after})
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d follow %v StartAfter %q:\n got %q\nwant %q", seed, follow, after, got, want)
				}
			}
			s.Close()
		}
	}
}

func list(t *testing.T, s objstore.Store, o objstore.ListOptions) []string {
	t.Helper()
	var out []string
	for info, err := range s.List(context.Background(), o) {
		if err != nil {
			t.Fatal(fmt.Errorf("list %+v: %w", o, err))
		}
		out = append(out, info.Key)
	}
	return out
}
