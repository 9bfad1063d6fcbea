package bench

import (
	"context"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/discovery"
	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/boltstate"
	"github.com/tributary-io/tributary/infra/localfs"
	"github.com/tributary-io/tributary/infra/streams"
)

const discoveryFiles = 10_000

// ensureListing returns a cached directory of n tiny files spread over
// 100 date/hour folders, created once (via a temp dir renamed into place).
func ensureListing(tb testing.TB, n int) string {
	tb.Helper()
	cache := cacheDir(tb)
	dir := filepath.Join(cache, fmt.Sprintf("listing-v1-%d", n))
	if _, err := os.Stat(dir); err == nil {
		return dir
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		tb.Fatal(err)
	}
	tmp, err := os.MkdirTemp(cache, ".gen-*")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	for i := range n {
		sub := filepath.Join(tmp, fmt.Sprintf("date=2024-03-%02d", 1+i/100%28), fmt.Sprintf("hour=%02d", i%100%24), fmt.Sprintf("b%02d", i%100/24))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			tb.Fatal(err)
		}
		line := fmt.Appendf(nil, `{"id":%d}`+"\n", i)
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("part-%05d.json", i)), line, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(dir); serr != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// syntheticFiles yields n files as a listing would, without touching disk.
func syntheticFiles(n int) iter.Seq2[discovery.Found, error] {
	mod := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	return func(yield func(discovery.Found, error) bool) {
		for i := range n {
			f := state.File{
				Path:    fmt.Sprintf("date=2024-03-%02d/hour=%02d/part-%05d.json", 1+i/400%28, i/17%24, i),
				Size:    int64(1000 + i%5000),
				ETag:    fmt.Sprintf("%016x", uint64(i)*0x9e3779b97f4a7c15),
				ModTime: mod.Add(time.Duration(i) * time.Second),
			}
			if !yield(discovery.Found{File: f}, nil) {
				return
			}
		}
	}
}

// BenchmarkDiscovery registers 10,000 files into a fresh boltstate file per
// iteration (the embedded mode's state store, opened as the CLI opens it).
//
//   - register:      files from an in-memory listing (state store cost only)
//   - list+register: discovery.List over a localfs directory of 10,000 files
func BenchmarkDiscovery(b *testing.B) {
	listing := ensureListing(b, discoveryFiles)
	src, err := localfs.New(listing)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	cases := []struct {
		name  string
		files func(ctx context.Context) iter.Seq2[discovery.Found, error]
	}{
		{"register", func(context.Context) iter.Seq2[discovery.Found, error] { return syntheticFiles(discoveryFiles) }},
		{"list+register", func(ctx context.Context) iter.Seq2[discovery.Found, error] {
			return discovery.List(ctx, src, discovery.Filter{})
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			root := b.TempDir()
			b.ReportAllocs()
			var elapsed time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				path := filepath.Join(root, fmt.Sprintf("state-%d", i), streams.StateFileName)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					b.Fatal(err)
				}
				st, err := boltstate.Open(path, boltstate.WithLockTimeout(10*time.Second))
				if err != nil {
					b.Fatal(err)
				}
				r := &discovery.Registrar{State: st, Stream: "bench"}
				start := time.Now()
				b.StartTimer()
				res, err := r.RegisterAll(ctx, c.files(ctx))
				b.StopTimer()
				elapsed += time.Since(start)
				if err != nil {
					b.Fatal(err)
				}
				if res.Listed != discoveryFiles || res.New != discoveryFiles {
					b.Fatalf("listed %d, registered %d new; want %d of each", res.Listed, res.New, discoveryFiles)
				}
				pending, err := st.Pending(ctx, "bench", discoveryFiles+1)
				if err != nil {
					b.Fatal(err)
				}
				if len(pending) != discoveryFiles {
					b.Fatalf("%d files pending after registration, want %d", len(pending), discoveryFiles)
				}
				if err := st.Close(); err != nil {
					b.Fatal(err)
				}
				if err := os.RemoveAll(filepath.Dir(path)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(discoveryFiles)*float64(b.N)/elapsed.Seconds(), "files/s")
		})
	}
}
