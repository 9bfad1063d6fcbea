// Package objstore defines the object-store port: the small set of blob
// operations Tributary needs from S3 or a local directory.
//
// Keys are '/'-separated paths relative to the store's root. They never start
// with '/', never contain an empty segment, and never contain a "." or ".."
// segment; adapters refuse such keys with ErrInvalidKey. Any other byte
// sequence that is valid UTF-8 is a legal key (spaces, '+', '%', unicode).
package objstore

import (
	"context"
	"errors"
	"io"
	"iter"
	"time"
)

// Contract errors. Adapters wrap them (errors.Is must hold).
var (
	// ErrNotFound: Get, Head or Copy's source found no object at the key.
	ErrNotFound = errors.New("objstore: object not found")
	// ErrExists: PutIfAbsent found an object already at the key; nothing was written.
	ErrExists = errors.New("objstore: object already exists")
	// ErrInvalidKey: the key is empty, absolute, or has an empty, "." or ".." segment.
	ErrInvalidKey = errors.New("objstore: invalid key")
)

// ObjectInfo describes a stored object.
type ObjectInfo struct {
	// Key is the object's key relative to the store root.
	Key string
	// Size is the object's length in bytes.
	Size int64
	// ETag identifies the object's content version. It changes whenever the
	// object is overwritten with different content; adapters without a native
	// ETag derive one (e.g. from size and modification time).
	ETag string
	// ModTime is the last modification time.
	ModTime time.Time
	// Unreadable is set only on entries of a listing with
	// ListOptions.Unreadable: it says why the store lists this entry but
	// cannot serve it as an object (a dangling symbolic link, a name that
	// is not UTF-8, a symbolic link loop, ...). Key then names the entry as
	// closely as a key can (invalid UTF-8 replaced by U+FFFD; a directory
	// ends in '/'), and Size and ETag are empty.
	Unreadable string
}

// ListOptions selects the objects a listing returns.
type ListOptions struct {
	// Prefix restricts the listing to keys starting with it (a plain string
	// prefix, not necessarily ending in '/').
	Prefix string
	// StartAfter restricts the listing to keys strictly greater than it.
	StartAfter string
	// Unreadable asks the store to also yield, in key order, the entries it
	// finds but cannot serve as objects, with ObjectInfo.Unreadable set, so
	// that a caller can report them instead of losing them silently.
	// Stores whose listings only ever hold readable objects (S3) ignore it.
	Unreadable bool
}

// LevelLister is an optional capability of a Store: listing one level of
// the key hierarchy at a time ('/' as the delimiter), so that a large
// prefix can be listed by several workers in parallel. prefix is "" or ends
// in '/'. It returns the objects directly at that level and the distinct
// sub-prefixes below it (each ending in '/'), both in lexical order.
type LevelLister interface {
	ListLevel(ctx context.Context, prefix string) (objects []ObjectInfo, prefixes []string, err error)
}

// PrefixLister is an optional capability of a Store: the distinct
// sub-prefixes of one level of the key hierarchy ('/' as the delimiter),
// in lexical order, reading at most maxEntries entries of the level
// (objects and prefixes; <= 0: no bound). prefix is "" or ends in '/'.
// A bounded call returns the sub-prefixes that sort before the entries it
// did not read, so that splitting a listing at them costs a few requests
// even on a level of millions of objects.
type PrefixLister interface {
	ListPrefixes(ctx context.Context, prefix string, maxEntries int) ([]string, error)
}

// WholeReader is an optional capability of a Store that serves local
// files: reading a small object of a known (listed) size whole, in fewer
// system calls than Get and a Read (a local directory: open, one read,
// close). ReadWhole reads the object at key, listed with size bytes
// (0 <= size < len(buf)), into buf with one read of len(buf) bytes. When
// that read returned exactly size bytes (a read of a regular file returns
// fewer bytes than asked only at its end, so the object holds exactly
// those), it returns them (buf[:n], n == size) and a nil body: the object
// is closed. Otherwise the object differs from its listing (it grew, shrank
// or is no longer a regular file): it returns the n bytes read and body,
// the rest of the object (an open stream after those bytes; its reads
// return the first read's error, if it failed), which the caller closes.
// Errors are Get's (ErrNotFound for a missing object or one that is not a
// regular file).
type WholeReader interface {
	ReadWhole(ctx context.Context, key string, size int64, buf []byte) (n int, body io.ReadCloser, err error)
}

// Creator is an optional capability of a Store: writing an object through
// a writer whose bytes the store keeps where the object will live, so that
// a large object produced once (a Parquet data file) is published without
// being copied again (a local directory renames its temporary file). A
// store without it (S3) is written with Put, from a temporary file.
//
// Contract (checked by objstoretest.RunConformanceTests when the store has
// it):
//   - Create refuses an invalid key as Put does (ErrInvalidKey). Until
//     Commit, nothing at the key changes: Get, Head and List see the
//     previous object, or none.
//   - Commit publishes the bytes written as the object at the key with
//     Put's guarantees: it replaces any object there atomically, and is as
//     durable as a Put of the same store once it returns. A Commit that
//     fails, or whose context is cancelled, leaves the previous object (or
//     none) and nothing of the new one.
//   - Abort discards the bytes written and leaves the key untouched; after
//     Commit it does nothing, so a deferred Abort is always safe.
//   - Writes after Commit or Abort fail. A PendingObject is for one
//     goroutine; several may be pending at once, also for one key (the
//     last Commit wins, as with Put).
type Creator interface {
	// Create starts writing the object at key.
	Create(ctx context.Context, key string) (PendingObject, error)
}

// PendingObject is an object being written (Creator.Create): its bytes
// become the object at Commit.
type PendingObject interface {
	io.Writer
	// Commit publishes the bytes written as the object (see Creator).
	Commit(ctx context.Context) error
	// Abort discards the bytes written; it does nothing after Commit.
	Abort()
}

// Store is the object-store port.
//
// Contract (checked by objstoretest.RunConformanceTests):
//   - Put replaces the object atomically: a reader sees the old or the new
//     content, never a partial object. A Put whose reader fails or whose
//     context is cancelled leaves no object (or the previous one) behind.
//   - PutIfAbsent creates the object only if no object exists at the key.
//     Among concurrent PutIfAbsent calls for one key exactly one succeeds;
//     the others return an error wrapping ErrExists. Creation is atomic.
//   - List yields every object under the prefix in ascending lexical (byte)
//     order of keys, each once, and only objects (no directory entries;
//     with ListOptions.Unreadable also the unreadable entries). Keys
//     created or deleted during a listing may or may not appear, but every key
//     that exists for the whole listing appears exactly once.
//   - Delete of a missing key succeeds (idempotent).
//   - Copy copies src to dst within the store, replacing dst.
type Store interface {
	// Get opens the object for streaming reads. The caller closes it.
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// Head returns the object's metadata.
	Head(ctx context.Context, key string) (ObjectInfo, error)
	// Put writes the object, replacing any existing one.
	Put(ctx context.Context, key string, r io.Reader) error
	// PutIfAbsent writes the object only if the key is free (ErrExists otherwise).
	PutIfAbsent(ctx context.Context, key string, r io.Reader) error
	// List yields objects in lexical key order; iteration stops at the first error.
	List(ctx context.Context, opts ListOptions) iter.Seq2[ObjectInfo, error]
	// Delete removes the object; a missing object is not an error.
	Delete(ctx context.Context, key string) error
	// Copy copies the object at src to dst.
	Copy(ctx context.Context, src, dst string) error
}
