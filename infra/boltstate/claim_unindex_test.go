package boltstate

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tributary-io/tributary/core/state"
)

// TestClaimUnindexMatchesModel: Claim removes the claimed files from the
// pending index by dropping the whole index when they are every file in
// it (unindex), one key at a time otherwise. Random scripts of
// registrations and claims — every pending file in index order (the
// drop), in another order, a prefix, a random subset, with paths already
// claimed, unknown or skipped at discovery among them — must leave the
// pending files, their count and each file's batch a model of the store
// gives, also after more files are registered into a dropped index and
// after the file is opened again.
func TestClaimUnindexMatchesModel(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 11))
		s, path := openTemp(t)
		batchOf := map[string]int64{} // -1: pending
		var pending []string          // in index order
		skipped := map[string]bool{}
		next, batch := 0, int64(0)
		drops := 0
		check := func(step int) {
			t.Helper()
			p, err := s.Pending(ctx, "st", 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range p {
				got = append(got, e.Path)
			}
			if !slices.Equal(got, pending) {
				t.Fatalf("seed %d step %d: pending %v, want %v", seed, step, got, pending)
			}
			files, _, err := s.CountPending(ctx, "st", 0, 1<<20)
			if err != nil || files != int64(len(pending)) {
				t.Fatalf("seed %d step %d: CountPending %d, %v; want %d", seed, step, files, err, len(pending))
			}
			for p, b := range batchOf {
				e, err := s.Get(ctx, "st", p)
				if err != nil {
					t.Fatal(err)
				}
				if e.BatchID != b {
					t.Fatalf("seed %d step %d: %s in batch %d, want %d", seed, step, p, e.BatchID, b)
				}
			}
		}
		for step := range 40 {
			switch rng.IntN(3) {
			case 0: // a listing's chunk, in key order
				var files []state.File
				for range 1 + rng.IntN(30) {
					next++
					files = append(files, state.File{Path: fmt.Sprintf("p/%05d.json", next), Size: int64(next), ETag: "a"})
				}
				if _, err := s.Register(ctx, "st", files, state.RegisterOptions{}); err != nil {
					t.Fatal(err)
				}
				for _, f := range files {
					batchOf[f.Path] = -1
					pending = append(pending, f.Path)
				}
				if rng.IntN(4) == 0 {
					next++
					p := fmt.Sprintf("p/%05d.json", next)
					if _, err := s.RegisterSkipped(ctx, "st", state.File{Path: p, ETag: "a"}, "unreadable"); err != nil {
						t.Fatal(err)
					}
					skipped[p] = true
				}
				continue
			case 1: // reopen
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				var err error
				if s, err = Open(path); err != nil {
					t.Fatal(err)
				}
				check(step)
				continue
			}
			var paths []string
			switch rng.IntN(4) {
			case 0: // every pending file, in index order: the index is dropped
				paths = slices.Clone(pending)
				drops++
			case 1: // every pending file, in another order
				paths = slices.Clone(pending)
				rng.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
			case 2: // a prefix
				paths = slices.Clone(pending[:rng.IntN(len(pending)+1)])
			case 3: // a random subset
				for _, p := range pending {
					if rng.IntN(2) == 0 {
						paths = append(paths, p)
					}
				}
			}
			// Paths that are not pending: claimed before, unknown, skipped.
			for p, b := range batchOf {
				if b >= 0 && rng.IntN(8) == 0 {
					paths = append(paths, p)
				}
			}
			if rng.IntN(3) == 0 {
				paths = append(paths, "p/unknown.json")
			}
			wantErr := false
			for p := range skipped {
				if rng.IntN(6) == 0 {
					paths = append(paths, p)
					wantErr = true
				}
			}
			claimed := map[string]bool{}
			for _, p := range paths {
				if b, ok := batchOf[p]; ok && b < 0 {
					claimed[p] = true
				} else if ok && b >= 0 {
					wantErr = true // already in a batch
				}
			}
			err := s.Claim(ctx, "st", batch, paths)
			if (err != nil) != wantErr {
				t.Fatalf("seed %d step %d: Claim: %v, want an error %v", seed, step, err, wantErr)
			}
			for p := range claimed {
				batchOf[p] = batch
			}
			pending = slices.DeleteFunc(pending, func(p string) bool { return claimed[p] })
			batch++
			check(step)
		}
		check(-1)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if drops == 0 {
			t.Logf("seed %d: no claim of every pending file", seed)
		}
	}
}

// TestKeySetAddIsFNV1a: keySet hashes as hash/fnv's 64-bit FNV-1a.
func TestKeySetAddIsFNV1a(t *testing.T) {
	for _, k := range []string{"", "a", "p/00001.json", "\x00\x00\x01\x8b\xff"} {
		var s keySet
		s.add([]byte(k))
		h := fnv.New64a()
		h.Write([]byte(k))
		if s.n != 1 || s.sum != h.Sum64() {
			t.Errorf("keySet.add(%q) = %+v, FNV-1a %x", k, s, h.Sum64())
		}
	}
}
