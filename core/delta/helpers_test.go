package delta

import (
	"context"
	"io"
	"iter"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/tributary-io/tributary/core/delta/internal/dirstore"
	"github.com/tributary-io/tributary/core/objstore"
)

// testdataRoot is the shared Delta test tables, beside the repository.
const testdataRoot = "../../../shared/testdata/delta"

func fixture(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(testdataRoot, filepath.FromSlash(rel))
	if _, err := os.Stat(filepath.Join(p, "_delta_log")); err != nil {
		t.Fatalf("fixture %s: %v", rel, err)
	}
	return p
}

func openFixture(t *testing.T, rel string) *Table {
	t.Helper()
	return NewTable(dirstore.New(fixture(t, rel)))
}

// noCheckpoints hides checkpoints and _last_checkpoint, forcing a pure JSON
// replay.
type noCheckpoints struct{ objstore.Store }

func (s noCheckpoints) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if strings.Contains(key, ".checkpoint.") || strings.HasSuffix(key, "_last_checkpoint") {
		return nil, objstore.ErrNotFound
	}
	return s.Store.Get(ctx, key)
}

func (s noCheckpoints) List(ctx context.Context, o objstore.ListOptions) iter.Seq2[objstore.ObjectInfo, error] {
	return func(yield func(objstore.ObjectInfo, error) bool) {
		for info, err := range s.Store.List(ctx, o) {
			if err == nil && (strings.Contains(info.Key, ".checkpoint.") || strings.HasSuffix(info.Key, "_last_checkpoint")) {
				continue
			}
			if !yield(info, err) {
				return
			}
		}
	}
}

// countingStore records the keys read with Get.
type countingStore struct {
	objstore.Store
	mu   sync.Mutex
	gets []string
}

func (s *countingStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	s.mu.Lock()
	s.gets = append(s.gets, key)
	s.mu.Unlock()
	return s.Store.Get(ctx, key)
}

func (s *countingStore) reset() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.gets
	s.gets = nil
	sort.Strings(g)
	return g
}

// parquetRows counts the rows of Parquet files with parquet-go's reader.
func parquetRows(t *testing.T, files ...string) int64 {
	t.Helper()
	var n int64
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			t.Fatalf("open %s: %v", p, err)
		}
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Fatalf("parquet %s: %v", p, err)
		}
		n += pf.NumRows()
		f.Close()
	}
	return n
}

// maxCommitVersion is the highest <v>.json in a log directory, read with
// the os package (independently of the code under test).
func maxCommitVersion(t *testing.T, dir string) int64 {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(dir, "_delta_log"))
	if err != nil {
		t.Fatal(err)
	}
	best := int64(-1)
	for _, e := range ents {
		n := e.Name()
		if len(n) == 25 && strings.HasSuffix(n, ".json") {
			var v int64
			for _, c := range n[:20] {
				v = v*10 + int64(c-'0')
			}
			best = max(best, v)
		}
	}
	return best
}

func paths(s *Snapshot) []string {
	var out []string
	for a := range s.Files() {
		out = append(out, a.Path)
	}
	return out
}
