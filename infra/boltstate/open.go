package boltstate

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/boltstate/internal/boltfile"
)

// ErrLocked reports a state file held by another process for longer than
// the lock timeout.
var ErrLocked = errors.New("state file is locked")

// ErrReadOnly is returned by the writing methods of a store opened with
// OpenReadOnly.
var ErrReadOnly = errors.New("state store opened read-only")

// ErrCorrupt reports a state file that cannot be read safely: truncated,
// overwritten, or not a state file at all. Its message names the file, says
// what is wrong and what to do.
var ErrCorrupt = errors.New("state file is corrupt")

// CorruptError is ErrCorrupt for one state file: what is wrong and the way
// out.
type CorruptError struct {
	// Path is the state file.
	Path string
	// Detail says what is wrong.
	Detail string
	// NeverUsed reports a file that never held any file state (it was cut
	// short while it was created); Open replaces such a file.
	NeverUsed bool
}

func (e *CorruptError) Error() string {
	if e.NeverUsed {
		return fmt.Sprintf("boltstate: state file %s is corrupt: %s. It never held any file state "+
			"(it was cut short while it was created, as when the disk is full): the next run replaces it", e.Path, e.Detail)
	}
	return fmt.Sprintf("boltstate: state file %s is corrupt: %s. It cannot be repaired: restore it from a backup, "+
		"or start the stream over with an emptied table and a new checkpoint (a full refresh: `tributary refresh` with the stream's options); "+
		"without its file state every source file would be ingested again", e.Path, e.Detail)
}

// Is makes errors.Is(err, ErrCorrupt) hold.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// Option configures Open.
type Option func(*options)

type options struct {
	now         func() time.Time
	lockTimeout time.Duration
}

// WithClock makes the store take discovery times from now instead of
// time.Now (they are still forced to increase strictly).
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithLockTimeout sets how long Open waits for another writer of the same
// file to close it, and OpenReadOnly for a write transaction to end
// (default 1s), before failing with ErrLocked.
func WithLockTimeout(d time.Duration) Option {
	return func(o *options) { o.lockTimeout = d }
}

// readerWait bounds how long a write transaction waits for readers
// (OpenReadOnly stores, which hold a shared lock while open) to close.
const readerWait = time.Minute

// lockPoll is how often a busy lock is tried again.
const lockPoll = 5 * time.Millisecond

// initialMmap is the address space bbolt maps a state file into at first
// (bolt.Options.InitialMmapSize): a file growing within it is not mapped
// again (bbolt remaps it at every doubling from 32 KiB, copying the write
// transaction's nodes out of the old mapping first). Pages not in the file
// are never touched, so memory is what the file holds. Registering 9,000
// new files (BenchmarkFirstRun, 500+2,000 chunks): 22.0–23.0 → 19.9–22.0
// CPU ms; the CLI on 10,000 files of 1 KB: 6–9 ms less wall and 4–7 ms
// less CPU (12-pair medians, one and two threads, JSON and CSV), and
// 1–2 MB more peak RSS (16-pair medians): the one mapping keeps the file's
// pages a run touched resident, where each remap dropped the old ones. The
// state file after one run over 10,000 files is 8 MB, over 100,000 files
// 34 MB.
const initialMmap = 64 << 20

// Store is a state.Store in a bbolt file, safe for concurrent use.
//
// # Readers while a run writes
//
// bbolt flocks its file for as long as it is open: exclusively for a
// writer, shared for a read-only handle, so a read-only open used to wait
// for the whole run. A read-only handle really needs the file to stay
// unchanged only while it is open (bbolt maps the file and never re-reads
// its size), and a writer needs exclusivity only against other writers.
// So a Store opened for writing
//
//   - takes an exclusive flock on a separate file, path+".lock", for as long
//     as it is open: that is what keeps two runs apart;
//   - holds bbolt's exclusive flock on the state file only while it opens
//     the file and during each write transaction, and releases it between
//     transactions (its own read transactions need no lock: nobody else
//     writes the file).
//
// A Store opened with OpenReadOnly takes the shared flock (waiting at most
// for one write transaction to commit), so it maps a committed, unchanging
// file until it is closed; the writer's next transaction waits for it
// (at most readerWait). Callers should close a read-only store as soon as
// they have read what they need. This is sound because every writer goes
// through Open (run lock first), and bbolt's own view of the file in the
// writing process stays valid: no other process changes it. A consistent
// snapshot copy of the file was the alternative; it costs a full copy per
// read and still needs a lock or a retry loop to be consistent.
//
// Where flock cannot be released and taken again on bbolt's descriptor
// (platforms other than Linux, macOS and the BSDs), the writer keeps
// bbolt's lock while open and readers wait as before.
type Store struct {
	db       *bolt.DB
	now      func() time.Time
	path     string
	file     *os.File // bbolt's descriptor of the state file
	runLock  *os.File // path+".lock", held by a writer while open
	readOnly bool
	wmu      sync.Mutex // one write transaction (and its flock) at a time
	broken   atomic.Pointer[CorruptError]
}

