package boltstate

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tributary-io/tributary/core/state"
)

// BenchmarkReopen is a run's start on a long-lived stream's state: Open
// (with its check of every reachable page of the file) and Close of a
// state file holding 100,000 committed files.
func BenchmarkReopen(b *testing.B) {
	ctx := context.Background()
	s, path := openTemp(b)
	const n, chunk = 100000, 10000
	for at := 0; at < n; at += chunk {
		files := make([]state.File, chunk)
		paths := make([]string, chunk)
		for i := range files {
			p := fmt.Sprintf("year=2026/month=%02d/part-%07d.json", (at+i)%12+1, at+i)
			files[i] = state.File{Path: p, Size: 1000, ModTime: time.Unix(1.7e9, int64(at+i))}
			paths[i] = p
		}
		if _, err := s.Register(ctx, "s", files, state.RegisterOptions{}); err != nil {
			b.Fatal(err)
		}
		batch := int64(at / chunk)
		if err := s.Claim(ctx, "s", batch, paths); err != nil {
			b.Fatal(err)
		}
		if err := s.MarkCommitted(ctx, "s", batch, time.Unix(1.7e9, 0)); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
