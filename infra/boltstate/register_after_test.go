package boltstate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

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
