package discovery

import (
	"errors"
	"fmt"
	"iter"
	"testing"

	"github.com/tributary-io/tributary/core/state"
)

// TestRegisterAllOverlap: registering chunks while the next ones are
// listed (overlap, in chunks overlapGrowth times larger after the first)
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
				if !errors.Is(err, c.wantErr) || (c.wantErr == nil) != (err == nil) {
					t.Fatalf("err %v, want %v", err, c.wantErr)
				}
				registered := len(st.seen)
				later := 5
				if overlap {
					later = 5 * overlapGrowth
				}
				if res.New != registered || flushes != chunksOf(registered, 5, later) {
					t.Fatalf("%+v, %d flushes; the store registered %d files", res, flushes, registered)
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
				if c.wantErr == nil && (registered != c.n || res.Listed != c.n) {
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
