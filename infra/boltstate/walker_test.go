package boltstate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tributary-io/tributary/core/state"
)

// pendingBySeek is Pending as it was before the walker.
func (s *Store) pendingBySeek(stream string, limit int) ([]state.Entry, error) {
	var out []state.Entry
	err := s.view(func(tx *bolt.Tx) error {
		b, err := openStream(tx, stream, false)
		if err != nil || b == nil {
			return err
		}
		c, fc := b.pending.Cursor(), b.files.Cursor()
		for k, _ := c.First(); k != nil && len(out) < limit; k, _ = c.Next() {
			_, path, err := parsePendingKey(k)
			if err != nil {
				return err
			}
			r, err := b.getAt(fc, stream, path)
			if err != nil {
				return err
			}
			e, err := b.entry(path, r)
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// Pending through the walker does what it did with a seek per path, on
// random scripts: registrations (in key order and not, some
// skipped at discovery), claims of random paths in random order (in order,
// reversed, shuffled, with repeats, unknown paths, paths of other batches
// and skipped ones), pending reads of random limits. Two stores on one
// clock run the script, one reading pending files each way; their
// answers, errors and entries must be equal.
func TestWalkerMatchesSeek(t *testing.T) {
	ctx := context.Background()
	for seed := uint64(1); seed <= 25; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		var tick int64
		clock := func() time.Time { return time.Unix(1.7e9, tick) }
		walk, _ := openTemp(t, WithClock(clock))
		seek, _ := openTemp(t, WithClock(clock))
		var known []string
		for step := 0; step < 30; step++ {
			tick += 1000
			switch op := rng.IntN(10); {
			case op < 4: // register
				n := 1 + rng.IntN(40)
				files := make([]state.File, n)
				for i := range files {
					files[i] = state.File{Path: fmt.Sprintf("d%d/f%04d.json", rng.IntN(3), rng.IntN(500)), Size: int64(rng.IntN(1000)), ETag: fmt.Sprint("e", rng.IntN(3))}
				}
				if rng.IntN(2) == 0 {
					slices.SortFunc(files, func(a, b state.File) int { return compareStrings(a.Path, b.Path) })
				}
				for _, f := range files {
					known = append(known, f.Path)
				}
				a, errA := walk.Register(ctx, "s", files, state.RegisterOptions{})
				b, errB := seek.Register(ctx, "s", files, state.RegisterOptions{})
				if !reflect.DeepEqual(a, b) || (errA == nil) != (errB == nil) {
					t.Fatalf("seed %d: register %v %v / %v %v", seed, a, errA, b, errB)
				}
			case op < 5: // skipped at discovery
				f := state.File{Path: fmt.Sprintf("d%d/f%04d.json", rng.IntN(3), rng.IntN(500))}
				known = append(known, f.Path)
				a, errA := walk.RegisterSkipped(ctx, "s", f, "unreadable")
				b, errB := seek.RegisterSkipped(ctx, "s", f, "unreadable")
				if a != b || (errA == nil) != (errB == nil) {
					t.Fatalf("seed %d: register skipped %v %v / %v %v", seed, a, errA, b, errB)
				}
			case op < 8: // claim
				pend, err := seek.pendingBySeek("s", 1+rng.IntN(60))
				if err != nil {
					t.Fatal(err)
				}
				var paths []string
				for _, e := range pend {
					paths = append(paths, e.Path)
				}
				for i := rng.IntN(4); i > 0 && len(known) > 0; i-- {
					paths = append(paths, known[rng.IntN(len(known))]) // claimed, skipped, or repeated
				}
				if rng.IntN(4) == 0 {
					paths = append(paths, fmt.Sprintf("d9/unknown%d", rng.IntN(10)))
				}
				switch rng.IntN(3) {
				case 0:
					slices.Reverse(paths)
				case 1:
					rng.Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
				}
				batch := int64(rng.IntN(6))
				errA := walk.Claim(ctx, "s", batch, paths)
				errB := seek.Claim(ctx, "s", batch, paths)
				if fmt.Sprint(errA) != fmt.Sprint(errB) {
					t.Fatalf("seed %d: claim of %v into %d:\nwalker: %v\nseek:   %v", seed, paths, batch, errA, errB)
				}
			default: // pending
				limit := 1 + rng.IntN(100)
				a, errA := walk.Pending(ctx, "s", limit)
				b, errB := seek.pendingBySeek("s", limit)
				if errA != nil || errB != nil || !(len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)) {
					t.Fatalf("seed %d: pending(%d):\nwalker: %v %v\nseek:   %v %v", seed, limit, a, errA, b, errB)
				}
			}
		}
		var ea, eb []state.Entry
		for e, err := range walk.Entries(ctx, "s") {
			if err != nil {
				t.Fatal(err)
			}
			ea = append(ea, e)
		}
		for e, err := range seek.Entries(ctx, "s") {
			if err != nil {
				t.Fatal(err)
			}
			eb = append(eb, e)
		}
		if !reflect.DeepEqual(ea, eb) {
			t.Fatalf("seed %d: the entries differ:\nwalker: %v\nseek:   %v", seed, ea, eb)
		}
		walk.Close()
		seek.Close()
	}
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
