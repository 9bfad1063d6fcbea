package prefetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// store is a Getter over a map that records each Get, can fail keys and
// tracks the bodies it handed out that are still open.
type store struct {
	mu      sync.Mutex
	objs    map[string]string
	fail    map[string]int // key -> number of Gets that fail
	gets    []string
	open    int
	gate    chan struct{} // when set, Gets wait for it
	dirFile string        // when set, Gets of this key return an *os.File
}

var errBoom = errors.New("boom")

type body struct {
	*strings.Reader
	s      *store
	closed bool
}

func (b *body) Close() error {
	b.s.mu.Lock()
	defer b.s.mu.Unlock()
	if !b.closed {
		b.closed = true
		b.s.open--
	}
	return nil
}

func (s *store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if s.gate != nil {
		select {
		case <-s.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gets = append(s.gets, key)
	if s.fail[key] > 0 {
		s.fail[key]--
		return nil, fmt.Errorf("get %s: %w", key, errBoom)
	}
	if key == s.dirFile && key != "" {
		return os.Open(key)
	}
	v, ok := s.objs[key]
	if !ok {
		return nil, fmt.Errorf("get %s: not found", key)
	}
	s.open++
	return &body{Reader: strings.NewReader(v), s: s}, nil
}

func (s *store) count(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, g := range s.gets {
		if g == key {
			n++
		}
	}
	return n
}

func newStore(n int) (*store, []Object) {
	s := &store{objs: map[string]string{}, fail: map[string]int{}}
	objs := make([]Object, n)
	for i := range n {
		k := fmt.Sprintf("f%02d", i)
		s.objs[k] = strings.Repeat(k, i+1)
		objs[i] = Object{Key: k, Size: int64(len(s.objs[k]))}
	}
	return s, objs
}

func read(t *testing.T, f *Fetcher, key string) (string, error) {
	t.Helper()
	rc, err := f.Get(context.Background(), key)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("read %s: %v", key, err)
	}
	return string(b), nil
}

func TestFetcher(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		opts  Options
		fail  map[string]int
		reads []string // keys read, in this order
		// wantGets is the number of Gets of each key read (default 1).
		wantGets map[string]int
		wantErr  map[int]bool // by index in reads
	}{
		{name: "in order", n: 20, reads: keys(0, 20)},
		{name: "in order, fetching disabled", n: 5, opts: Options{Ahead: -1}, reads: keys(0, 5)},
		{name: "one ahead", n: 5, opts: Options{Ahead: 1}, reads: keys(0, 5)},
		{name: "a key read twice is read again directly", n: 4, reads: []string{"f00", "f01", "f01", "f02", "f03"},
			wantGets: map[string]int{"f01": 2}},
		{name: "skipping keys gives them up", n: 12, reads: []string{"f00", "f05", "f11"}},
		{name: "out of order: earlier keys read directly", n: 6, reads: []string{"f03", "f00", "f01", "f04", "f05"},
			wantGets: map[string]int{"f00": 2, "f01": 2}},
		{name: "a failed fetch ahead is the reader's error", n: 4, fail: map[string]int{"f02": 1},
			reads: keys(0, 4), wantErr: map[int]bool{2: true}},
		{name: "read again after a failed fetch: direct", n: 4, fail: map[string]int{"f02": 1},
			reads: []string{"f00", "f01", "f02", "f02", "f03"}, wantGets: map[string]int{"f02": 2}, wantErr: map[int]bool{2: true}},
		{name: "a key not in the list is read directly", n: 3, reads: []string{"f00", "zz", "f01", "f02"}},
		{name: "larger than small: streamed", n: 6, opts: Options{Small: 4}, reads: keys(0, 6)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, objs := newStore(tt.n)
			s.objs["zz"] = "zz"
			for k, v := range tt.fail {
				s.fail[k] = v
			}
			f := New(context.Background(), s, objs, tt.opts)
			for i, k := range tt.reads {
				got, err := read(t, f, k)
				if tt.wantErr[i] {
					if !errors.Is(err, errBoom) {
						t.Fatalf("Get(%s) = %v, want the store's error", k, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("Get(%s): %v", k, err)
				}
				if got != s.objs[k] {
					t.Fatalf("Get(%s) = %q, want %q", k, got, s.objs[k])
				}
			}
			f.Close()
			for _, k := range tt.reads {
				want := 1
				if w, ok := tt.wantGets[k]; ok {
					want = w
				}
				if got := s.count(k); got != want {
					t.Errorf("%s fetched %d times, want %d (gets %v)", k, got, want, s.gets)
				}
			}
			if s.open != 0 {
				t.Errorf("%d bodies left open after Close", s.open)
			}
		})
	}
}

func keys(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("f%02d", i))
	}
	return out
}

