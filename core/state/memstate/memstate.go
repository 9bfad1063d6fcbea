// Package memstate provides an in-memory state.Store for unit tests of the
// core: a mutex and maps, nothing persisted, no AWS.
//
// It honours the whole state.Store contract (see statetest). Every file of
// one Register call gets the same DiscoveryTime; times handed out by one
// Store strictly increase between calls even if the clock stands still.
// ExpiresAt is stored (see ExpiresAt) but entries are never forgotten.
package memstate

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tributary-io/tributary/core/state"
)

// Option configures a Store.
type Option func(*Store)

// WithClock makes the store take discovery times from now instead of
// time.Now (they are still forced to increase strictly between calls).
func WithClock(now func() time.Time) Option {
	return func(s *Store) { s.now = now }
}

// Store is an in-memory state.Store, safe for concurrent use.
type Store struct {
	mu      sync.Mutex
	now     func() time.Time
	last    time.Time
	streams map[string]*streamState
	id      string
}

type streamState struct {
	files   map[string]*record
	batches map[int64]time.Time
}

type record struct {
	file      state.File
	discovery time.Time
	batch     int64 // -1 while pending
	expiresAt time.Time
	skip      string // skip reason; non-empty once skipped
}

var _ state.Store = (*Store)(nil)

// New returns an empty Store.
func New(opts ...Option) *Store {
	s := &Store{now: time.Now, streams: map[string]*streamState{}, id: "mem:" + state.NewStoreID()}
	for _, o := range opts {
		o(s)
	}
	return s
}

// stream returns the stream's maps, creating them when create is set.
func (s *Store) stream(id string, create bool) *streamState {
	st := s.streams[id]
	if st == nil && create {
		st = &streamState{files: map[string]*record{}, batches: map[int64]time.Time{}}
		s.streams[id] = st
	}
	return st
}

// discoveryTime returns the clock's time, forced past the last one given.
func (s *Store) discoveryTime() time.Time {
	t := s.now()
	if !t.After(s.last) {
		t = s.last.Add(time.Nanosecond)
	}
	s.last = t
	return t
}

func checkStream(stream string) error {
	if stream == "" {
		return errors.New("memstate: empty stream id")
	}
	return nil
}

