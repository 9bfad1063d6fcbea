//go:build unix

package localfs_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/tributary-io/tributary/core/formats/fileformat"
	"github.com/tributary-io/tributary/core/formats/jsonfmt/jsonlines"
	"github.com/tributary-io/tributary/infra/localfs"
)

// TestGetMapped gets a file of 256 KiB or more as a fileformat.Mapper
// and SharedMapper: windows at any offset hold the file's bytes (fewer at
// its end, none past it), shared windows stay valid until their own unmap
// (across other mappings and Close), reading on with Seek and Read works
// after mapping, a file read from already is not mapped, and the line
// reader reads it in place, line by line and in shared blocks, to the same
// lines as from memory. A smaller file is a plain *os.File.
func TestGetMapped(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(4, 5))
	var data []byte
	for len(data) < 700_000 {
		data = fmt.Appendf(data, "{\"n\":%d,\"s\":%q}\n", rng.IntN(1e9), bytes.Repeat([]byte{'z'}, rng.IntN(5000)))
	}
	if err := os.WriteFile(filepath.Join(dir, "big.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "small.json"), data[:1000], 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := localfs.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	small, err := s.Get(ctx, "small.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := small.(*os.File); !ok {
		t.Fatalf("Get of a 1000-byte file: %T, want *os.File", small)
	}
	small.Close()

	rc, err := s.Get(ctx, "big.json")
	if err != nil {
		t.Fatal(err)
	}
	if n := fileformat.SizeOf(rc); n != int64(len(data)) {
		t.Fatalf("a mapped file's Size is %d, want %d (fileformat.Sized)", n, len(data))
	}
	m, ok := rc.(fileformat.SharedMapper)
	if !ok {
		t.Fatalf("Get of a %d-byte file: %T, not a fileformat.SharedMapper", len(data), rc)
	}
	size := int64(len(data))
	for _, tc := range []struct {
		off int64
		n   int
	}{{0, 10}, {1, 4096}, {4095, 2}, {4096, 70000}, {123457, 1 << 20}, {size - 3, 10}, {size, 10}, {size + 5000, 10}, {0, 0}} {
		b, err := m.MapAt(tc.off, tc.n)
		if err != nil {
			t.Fatalf("MapAt(%d, %d): %v", tc.off, tc.n, err)
		}
		want := data[min(tc.off, size):min(size, tc.off+int64(tc.n))]
		if !bytes.Equal(b, want) {
			t.Fatalf("MapAt(%d, %d): %d bytes, not the file's %d", tc.off, tc.n, len(b), len(want))
		}
	}
	// Shared windows stay valid across MapAt, Unmap, other shared windows
	// and Close, until their own unmap.
	type shared struct {
		b     []byte
		want  []byte
		unmap func()
	}
	var held []shared
	for _, tc := range []struct {
		off int64
		n   int
	}{{0, 10}, {4095, 5000}, {123457, 1 << 20}, {size - 3, 10}, {size, 10}, {0, 0}} {
		b, unmap, err := m.MapShared(tc.off, tc.n)
		if err != nil {
			t.Fatalf("MapShared(%d, %d): %v", tc.off, tc.n, err)
		}
		held = append(held, shared{b, data[min(tc.off, size):min(size, tc.off+int64(tc.n))], unmap})
		if _, err := m.MapAt(tc.off/2, 100); err != nil {
			t.Fatal(err)
		}
		m.Unmap()
	}
	check := func(when string) {
		for i, h := range held {
			if !bytes.Equal(h.b, h.want) {
				t.Fatalf("shared window %d %s: %d bytes, not the file's %d", i, when, len(h.b), len(h.want))
			}
		}
	}
	check("after MapAt and Unmap")
	held[0].unmap()
	held = held[1:]
	check("after another's unmap")
	if _, err := m.Seek(size-100, io.SeekStart); err != nil {
		t.Fatal(err)
	}

	rest, err := io.ReadAll(m)
	if err != nil || !bytes.Equal(rest, data[size-100:]) {
		t.Fatalf("reading on after mapping: %d bytes, %v", len(rest), err)
	}
	if err := rc.Close(); err != nil {
		t.Fatal(err)
	}
	check("after Close")
	for _, h := range held {
		h.unmap()
		h.unmap() // a second unmap does nothing
	}

	// Read from already: not mapped.
	rc, err = s.Get(ctx, "big.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rc.Read(make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	if _, err := rc.(fileformat.Mapper).MapAt(0, 10); err == nil {
		t.Fatal("MapAt of a file read from already succeeded")
	}
	if _, _, err := rc.(fileformat.SharedMapper).MapShared(0, 10); err == nil {
		t.Fatal("MapShared of a file read from already succeeded")
	}
	rc.Close()

	// The line reader, in place and from memory.
	lines := func(r io.Reader) []string {
		lr, err := jsonlines.New(r, fileformat.TextOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer lr.Release()
		var out []string
		for {
			line, err := lr.Next()
			if errors.Is(err, io.EOF) {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, string(line))
		}
	}
	rc, err = s.Get(ctx, "big.json")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	got, want := lines(rc), lines(bytes.NewReader(data))
	if len(got) != len(want) || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("in place: %d lines, from memory %d (or other lines)", len(got), len(want))
	}

	// Blocks in place (shared windows), released after the file is
	// closed: the same lines.
	rc2, err := s.Get(ctx, "big.json")
	if err != nil {
		t.Fatal(err)
	}
	lr, err := jsonlines.New(rc2, fileformat.TextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]byte
	var releases []func()
	for {
		b, _, release, err := lr.BlockShared(nil, 50_000)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if release == nil {
			t.Fatal("BlockShared of a mapped file: not read in place")
		}
		blocks, releases = append(blocks, b), append(releases, release)
	}
	lr.Release()
	rc2.Close()
	got = got[:0]
	for _, b := range blocks {
		for len(b) > 0 {
			var line []byte
			line, b = jsonlines.Cut(b)
			got = append(got, string(line))
		}
	}
	for _, release := range releases {
		release()
	}
	if len(got) != len(want) || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("blocks in place: %d lines, from memory %d (or other lines)", len(got), len(want))
	}
}
