// Package prefetch opens the objects a reader is going to read in a known
// order ahead of it, a bounded number at a time, so that a batch of many
// small files is not one object-store round trip after another: on S3 a
// GET's first byte takes tens of milliseconds, longer than decoding a
// small file. Small objects read ahead are held in memory (their
// connection is released at once); larger ones are opened ahead and
// streamed when taken.
//
// Local files (a Get that returns a file with Stat) gain nothing from
// being opened ahead: once one is seen, no more fetches start.
//
// A Fetcher does not change what a reader sees, nor how often an object
// is requested: an object is fetched at most once ahead, a key taken
// again (a file read a second time) or out of order is read directly, a
// fetch ahead that failed hands its error to the reader, and a body whose
// reading ahead failed gives the reader the bytes read and then the same
// error.
package prefetch

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"slices"
	"sync"

	"github.com/tributary-io/tributary/core/objstore"
)

// Object is one object to read, in reading order.
type Object struct {
	Key  string
	Size int64 // the expected size; <= 0 when unknown (up to Options.Small is read ahead)
}

// Getter is the part of objstore.Store a Fetcher reads through.
type Getter interface {
	Get(ctx context.Context, key string) (io.ReadCloser, error)
}

var _ Getter = objstore.Store(nil)

// Defaults of New.
const (
	// DefaultAhead is how many objects are fetched ahead of the reader.
	DefaultAhead = 8
	// DefaultSmall is the largest object read into memory ahead of the
	// reader (DefaultAhead × DefaultSmall bounds the memory held).
	DefaultSmall = 1 << 20
)

// Options tune a Fetcher; zero values take the defaults.
type Options struct {
	// Ahead is the number of objects fetched ahead; < 0 disables fetching
	// ahead (every Get is direct).
	Ahead int
	// Small is the largest known size read into memory ahead.
	Small int64
}

// Store returns src with Get served by f (the other methods are src's):
// a store to hand to code that reads the objects through objstore.Store.
func (f *Fetcher) Store(src objstore.Store) objstore.Store { return fetchStore{src, f} }

type fetchStore struct {
	objstore.Store
	f *Fetcher
}

func (s fetchStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	return s.f.Get(ctx, key)
}

// Keys returns the objects of keys of unknown size.
func Keys(keys []string) []Object {
	objs := make([]Object, len(keys))
	for i, k := range keys {
		objs[i] = Object{Key: k}
	}
	return objs
}

// Fetcher reads objects ahead of a reader that takes them in order.
// Get is safe for concurrent use; Close releases what was not taken.
type Fetcher struct {
	src    Getter
	ctx    context.Context
	cancel context.CancelFunc
	ahead  int
	small  int64
	wg     sync.WaitGroup

	mu   sync.Mutex
	objs []Object
	// slots holds the fetches started and not taken, by index; nil for
	// an object not started yet or one before taken. A slot is made when
	// its fetch starts, so a long batch costs a pointer an object until
	// the reader nears it.
	slots []*slot
	// byKey indexes objs by key, in increasing order; built on the first
	// Get of a key that is not among the next ones (nil until then).
	byKey  map[string][]int
	next   int // the next object to start
	taken  int // objects before this one are taken or given up
	closed bool
	// local is set once a fetch opened a local file: opening ahead gains
	// nothing there (no round trip) and costs a goroutine per file, so no
	// more fetches start; later Gets read directly.
	local bool
}

// slot is one object's fetch ahead.
type slot struct {
	obj  Object
	done chan struct{}
	rc   io.ReadCloser // nil when the fetch failed
	err  error         // the fetch's error
}

// New returns a Fetcher of objs from src and starts the first fetches.
// ctx bounds the fetches ahead; Close must be called.
func New(ctx context.Context, src Getter, objs []Object, opts Options) *Fetcher {
	ctx, cancel := context.WithCancel(ctx)
	f := &Fetcher{src: src, ctx: ctx, cancel: cancel, ahead: opts.Ahead, small: opts.Small,
		objs: objs, slots: make([]*slot, len(objs))}
	if f.ahead == 0 {
		f.ahead = DefaultAhead
	}
	if f.small == 0 {
		f.small = DefaultSmall
	}
	f.mu.Lock()
	f.fill()
	f.mu.Unlock()
	return f
}