// Register implements state.Store.
func (s *Store) Register(ctx context.Context, stream string, files []state.File, opts state.RegisterOptions) ([]bool, error) {
	if err := checkStream(stream); err != nil {
		return nil, err
	}
	for _, f := range files {
		if f.Path == "" {
			return nil, fmt.Errorf("memstate: register in stream %q: empty path", stream)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st := s.stream(stream, true)
	now := s.discoveryTime()
	out := make([]bool, len(files))
	for i, f := range files {
		old, ok := st.files[f.Path]
		if ok && !old.skippedAtDiscovery() && (!opts.AllowOverwrites || old.file.ETag == f.ETag) {
			continue
		}
		st.files[f.Path] = &record{file: f, discovery: now, batch: -1, expiresAt: opts.ExpiresAt}
		out[i] = true
	}
	return out, nil
}

// skippedAtDiscovery reports a record of RegisterSkipped.
func (r *record) skippedAtDiscovery() bool { return r.batch < 0 && r.skip != "" }

// RegisterSkipped implements state.Store.
func (s *Store) RegisterSkipped(ctx context.Context, stream string, f state.File, reason string) (bool, error) {
	if err := checkStream(stream); err != nil {
		return false, err
	}
	if f.Path == "" {
		return false, fmt.Errorf("memstate: register skipped file in stream %q: empty path", stream)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return false, err
	}
	st := s.stream(stream, true)
	if st.files[f.Path] != nil {
		return false, nil
	}
	st.files[f.Path] = &record{file: f, discovery: s.discoveryTime(), batch: -1, skip: state.SkipReason(reason)}
	return true, nil
}

// entry builds the public view of a record.
func (st *streamState) entry(r *record) state.Entry {
	e := state.Entry{File: r.file, DiscoveryTime: r.discovery, State: state.Pending, BatchID: r.batch}
	if r.skippedAtDiscovery() {
		e.State, e.Error = state.Skipped, r.skip
	}
	if r.batch >= 0 {
		e.State = state.Claimed
		if t, ok := st.batches[r.batch]; ok {
			e.State = state.Committed
			e.CommitTime = &t
		}
		if r.skip != "" {
			e.State, e.Error = state.Skipped, r.skip
		}
	}
	return e
}

// Pending implements state.Store.
func (s *Store) Pending(ctx context.Context, stream string, limit int) ([]state.Entry, error) {
	if err := checkStream(stream); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stream(stream, false)
	if st == nil || limit <= 0 {
		return nil, ctx.Err()
	}
	var out []state.Entry
	for _, r := range st.files {
		if r.batch < 0 && !r.skippedAtDiscovery() {
			out = append(out, st.entry(r))
		}
	}
	slices.SortFunc(out, func(a, b state.Entry) int {
		if c := a.DiscoveryTime.Compare(b.DiscoveryTime); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, ctx.Err()
}

// CountPending implements state.PendingCounter.
func (s *Store) CountPending(ctx context.Context, stream string, skip, limit int) (files, bytes int64, err error) {
	if limit <= 0 {
		return 0, 0, nil
	}
	pending, err := s.Pending(ctx, stream, skip+limit)
	if err != nil {
		return 0, 0, err
	}
	for _, e := range pending[min(skip, len(pending)):] {
		files++
		bytes += e.Size
	}
	return files, bytes, nil
}

// Claim implements state.Store. Files already in another batch are left
// there and reported in the returned error.
func (s *Store) Claim(ctx context.Context, stream string, batch int64, paths []string) error {
	if err := checkStream(stream); err != nil {
		return err
	}
	if batch < 0 {
		return fmt.Errorf("memstate: claim in stream %q: negative batch id %d", stream, batch)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	st := s.stream(stream, false)
	if st == nil {
		return nil
	}
	var errs []error
	for _, p := range paths {
		r, ok := st.files[p]
		switch {
		case !ok || r.batch == batch:
		case r.skippedAtDiscovery():
			errs = append(errs, fmt.Errorf("memstate: claim %q into batch %d in stream %q: skipped at discovery (%s)", p, batch, stream, r.skip))
		case r.batch < 0:
			r.batch = batch
		default:
			errs = append(errs, fmt.Errorf("memstate: claim %q into batch %d in stream %q: already in batch %d", p, batch, stream, r.batch))
		}
	}
	return errors.Join(errs...)
}

// MarkCommitted implements state.Store.
func (s *Store) MarkCommitted(ctx context.Context, stream string, batch int64, t time.Time) error {
	if err := checkStream(stream); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	st := s.stream(stream, true)
	if _, ok := st.batches[batch]; !ok {
		st.batches[batch] = t
	}
	return nil
}

// MarkSkipped implements state.Store.
func (s *Store) MarkSkipped(ctx context.Context, stream string, batch int64, path, reason string) error {
	if err := checkStream(stream); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	st := s.stream(stream, false)
	if st == nil || st.files[path] == nil {
		return fmt.Errorf("memstate: mark %q skipped in stream %q: %w", path, stream, state.ErrNotFound)
	}
	r := st.files[path]
	switch {
	case r.skippedAtDiscovery():
		return fmt.Errorf("memstate: mark %q skipped by batch %d in stream %q: the file was skipped at discovery and is in no batch", path, batch, stream)
	case r.batch < 0:
		return fmt.Errorf("memstate: mark %q skipped by batch %d in stream %q: the file is pending", path, batch, stream)
	case r.batch != batch:
		return fmt.Errorf("memstate: mark %q skipped by batch %d in stream %q: the file is in batch %d", path, batch, stream, r.batch)
	case r.skip == "":
		r.skip = state.SkipReason(reason)
	}
	return nil
}

// Get implements state.Store.
func (s *Store) Get(ctx context.Context, stream, path string) (state.Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stream(stream, false)
	if st == nil || st.files[path] == nil {
		return state.Entry{}, fmt.Errorf("memstate: %q in stream %q: %w", path, stream, state.ErrNotFound)
	}
	return st.entry(st.files[path]), ctx.Err()
}

// ExpiresAt returns the expiry stored for the file at path (zero if none);
// it implements statetest.ExpiryReader.
func (s *Store) ExpiresAt(ctx context.Context, stream, path string) (time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stream(stream, false)
	if st == nil || st.files[path] == nil {
		return time.Time{}, fmt.Errorf("memstate: %q in stream %q: %w", path, stream, state.ErrNotFound)
	}
	return st.files[path].expiresAt, ctx.Err()
}

// Entries implements state.Store. It yields a snapshot taken when iteration
// starts.
func (s *Store) Entries(ctx context.Context, stream string, states ...state.IngestionState) iter.Seq2[state.Entry, error] {
	return func(yield func(state.Entry, error) bool) {
		s.mu.Lock()
		var out []state.Entry
		if st := s.stream(stream, false); st != nil {
			for _, r := range st.files {
				e := st.entry(r)
				if len(states) == 0 || slices.Contains(states, e.State) {
					out = append(out, e)
				}
			}
		}
		s.mu.Unlock()
		slices.SortFunc(out, func(a, b state.Entry) int { return strings.Compare(a.Path, b.Path) })
		for _, e := range out {
			if err := ctx.Err(); err != nil {
				yield(state.Entry{}, err)
				return
			}
			if !yield(e, nil) {
				return
			}
		}
	}
}

// DropStream implements state.Store: the stream's maps are removed.
func (s *Store) DropStream(ctx context.Context, stream string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	if st := s.stream(stream, false); st != nil {
		n = len(st.files)
	}
	delete(s.streams, stream)
	return n, nil
}

// StoreID returns the store's identity: a random id made by New (each
// in-memory store is a new, empty store).
func (s *Store) StoreID(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return s.id, nil
}
