package localfs_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"

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
				rc, err := s.Get(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("sync=%v size %d %s: read back %d bytes, not the %d put", sync, n, tc.name, len(got), n)
				}
			}
			f.Close()
		}
	}
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
