// Package boltstate provides the embedded, crash-safe state.Store of
// Tributary's local mode, kept in one bbolt file.
//
// # Why bbolt (and not SQLite)
//
// go.etcd.io/bbolt is pure Go (no cgo, so the CLI cross-compiles and stays a
// single static binary), keeps everything in one file, and writes through a
// copy-on-write B+tree: a transaction's pages are written to free space, the
// file is fsync'd, then the meta page is switched and fsync'd again, so a
// crash at any point leaves either the old or the new tree, never a torn one.
// One process at a time writes a state file; others may read it meanwhile
// (OpenReadOnly, see Store for the locking). Open verifies the file first
// (verify), so a truncated or damaged file is reported as such
// (ErrCorrupt) instead of crashing the process with SIGBUS. SQLite would give the same durability but needs cgo (or a large
// transpiled driver) and SQL for what is a handful of sorted key spaces; the
// store needs only ordered keys, prefix scans and serialised writers.
//
// # Layout
//
// Bucket "meta" holds "last_discovery" (8-byte big-endian unix nanos), so
// discovery times keep increasing across restarts even if the clock steps
// back, and "store_id" (StoreID's random id, written when the file is
// created, or on first use in a file an older release created). Bucket "streams" holds one sub-bucket per stream id with:
//
//	files    path -> JSON record {size, etag, mod_time, discovery_time, batch, expires_at, skip_reason}
//	pending  discovery nanos (8 bytes, big-endian, sign bit flipped) + path -> empty
//	batches  batch id (8 bytes, big-endian, sign bit flipped) -> commit time (RFC 3339, nanos)
//
// A file is in "pending" exactly while its record's batch is -1; a claimed
// file's state and commit time are derived from its batch's row in
// "batches" (so MarkCommitted writes one key per batch, not one per file).
// A record with a skip_reason (MarkSkipped) is SKIPPED whatever its batch's
// row says; the row still gives its commit time. A record with batch -1 and
// a skip_reason was skipped at discovery (RegisterSkipped) and is not in
// "pending".
//
// Every method runs in one bbolt transaction: atomic and fsync'd on commit.
// Entries reads in pages of short read transactions, so callers may write to
// the store while iterating. Expired entries (RegisterOptions.ExpiresAt) are
// kept and reported by ExpiresAt; nothing purges them yet.
package boltstate

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/tributary-io/tributary/core/state"
)

var (
	bucketMeta    = []byte("meta")
	bucketStreams = []byte("streams")
	bucketFiles   = []byte("files")
	bucketPending = []byte("pending")
	bucketBatches = []byte("batches")
	keyLastDisc   = []byte("last_discovery")
	keyStoreID    = []byte("store_id")
)

// entriesPage is how many entries one read transaction of Entries loads.
const entriesPage = 256

var _ state.Store = (*Store)(nil)

// record is a file's row in the "files" bucket.
type record struct {
	Size      int64     `json:"size"`
	ETag      string    `json:"etag"`
	ModTime   time.Time `json:"mod_time"`
	Discovery time.Time `json:"discovery_time"`
	Batch     int64     `json:"batch"`
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	// SkipReason is set once the file's batch skipped it (MarkSkipped), or,
	// with Batch -1, when discovery skipped it (RegisterSkipped).
	SkipReason string `json:"skip_reason,omitempty"`
}

// skippedAtDiscovery reports a record of RegisterSkipped.
func (r *record) skippedAtDiscovery() bool { return r.Batch < 0 && r.SkipReason != "" }

// orderedInt encodes n so that byte order is numeric order.
func orderedInt(n int64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(n)^(1<<63))
	return b[:]
}

// decodeOrderedInt reverses orderedInt.
func decodeOrderedInt(b []byte) int64 {
	return int64(binary.BigEndian.Uint64(b) ^ (1 << 63))
}

// pendingKey is the "pending" index key: discovery nanos then path.
func pendingKey(discovery time.Time, path string) []byte {
	return append(orderedInt(discovery.UnixNano()), path...)
}

// parsePendingKey splits a "pending" index key.
func parsePendingKey(k []byte) (nanos int64, path string, err error) {
	if len(k) < 8 {
		return 0, "", fmt.Errorf("boltstate: pending key %x shorter than 8 bytes", k)
	}
	return decodeOrderedInt(k[:8]), string(k[8:]), nil
}

// streamBuckets are one stream's buckets (nil when the stream has none and
// the transaction is read-only).
type streamBuckets struct {
	files, pending, batches *bolt.Bucket
	stream                  *bolt.Bucket // the stream's bucket, holding the three
}

