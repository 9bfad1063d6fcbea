//go:build linux

package streams

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/tributary-io/tributary/core/options"
)

// openUnder lists this process's open descriptors that lead into dir
// (read from /proc/self/fd), as "fd -> target" lines.
func openUnder(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil {
			continue // closed since the listing (the listing's own descriptor)
		}
		if target == dir || strings.HasPrefix(target, dir+string(filepath.Separator)) {
			out = append(out, e.Name()+" -> "+target)
		}
	}
	sort.Strings(out)
	return out
}

// TestCloseReleasesStores: every directory a stream, a reset request or a
// failed Open holds open is released by Close (or release), not left to a
// finalizer. Each case keeps its stream reachable until the descriptors
// are counted, so a collection cannot close them in the test's place.
func TestCloseReleasesStores(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		// open opens something under s and returns what must stay
		// reachable and the function that releases it.
		open func(t *testing.T, s *site) (any, func() error)
	}{
		{"files stream with every local location", func(t *testing.T, s *site) (any, func() error) {
			o := s.opts(map[string]string{
				"badRecordsPath":                         filepath.Join(s.dir, "bad"),
				"cloudFiles.cleanSource":                 "MOVE",
				"cloudFiles.cleanSource.moveDestination": filepath.Join(s.dir, "moved"),
			})
			o.CloudFiles.SchemaLocation = filepath.Join(s.dir, "schemas")
			st, err := Env{TempDir: t.TempDir()}.Open(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Discover(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Engine.RunAvailableNow(ctx, nil); err != nil {
				t.Fatal(err)
			}
			return st, st.Close
		}},
		{"delta source stream", func(t *testing.T, s *site) (any, func() error) {
			s.mustRun(nil) // the source table
			o, err := options.Parse(map[string]string{}, options.Locations{StreamID: "silver", Source: s.table,
				Table: filepath.Join(s.dir, "silver"), CheckpointLocation: filepath.Join(s.dir, "silver-cp"), SourceFormat: "delta"})
			if err != nil {
				t.Fatal(err)
			}
			st, err := Env{TempDir: t.TempDir()}.Open(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := st.Engine.RunAvailableNow(ctx, nil); err != nil {
				t.Fatal(err)
			}
			return st, st.Close
		}},
		{"reset request", func(t *testing.T, s *site) (any, func() error) {
			s.mustRun(nil)
			o := s.opts(nil)
			o.CloudFiles.SchemaLocation = filepath.Join(s.dir, "schemas")
			req, release, err := Env{}.ResetRequest(o, true)
			if err != nil {
				t.Fatal(err)
			}
			return req, release
		}},
		{"open that fails after opening its stores", func(t *testing.T, s *site) (any, func() error) {
			s.mustRun(nil)
			s.table = filepath.Join(s.dir, "other-table") // the checkpoint's identity names the first table
			st, err := Env{TempDir: t.TempDir()}.Open(ctx, s.opts(nil))
			if err == nil {
				t.Fatal("Open of a checkpoint with another table's identity succeeded")
			}
			return st, func() error { return nil }
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t)
			s.file("a.json", `{"id":1}`+"\n")
			keep, release := tc.open(t, s)
			if err := release(); err != nil {
				t.Fatalf("release: %v", err)
			}
			if left := openUnder(t, s.dir); len(left) > 0 {
				t.Errorf("left open after release:\n%s", strings.Join(left, "\n"))
			}
			runtime.KeepAlive(keep)
		})
	}
}
