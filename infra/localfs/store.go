package localfs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/infra/internal/ctxio"
)

// TempPrefix starts the names of the temporary files writes go through. List
// hides them and keys may not have a segment starting with it.
const TempPrefix = ".tributary-tmp-"

const copyBufSize = 256 << 10

// Option configures a Store.
type Option func(*Store)

// WithSync controls whether writes fsync the file and its directory before
// returning (default true). Turning it off trades crash durability for
// speed; atomicity against concurrent readers is kept either way.
func WithSync(sync bool) Option {
	return func(s *Store) { s.sync = sync }
}

// Store is an objstore.Store rooted at a local directory. It is safe for
// concurrent use, also by several processes sharing the directory.
type Store struct {
	dir  string
	root *os.Root
	sync bool
}

var _ objstore.Store = (*Store)(nil)

// New opens (creating it if needed) the directory dir as a store root.
func New(dir string, opts ...Option) (*Store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("localfs: creating root %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("localfs: opening root %s: %w", dir, err)
	}
	s := &Store{dir: dir, root: root, sync: true}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Dir returns the root directory the store was opened on.
func (s *Store) Dir() string { return s.dir }

// Close releases the root directory handle.
func (s *Store) Close() error { return s.root.Close() }

// checkKey applies objstore.ValidateKey plus this adapter's own limits.
func checkKey(key string) error {
	if err := objstore.ValidateKey(key); err != nil {
		return fmt.Errorf("localfs: %w", err)
	}
	if strings.IndexByte(key, 0) >= 0 {
		return fmt.Errorf("localfs: %w: %q holds a NUL byte", objstore.ErrInvalidKey, key)
	}
	for seg := range strings.SplitSeq(key, "/") {
		if strings.HasPrefix(seg, TempPrefix) {
			return fmt.Errorf("localfs: %w: %q uses the reserved prefix %q", objstore.ErrInvalidKey, key, TempPrefix)
		}
	}
	return nil
}

// name converts a key to a path relative to the root.
func name(key string) string { return filepath.FromSlash(key) }

// isMissing reports whether err means "no such file" for a key path,
// including a parent path component that is a regular file.
func isMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func (s *Store) info(key string, fi fs.FileInfo) objstore.ObjectInfo {
	return objstore.ObjectInfo{Key: key, Size: fi.Size(), ETag: etag(fi), ModTime: fi.ModTime()}
}

// etag builds the metadata ETag described in the package documentation.
func etag(fi fs.FileInfo) string {
	return fmt.Sprintf("%x-%x-%x", inode(fi), fi.Size(), fi.ModTime().UnixNano())
}

// Get opens the object for streaming reads.
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := s.root.Open(name(key))
	if err != nil {
		if isMissing(err) {
			return nil, fmt.Errorf("localfs: get %q: %w", key, objstore.ErrNotFound)
		}
		return nil, fmt.Errorf("localfs: get %q: %w", key, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("localfs: get %q: %w", key, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("localfs: get %q: %w", key, objstore.ErrNotFound)
	}
	return f, nil
}

// Head returns the object's metadata.
func (s *Store) Head(ctx context.Context, key string) (objstore.ObjectInfo, error) {
	if err := checkKey(key); err != nil {
		return objstore.ObjectInfo{}, err
	}
	if err := ctx.Err(); err != nil {
		return objstore.ObjectInfo{}, err
	}
	fi, err := s.root.Stat(name(key))
	if err != nil {
		if isMissing(err) {
			return objstore.ObjectInfo{}, fmt.Errorf("localfs: head %q: %w", key, objstore.ErrNotFound)
		}
		return objstore.ObjectInfo{}, fmt.Errorf("localfs: head %q: %w", key, err)
	}
	if !fi.Mode().IsRegular() {
		return objstore.ObjectInfo{}, fmt.Errorf("localfs: head %q: %w", key, objstore.ErrNotFound)
	}
	return s.info(key, fi), nil
}

// Put writes the object atomically, replacing any existing one.
func (s *Store) Put(ctx context.Context, key string, r io.Reader) error {
	if err := checkKey(key); err != nil {
		return err
	}
	tmp, err := s.writeTemp(ctx, key, r)
	if err != nil {
		return fmt.Errorf("localfs: put %q: %w", key, err)
	}
	if err := s.publish(ctx, tmp, key); err != nil {
		return fmt.Errorf("localfs: put %q: %w", key, err)
	}
	return nil
}

// PutIfAbsent writes the object only if no object exists at key.
func (s *Store) PutIfAbsent(ctx context.Context, key string, r io.Reader) error {
	if err := checkKey(key); err != nil {
		return err
	}
	tmp, err := s.writeTemp(ctx, key, r)
	if err != nil {
		return fmt.Errorf("localfs: put-if-absent %q: %w", key, err)
	}
	defer s.root.Remove(tmp)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("localfs: put-if-absent %q: %w", key, err)
	}
	if err := s.root.Link(tmp, name(key)); err != nil {
		if errors.Is(err, fs.ErrExist) {
			if fi, serr := s.root.Lstat(name(key)); serr == nil && fi.IsDir() {
				return fmt.Errorf("localfs: put-if-absent %q: a directory of other objects has this name: %w", key, err)
			}
			return fmt.Errorf("localfs: put-if-absent %q: %w", key, objstore.ErrExists)
		}
		return fmt.Errorf("localfs: put-if-absent %q: linking: %w", key, err)
	}
	if err := s.syncDir(path.Dir(key)); err != nil {
		return fmt.Errorf("localfs: put-if-absent %q: %w", key, err)
	}
	return nil
}

// Copy copies the object at src to dst, replacing dst atomically.
func (s *Store) Copy(ctx context.Context, src, dst string) error {
	if err := checkKey(src); err != nil {
		return err
	}
	if err := checkKey(dst); err != nil {
		return err
	}
	rc, err := s.Get(ctx, src)
	if err != nil {
		return fmt.Errorf("localfs: copy %q to %q: %w", src, dst, err)
	}
	defer rc.Close()
	tmp, err := s.writeTemp(ctx, dst, rc)
	if err != nil {
		return fmt.Errorf("localfs: copy %q to %q: %w", src, dst, err)
	}
	if err := s.publish(ctx, tmp, dst); err != nil {
		return fmt.Errorf("localfs: copy %q to %q: %w", src, dst, err)
	}
	return nil
}

// Delete removes the object; a missing object (or a directory) is not an
// error. Parent directories left empty are removed.
func (s *Store) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fi, err := s.root.Lstat(name(key))
	switch {
	case isMissing(err):
		return nil
	case err != nil:
		return fmt.Errorf("localfs: delete %q: %w", key, err)
	case fi.IsDir():
		return nil
	}
	if err := s.root.Remove(name(key)); err != nil && !isMissing(err) {
		return fmt.Errorf("localfs: delete %q: %w", key, err)
	}
	s.pruneDirs(path.Dir(key))
	return nil
}

