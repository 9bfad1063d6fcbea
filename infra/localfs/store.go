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
	"strconv"
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

// WithFollowLinks makes Get, Head, Copy's reads and List follow symbolic
// links wherever they lead, as Hadoop's local file system does, instead of
// only within the root; for a stream's source directory. Writes still stay
// within the root. List detects directory loops in either mode.
func WithFollowLinks() Option {
	return func(s *Store) { s.follow = true }
}

// WithExcluded names a directory (by any path; what describes it in
// messages, e.g. "the stream's checkpoint location") that List never enters
// nor yields files from, whichever symbolic link leads there: such entries
// are unreadable ones (objstore.ListOptions.Unreadable).
func WithExcluded(dir, what string) Option {
	return func(s *Store) {
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		s.excluded = append(s.excluded, excluded{dir: filepath.Clean(dir), what: what})
	}
}

// WithExistingRoot makes New fail when the root directory does not exist,
// instead of creating it (a source directory must exist).
func WithExistingRoot() Option {
	return func(s *Store) { s.mustExist = true }
}

// excluded is a directory List never reads (WithExcluded).
type excluded struct {
	dir  string // real path
	what string
}

// Store is an objstore.Store rooted at a local directory. It is safe for
// concurrent use, also by several processes sharing the directory.
type Store struct {
	dir       string
	root      *os.Root
	sync      bool
	follow    bool
	mustExist bool
	excluded  []excluded
	// listed is the root directory a store following links opens its
	// files relative to, from its last listing on (listedDir).
	listed listedDir
	// dirSynced, when set (tests), is called with each directory syncDir
	// synced.
	dirSynced func(dir string)
}

var _ objstore.Store = (*Store)(nil)

// New opens (creating it if needed, unless WithExistingRoot) the directory
// dir as a store root.
func New(dir string, opts ...Option) (*Store, error) {
	s := &Store{dir: dir, sync: true}
	for _, o := range opts {
		o(s)
	}
	if s.mustExist {
		fi, err := os.Stat(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("localfs: directory %s does not exist", dir)
		case err != nil:
			return nil, fmt.Errorf("localfs: root %s: %w", dir, err)
		case !fi.IsDir():
			return nil, fmt.Errorf("localfs: %s is not a directory", dir)
		}
	} else if err := mkdirRoot(dir, s.sync); err != nil {
		return nil, fmt.Errorf("localfs: creating root %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("localfs: opening root %s: %w", dir, err)
	}
	s.root = root
	return s, nil
}

// Dir returns the root directory the store was opened on.
func (s *Store) Dir() string { return s.dir }

// Close releases the root directory handles.
func (s *Store) Close() error {
	s.listed.close()
	return s.root.Close()
}

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
	return formatETag(inode(fi), fi.Size(), fi.ModTime().UnixNano())
}

// formatETag writes what fmt.Sprintf("%x-%x-%x", ino, size, mtimeNanos)
// writes, without its boxing and parsing: a listing builds one for every
// file (9,000 of them cost 5 ms of CPU through Sprintf).
func formatETag(ino uint64, size, mtimeNanos int64) string {
	var buf [3*17 + 2]byte
	b := strconv.AppendUint(buf[:0], ino, 16)
	b = append(b, '-')
	b = strconv.AppendInt(b, size, 16)
	b = append(b, '-')
	b = strconv.AppendInt(b, mtimeNanos, 16)
	return string(b)
}

// Get opens the object for streaming reads: an *os.File, or one that can
// also be read in place (fileformat.Mapper; files of 256 KiB or more, on
// Unix), which the line readers map a window at a time.
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := s.open(key)
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
	return newObjectFile(f, fi.Size()), nil
}