func openStream(tx *bolt.Tx, stream string, create bool) (*streamBuckets, error) {
	if stream == "" {
		return nil, errors.New("boltstate: empty stream id")
	}
	root := tx.Bucket(bucketStreams)
	if root == nil {
		if !create {
			return nil, nil // a read-only view of a file without buckets
		}
		return nil, errors.New("boltstate: missing streams bucket")
	}
	sb := root.Bucket([]byte(stream))
	if sb == nil {
		if !create {
			return nil, nil
		}
		var err error
		if sb, err = root.CreateBucket([]byte(stream)); err != nil {
			return nil, fmt.Errorf("boltstate: create stream %q: %w", stream, err)
		}
	}
	out := &streamBuckets{stream: sb}
	for _, p := range []struct {
		name []byte
		dst  **bolt.Bucket
	}{{bucketFiles, &out.files}, {bucketPending, &out.pending}, {bucketBatches, &out.batches}} {
		b := sb.Bucket(p.name)
		if b == nil && create {
			var err error
			if b, err = sb.CreateBucket(p.name); err != nil {
				return nil, fmt.Errorf("boltstate: create %s of stream %q: %w", p.name, stream, err)
			}
		}
		if b == nil {
			return nil, fmt.Errorf("boltstate: stream %q lacks bucket %s", stream, p.name)
		}
		*p.dst = b
	}
	return out, nil
}

func (b *streamBuckets) get(stream, path string) (*record, error) {
	return decodeIn(stream, path, b.files.Get([]byte(path)))
}

// getAt is get through c, a cursor of the files bucket that one caller
// reuses for many lookups (Bucket.Get allocates a cursor per call).
func (b *streamBuckets) getAt(c *bolt.Cursor, stream, path string) (*record, error) {
	k, v := c.Seek([]byte(path))
	if string(k) != path {
		v = nil
	}
	return decodeIn(stream, path, v)
}

// walker looks records up through one cursor of the files bucket, for
// paths that mostly come in ascending key order (the pending index's
// paths, after a listing registered them in key order): a path that is the key after the last one
// looked up is reached with Next instead of a seek from the root. It only
// returns a value under a key equal to the path, so any order is correct;
// the bucket must not change while it is used (a write moves cursors).
type walker struct {
	c    *bolt.Cursor
	k, v []byte // the cursor's position (k nil: none)
}

// lookup returns path's record as stored, nil when there is none.
func (w *walker) lookup(path string) []byte {
	if w.k != nil {
		if string(w.k) == path {
			return w.v
		}
		if k, v := w.c.Next(); k != nil && string(k) == path {
			w.k, w.v = k, v
			return v
		}
	}
	k, v := w.c.Seek([]byte(path))
	w.k, w.v = k, v
	if k == nil || string(k) != path {
		return nil
	}
	return v
}

// decodeIn decodes path's record v (nil: no record).
func decodeIn(stream, path string, v []byte) (*record, error) {
	if v == nil {
		return nil, nil
	}
	var r record
	if err := decodeRecord(v, &r); err != nil {
		return nil, fmt.Errorf("boltstate: decode %q in stream %q: %w", path, stream, err)
	}
	return &r, nil
}

func (b *streamBuckets) put(stream, path string, r *record) error {
	v, err := encodeRecord(r)
	if err != nil {
		return fmt.Errorf("boltstate: encode %q in stream %q: %w", path, stream, err)
	}
	if err := b.files.Put([]byte(path), v); err != nil {
		return fmt.Errorf("boltstate: write %q in stream %q: %w", path, stream, err)
	}
	return nil
}

// entry builds the public view of a record.
func (b *streamBuckets) entry(path string, r *record) (state.Entry, error) {
	e := state.Entry{
		File:          state.File{Path: path, Size: r.Size, ETag: r.ETag, ModTime: r.ModTime},
		DiscoveryTime: r.Discovery,
		State:         state.Pending,
		BatchID:       r.Batch,
	}
	if r.Batch < 0 {
		e.BatchID = -1
		if r.skippedAtDiscovery() {
			e.State, e.Error = state.Skipped, r.SkipReason
		}
		return e, nil
	}
	e.State = state.Claimed
	if v := b.batches.Get(orderedInt(r.Batch)); v != nil {
		var t time.Time
		if err := t.UnmarshalText(v); err != nil {
			return e, fmt.Errorf("boltstate: decode commit time of batch %d: %w", r.Batch, err)
		}
		e.State, e.CommitTime = state.Committed, &t
	}
	if r.SkipReason != "" {
		e.State, e.Error = state.Skipped, r.SkipReason
	}
	return e, nil
}