// TestFetchesAhead checks that the next objects are requested before the
// reader asks for them, at most Ahead past the reader.
func TestFetchesAhead(t *testing.T) {
	s, objs := newStore(10)
	f := New(context.Background(), s, objs, Options{Ahead: 3})
	defer f.Close()
	if _, err := read(t, f, "f00"); err != nil {
		t.Fatal(err)
	}
	// f00 taken: f01..f03 are fetched ahead without any further Get.
	got := startedSoFar(f, s)
	if want := []string{"f00", "f01", "f02", "f03"}; !slices.Equal(got, want) {
		t.Fatalf("fetched %v, want %v", got, want)
	}
}

// startedSoFar waits for the fetches f started so far and returns the
// keys s was asked for, sorted.
func startedSoFar(f *Fetcher, s *store) []string {
	f.wg.Wait()
	s.mu.Lock()
	got := slices.Clone(s.gets)
	s.mu.Unlock()
	slices.Sort(got)
	return got
}

// TestSkipPastFetchesAhead checks a reader that skips past the objects
// fetched ahead: the skipped ones are given up, the fetches go on after
// the key read (without a further Get), and a key before it is then read
// directly.
func TestSkipPastFetchesAhead(t *testing.T) {
	s, objs := newStore(40)
	f := New(context.Background(), s, objs, Options{Ahead: 3})
	defer f.Close()
	for _, k := range []string{"f00", "f20", "f21"} {
		if _, err := read(t, f, k); err != nil {
			t.Fatal(err)
		}
	}
	got := startedSoFar(f, s)
	// f01..f03 ahead of f00; f20 read directly; f21..f24 ahead of it.
	if want := []string{"f00", "f01", "f02", "f03", "f20", "f21", "f22", "f23", "f24"}; !slices.Equal(got, want) {
		t.Fatalf("fetched %v, want %v", got, want)
	}
	if _, err := read(t, f, "f02"); err != nil {
		t.Fatal(err)
	}
	if n := s.count("f02"); n != 2 {
		t.Fatalf("f02 fetched %d times, want 2 (ahead, given up; then directly)", n)
	}
}

// TestSmallHeldInMemory checks that a small object's body is released
// by the fetch (its connection free) while a large one stays open until
// taken.
func TestSmallHeldInMemory(t *testing.T) {
	s := &store{objs: map[string]string{"small": "ab", "large": "abcdefgh"}, fail: map[string]int{}}
	f := New(context.Background(), s, []Object{{Key: "small", Size: 2}, {Key: "large", Size: 8}}, Options{Small: 4})
	f.wg.Wait()
	s.mu.Lock()
	open := s.open
	s.mu.Unlock()
	if open != 1 {
		t.Fatalf("%d bodies open after the fetches, want 1 (the large one)", open)
	}
	for _, k := range []string{"small", "large"} {
		if got, err := read(t, f, k); err != nil || got != s.objs[k] {
			t.Fatalf("Get(%s) = %q, %v", k, got, err)
		}
	}
	f.Close()
	if s.open != 0 {
		t.Fatalf("%d bodies open after Close", s.open)
	}
}