// pruneDirs removes dir and its parents while they are empty. Failures
// (a directory that is not empty, a concurrent writer) simply stop it.
func (s *Store) pruneDirs(dir string) {
	for ; dir != "." && dir != "/"; dir = path.Dir(dir) {
		if err := s.root.Remove(name(dir)); err != nil {
			return
		}
	}
}

// writeTemp writes r to a new temporary file next to key and returns its
// root-relative name. On error nothing is left behind.
func (s *Store) writeTemp(ctx context.Context, key string, r io.Reader) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	dir := path.Dir(key)
	var (
		f   *os.File
		tmp string
	)
	for attempt := 0; ; attempt++ {
		var suffix [12]byte
		_, _ = rand.Read(suffix[:])
		tmp = name(path.Join(dir, TempPrefix+hex.EncodeToString(suffix[:])))
		var err error
		if dir != "." {
			err = s.root.MkdirAll(name(dir), 0o755)
		}
		if err == nil {
			f, err = s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		}
		if err == nil {
			break
		}
		// A concurrent Delete may prune the directory between MkdirAll and
		// OpenFile; try again a few times.
		if errors.Is(err, fs.ErrNotExist) && attempt < 10 {
			continue
		}
		if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("a parent of the key is an object, not a directory: %w", err)
		}
		return "", fmt.Errorf("creating temporary file: %w", err)
	}
	fail := func(err error) (string, error) {
		f.Close()
		s.root.Remove(tmp)
		return "", err
	}
	if _, err := ctxio.Copy(ctx, f, r, copyBufSize); err != nil {
		return fail(err)
	}
	if s.sync {
		if err := f.Sync(); err != nil {
			return fail(fmt.Errorf("syncing temporary file: %w", err))
		}
	}
	if err := f.Close(); err != nil {
		s.root.Remove(tmp)
		return "", fmt.Errorf("closing temporary file: %w", err)
	}
	// Stamp the file with a nanosecond-precision time; see the ETag notes.
	now := time.Now()
	if err := s.root.Chtimes(tmp, now, now); err != nil {
		s.root.Remove(tmp)
		return "", fmt.Errorf("setting modification time: %w", err)
	}
	return tmp, nil
}

// publish renames the temporary file over key (removing it on failure).
func (s *Store) publish(ctx context.Context, tmp, key string) error {
	if err := ctx.Err(); err != nil {
		s.root.Remove(tmp)
		return err
	}
	if err := s.root.Rename(tmp, name(key)); err != nil {
		s.root.Remove(tmp)
		if fi, serr := s.root.Lstat(name(key)); serr == nil && fi.IsDir() {
			return fmt.Errorf("a directory of other objects has this name: %w", err)
		}
		return fmt.Errorf("renaming temporary file: %w", err)
	}
	return s.syncDir(path.Dir(key))
}