// Open opens the state file at path for reading and writing, creating it if
// needed. It fails with ErrLocked while another process has it open for
// writing, and with a *CorruptError (ErrCorrupt) when the file is
// truncated or damaged. A file that never held any state (cut short while
// it was created) is replaced.
//
// A new file is built under a temporary name and renamed into place, so a
// failure while creating it (a full disk) leaves no partial file behind.
func Open(path string, opts ...Option) (*Store, error) {
	o := optionsOf(opts)
	run, err := lockRun(path, o.lockTimeout)
	if err != nil {
		return nil, err
	}
	s, err := openWriter(path, o)
	if err != nil {
		run.Close()
		return nil, err
	}
	s.runLock = run
	return s, nil
}

func openWriter(path string, o options) (*Store, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if err := create(path, o); err != nil {
			return nil, err
		}
	}
	s, err := open(path, false, o)
	var ce *CorruptError
	if errors.As(err, &ce) && ce.NeverUsed {
		// It holds nothing: build it again (we hold the run lock).
		if err := create(path, o); err != nil {
			return nil, err
		}
		s, err = open(path, false, o)
	}
	return s, err
}

// OpenReadOnly opens an existing state file for reading. It never creates
// or changes anything (the writing methods return ErrReadOnly) and works
// while a run writes the file: it waits at most for one write transaction.
// A missing file is an error wrapping fs.ErrNotExist.
func OpenReadOnly(path string, opts ...Option) (*Store, error) {
	return open(path, true, optionsOf(opts))
}

func optionsOf(opts []Option) options {
	o := options{now: time.Now, lockTimeout: time.Second}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// lockRun takes the writer's lock file.
func lockRun(path string, timeout time.Duration) (*os.File, error) {
	f, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("boltstate: lock %s: %w", path, err)
	}
	if err := waitLock(context.Background(), f, true, timeout); err != nil {
		f.Close()
		if errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("boltstate: %w: %s is in use by another run on this checkpoint (waited %s)", ErrLocked, path, timeout)
		}
		return nil, fmt.Errorf("boltstate: lock %s: %w", path, err)
	}
	return f, nil
}

