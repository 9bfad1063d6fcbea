package localfs_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/infra/localfs"
)

// readWholeAll reads key through ReadWhole with a buffer of size+1 bytes
// (when size >= 0) and then the body it returns, if any: the object's
// bytes, and whether the one read was the whole object.
func readWholeAll(t *testing.T, s *localfs.Store, key string, size int64) ([]byte, bool, error) {
	t.Helper()
	buf := make([]byte, max(size+1, 1))
	n, body, err := s.ReadWhole(context.Background(), key, size, buf)
	if err != nil {
		if body != nil {
			t.Errorf("ReadWhole(%q) returned a body with its error %v", key, err)
		}
		return nil, false, err
	}
	got := append([]byte(nil), buf[:n]...)
	if body == nil {
		return got, true, nil
	}
	defer body.Close()
	rest, err := io.ReadAll(body)
	return append(got, rest...), false, err
}

// TestReadWhole checks ReadWhole against Get, following links and within
// the root: a file read whole when it holds its listed size, streamed
// after the first read when it grew or shrank, and Get's errors.
func TestReadWhole(t *testing.T) {
	data := "{\"a\":1}\n{\"a\":2}\n"
	tests := []struct {
		name    string
		key     string
		listed  int64
		want    string
		whole   bool
		missing bool // objstore.ErrNotFound
		invalid bool // objstore.ErrInvalidKey
	}{
		{name: "as listed", key: "d/a.json", listed: 16, want: data, whole: true},
		{name: "empty", key: "d/empty.json", listed: 0, whole: true},
		{name: "grown", key: "d/a.json", listed: 8, want: data},
		{name: "grown from empty", key: "d/a.json", listed: 0, want: data},
		{name: "shrunk", key: "d/a.json", listed: 20, want: data},
		{name: "shrunk to empty", key: "d/empty.json", listed: 3},
		{name: "unknown size", key: "d/a.json", listed: -1, want: data},
		{name: "through a link", key: "d/link.json", listed: 16, want: data, whole: true},
		{name: "missing", key: "d/nope.json", listed: 4, missing: true},
		{name: "under a file", key: "d/a.json/x", listed: 4, missing: true},
		{name: "a directory", key: "d/sub", listed: 4, missing: true},
		{name: "a directory listed empty", key: "d/sub", listed: 0, missing: true},
		{name: "invalid key", key: "d/../a.json", listed: 4, invalid: true},
	}
	for _, follow := range []bool{true, false} {
		dir := t.TempDir()
		for name, content := range map[string]string{"d/a.json": data, "d/empty.json": ""} {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Mkdir(filepath.Join(dir, "d", "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("a.json", filepath.Join(dir, "d", "link.json")); err != nil {
			t.Fatal(err)
		}
		var opts []localfs.Option
		if follow {
			opts = append(opts, localfs.WithFollowLinks())
		}
		s, err := localfs.New(dir, opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for _, tt := range tests {
			t.Run(tt.name+map[bool]string{true: " following links", false: " within the root"}[follow], func(t *testing.T) {
				got, whole, err := readWholeAll(t, s, tt.key, tt.listed)
				_, gerr := s.Get(context.Background(), tt.key)
				switch {
				case tt.missing || tt.invalid:
					want := objstore.ErrNotFound
					if tt.invalid {
						want = objstore.ErrInvalidKey
					}
					if !errors.Is(err, want) || !errors.Is(gerr, want) {
						t.Fatalf("ReadWhole: %v, Get: %v, want %v", err, gerr, want)
					}
					return
				case err != nil:
					t.Fatal(err)
				}
				if string(got) != tt.want {
					t.Errorf("read %q, want %q", got, tt.want)
				}
				if whole != tt.whole {
					t.Errorf("read whole %v, want %v", whole, tt.whole)
				}
			})
		}
	}
}

// TestReadWholeCancelled: a cancelled context is Get's error.
func TestReadWholeCancelled(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := localfs.New(dir, localfs.WithFollowLinks())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, body, err := s.ReadWhole(ctx, "a", 1, make([]byte, 2)); !errors.Is(err, context.Canceled) || body != nil {
		t.Errorf("ReadWhole with a cancelled context: %v, body %v", err, body)
	}
}

// TestReadWholeBufferTooSmall: a buffer that cannot hold the listed size
// and one more byte gives Get's body, nothing read.
func TestReadWholeBufferTooSmall(t *testing.T) {
	dir := t.TempDir()
	data := strings.Repeat("x", 100)
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := localfs.New(dir, localfs.WithFollowLinks())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, body, err := s.ReadWhole(context.Background(), "a", 100, make([]byte, 100))
	if err != nil || n != 0 || body == nil {
		t.Fatalf("ReadWhole with a buffer of the listed size: n %d, body %v, %v; want Get's body", n, body, err)
	}
	defer body.Close()
	if got, err := io.ReadAll(body); err != nil || string(got) != data {
		t.Errorf("read %q, %v", got, err)
	}
}

// FuzzReadWhole checks ReadWhole against Get for any content and any
// listed size: the same bytes, read whole exactly when the listed size is
// the file's.
func FuzzReadWhole(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n"), int64(8), true)
	f.Add([]byte(""), int64(0), false)
	f.Add([]byte("abc"), int64(2), true)
	f.Add([]byte("abc"), int64(4), false)
	f.Add([]byte("abc"), int64(-1), true)
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
		f.Fatal(err)
	}
	stores := map[bool]*localfs.Store{}
	for _, follow := range []bool{true, false} {
		var opts []localfs.Option
		if follow {
			opts = append(opts, localfs.WithFollowLinks())
		}
		s, err := localfs.New(dir, opts...)
		if err != nil {
			f.Fatal(err)
		}
		defer s.Close()
		stores[follow] = s
	}
	f.Fuzz(func(t *testing.T, data []byte, listed int64, follow bool) {
		listed %= 1 << 20
		if err := os.WriteFile(filepath.Join(dir, "f"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		s := stores[follow]
		got, whole, err := readWholeAll(t, s, "f", listed)
		if err != nil {
			t.Fatal(err)
		}
		rc, err := s.Get(context.Background(), "f")
		if err != nil {
			t.Fatal(err)
		}
		want, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("listed %d: read %q, Get %q", listed, got, want)
		}
		if whole != (listed >= 0 && listed == int64(len(data))) {
			t.Fatalf("listed %d of a %d-byte file: read whole %v", listed, len(data), whole)
		}
	})
}

var _ objstore.WholeReader = (*localfs.Store)(nil)

// BenchmarkReadSmall reads a 1 KiB file of a known size as the decoders
// do: Get and one read of size+1 bytes, or ReadWhole.
func BenchmarkReadSmall(b *testing.B) {
	s, err := localfs.New(b.TempDir(), localfs.WithSync(false), localfs.WithFollowLinks())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	const size = 1 << 10
	if err := s.Put(b.Context(), "bench/object", bytes.NewReader(bytes.Repeat([]byte{'x'}, size))); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, size+1)
	b.Run("get", func(b *testing.B) {
		for b.Loop() {
			rc, err := s.Get(b.Context(), "bench/object")
			if err != nil {
				b.Fatal(err)
			}
			if n, err := rc.Read(buf); n != size || err != nil {
				b.Fatal(n, err)
			}
			rc.Close()
		}
	})
	b.Run("readwhole", func(b *testing.B) {
		for b.Loop() {
			if n, body, err := s.ReadWhole(b.Context(), "bench/object", size, buf); n != size || body != nil || err != nil {
				b.Fatal(n, body, err)
			}
		}
	})
}
