// Package dirstore is a minimal objstore.Store over a local directory, for
// the delta package's tests only (the real local adapter lives in infra/).
// PutIfAbsent is an exclusive create: the content goes to a temporary file
// that is hard-linked to the key, so the object appears complete or not at
// all and exactly one concurrent creator wins.
package dirstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tributary-io/tributary/core/objstore"
)

// Store is a directory-backed objstore.Store.
type Store struct {
	root string
}

// New returns a store rooted at dir.
func New(dir string) *Store { return &Store{root: dir} }

var _ objstore.Store = (*Store)(nil)

// ListsWholeDirectories reports that listings read whole directories
// (delta.DirectoryStore).
func (s *Store) ListsWholeDirectories() bool { return true }

func (s *Store) path(key string) (string, error) {
	if err := objstore.ValidateKey(key); err != nil {
		return "", err
	}
	return filepath.Join(s.root, filepath.FromSlash(key)), nil
}

// Get opens the object.
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	p, err := s.path(key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("get %s: %w", key, objstore.ErrNotFound)
	}
	return f, err
}

// Head stats the object.
func (s *Store) Head(ctx context.Context, key string) (objstore.ObjectInfo, error) {
	p, err := s.path(key)
	if err != nil {
		return objstore.ObjectInfo{}, err
	}
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) || err == nil && st.IsDir() {
		return objstore.ObjectInfo{}, fmt.Errorf("head %s: %w", key, objstore.ErrNotFound)
	}
	if err != nil {
		return objstore.ObjectInfo{}, err
	}
	return objstore.ObjectInfo{Key: key, Size: st.Size(), ModTime: st.ModTime(),
		ETag: strconv.FormatInt(st.Size(), 10) + "-" + strconv.FormatInt(st.ModTime().UnixNano(), 10)}, nil
}

func (s *Store) temp(key string, r io.Reader) (string, error) {
	p, err := s.path(key)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// Put writes the object atomically (temp file + rename).
func (s *Store) Put(ctx context.Context, key string, r io.Reader) error {
	tmp, err := s.temp(key, r)
	if err != nil {
		return err
	}
	p, _ := s.path(key)
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// PutIfAbsent creates the object only if the key is free.
func (s *Store) PutIfAbsent(ctx context.Context, key string, r io.Reader) error {
	tmp, err := s.temp(key, r)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	p, _ := s.path(key)
	if err := os.Link(tmp, p); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("put-if-absent %s: %w", key, objstore.ErrExists)
		}
		return err
	}
	return nil
}

// List yields objects under the prefix in lexical key order.
func (s *Store) List(ctx context.Context, opts objstore.ListOptions) iter.Seq2[objstore.ObjectInfo, error] {
	return func(yield func(objstore.ObjectInfo, error) bool) {
		var keys []string
		err := filepath.WalkDir(s.root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.IsDir() || strings.HasPrefix(d.Name(), ".tmp-") {
				return nil
			}
			rel, err := filepath.Rel(s.root, p)
			if err != nil {
				return err
			}
			k := filepath.ToSlash(rel)
			if strings.HasPrefix(k, opts.Prefix) && k > opts.StartAfter {
				keys = append(keys, k)
			}
			return nil
		})
		if err != nil {
			yield(objstore.ObjectInfo{}, err)
			return
		}
		slices.Sort(keys)
		for _, k := range keys {
			info, err := s.Head(ctx, k)
			if errors.Is(err, objstore.ErrNotFound) {
				continue
			}
			if !yield(info, err) || err != nil {
				return
			}
		}
	}
}

// Delete removes the object.
func (s *Store) Delete(ctx context.Context, key string) error {
	p, err := s.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Copy copies src to dst.
func (s *Store) Copy(ctx context.Context, src, dst string) error {
	rc, err := s.Get(ctx, src)
	if err != nil {
		return err
	}
	defer rc.Close()
	return s.Put(ctx, dst, rc)
}