// waitLock takes f's flock, trying again until timeout (0: no limit) or
// until ctx is done.
func waitLock(ctx context.Context, f *os.File, exclusive bool, timeout time.Duration) error {
	start := time.Now()
	for {
		ok, err := tryLock(f, exclusive)
		if err != nil || ok {
			return err
		}
		if timeout > 0 && time.Since(start) >= timeout {
			return ErrLocked
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}

// open verifies and opens an existing state file.
func open(path string, readOnly bool, o options) (*Store, error) {
	flag := os.O_RDWR
	if readOnly {
		flag = os.O_RDONLY
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, fmt.Errorf("boltstate: open %s: %w", path, err)
	}
	keep := false
	defer func() {
		if !keep {
			f.Close()
		}
	}()
	if err := waitLock(context.Background(), f, !readOnly, o.lockTimeout); err != nil {
		if errors.Is(err, ErrLocked) {
			what := "written"
			if !readOnly {
				what = "read"
			}
			return nil, fmt.Errorf("boltstate: %w: %s is being %s by another process (waited %s)", ErrLocked, path, what, o.lockTimeout)
		}
		return nil, fmt.Errorf("boltstate: lock %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("boltstate: open %s: %w", path, err)
	}
	if c := boltfile.Verify(f, fi.Size()); c != nil {
		return nil, &CorruptError{Path: path, Detail: c.Detail, NeverUsed: c.Empty}
	}
	s := &Store{now: o.now, path: path, file: f, readOnly: readOnly}
	err = s.guard(func() error {
		var err error
		s.db, err = bolt.Open(path, 0o600, &bolt.Options{
			ReadOnly:        readOnly,
			Timeout:         o.lockTimeout,
			InitialMmapSize: initialMmap,
			// bbolt uses (and at Close closes) the descriptor locked and
			// verified above.
			OpenFile: func(string, int, os.FileMode) (*os.File, error) { return f, nil },
		})
		return err
	})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("boltstate: %w: %s is in use by another process (waited %s)", ErrLocked, path, o.lockTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("boltstate: open %s: %w", path, err)
	}
	keep = true
	if readOnly {
		return s, nil
	}
	// Files made by create have their buckets: only others (made by an
	// older release, or by bbolt itself) are given them, so that opening
	// a state file commits nothing (each commit is two fdatasyncs).
	missing := false
	err = s.guard(func() error {
		return s.db.View(func(tx *bolt.Tx) error {
			missing = tx.Bucket(bucketMeta) == nil || tx.Bucket(bucketStreams) == nil
			return nil
		})
	})
	if err == nil && missing {
		err = s.guard(func() error { return s.db.Update(initBuckets) })
	}
	if err != nil {
		s.db.Close()
		return nil, fmt.Errorf("boltstate: initialise %s: %w", path, err)
	}
	if sharedBetweenTx {
		if err := unlock(f); err != nil {
			s.db.Close()
			return nil, fmt.Errorf("boltstate: unlock %s: %w", path, err)
		}
	}
	return s, nil
}

func initBuckets(tx *bolt.Tx) error {
	for _, b := range [][]byte{bucketMeta, bucketStreams} {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return err
		}
	}
	return nil
}

// create builds an empty state file at path+".new" and renames it into
// place (replacing a file that never held state), then syncs the directory.
// Its one transaction makes the buckets and the store id (StoreID), which
// would otherwise take a commit (two fdatasyncs) of the first run each.
// The file is synced once, whole, before the rename: until then nothing
// reads it (a crash leaves a leftover .new, removed by the next create),
// so its transaction and growth need no syncs of their own (NoSync,
// NoGrowSync: two fdatasyncs and a grow's fsync fewer).
func create(path string, o options) error {
	tmp := path + ".new"
	_ = os.Remove(tmp) // a leftover of an interrupted create; we hold the run lock
	db, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: o.lockTimeout, NoSync: true, NoGrowSync: true})
	if err == nil {
		err = db.Update(func(tx *bolt.Tx) error {
			if err := initBuckets(tx); err != nil {
				return err
			}
			return tx.Bucket(bucketMeta).Put(keyStoreID, []byte(state.NewStoreID()))
		})
		err = errors.Join(err, db.Close())
	}
	if err == nil {
		err = syncFile(tmp)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("boltstate: create %s: %w", path, err)
	}
	return nil
}

// syncFile fsyncs the file at path (its data and size).
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// Close releases the file and its locks. A store that a fault made refuse
// further use (a file cut or damaged under it: guard) closes the file
// without bbolt's Close, which would wait forever for the locks of the
// transaction the fault interrupted; bbolt's mapping of the file then
// stays until the process ends.
func (s *Store) Close() error {
	var err error
	if s.broken.Load() != nil {
		err = s.file.Close()
	} else {
		err = s.db.Close()
	}
	if s.runLock != nil {
		err = errors.Join(err, s.runLock.Close())
	}
	if err != nil {
		return fmt.Errorf("boltstate: close %s: %w", s.path, err)
	}
	return nil
}

// guard runs op, turning a panic or a memory fault inside bbolt (a file
// damaged after Open verified it, e.g. truncated by another program) into a
// *CorruptError instead of a crash. The store then refuses further use.
func (s *Store) guard(op func() error) (err error) {
	if c := s.broken.Load(); c != nil {
		return c
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			c := &CorruptError{Path: s.path, Detail: fmt.Sprintf("reading it failed (%v)", r)}
			s.broken.Store(c)
			err = c
		}
	}()
	return op()
}

// view runs fn in a read transaction.
func (s *Store) view(fn func(*bolt.Tx) error) error {
	return s.guard(func() error { return s.db.View(fn) })
}

// update runs fn in a write transaction, holding the state file's
// exclusive lock for its duration (see Store).
func (s *Store) update(ctx context.Context, fn func(*bolt.Tx) error) error {
	if s.readOnly {
		return fmt.Errorf("boltstate: %s: %w", s.path, ErrReadOnly)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if sharedBetweenTx {
		if err := waitLock(ctx, s.file, true, readerWait); err != nil {
			if errors.Is(err, ErrLocked) {
				return fmt.Errorf("boltstate: %w: %s is still being read by another process after %s", ErrLocked, s.path, readerWait)
			}
			return fmt.Errorf("boltstate: lock %s: %w", s.path, err)
		}
		defer unlock(s.file)
	}
	return s.guard(func() error { return s.db.Update(fn) })
}

// Streams lists the stream ids that have state in the file, sorted.
func (s *Store) Streams(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []string
	err := s.view(func(tx *bolt.Tx) error {
		root := tx.Bucket(bucketStreams)
		if root == nil {
			return nil
		}
		return root.ForEachBucket(func(k []byte) error {
			out = append(out, string(k))
			return nil
		})
	})
	return out, err
}