// ReadWhole reads a small object of a listed size whole
// (objstore.WholeReader): an open, one read and a close, where Get and a
// read take five system calls (its fstat, and on Unix os.NewFile's fcntl
// too). The read that returns the listed size has seen the whole file;
// any other count (the file changed since it was listed, or is not a
// regular file any more) is checked as Get checks a file and streams the
// rest.
func (s *Store) ReadWhole(ctx context.Context, key string, size int64, buf []byte) (int, io.ReadCloser, error) {
	if size < 0 || size >= int64(len(buf)) {
		rc, err := s.Get(ctx, key)
		return 0, rc, err
	}
	if err := checkKey(key); err != nil {
		return 0, nil, err
	}
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	var (
		n         int
		f         *os.File
		rerr, err error
	)
	if s.follow {
		n, f, rerr, err = s.readSmall(key, buf[:size+1], int(size))
	} else if f, err = s.root.Open(name(key)); err == nil {
		n, f, rerr, err = readFirst(f, buf[:size+1], int(size))
	}
	if err != nil {
		if isMissing(err) {
			return 0, nil, fmt.Errorf("localfs: get %q: %w", key, objstore.ErrNotFound)
		}
		return 0, nil, fmt.Errorf("localfs: get %q: %w", key, err)
	}
	if f == nil {
		return n, nil, nil
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return 0, nil, fmt.Errorf("localfs: get %q: %w", key, err)
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return 0, nil, fmt.Errorf("localfs: get %q: %w", key, objstore.ErrNotFound)
	}
	if rerr != nil {
		return n, &failedRead{f: f, err: rerr}, nil
	}
	return n, f, nil
}

// readFirst reads b from the open file f with one read: when it returned
// want bytes, f is closed and rest is nil (the close's error is err).
// Otherwise rest is f, after the n bytes read, and rerr the read's error
// (nil at the file's end).
func readFirst(f *os.File, b []byte, want int) (n int, rest *os.File, rerr, err error) {
	n, rerr = f.Read(b)
	if errors.Is(rerr, io.EOF) {
		rerr = nil
	}
	if rerr == nil && n == want {
		return n, nil, nil, f.Close()
	}
	return n, f, rerr, nil
}

// failedRead is the rest of a file whose first read failed: its reads
// return that error.
type failedRead struct {
	f   *os.File
	err error
}

// Read returns the read's error.
func (r *failedRead) Read([]byte) (int, error) { return 0, r.err }

// Close closes the file.
func (r *failedRead) Close() error { return r.f.Close() }

// Head returns the object's metadata.
func (s *Store) Head(ctx context.Context, key string) (objstore.ObjectInfo, error) {
	if err := checkKey(key); err != nil {
		return objstore.ObjectInfo{}, err
	}
	if err := ctx.Err(); err != nil {
		return objstore.ObjectInfo{}, err
	}
	fi, err := s.stat(key)
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

// fullPath is key's path under the root directory: what a store following
// links opens (and names in its errors), and what a link's target is read
// or resolved from.
func (s *Store) fullPath(key string) string { return filepath.Join(s.dir, name(key)) }

// open opens key for reading, following symbolic links within the root, or
// (WithFollowLinks) wherever they lead.
func (s *Store) open(key string) (*os.File, error) {
	if s.follow {
		return s.openSrc(key)
	}
	return s.root.Open(name(key))
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
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("localfs: put-if-absent %q: %w", key, err)
	}
	// An object already there fails at once, before a temporary file is
	// written and synced for nothing (a stream's checkpoint metadata is put
	// if absent on every run). One that appears after this still fails at
	// the link below; a directory goes on to the link's error.
	if fi, err := s.root.Lstat(name(key)); err == nil && !fi.IsDir() {
		return fmt.Errorf("localfs: put-if-absent %q: %w", key, objstore.ErrExists)
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
		if fi, err := s.root.Lstat(name(dir)); err != nil || !fi.IsDir() {
			return // never remove a symbolic link to a directory
		}
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
	f, tmp, err := s.createTemp(key)
	if err != nil {
		return "", err
	}
	var w io.Writer = f
	var wb *writeback
	if s.sync {
		wb = &writeback{f: f}
		w = wb
	}
	_, err = ctxio.Copy(ctx, w, r, copyBufSize)
	if wb != nil {
		wb.stop() // before f is synced or closed
	}
	if err != nil {
		f.Close()
		s.root.Remove(tmp)
		return "", err
	}
	if err := s.finishTemp(f, tmp); err != nil {
		return "", err
	}
	return tmp, nil
}

// createTemp creates a new temporary file next to key (and the key's
// directory, if needed) and returns it with its root-relative name.
func (s *Store) createTemp(key string) (*os.File, string, error) {
	dir := path.Dir(key)
	for attempt := 0; ; attempt++ {
		var suffix [12]byte
		_, _ = rand.Read(suffix[:])
		tmp := name(path.Join(dir, TempPrefix+hex.EncodeToString(suffix[:])))
		var err error
		if dir != "." {
			err = s.mkdirAll(dir)
		}
		var f *os.File
		if err == nil {
			f, err = s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		}
		if err == nil {
			return f, tmp, nil
		}
		// A concurrent Delete may prune the directory between MkdirAll and
		// OpenFile; try again a few times.
		if errors.Is(err, fs.ErrNotExist) && attempt < 10 {
			continue
		}
		if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrExist) {
			return nil, "", fmt.Errorf("a parent of the key is an object, not a directory: %w", err)
		}
		return nil, "", fmt.Errorf("creating temporary file: %w", err)
	}
}