// syncDir fsyncs a directory so a rename or link in it is durable.
func (s *Store) syncDir(dir string) error {
	if !s.sync {
		return nil
	}
	d, err := s.root.Open(name(dir))
	if err != nil {
		return fmt.Errorf("opening directory %q to sync: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("syncing directory %q: %w", dir, err)
	}
	return nil
}

// List yields the objects matching opts in byte order of their keys.
func (s *Store) List(ctx context.Context, opts objstore.ListOptions) iter.Seq2[objstore.ObjectInfo, error] {
	return func(yield func(objstore.ObjectInfo, error) bool) {
		// Start at the deepest directory the prefix names.
		start := ""
		if i := strings.LastIndexByte(opts.Prefix, '/'); i >= 0 {
			start = opts.Prefix[:i+1]
			if checkKey(strings.TrimSuffix(start, "/")) != nil {
				return // no valid key can have this prefix
			}
		}
		s.walk(ctx, start, opts, yield)
	}
}

type dirEntry struct {
	sortKey string // name, plus "/" for directories
	name    string
	isDir   bool
	entry   fs.DirEntry // regular files: stat relative to the open directory
}

// walk lists the directory whose keys start with dirKey ("" for the root,
// else ending in '/'). It returns false when iteration must stop.
func (s *Store) walk(ctx context.Context, dirKey string, opts objstore.ListOptions, yield func(objstore.ObjectInfo, error) bool) bool {
	if err := ctx.Err(); err != nil {
		yield(objstore.ObjectInfo{}, fmt.Errorf("localfs: list %q: %w", opts.Prefix, err))
		return false
	}
	dirName := "."
	if dirKey != "" {
		dirName = name(strings.TrimSuffix(dirKey, "/"))
	}
	d, err := s.root.Open(dirName)
	if err != nil {
		if isMissing(err) {
			return true // removed meanwhile, or never there
		}
		return yield(objstore.ObjectInfo{}, fmt.Errorf("localfs: list %q: opening %q: %w", opts.Prefix, dirKey, err))
	}
	raw, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		if isMissing(err) {
			return true
		}
		return yield(objstore.ObjectInfo{}, fmt.Errorf("localfs: list %q: reading %q: %w", opts.Prefix, dirKey, err))
	}
	entries := make([]dirEntry, 0, len(raw))
	for _, e := range raw {
		n := e.Name()
		if strings.HasPrefix(n, TempPrefix) || !utf8.ValidString(n) {
			continue
		}
		isDir := e.IsDir()
		var regular fs.DirEntry
		switch {
		case isDir:
		case e.Type().IsRegular():
			regular = e
		case e.Type()&fs.ModeSymlink != 0:
			fi, err := s.root.Stat(name(dirKey + n))
			if err != nil {
				continue // dangling or escaping link
			}
			if isDir = fi.IsDir(); !isDir && !fi.Mode().IsRegular() {
				continue
			}
		default:
			continue
		}
		sk := n
		if isDir {
			sk += "/"
		}
		entries = append(entries, dirEntry{sortKey: sk, name: n, isDir: isDir, entry: regular})
	}
	slices.SortFunc(entries, func(a, b dirEntry) int { return strings.Compare(a.sortKey, b.sortKey) })

	for _, e := range entries {
		key := dirKey + e.sortKey // directories end in '/'
		inPrefix := strings.HasPrefix(key, opts.Prefix)
		if !inPrefix {
			if e.isDir && strings.HasPrefix(opts.Prefix, key) {
				// The prefix lies inside this directory.
			} else if key > opts.Prefix {
				return true // every later entry sorts after the prefix range
			} else {
				continue
			}
		}
		if e.isDir {
			// Skip a directory whose every key is <= StartAfter.
			if key < opts.StartAfter && !strings.HasPrefix(opts.StartAfter, key) {
				continue
			}
			if !s.walk(ctx, key, opts, yield) {
				return false
			}
			continue
		}
		if key <= opts.StartAfter {
			continue
		}
		var fi fs.FileInfo
		if e.entry != nil {
			fi, err = e.entry.Info()
		} else {
			fi, err = s.root.Stat(name(key))
		}
		if err != nil {
			if isMissing(err) {
				continue // deleted meanwhile
			}
			return yield(objstore.ObjectInfo{}, fmt.Errorf("localfs: list %q: %w", key, err))
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		if !yield(s.info(key, fi), nil) {
			return false
		}
	}
	return true
}

// RemoveStaleTemp deletes temporary files (left by crashed writers) whose
// modification time is older than olderThan, and returns how many it removed.
func (s *Store) RemoveStaleTemp(ctx context.Context, olderThan time.Duration) (int, error) {
	cutoff := time.Now().Add(-olderThan)
	removed := 0
	err := fs.WalkDir(s.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if isMissing(err) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || !strings.HasPrefix(d.Name(), TempPrefix) {
			return nil
		}
		fi, err := d.Info()
		if err != nil || !fi.ModTime().Before(cutoff) {
			return nil
		}
		if err := s.root.Remove(name(p)); err == nil {
			removed++
		}
		return nil
	})
	if err != nil {
		return removed, fmt.Errorf("localfs: removing stale temporary files under %s: %w", s.dir, err)
	}
	return removed, nil
}
