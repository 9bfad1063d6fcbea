// Package memstore is an in-memory objstore.Store for fast unit tests of core
// logic. It honours the full port contract (it passes objstoretest).
package memstore

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"iter"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/tributary-io/tributary/core/objstore"
)

type object struct {
	data    []byte
	etag    string
	modTime time.Time
}

// Store is an in-memory object store. The zero value is not usable; call New.
type Store struct {
	mu      sync.RWMutex
	objects map[string]object
}

// New returns an empty store.
func New() *Store { return &Store{objects: map[string]object{}} }

var _ objstore.Store = (*Store)(nil)

// Get returns a reader over the object's content (stored bytes are never mutated).
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	o, err := s.lookup(ctx, key)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(o.data)), nil
}

// Head returns the object's metadata.
func (s *Store) Head(ctx context.Context, key string) (objstore.ObjectInfo, error) {
	o, err := s.lookup(ctx, key)
	if err != nil {
		return objstore.ObjectInfo{}, err
	}
	return objstore.ObjectInfo{Key: key, Size: int64(len(o.data)), ETag: o.etag, ModTime: o.modTime}, nil
}

func (s *Store) lookup(ctx context.Context, key string) (object, error) {
	if err := ctx.Err(); err != nil {
		return object{}, err
	}
	if err := objstore.ValidateKey(key); err != nil {
		return object{}, err
	}
	s.mu.RLock()
	o, ok := s.objects[key]
	s.mu.RUnlock()
	if !ok {
		return object{}, fmt.Errorf("%w: %s", objstore.ErrNotFound, key)
	}
	return o, nil
}

func read(ctx context.Context, key string, r io.Reader) (object, error) {
	if err := objstore.ValidateKey(key); err != nil {
		return object{}, err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return object{}, fmt.Errorf("writing %s: %w", key, err)
	}
	if err := ctx.Err(); err != nil {
		return object{}, err
	}
	sum := md5.Sum(data)
	return object{data: data, etag: hex.EncodeToString(sum[:]), modTime: time.Now()}, nil
}

// Put stores the object, replacing any previous one.
func (s *Store) Put(ctx context.Context, key string, r io.Reader) error {
	o, err := read(ctx, key, r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.objects[key] = o
	s.mu.Unlock()
	return nil
}

// PutIfAbsent stores the object unless the key is taken.
func (s *Store) PutIfAbsent(ctx context.Context, key string, r io.Reader) error {
	o, err := read(ctx, key, r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.objects[key]; ok {
		return fmt.Errorf("%w: %s", objstore.ErrExists, key)
	}
	s.objects[key] = o
	return nil
}

// List yields objects in key order from a snapshot of the keys.
func (s *Store) List(ctx context.Context, opts objstore.ListOptions) iter.Seq2[objstore.ObjectInfo, error] {
	return func(yield func(objstore.ObjectInfo, error) bool) {
		s.mu.RLock()
		keys := make([]string, 0, len(s.objects))
		for k := range s.objects {
			if strings.HasPrefix(k, opts.Prefix) && k > opts.StartAfter {
				keys = append(keys, k)
			}
		}
		s.mu.RUnlock()
		sort.Strings(keys)
		for _, k := range keys {
			if err := ctx.Err(); err != nil {
				yield(objstore.ObjectInfo{}, err)
				return
			}
			info, err := s.Head(ctx, k)
			if err != nil {
				continue // deleted since the snapshot
			}
			if !yield(info, nil) {
				return
			}
		}
	}
}

// Delete removes the object.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := objstore.ValidateKey(key); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.objects, key)
	s.mu.Unlock()
	return nil
}

// Copy copies src to dst.
func (s *Store) Copy(ctx context.Context, src, dst string) error {
	if err := objstore.ValidateKey(dst); err != nil {
		return err
	}
	o, err := s.lookup(ctx, src)
	if err != nil {
		return err
	}
	o.modTime = time.Now()
	s.mu.Lock()
	s.objects[dst] = o
	s.mu.Unlock()
	return nil
}