// mkdirAll creates the key directory dir and its missing parents. With
// WithSync it then syncs the directory holding each one it created, top
// down: publish syncs only the object's own directory, so a new
// directory's entry (the first commit's _delta_log, a new partition) is
// made durable here, before anything is published in it.
func (s *Store) mkdirAll(dir string) error {
	fi, err := s.root.Lstat(name(dir))
	if err == nil && fi.IsDir() {
		return nil
	}
	var created []string // dir, then its missing parents
	if s.sync && errors.Is(err, fs.ErrNotExist) {
		created = append(created, dir)
		for d := path.Dir(dir); d != "."; d = path.Dir(d) {
			if _, err := s.root.Lstat(name(d)); !errors.Is(err, fs.ErrNotExist) {
				break
			}
			created = append(created, d)
		}
	}
	if err := s.root.MkdirAll(name(dir), 0o755); err != nil {
		return err
	}
	for i := len(created) - 1; i >= 0; i-- {
		if err := s.syncDir(path.Dir(created[i])); err != nil {
			return err
		}
	}
	return nil
}

// mkdirRoot creates the root directory dir and its missing parents; with
// sync it then syncs the directory holding each one it created, top down,
// as mkdirAll does inside the root.
func mkdirRoot(dir string, sync bool) error {
	var created []string
	if sync {
		for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
			if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) || filepath.Dir(d) == d {
				break
			}
			created = append(created, d)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := len(created) - 1; i >= 0; i-- {
		parent := filepath.Dir(created[i])
		if err := syncOpened(os.Open(parent)); err != nil {
			return fmt.Errorf("directory %s: %w", parent, err)
		}
	}
	return nil
}

// finishTemp syncs (WithSync) and closes the written temporary file f,
// named tmp, and stamps its modification time. On error it removes it.
func (s *Store) finishTemp(f *os.File, tmp string) error {
	if s.sync {
		if err := f.Sync(); err != nil {
			f.Close()
			s.root.Remove(tmp)
			return fmt.Errorf("syncing temporary file: %w", err)
		}
	}
	if err := f.Close(); err != nil {
		s.root.Remove(tmp)
		return fmt.Errorf("closing temporary file: %w", err)
	}
	// Stamp the file with a nanosecond-precision time; see the ETag notes.
	now := time.Now()
	if err := s.root.Chtimes(tmp, now, now); err != nil {
		s.root.Remove(tmp)
		return fmt.Errorf("setting modification time: %w", err)
	}
	return nil
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
	if err := syncOpened(s.root.Open(name(dir))); err != nil {
		return fmt.Errorf("directory %q: %w", dir, err)
	}
	if s.dirSynced != nil {
		s.dirSynced(dir)
	}
	return nil
}

