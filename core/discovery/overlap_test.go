package discovery

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/state"
)

// TestRegisterAllOverlap: registering chunks while the next ones are
// listed (overlap, in chunks overlapGrowth times larger after the first,
// up to overlapMax times more while the one before is being registered)
// registers what the serial registration does, counts the same, calls
// flushed once per registered chunk, and returns the
// store's or the listing's error after the chunk in flight is done.
func TestRegisterAllOverlap(t *testing.T) {
	errList := errors.New("listing failed")
	files := func(n, failAt int) iter.Seq2[Found, error] {
		return func(yield func(Found, error) bool) {
			for i := range n {
				if i == failAt {
					yield(Found{}, errList)
					return
				}
				if !yield(Found{File: state.File{Path: fmt.Sprintf("f%04d.json", i), Size: int64(i + 1)}}, nil) {
					return
				}
			}
		}
	}
	for _, c := range []struct {
		name      string
		n, failAt int
		failAfter int // store calls that succeed (0: all)
		wantErr   error
	}{
		{"empty", 0, -1, 0, nil},
		{"partChunk", 3, -1, 0, nil},
		{"exactChunks", 20, -1, 0, nil},
		{"manyChunks", 103, -1, 0, nil},
		{"storeFails", 103, -1, 3, errInjected},
		{"storeFailsSecond", 103, -1, 1, errInjected},
		{"storeFailsFirst", 103, -1, -1, errInjected},
		{"listFails", 103, 57, 0, errList},
	} {
		for _, overlap := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/overlap=%v", c.name, overlap), func(t *testing.T) {
				st := newCountingState()
				st.failAfter = c.failAfter
				if c.failAfter < 0 {
					st.failAfter, st.calls = 1, 1 // the first call already fails
				}
				r := &Registrar{State: st, Stream: "s", ChunkSize: 5}
				flushes := 0
				res, err := r.registerAll(t.Context(), files(c.n, c.failAt), true, overlap, func() error { flushes++; return nil })
				wantErr := c.wantErr
				if overlap && c.failAfter > 0 && st.calls <= c.failAfter {
					// The files filled so few chunks that the store never
					// failed (chunks grow while one is being registered).
					wantErr = nil
				}
				if !errors.Is(err, wantErr) || (wantErr == nil) != (err == nil) {
					t.Fatalf("err %v, want %v (%d store calls)", err, wantErr, st.calls)
				}
				registered := len(st.seen)
				// How many chunks the files filled: with overlap it depends
				// on how far the registration lags the listing.
				most, least := chunksOf(registered, 5, 5), chunksOf(registered, 5, 5)
				if overlap {
					most, least = chunksOf(registered, 5, 5*overlapGrowth), chunksOf(registered, 5, 5*overlapGrowth*overlapMax)
				}
				if res.New != registered || flushes < least || flushes > most {
					t.Fatalf("%+v, %d flushes (want %d to %d); the store registered %d files", res, flushes, least, most, registered)
				}
				var bytes int64
				for p := range st.seen {
					var i int
					fmt.Sscanf(p, "f%04d.json", &i)
					bytes += int64(i + 1)
				}
				if res.Bytes != bytes {
					t.Fatalf("%d bytes counted, %d registered", res.Bytes, bytes)
				}
				if wantErr == nil && (registered != c.n || res.Listed != c.n) {
					t.Fatalf("%+v: %d registered, want %d", res, registered, c.n)
				}
			})
		}
	}
}

// chunksOf is the number of chunks n files fill: the first of first
// files, the others of later.
func chunksOf(n, first, later int) int {
	if n <= 0 {
		return 0
	}
	if n <= first {
		return 1
	}
	return 1 + (n-first+later-1)/later
}

// sizedState records the size of each Register call; the first call
// waits until release is closed (at most 5 s).
type sizedState struct {
	*countingState
	mu      sync.Mutex
	sizes   []int
	release chan struct{}
}

func (s *sizedState) Register(ctx context.Context, stream string, files []state.File, opts state.RegisterOptions) ([]bool, error) {
	s.mu.Lock()
	s.sizes = append(s.sizes, len(files))
	first := len(s.sizes) == 1
	s.mu.Unlock()
	if first {
		select {
		case <-s.release:
		case <-time.After(5 * time.Second): // a registrar that waits for it would never let the listing close it
		}
	}
	return s.countingState.Register(ctx, stream, files, opts)
}

// TestRegisterAllGrowsWhileBehind: while a chunk's registration is under
// way the next chunk takes more files than its size, up to overlapMax
// times it, instead of holding the listing back; later chunks are never
// smaller than the later size but for the last, and every file is
// registered once.
func TestRegisterAllGrowsWhileBehind(t *testing.T) {
	const first, n = 5, 1000
	later := first * overlapGrowth
	most := later * overlapMax
	st := &sizedState{countingState: newCountingState(), release: make(chan struct{})}
	files := func(yield func(Found, error) bool) {
		for i := range n {
			if i == first+most-1 {
				// The second chunk is full to its limit with this file:
				// the first registration may end now.
				close(st.release)
			}
			if !yield(Found{File: state.File{Path: fmt.Sprintf("f%04d.json", i), Size: 1}}, nil) {
				return
			}
		}
	}
	r := &Registrar{State: st, Stream: "s", ChunkSize: first}
	res, err := r.registerAll(t.Context(), files, true, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.New != n || len(st.seen) != n {
		t.Fatalf("%+v; %d registered, want %d", res, len(st.seen), n)
	}
	for p, c := range st.seen {
		if c != 1 {
			t.Fatalf("%s registered %d times", p, c)
		}
	}
	sizes := st.sizes
	if len(sizes) < 3 || sizes[0] != first || sizes[1] != most {
		t.Fatalf("chunk sizes %v, want %d, %d, ...", sizes, first, most)
	}
	sum := 0
	for i, z := range sizes {
		sum += z
		if i > 0 && (z > most || z < later && i < len(sizes)-1) {
			t.Fatalf("chunk sizes %v: chunk %d holds %d (want %d to %d)", sizes, i, z, later, most)
		}
	}
	if sum != n {
		t.Fatalf("chunk sizes %v sum to %d, want %d", sizes, sum, n)
	}
}