// discoveryTime returns the clock's time forced past the stored last one,
// and records it.
func (s *Store) discoveryTime(tx *bolt.Tx) (time.Time, error) {
	meta := tx.Bucket(bucketMeta)
	t := s.now()
	if v := meta.Get(keyLastDisc); len(v) == 8 {
		if last := decodeOrderedInt(v); t.UnixNano() <= last {
			t = time.Unix(0, last+1)
		}
	}
	return t, meta.Put(keyLastDisc, orderedInt(t.UnixNano()))
}

// Register implements state.Store; the whole call is one transaction.
func (s *Store) Register(ctx context.Context, stream string, files []state.File, opts state.RegisterOptions) ([]bool, error) {
	out := make([]bool, len(files))
	if len(files) == 0 {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	err := s.update(ctx, func(tx *bolt.Tx) error {
		b, err := openStream(tx, stream, true)
		if err != nil {
			return err
		}
		now, err := s.discoveryTime(tx)
		if err != nil {
			return fmt.Errorf("boltstate: record discovery time: %w", err)
		}
		// Pending keys lead with the discovery time, later than every
		// key already there: the index only grows at its end.
		b.pending.FillPercent = appendFill
		middle := false // a record was put before the bucket's last key
		fc := b.files.Cursor()
		// last is the greatest key in the files bucket (have: the bucket
		// has one): a path after it has no record, and is not looked up (a
		// first listing registers its files in key order, each after the
		// last).
		last, _ := fc.Last()
		have := last != nil
		last = slices.Clone(last)
		for i, f := range files {
			if f.Path == "" {
				return fmt.Errorf("boltstate: register in stream %q: empty path", stream)
			}
			after := !have || f.Path > string(last)
			var old *record
			if !after {
				if old, err = b.getAt(fc, stream, f.Path); err != nil {
					return err
				}
			}
			if old != nil && !old.skippedAtDiscovery() {
				if !opts.AllowOverwrites || old.ETag == f.ETag {
					continue
				}
				if old.Batch < 0 {
					if err := b.pending.Delete(pendingKey(old.Discovery, f.Path)); err != nil {
						return err
					}
				}
			}
			r := &record{Size: f.Size, ETag: f.ETag, ModTime: f.ModTime, Discovery: now, Batch: -1, ExpiresAt: opts.ExpiresAt}
			if err := b.put(stream, f.Path, r); err != nil {
				return err
			}
			if after {
				last, have = append(last[:0], f.Path...), true
			} else {
				middle = true
			}
			// The index value is the size, for CountPending.
			if err := b.pending.Put(pendingKey(now, f.Path), orderedInt(f.Size)); err != nil {
				return fmt.Errorf("boltstate: index %q in stream %q: %w", f.Path, stream, err)
			}
			out[i] = true
		}
		if !middle {
			b.files.FillPercent = appendFill
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// appendFill is how full Register leaves the pages it splits (bbolt's
// FillPercent) in a bucket it only appended to: the files bucket when
// every record it put sorts after the bucket's last key (a listing), the
// pending index always. bbolt splits at half a page by default, which
// for keys that only ever arrive in order leaves every page half empty:
// twice the pages to write, to read back for the plan and to rewrite in
// the claim.
const appendFill = 0.95

// RegisterSkipped implements state.Store: a record with batch -1 and the
// reason, not in the pending index.
func (s *Store) RegisterSkipped(ctx context.Context, stream string, f state.File, reason string) (bool, error) {
	if f.Path == "" {
		return false, fmt.Errorf("boltstate: register skipped file in stream %q: empty path", stream)
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	added := false
	err := s.db.Update(func(tx *bolt.Tx) error {
		added = false
		b, err := openStream(tx, stream, true)
		if err != nil {
			return err
		}
		if old, err := b.get(stream, f.Path); err != nil || old != nil {
			return err
		}
		now, err := s.discoveryTime(tx)
		if err != nil {
			return fmt.Errorf("boltstate: record discovery time: %w", err)
		}
		r := &record{Size: f.Size, ETag: f.ETag, ModTime: f.ModTime, Discovery: now, Batch: -1, SkipReason: state.SkipReason(reason)}
		if err := b.put(stream, f.Path, r); err != nil {
			return err
		}
		added = true
		return nil
	})
	if err != nil {
		return false, err
	}
	return added, nil
}

// Pending implements state.Store.
func (s *Store) Pending(ctx context.Context, stream string, limit int) ([]state.Entry, error) {
	if limit <= 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []state.Entry
	err := s.view(func(tx *bolt.Tx) error {
		b, err := openStream(tx, stream, false)
		if err != nil || b == nil {
			return err
		}
		c := b.pending.Cursor()
		// Counted first (keys only), so that out is allocated once.
		n := 0
		for k, _ := c.First(); k != nil && n < limit; k, _ = c.Next() {
			n++
		}
		out = make([]state.Entry, 0, n)
		files := walker{c: b.files.Cursor()}
		for k, _ := c.First(); k != nil && len(out) < limit; k, _ = c.Next() {
			_, path, err := parsePendingKey(k)
			if err != nil {
				return err
			}
			r, err := decodeIn(stream, path, files.lookup(path))
			if err != nil {
				return err
			}
			if r == nil {
				return fmt.Errorf("boltstate: pending index names %q in stream %q but it has no record", path, stream)
			}
			e, err := b.entry(path, r)
			if err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// CountPending implements state.PendingCounter: it walks the pending
// index, whose values hold the sizes (an index entry written before they
// did has an empty value: its record is read).
func (s *Store) CountPending(ctx context.Context, stream string, skip, limit int) (files, bytes int64, err error) {
	if limit <= 0 {
		return 0, 0, nil
	}
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	err = s.view(func(tx *bolt.Tx) error {
		b, err := openStream(tx, stream, false)
		if err != nil || b == nil {
			return err
		}
		c := b.pending.Cursor()
		k, v := c.First()
		for i := 0; k != nil && i < skip; i++ {
			k, v = c.Next()
		}
		for ; k != nil && files < int64(limit); k, v = c.Next() {
			files++
			if len(v) == 8 {
				bytes += decodeOrderedInt(v)
				continue
			}
			_, path, err := parsePendingKey(k)
			if err != nil {
				return err
			}
			r, err := b.get(stream, path)
			if err != nil {
				return err
			}
			if r == nil {
				return fmt.Errorf("boltstate: pending index names %q in stream %q but it has no record", path, stream)
			}
			bytes += r.Size
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	return files, bytes, nil
}

// Claim implements state.Store. Files already in another batch stay there
// and are named in the returned error; the others are still claimed.
func (s *Store) Claim(ctx context.Context, stream string, batch int64, paths []string) error {
	if batch < 0 {
		return fmt.Errorf("boltstate: claim in stream %q: negative batch id %d", stream, batch)
	}
	if len(paths) == 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var conflicts []error
	err := s.update(ctx, func(tx *bolt.Tx) error {
		conflicts = nil
		b, err := openStream(tx, stream, false)
		if err != nil || b == nil {
			return err
		}
		// A claim of every file in the pending index (a first run's
		// batch) drops the index whole (unindex); otherwise each claimed
		// file's key is deleted.
		idx := indexOf(b.pending, len(paths))
		fc := b.files.Cursor()
		var claimed keySet // the pending keys of the files claimed
		for _, p := range paths {
			key := []byte(p)
			k, v := fc.Seek(key)
			if string(k) != p {
				v = nil
			}
			if nv, discovery, ok := claimInPlace(v, batch); ok {
				// A pending record in the common layout: its batch is
				// set in place (the default case below, without decoding
				// and encoding it whole).
				pk := pendingKey(discovery, p)
				if idx.n > 0 {
					claimed.add(pk)
				} else if err := b.pending.Delete(pk); err != nil {
					return err
				}
				if err := b.files.Put(key, nv); err != nil {
					return fmt.Errorf("boltstate: write %q in stream %q: %w", p, stream, err)
				}
				continue
			}
			r, err := decodeIn(stream, p, v)
			if err != nil {
				return err
			}
			switch {
			case r == nil || r.Batch == batch:
			case r.skippedAtDiscovery():
				conflicts = append(conflicts, fmt.Errorf("boltstate: claim %q into batch %d in stream %q: skipped at discovery (%s)", p, batch, stream, r.SkipReason))
			case r.Batch >= 0:
				conflicts = append(conflicts, fmt.Errorf("boltstate: claim %q into batch %d in stream %q: already in batch %d", p, batch, stream, r.Batch))
			default:
				k := pendingKey(r.Discovery, p)
				if idx.n > 0 {
					claimed.add(k)
				} else if err := b.pending.Delete(k); err != nil {
					return err
				}
				r.Batch = batch
				if err := b.put(stream, p, r); err != nil {
					return err
				}
			}
		}
		if idx.n == 0 {
			return nil
		}
		if claimed == idx {
			return b.dropPending()
		}
		// Not the whole index: delete the keys of the files this claim
		// moved into batch (a file in it before has no key left: deleting
		// it does nothing).
		for _, p := range paths {
			r, err := b.getAt(fc, stream, p)
			if err != nil {
				return err
			}
			if r != nil && r.Batch == batch && !r.skippedAtDiscovery() {
				if err := b.pending.Delete(pendingKey(r.Discovery, p)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return errors.Join(conflicts...)
}

// keySet summarises a set of distinct keys: how many, and the sum of
// their 64-bit FNV-1a hashes (so the order they come in does not
// matter). Two equal keySets are the same keys but with a chance of
// 2^-64 per pair of different sets.
type keySet struct {
	n   int
	sum uint64
}

// add counts key k.
func (s *keySet) add(k []byte) {
	h := uint64(14695981039346656037) // FNV-1a, 64 bits (hash/fnv, without its allocation)
	for _, c := range k {
		h = (h ^ uint64(c)) * 1099511628211
	}
	s.n++
	s.sum += h
}

// indexOf is the keySet of the pending index when it holds at most max
// keys (a claim of max files could take them all); otherwise, or when it
// is empty, the zero keySet. It reads the index's keys in order, without
// their records.
func indexOf(pending *bolt.Bucket, max int) keySet {
	var s keySet
	c := pending.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if s.n == max {
			return keySet{}
		}
		s.add(k)
	}
	return s
}

// dropPending empties the pending index by dropping it and creating it
// again: its pages are freed whole, where deleting its every key sought
// each from the root and merged and wrote its nodes again at the commit.
func (b *streamBuckets) dropPending() error {
	if err := b.stream.DeleteBucket(bucketPending); err != nil {
		return fmt.Errorf("boltstate: drop the pending index: %w", err)
	}
	pending, err := b.stream.CreateBucket(bucketPending)
	if err != nil {
		return fmt.Errorf("boltstate: create the pending index: %w", err)
	}
	b.pending = pending
	return nil
}

// MarkCommitted implements state.Store: one key per batch, first time kept.
func (s *Store) MarkCommitted(ctx context.Context, stream string, batch int64, t time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	v, err := t.MarshalText()
	if err != nil {
		return fmt.Errorf("boltstate: commit time of batch %d: %w", batch, err)
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		b, err := openStream(tx, stream, true)
		if err != nil {
			return err
		}
		k := orderedInt(batch)
		if b.batches.Get(k) != nil {
			return nil
		}
		return b.batches.Put(k, v)
	})
}

// MarkSkipped implements state.Store: the reason is written into the file's
// record, the first one kept.
func (s *Store) MarkSkipped(ctx context.Context, stream string, batch int64, path, reason string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		b, err := openStream(tx, stream, false)
		if err != nil {
			return err
		}
		var r *record
		if b != nil && path != "" {
			if r, err = b.get(stream, path); err != nil {
				return err
			}
		}
		switch {
		case r == nil:
			return fmt.Errorf("boltstate: mark %q skipped in stream %q: %w", path, stream, state.ErrNotFound)
		case r.skippedAtDiscovery():
			return fmt.Errorf("boltstate: mark %q skipped by batch %d in stream %q: the file was skipped at discovery and is in no batch", path, batch, stream)
		case r.Batch < 0:
			return fmt.Errorf("boltstate: mark %q skipped by batch %d in stream %q: the file is pending", path, batch, stream)
		case r.Batch != batch:
			return fmt.Errorf("boltstate: mark %q skipped by batch %d in stream %q: the file is in batch %d", path, batch, stream, r.Batch)
		case r.SkipReason != "":
			return nil
		}
		r.SkipReason = state.SkipReason(reason)
		return b.put(stream, path, r)
	})
}

// lookup runs fn on the record of path, or returns ErrNotFound.
func (s *Store) lookup(stream, path string, fn func(b *streamBuckets, r *record) error) error {
	return s.view(func(tx *bolt.Tx) error {
		b, err := openStream(tx, stream, false)
		if err != nil {
			return err
		}
		var r *record
		if b != nil {
			if r, err = b.get(stream, path); err != nil {
				return err
			}
		}
		if r == nil {
			return fmt.Errorf("boltstate: %q in stream %q: %w", path, stream, state.ErrNotFound)
		}
		return fn(b, r)
	})
}

// Get implements state.Store.
func (s *Store) Get(ctx context.Context, stream, path string) (state.Entry, error) {
	if err := ctx.Err(); err != nil {
		return state.Entry{}, err
	}
	var e state.Entry
	err := s.lookup(stream, path, func(b *streamBuckets, r *record) (err error) {
		e, err = b.entry(path, r)
		return err
	})
	return e, err
}

// ExpiresAt returns the expiry stored for the file at path (zero if none);
// it implements statetest.ExpiryReader.
func (s *Store) ExpiresAt(ctx context.Context, stream, path string) (time.Time, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, err
	}
	var t time.Time
	err := s.lookup(stream, path, func(_ *streamBuckets, r *record) error {
		t = r.ExpiresAt
		return nil
	})
	return t, err
}

// Entries implements state.Store, reading entriesPage entries per read
// transaction.
func (s *Store) Entries(ctx context.Context, stream string, states ...state.IngestionState) iter.Seq2[state.Entry, error] {
	return func(yield func(state.Entry, error) bool) {
		var after []byte
		for {
			if err := ctx.Err(); err != nil {
				yield(state.Entry{}, err)
				return
			}
			var page []state.Entry
			more := false
			err := s.view(func(tx *bolt.Tx) error {
				b, err := openStream(tx, stream, false)
				if err != nil || b == nil {
					return err
				}
				c := b.files.Cursor()
				k, v := c.First()
				if after != nil {
					k, v = c.Seek(after)
					if k != nil && bytes.Equal(k, after) {
						k, v = c.Next()
					}
				}
				for ; k != nil; k, v = c.Next() {
					if len(page) == entriesPage {
						more = true
						return nil
					}
					var r record
					if err := decodeRecord(v, &r); err != nil {
						return fmt.Errorf("boltstate: decode %q in stream %q: %w", k, stream, err)
					}
					e, err := b.entry(string(k), &r)
					if err != nil {
						return err
					}
					after = append(after[:0], k...)
					if len(states) == 0 || slices.Contains(states, e.State) {
						page = append(page, e)
					}
				}
				return nil
			})
			if err != nil {
				yield(state.Entry{}, err)
				return
			}
			for _, e := range page {
				if !yield(e, nil) {
					return
				}
			}
			if !more {
				return
			}
		}
	}
}

// DropStream implements state.Store: the stream's bucket (files, pending
// queue, batches) is deleted in one transaction.
func (s *Store) DropStream(ctx context.Context, stream string) (int, error) {
	if stream == "" {
		return 0, errors.New("boltstate: empty stream id")
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	n := 0
	err := s.update(ctx, func(tx *bolt.Tx) error {
		n = 0
		root := tx.Bucket(bucketStreams)
		if root == nil {
			return errors.New("boltstate: missing streams bucket")
		}
		sb := root.Bucket([]byte(stream))
		if sb == nil {
			return nil
		}
		if files := sb.Bucket(bucketFiles); files != nil {
			n = files.Stats().KeyN
		}
		if err := root.DeleteBucket([]byte(stream)); err != nil {
			return fmt.Errorf("boltstate: drop stream %q: %w", stream, err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// StoreID returns the state file's identity, "bolt:" and a random id kept
// in the file's "meta" bucket and written on first use: a replaced or
// recreated state.db has another one, a copied or moved file keeps it.
func (s *Store) StoreID(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	var id string
	read := func(tx *bolt.Tx) error {
		if m := tx.Bucket(bucketMeta); m != nil {
			id = string(m.Get(keyStoreID))
		}
		return nil
	}
	if err := s.view(read); err != nil {
		return "", fmt.Errorf("boltstate: reading the store id of %s: %w", s.path, err)
	}
	if id == "" && s.readOnly {
		return "", fmt.Errorf("boltstate: %s has no store id yet: %w", s.path, state.ErrNotFound)
	}
	if id == "" {
		err := s.update(ctx, func(tx *bolt.Tx) error {
			m, err := tx.CreateBucketIfNotExists(bucketMeta)
			if err != nil {
				return err
			}
			if v := m.Get(keyStoreID); v != nil {
				id = string(v)
				return nil
			}
			id = state.NewStoreID()
			return m.Put(keyStoreID, []byte(id))
		})
		if err != nil {
			return "", fmt.Errorf("boltstate: recording the store id of %s: %w", s.path, err)
		}
	}
	return "bolt:" + id, nil
}