// syncOpened fsyncs and closes the directory d that an open returned with
// err (a file system whose directories cannot be synced, EINVAL, is not an
// error).
func syncOpened(d *os.File, err error) error {
	if err != nil {
		return fmt.Errorf("opening to sync: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("syncing: %w", err)
	}
	return nil
}

// ListsWholeDirectories reports that a listing reads every name of a
// directory, StartAfter or not (delta.DirectoryStore): a Delta table on a
// local file system checks for new versions with a stat instead.
func (s *Store) ListsWholeDirectories() bool { return true }

// List yields the objects matching opts in byte order of their keys (see
// the package documentation, Listing).
func (s *Store) List(ctx context.Context, opts objstore.ListOptions) iter.Seq2[objstore.ObjectInfo, error] {
	return func(yield func(objstore.ObjectInfo, error) bool) {
		if s.follow {
			s.listed.begin()
			defer s.listed.end(filepath.Clean(s.dir))
		}
		// Start at the deepest directory the prefix names.
		start := ""
		if i := strings.LastIndexByte(opts.Prefix, '/'); i >= 0 {
			start = opts.Prefix[:i+1]
			if checkKey(strings.TrimSuffix(start, "/")) != nil {
				return // no valid key can have this prefix
			}
		}
		root, err := s.rootDir()
		if err != nil {
			yield(objstore.ObjectInfo{}, fmt.Errorf("localfs: list %q: %w", opts.Prefix, err))
			return
		}
		// The directories above start are its ancestors (loop detection).
		dir := root
		for seg := range strings.SplitSeq(strings.TrimSuffix(start, "/"), "/") {
			if seg == "" {
				break
			}
			fi, err := s.stat(dir.key + seg)
			if err != nil {
				if isMissing(err) {
					return
				}
				yield(objstore.ObjectInfo{}, fmt.Errorf("localfs: list %q: %w", opts.Prefix, err))
				return
			}
			if !fi.IsDir() {
				return
			}
			dir = dir.child(seg, fi, s.realPath(dir, seg, true))
		}
		s.walk(ctx, dir, opts, yield)
	}
}

// fileID identifies a directory on its device.
type fileID struct{ dev, ino uint64 }

// maxDepth bounds how many directory levels List descends, a last resort
// against loops it cannot recognise (no inode numbers, no real paths).
const maxDepth = 255

// walkDir is a directory being listed and the directories above it.
type walkDir struct {
	key   string // "" for the root, else ending in '/'
	real  string // its real path ("" when unknown)
	id    fileID
	hasID bool
	up    *walkDir // its parent (nil for the root)
	depth int
}

// rootDir describes the store's root directory.
func (s *Store) rootDir() (*walkDir, error) {
	fi, err := os.Stat(s.dir)
	if err != nil {
		return nil, fmt.Errorf("root %s: %w", s.dir, err)
	}
	real, err := filepath.EvalSymlinks(s.dir)
	if err != nil {
		real = ""
	}
	d := &walkDir{real: real}
	d.id, d.hasID = identity(fi)
	return d, nil
}

// child describes the subdirectory name of d, whose info (links followed)
// is fi and real path real.
func (d *walkDir) child(name string, fi fs.FileInfo, real string) *walkDir {
	c := &walkDir{key: d.key + name + "/", real: real, up: d, depth: d.depth + 1}
	c.id, c.hasID = identity(fi)
	return c
}

// loopsTo returns the directory at or above d that is the directory c
// again (nil if none).
func (d *walkDir) loopsTo(c *walkDir) *walkDir {
	for a := d; a != nil; a = a.up {
		if (a.hasID && c.hasID && a.id == c.id) || (!a.hasID && a.real != "" && a.real == c.real) {
			return a
		}
	}
	return nil
}

// realPath returns the real path of the entry name of d: d's real path
// and name, or, for a symbolic link (or when d's is unknown), resolved
// from the file system ("" when that fails).
func (s *Store) realPath(d *walkDir, entry string, link bool) string {
	if !link && d.real != "" {
		return filepath.Join(d.real, entry)
	}
	real, err := filepath.EvalSymlinks(s.fullPath(d.key + entry))
	if err != nil {
		return ""
	}
	return real
}

// excludedBy returns the description of the excluded directory that real
// is or lies in ("" if none).
func (s *Store) excludedBy(real string) string {
	if real == "" {
		return ""
	}
	for _, x := range s.excluded {
		if real == x.dir || strings.HasPrefix(real, x.dir+string(filepath.Separator)) {
			return fmt.Sprintf("%s %s", x.what, x.dir)
		}
	}
	return ""
}

// stat returns the info of key, following symbolic links: within the root
// only, or (WithFollowLinks) wherever they lead.
func (s *Store) stat(key string) (fs.FileInfo, error) {
	if s.follow {
		return os.Stat(s.fullPath(key))
	}
	return s.root.Stat(name(key))
}

// readDir reads the directory whose keys start with dirKey.
func (s *Store) readDir(dirKey string) ([]fs.DirEntry, error) {
	d, err := s.openDir(dirName(dirKey))
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.ReadDir(-1)
}

// dirName is the root-relative name of the directory whose keys start
// with dirKey ("." for the root).
func dirName(dirKey string) string {
	if dirKey == "" {
		return "."
	}
	return name(strings.TrimSuffix(dirKey, "/"))
}

// openDir opens the directory dirName (see dirName), following links when
// the store does.
func (s *Store) openDir(dirName string) (*os.File, error) {
	if s.follow {
		return os.Open(filepath.Join(s.dir, dirName))
	}
	return s.root.Open(dirName)
}

// openDirRoot opens the directory dirName (see dirName) as an os.Root,
// following links when the store does, as openDir opens it.
func (s *Store) openDirRoot(dirName string) (*os.Root, error) {
	if s.follow {
		return os.OpenRoot(filepath.Join(s.dir, dirName))
	}
	return s.root.OpenRoot(dirName)
}

// readDirAfter is readDir for a listing with ListOptions.StartAfter: it
// reads the names only (no stat: on file systems without d_type ReadDir
// stats every entry) and stats just the entries that can hold keys after
// startAfter, so that listing a large directory from a recent key (a Delta
// log from the last known version) costs a name scan plus the new entries.
// A name (valid UTF-8; others always go through) is left out when its key
// and every key below it as a directory sort at or before startAfter.
// stated reports entries whose Info was read with them (no system call).
func (s *Store) readDirAfter(dirKey, startAfter string) (entries []fs.DirEntry, stated bool, err error) {
	if startAfter == "" || startAfter < dirKey {
		entries, err = s.readDir(dirKey)
		// A directory read inside the store's os.Root (not following
		// links) comes with an lstat of every entry: Go's ReadDir cannot
		// stat lazily there, so the walk must not stat them again.
		return entries, !s.follow, err
	}
	dir := dirName(dirKey)
	d, err := s.openDir(dir)
	if err != nil {
		return nil, true, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, true, err
	}
	var out []fs.DirEntry
	for _, n := range names {
		if sub := dirKey + n + "/"; utf8.ValidString(n) && sub < startAfter && !strings.HasPrefix(startAfter, sub) {
			continue
		}
		var fi fs.FileInfo
		if s.follow {
			fi, err = os.Lstat(filepath.Join(s.dir, dir, n))
		} else {
			fi, err = s.root.Lstat(filepath.Join(dir, n))
		}
		if err != nil {
			if isMissing(err) {
				continue // removed meanwhile
			}
			return nil, true, err
		}
		out = append(out, fs.FileInfoToDirEntry(fi))
	}
	return out, true, nil
}

type dirEntry struct {
	sortKey string // key part: the name (U+FFFD for invalid UTF-8), plus "/" for directories
	name    string // the name on disk
	isDir   bool
	entry   fs.DirEntry // regular files: stat relative to the open directory
	info    fs.FileInfo // followed symbolic links: the target's info
	real    string      // directories: the real path
	skip    string      // why the entry cannot be read ("" if it can)
	skipMod time.Time   // skipped entries: the entry's own modification time
}

// classify describes one entry of directory d: what it is once symbolic
// links are followed, or why it cannot be listed as an object.
func (s *Store) classify(d *walkDir, e fs.DirEntry) dirEntry {
	n := e.Name()
	de := dirEntry{sortKey: n, name: n}
	skip := func(isDir bool, format string, args ...any) dirEntry {
		de.isDir, de.skip = isDir, fmt.Sprintf(format, args...)
		if de.isDir {
			de.sortKey += "/"
		}
		if fi, err := e.Info(); err == nil {
			de.skipMod = fi.ModTime()
		}
		return de
	}
	if !utf8.ValidString(n) {
		de.sortKey = strings.ToValidUTF8(n, "\uFFFD")
		return skip(e.IsDir(), "the name %q is not valid UTF-8 (keys are UTF-8), so it cannot be read", n)
	}
	link := e.Type()&fs.ModeSymlink != 0
	switch {
	case e.IsDir():
		de.isDir = true
	case e.Type().IsRegular():
		de.entry = e
	case link:
		fi, err := s.stat(d.key + n)
		if err != nil {
			target, _ := os.Readlink(s.fullPath(d.key + n))
			switch {
			case isMissing(err):
				return skip(false, "symbolic link to %q, which does not exist", target)
			case errors.Is(err, syscall.ELOOP):
				return skip(false, "symbolic link to %q: too many levels of symbolic links (a loop)", target)
			case !s.follow && strings.Contains(err.Error(), "escapes"): // os.Root's error has no sentinel
				return skip(false, "symbolic link to %q, outside the directory %s", target, s.dir)
			}
			return skip(false, "symbolic link to %q: %v", target, err)
		}
		de.isDir, de.info = fi.IsDir(), fi
		if !de.isDir && !fi.Mode().IsRegular() {
			return skip(false, "symbolic link to a %s, not a regular file", kind(fi.Mode()))
		}
	default:
		return skip(false, "not a regular file but a %s", kind(e.Type()))
	}
	if de.isDir || link {
		de.real = s.realPath(d, n, link)
		if x := s.excludedBy(de.real); x != "" {
			return skip(de.isDir, "leads into %s, which is never read as input", x)
		}
	}
	if de.isDir {
		de.sortKey += "/"
	}
	return de
}

// kind names a file type for skip reasons.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeIrregular != 0:
		return "irregular file"
	}
	return "special file"
}