// fill starts fetches until ahead of them are in flight past the reader.
// Called with f.mu held.
func (f *Fetcher) fill() {
	if f.closed || f.ahead < 0 || f.local {
		return
	}
	f.next = max(f.next, f.taken) // the ones before taken were given up
	for f.next < len(f.objs) && f.next < f.taken+f.ahead {
		s := &slot{obj: f.objs[f.next], done: make(chan struct{})}
		f.slots[f.next] = s
		f.next++
		f.wg.Add(1)
		go f.fetch(s)
	}
}

// fetch opens s's object; a small one is read into memory.
func (f *Fetcher) fetch(s *slot) {
	defer f.wg.Done()
	defer close(s.done)
	rc, err := f.src.Get(f.ctx, s.obj.Key)
	if err != nil {
		s.err = err
		return
	}
	if _, local := rc.(interface{ Stat() (fs.FileInfo, error) }); local {
		s.rc = rc
		f.mu.Lock()
		f.local = true
		f.mu.Unlock()
		return
	}
	if s.obj.Size > f.small {
		s.rc = rc // streamed when taken
		return
	}
	b, err := io.ReadAll(io.LimitReader(rc, f.small))
	if err == nil && int64(len(b)) == f.small {
		// Larger than its listed size (or of unknown size): the rest is
		// streamed.
		s.rc = &held{r: io.MultiReader(bytes.NewReader(b), rc), c: rc}
		return
	}
	rc.Close()
	s.rc = &held{r: bytes.NewReader(b), err: err}
}

// held is a body read ahead: its bytes, then the error reading stopped
// at (nil: io.EOF), or the rest of the stream c.
type held struct {
	r   io.Reader
	err error
	c   io.Closer
}

func (h *held) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if err == io.EOF && h.err != nil {
		err = h.err
	}
	return n, err
}

func (h *held) Close() error {
	if h.c != nil {
		return h.c.Close()
	}
	return nil
}

// Get returns the object at key: the fetch ahead when there is one not
// taken yet, else a direct read. Objects before key in the order that
// were not taken are given up (the reader moved past them).
func (f *Fetcher) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	f.mu.Lock()
	s := f.take(key)
	f.mu.Unlock()
	if s == nil {
		return f.src.Get(ctx, key)
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		go release(s)
		return nil, ctx.Err()
	}
	switch {
	case s.err != nil && f.ctx.Err() != nil:
		// The fetch was stopped by Close: read directly.
		return f.src.Get(ctx, key)
	case s.err != nil:
		return nil, s.err
	}
	return s.rc, nil
}

// take marks key's next untaken object taken, gives up the untaken ones
// before it and starts more fetches. It returns key's fetch, or nil when
// key has no fetch started (read directly). Called with f.mu held.
func (f *Fetcher) take(key string) *slot {
	if f.closed {
		return nil
	}
	at := f.find(key)
	if at < 0 {
		return nil
	}
	for i := f.taken; i < at; i++ {
		if p := f.slots[i]; p != nil {
			go release(p)
			f.slots[i] = nil
		}
	}
	s := f.slots[at]
	f.slots[at] = nil
	f.taken = at + 1
	f.fill()
	return s
}

// find returns the index of key's next untaken object (-1: none): the
// next objects in order are looked at first, the index (built once)
// when the reader skips ahead or reads a key again. Called with f.mu
// held.
func (f *Fetcher) find(key string) int {
	for i := f.taken; i < min(max(f.next, f.taken+1), len(f.objs)); i++ {
		if f.objs[i].Key == key {
			return i
		}
	}
	if f.byKey == nil {
		f.byKey = make(map[string][]int)
		for i, o := range f.objs {
			f.byKey[o.Key] = append(f.byKey[o.Key], i)
		}
	}
	at := f.byKey[key]
	if j, _ := slices.BinarySearch(at, f.taken); j < len(at) {
		return at[j]
	}
	return -1
}

// release closes what a slot's fetch opened, once it is done.
func release(s *slot) {
	<-s.done
	if s.rc != nil {
		s.rc.Close()
	}
}

// Close stops the fetches ahead and closes what was fetched and not
// taken. Later Gets read directly.
func (f *Fetcher) Close() {
	f.mu.Lock()
	f.closed = true
	var left []*slot
	for i, s := range f.slots[min(f.taken, len(f.slots)):] {
		if s != nil {
			left = append(left, s)
			f.slots[f.taken+i] = nil
		}
	}
	f.mu.Unlock()
	f.cancel()
	f.wg.Wait()
	for _, s := range left {
		release(s)
	}
}
