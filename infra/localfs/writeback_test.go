package localfs_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/infra/localfs"
)

// TestPutWriteback puts files of sizes around the writeback step (the disk
// writes of every 4 MiB are started while the copy goes on) from an
// *os.File and from a plain reader, with and without sync, and reads back
// the same bytes.
func TestPutWriteback(t *testing.T) {
	const step = 4 << 20
	sizes := []int{0, 1, step - 1, step, step + 1, 2*step + 12345}
	src := make([]byte, sizes[len(sizes)-1])
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	ctx := context.Background()
	for _, sync := range []bool{true, false} {
		s, err := localfs.New(t.TempDir(), localfs.WithSync(sync))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for _, n := range sizes {
			want := src[:n]
			f, err := os.CreateTemp(t.TempDir(), "src")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write(want); err != nil {
				t.Fatal(err)
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				name string
				r    io.Reader
			}{{"file", f}, {"reader", bytes.NewReader(want)}} {
				key := "d/" + tc.name
				if err := s.Put(ctx, key, tc.r); err != nil {
					t.Fatalf("sync=%v size %d %s: %v", sync, n, tc.name, err)
				}
				if got := readBack(t, s, key); !bytes.Equal(got, want) {
					t.Fatalf("sync=%v size %d %s: read back %d bytes, not the %d put", sync, n, tc.name, len(got), n)
				}
			}
			f.Close()
		}
	}
}

// readBack returns the object at key.
func readBack(t *testing.T, s *localfs.Store, key string) []byte {
	t.Helper()
	rc, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// BenchmarkPutIfAbsentExists puts an object that exists (with sync): it
// fails without writing a temporary file.
func BenchmarkPutIfAbsentExists(b *testing.B) {
	s, err := localfs.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.PutIfAbsent(ctx, "d/meta", bytes.NewReader([]byte("{}"))); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := s.PutIfAbsent(ctx, "d/meta", bytes.NewReader([]byte("{}"))); !errors.Is(err, objstore.ErrExists) {
			b.Fatalf("put-if-absent of an existing object: %v", err)
		}
	}
}

// TestCreateWriteback writes objects in place (Create) in pieces of odd
// sizes past the writeback step, with and without sync, and commits,
// aborts or cancels them: a committed object reads back the bytes
// written, an aborted or cancelled one leaves nothing (the goroutine that
// starts the disk writes is stopped before the file is synced or closed;
// run with -race).
func TestCreateWriteback(t *testing.T) {
	const step = 4 << 20
	src := make([]byte, 2*step+12345)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range src {
		src[i] = byte(rng.Uint32())
	}
	for _, tc := range []struct {
		name string
		n    int
		end  string // commit, abort or cancel
	}{
		{"empty", 0, "commit"},
		{"below the step", step - 1, "commit"},
		{"at the step", step, "commit"},
		{"two steps and more", len(src), "commit"},
		{"aborted", len(src), "abort"},
		{"cancelled", len(src), "cancel"},
	} {
		for _, sync := range []bool{true, false} {
			s, err := localfs.New(t.TempDir(), localfs.WithSync(sync))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx := context.Background()
			p, err := s.Create(ctx, "d/obj")
			if err != nil {
				t.Fatal(err)
			}
			want := src[:tc.n]
			for rest := want; len(rest) > 0; {
				k := min(len(rest), 1+rng.IntN(3<<20))
				if _, err := p.Write(rest[:k]); err != nil {
					t.Fatalf("%s sync=%v: %v", tc.name, sync, err)
				}
				rest = rest[k:]
			}
			switch tc.end {
			case "commit":
				if err := p.Commit(ctx); err != nil {
					t.Fatalf("%s sync=%v: %v", tc.name, sync, err)
				}
			case "abort":
				p.Abort()
			case "cancel":
				cancelled, cancel := context.WithCancel(ctx)
				cancel()
				if err := p.Commit(cancelled); err == nil {
					t.Fatalf("%s sync=%v: Commit with a cancelled context succeeded", tc.name, sync)
				}
			}
			if tc.end != "commit" {
				if _, err := s.Head(ctx, "d/obj"); !errors.Is(err, objstore.ErrNotFound) {
					t.Fatalf("%s sync=%v: Head after %s: %v, want ErrNotFound", tc.name, sync, tc.end, err)
				}
				continue
			}
			if got := readBack(t, s, "d/obj"); !bytes.Equal(got, want) {
				t.Fatalf("%s sync=%v: read back %d bytes, not the %d written", tc.name, sync, len(got), len(want))
			}
		}
	}
}

// BenchmarkCreateCommit writes a 20 MB object in place in 256 KiB writes
// (as the Parquet writer copies out a row group) and commits it with sync:
// the copy, with the disk writes started every writebackBytes, then the
// fsync, the rename and the directory's fsync.
func BenchmarkCreateCommit(b *testing.B) {
	s, err := localfs.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	piece := make([]byte, 256<<10)
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range piece {
		piece[i] = byte(rng.Uint32())
	}
	ctx := context.Background()
	var copying, committing time.Duration
	for b.Loop() {
		t0 := time.Now()
		p, err := s.Create(ctx, "d/obj")
		if err != nil {
			b.Fatal(err)
		}
		for range 80 {
			if _, err := p.Write(piece); err != nil {
				b.Fatal(err)
			}
		}
		t1 := time.Now()
		if err := p.Commit(ctx); err != nil {
			b.Fatal(err)
		}
		copying += t1.Sub(t0)
		committing += time.Since(t1)
	}
	b.SetBytes(80 << 18)
	b.ReportMetric(float64(copying.Microseconds())/1e3/float64(b.N), "copy-ms/op")
	b.ReportMetric(float64(committing.Microseconds())/1e3/float64(b.N), "commit-ms/op")
}