// walk lists directory d. It returns false when iteration must stop.
func (s *Store) walk(ctx context.Context, d *walkDir, opts objstore.ListOptions, yield func(objstore.ObjectInfo, error) bool) bool {
	if err := ctx.Err(); err != nil {
		yield(objstore.ObjectInfo{}, fmt.Errorf("localfs: list %q: %w", opts.Prefix, err))
		return false
	}
	raw, stated, err := s.readDirAfter(d.key, opts.StartAfter)
	if err != nil {
		if isMissing(err) {
			return true // removed meanwhile, or never there
		}
		return yield(objstore.ObjectInfo{}, fmt.Errorf("localfs: list %q: reading %q: %w", opts.Prefix, d.key, err))
	}
	raw = slices.DeleteFunc(raw, func(e fs.DirEntry) bool { return strings.HasPrefix(e.Name(), TempPrefix) })
	// The entries are classified in the order of their keys as the
	// directory read tells them; only a symbolic link to a directory
	// (whose key ends in '/') can then be out of order.
	entries := make([]dirEntry, 0, len(raw))
	for _, i := range keyOrder(raw) {
		entries = append(entries, s.classify(d, raw[i]))
	}
	if bySortKey := func(a, b dirEntry) int { return strings.Compare(a.sortKey, b.sortKey) }; !slices.IsSortedFunc(entries, bySortKey) {
		slices.SortFunc(entries, bySortKey)
	}

	var openRoot func() (*os.Root, error) // entries read with their info need no stat
	if !stated {
		openRoot = func() (*os.Root, error) { return s.openDirRoot(dirName(d.key)) }
	}
	ahead := newStatAhead(entries, d.key, opts, openRoot)
	defer ahead.close()
	for i, e := range entries {
		key := d.key + e.sortKey // directories end in '/'
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
		if e.isDir && e.skip == "" {
			// Skip a directory whose every key is <= StartAfter.
			if key < opts.StartAfter && !strings.HasPrefix(opts.StartAfter, key) {
				continue
			}
			fi := e.info
			if fi == nil {
				if fi, err = s.stat(d.key + e.name); err != nil {
					if isMissing(err) {
						continue // removed meanwhile
					}
					return yield(objstore.ObjectInfo{}, fmt.Errorf("localfs: list %q: %w", key, err))
				}
			}
			c := d.child(e.name, fi, e.real)
			switch loop := d.loopsTo(c); {
			case loop != nil:
				e.skipMod = fi.ModTime()
				e.skip = fmt.Sprintf("directory loop: this is %s again (through a symbolic link); its files are listed there", display(loop.key))
			case c.depth > maxDepth:
				e.skipMod = fi.ModTime()
				e.skip = fmt.Sprintf("more than %d directory levels deep (a directory loop?)", maxDepth)
			default:
				if !s.walk(ctx, c, opts, yield) {
					return false
				}
				continue
			}
		}
		if key <= opts.StartAfter {
			continue
		}
		if e.skip != "" {
			if !opts.Unreadable {
				continue
			}
			if !yield(objstore.ObjectInfo{Key: key, ModTime: e.skipMod, Unreadable: e.skip}, nil) {
				return false
			}
			continue
		}
		fi := e.info
		if fi == nil {
			if e.entry != nil {
				fi, err = ahead.info(i)
			} else {
				fi, err = s.stat(key)
			}
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

// display names a directory key for messages ("" is the root).
func display(dirKey string) string {
	if dirKey == "" {
		return "the root directory"
	}
	return "the directory " + strconv.Quote(dirKey)
}

// RemoveStaleTemp deletes temporary files (left by crashed writers) whose
// modification time is older than olderThan, and returns how many it removed.
//
// Every stream's Open calls it on its table and checkpoint, so it reads the
// tree by names and entry types only and stats just the temporary files: a
// directory read inside the store's os.Root comes with an lstat of every
// entry (Go's ReadDir cannot stat lazily there), which made this walk cost
// one lstat per data file of the table at every start (21 ms for 10,000
// files, BenchmarkRemoveStaleTemp). The walk does not follow symbolic links
// (fs.WalkDir descends into directories only), and the removal goes
// through the root, so nothing outside the store is removed.
func (s *Store) RemoveStaleTemp(ctx context.Context, olderThan time.Duration) (int, error) {
	cutoff := time.Now().Add(-olderThan)
	removed := 0
	err := fs.WalkDir(os.DirFS(s.dir), ".", func(p string, d fs.DirEntry, err error) error {
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