// TestLocalFileKept checks that a local file is handed over as the file
// (the engine reads Parquet files in place), not copied into memory.
func TestLocalFileKept(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x")
	if err := os.WriteFile(p, []byte("xyz"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := &store{objs: map[string]string{}, fail: map[string]int{}, dirFile: p}
	f := New(context.Background(), s, []Object{{Key: p, Size: 3}}, Options{})
	defer f.Close()
	rc, err := f.Get(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if _, ok := rc.(*os.File); !ok {
		t.Fatalf("Get returned %T, want the *os.File", rc)
	}
}

// TestCancelledGet checks that a Get whose context ends while the fetch
// waits returns the context's error and that Close releases the fetch.
func TestCancelledGet(t *testing.T) {
	s, objs := newStore(3)
	s.gate = make(chan struct{})
	f := New(context.Background(), s, objs, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.Get(ctx, "f00"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Get with a cancelled context = %v, want context.Canceled", err)
	}
	f.Close() // cancels the fetches waiting at the gate
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.open != 0 {
		t.Fatalf("%d bodies open after Close", s.open)
	}
}

// TestConcurrentGets reads every key from several goroutines at once
// (run with -race): each reader gets its content.
func TestConcurrentGets(t *testing.T) {
	s, objs := newStore(40)
	f := New(context.Background(), s, objs, Options{Ahead: 4})
	var wg sync.WaitGroup
	errs := make(chan error, len(objs))
	for _, o := range objs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rc, err := f.Get(context.Background(), o.Key)
			if err != nil {
				errs <- err
				return
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			if err != nil || string(b) != s.objs[o.Key] {
				errs <- fmt.Errorf("%s: %q, %v", o.Key, b, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	f.Close()
	if s.open != 0 {
		t.Fatalf("%d bodies open after Close", s.open)
	}
}

// cutStore's bodies end with io.ErrUnexpectedEOF after cut bytes.
type cutStore struct {
	data string
	cut  int
	gets int
}

func (c *cutStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	c.gets++
	return io.NopCloser(io.MultiReader(strings.NewReader(c.data[:c.cut]), iotestErr{})), nil
}

type iotestErr struct{}

func (iotestErr) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// TestCutBody checks that a body whose reading ahead failed gives the
// reader the bytes read and then the same error, in one request.
func TestCutBody(t *testing.T) {
	c := &cutStore{data: "0123456789", cut: 4}
	f := New(context.Background(), c, []Object{{Key: "k", Size: 10}}, Options{})
	defer f.Close()
	rc, err := f.Get(context.Background(), "k")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rc)
	if string(b) != "0123" || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("read %q, %v; want %q, io.ErrUnexpectedEOF", b, err, "0123")
	}
	if c.gets != 1 {
		t.Fatalf("%d requests, want 1", c.gets)
	}
}

// TestLargerThanListed checks that an object larger than its listed size
// (rewritten since the listing) is read whole.
func TestLargerThanListed(t *testing.T) {
	s := &store{objs: map[string]string{"k": "abcdefghij"}, fail: map[string]int{}}
	f := New(context.Background(), s, []Object{{Key: "k", Size: 3}}, Options{Small: 4})
	if got, err := read(t, f, "k"); err != nil || got != "abcdefghij" {
		t.Fatalf("Get(k) = %q, %v", got, err)
	}
	f.Close()
	if s.open != 0 {
		t.Fatalf("%d bodies open after Close", s.open)
	}
}

// TestUnknownSizes checks objects of unknown size (Keys): small ones read
// ahead whole, larger ones read ahead up to Small and streamed on.
func TestUnknownSizes(t *testing.T) {
	s := &store{objs: map[string]string{"a": "ab", "b": "abcdefghij"}, fail: map[string]int{}}
	f := New(context.Background(), s, Keys([]string{"a", "b"}), Options{Small: 4})
	for _, k := range []string{"a", "b"} {
		if got, err := read(t, f, k); err != nil || got != s.objs[k] {
			t.Fatalf("Get(%s) = %q, %v", k, got, err)
		}
	}
	f.Close()
	if s.open != 0 || s.count("a") != 1 || s.count("b") != 1 {
		t.Fatalf("open %d, gets %v: want each object fetched once and closed", s.open, s.gets)
	}
}

// TestLocalFilesNotFetchedAhead checks that once a fetch ahead opened a
// local file no more fetches start (each Get then opens its file
// directly), and that every file is still read, once, in order.
func TestLocalFilesNotFetchedAhead(t *testing.T) {
	dir := t.TempDir()
	var objs []Object
	for i := range 20 {
		p := filepath.Join(dir, fmt.Sprintf("f%02d", i))
		if err := os.WriteFile(p, []byte(p), 0o600); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, Object{Key: p})
	}
	g := &countingFiles{}
	f := New(context.Background(), g, objs, Options{Ahead: 4})
	defer f.Close()
	for _, o := range objs {
		rc, err := f.Get(context.Background(), o.Key)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(b) != o.Key {
			t.Fatalf("%s: read %q, %v", o.Key, b, err)
		}
	}
	f.Close()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gets != len(objs) {
		t.Errorf("%d opens for %d files, want one each", g.gets, len(objs))
	}
	// The first Get may start one more before the first fetch is done.
	if f.next > 4+1 {
		t.Errorf("%d fetches started ahead, want at most the first %d (before a local file was seen)", f.next, 4+1)
	}
}

// countingFiles opens local files, counting the opens.
type countingFiles struct {
	mu   sync.Mutex
	gets int
}

func (c *countingFiles) Get(_ context.Context, key string) (io.ReadCloser, error) {
	c.mu.Lock()
	c.gets++
	c.mu.Unlock()
	return os.Open(key)
}
