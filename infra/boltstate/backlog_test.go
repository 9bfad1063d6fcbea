package boltstate

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tributary-io/tributary/core/state"
)

// BenchmarkBacklog reads a batch of 100 pending files and the backlog it
// reports (numFilesOutstanding, numBytesOutstanding: the up to 1,000
// pending files after it), of 5,000 pending: by reading the entries
// (Pending of 1,100) and by counting them (CountPending).
func BenchmarkBacklog(b *testing.B) {
	ctx := context.Background()
	s, err := Open(filepath.Join(b.TempDir(), "state.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	files := make([]state.File, 5000)
	for i := range files {
		files[i] = state.File{Path: fmt.Sprintf("in/dir-%03d/file-%06d.json", i%100, i), Size: int64(1000 + i), ETag: fmt.Sprintf("etag-%d", i), ModTime: time.UnixMilli(int64(i))}
	}
	if _, err := s.Register(ctx, "s", files, state.RegisterOptions{}); err != nil {
		b.Fatal(err)
	}
	b.Run("Pending", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, err := s.Pending(ctx, "s", 1100)
			if err != nil || len(p) != 1100 {
				b.Fatal(len(p), err)
			}
		}
	})
	b.Run("Pending+CountPending", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			p, err := s.Pending(ctx, "s", 100)
			if err != nil || len(p) != 100 {
				b.Fatal(len(p), err)
			}
			if n, _, err := s.CountPending(ctx, "s", 100, 1000); err != nil || n != 1000 {
				b.Fatal(n, err)
			}
		}
	})
}

// CountPending counts what Pending returns after skip (up to limit),
// sizes included, also for index entries written before the index held
// sizes (empty values: the records are read).
func TestCountPendingMatchesPending(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	files := make([]state.File, 40)
	for i := range files {
		files[i] = state.File{Path: fmt.Sprintf("in/f-%03d.json", i), Size: int64(10 + i*i), ETag: "e"}
	}
	if _, err := s.Register(ctx, "s", files[:25], state.RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	// An older release's index entries: no value.
	err := s.db.Update(func(tx *bolt.Tx) error {
		b, err := openStream(tx, "s", false)
		if err != nil {
			return err
		}
		c := b.pending.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			if k[len(k)-1]%2 == 0 {
				if err := b.pending.Put(k, nil); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Register(ctx, "s", files[25:], state.RegisterOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Claim(ctx, "s", 0, []string{files[3].Path, files[30].Path}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ skip, limit int }{{0, 1000}, {0, 10}, {5, 10}, {30, 10}, {37, 10}, {50, 10}, {3, 0}} {
		pending, err := s.Pending(ctx, "s", tc.skip+tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		var wantFiles, wantBytes int64
		for _, e := range pending[min(tc.skip, len(pending)):] {
			wantFiles++
			wantBytes += e.Size
		}
		files, bytes, err := s.CountPending(ctx, "s", tc.skip, tc.limit)
		if err != nil || files != wantFiles || bytes != wantBytes {
			t.Errorf("CountPending(skip %d, limit %d) = %d files, %d bytes (%v); Pending gives %d, %d", tc.skip, tc.limit, files, bytes, err, wantFiles, wantBytes)
		}
	}
	if n, _, err := s.CountPending(ctx, "nope", 0, 10); err != nil || n != 0 {
		t.Fatalf("unknown stream: %d, %v", n, err)
	}
}
