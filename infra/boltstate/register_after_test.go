package boltstate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tributary-io/tributary/core/state"
)

// Register does not look up a path after the greatest key of the files
// bucket (it has no record). Random scripts of chunks — runs in key
// order (as a listing registers them), repeats, paths before and between
// known ones, duplicates within a chunk, files skipped at discovery,
// overwrites with a new ETag — must give what a model of the store
// says: which files are new, and a pending list and records to match.
func TestRegisterAfterLastKey(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		s, _ := openTemp(t)
		type rec struct {
			etag    string
			skipped bool
		}
		model := map[string]rec{}
		type pend struct {
			call int // the Register call (its discovery time)
			path string
		}
		var pending []pend
		next := 0 // the next key of the ascending runs
		name := func(i int) string { return fmt.Sprintf("p/%05d.json", i) }
		for step := range 60 {
			allow := rng.IntN(4) == 0
			var files []state.File
			switch n := 1 + rng.IntN(40); rng.IntN(4) {
			case 0, 1: // a listing's chunk: keys after every known one
				for range n {
					next += 1 + rng.IntN(3)
					files = append(files, state.File{Path: name(next), Size: int64(next), ETag: "a"})
				}
			case 2: // anywhere, known or not, with duplicates
				for range n {
					i := rng.IntN(next + 20)
					files = append(files, state.File{Path: name(i), Size: int64(i), ETag: []string{"a", "b"}[rng.IntN(2)]})
				}
				slices.SortFunc(files, func(a, b state.File) int { return rng.IntN(3) - 1 })
			case 3: // skipped at discovery
				i := rng.IntN(next + 20)
				f := state.File{Path: name(i), ETag: "a"}
				added, err := s.RegisterSkipped(ctx, "st", f, "unreadable")
				if err != nil {
					t.Fatal(err)
				}
				_, known := model[f.Path]
				if added != !known {
					t.Fatalf("seed %d step %d: RegisterSkipped(%s) = %v, known %v", seed, step, f.Path, added, known)
				}
				if !known {
					model[f.Path] = rec{etag: "a", skipped: true}
				}
				continue
			}
			got, err := s.Register(ctx, "st", files, state.RegisterOptions{AllowOverwrites: allow, MostlyKnown: rng.IntN(2) == 0})
			if err != nil {
				t.Fatal(err)
			}
			for i, f := range files {
				old, known := model[f.Path]
				want := !known || old.skipped || allow && old.etag != f.ETag
				if got[i] != want {
					t.Fatalf("seed %d step %d: Register(%s, allow %v) new = %v, want %v (known %v %+v)", seed, step, f.Path, allow, got[i], want, known, old)
				}
				if want {
					model[f.Path] = rec{etag: f.ETag}
					pending = slices.DeleteFunc(pending, func(p pend) bool { return p.path == f.Path })
					pending = append(pending, pend{step, f.Path})
				}
			}
		}
		p, err := s.Pending(ctx, "st", 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, e := range p {
			paths = append(paths, e.Path)
			if m := model[e.Path]; e.ETag != m.etag || m.skipped {
				t.Fatalf("seed %d: pending %s has etag %q, model %+v", seed, e.Path, e.ETag, m)
			}
		}
		// The pending index orders by discovery time (one per Register
		// call), then path.
		slices.SortFunc(pending, func(a, b pend) int {
			if a.call != b.call {
				return a.call - b.call
			}
			return strings.Compare(a.path, b.path)
		})
		var want []string
		for _, p := range pending {
			want = append(want, p.path)
		}
		if !slices.Equal(paths, want) {
			t.Fatalf("seed %d: pending %v, want %v", seed, paths, want)
		}
		for path, m := range model {
			e, err := s.Get(ctx, "st", path)
			if err != nil {
				t.Fatalf("seed %d: Get(%s): %v", seed, path, err)
			}
			if e.ETag != m.etag || (e.State == state.Skipped) != m.skipped {
				t.Fatalf("seed %d: Get(%s) = %+v, model %+v", seed, path, e, m)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRegisterFillsAppendedPages: files registered in key order (as a
// listing registers them) and the pending index leave their leaf pages
// nearly full (appendFill), not half empty (bbolt's default split); a
// chunk that puts records between known keys leaves the files bucket's
// pages to bbolt's default.
func TestRegisterFillsAppendedPages(t *testing.T) {
	ctx := context.Background()
	fill := func(s *Store, name []byte) float64 {
		var st bolt.BucketStats
		if err := s.db.View(func(tx *bolt.Tx) error {
			st = tx.Bucket(bucketStreams).Bucket([]byte("st")).Bucket(name).Stats()
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return float64(st.LeafInuse) / float64(st.LeafAlloc)
	}
	files := func(from, n, step int) []state.File {
		var fs []state.File
		for i := range n {
			fs = append(fs, state.File{Path: fmt.Sprintf("p/%06d.json", from+i*step), Size: 1000, ModTime: time.Unix(1.7e9, 0)})
		}
		return fs
	}
	s, _ := openTemp(t)
	defer s.Close()
	for c := range 10 {
		if _, err := s.Register(ctx, "st", files(c*1000, 500, 2), state.RegisterOptions{MostlyKnown: true}); err != nil {
			t.Fatal(err)
		}
	}
	if f, p := fill(s, bucketFiles), fill(s, bucketPending); f < 0.85 || p < 0.85 {
		t.Fatalf("appended in key order: leaf pages %.0f %% (files) and %.0f %% (pending) full, want >= 85 %%", 100*f, 100*p)
	}
	// The odd paths fall between the registered ones.
	s2, _ := openTemp(t)
	defer s2.Close()
	if _, err := s2.Register(ctx, "st", files(0, 5000, 2), state.RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Register(ctx, "st", files(1, 2500, 2), state.RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	if f := fill(s2, bucketFiles); f > 0.8 {
		t.Fatalf("records put between known keys: files leaf pages %.0f %% full, want bbolt's default split", 100*f)
	}
}
