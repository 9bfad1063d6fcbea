// Package inboxstate is the file-state store of streams whose state is a
// DynamoDB table (the Lambda functions, and the CLI with a dynamodb://
// state): pending files live in an inbox in the stream's checkpoint
// location, and a file's DynamoDB item is written once, when a batch claims
// it. A file costs one DynamoDB write unit.
//
// # Layout
//
// Register writes one inbox object per call (per discovery invocation, per
// listing chunk), after dropping the files whose items already say they
// are known (an eventually consistent BatchGetItem: reads are cheap; not
// for files that are likely new, state.RegisterOptions.LikelyNew):
//
//	CHECKPOINT/inbox/<20-digit unix nanos>-<16 hex digits>.json
//	{"stream": ID, "discoveryNanos": N, "allowOverwrites": bool,
//	 "expiresAt": unix seconds, "files": [{"path", "size", "etag", "modNanos"}, ...]}
//
// The objects are never rewritten. Pending LISTs the inbox (strongly
// consistent), reads the objects in key order (cached in the process: they
// are immutable) and returns their records, one entry per path, in
// discovery order, leaving out files this process claimed; it reads no
// item. A claim takes its files' records out of the inbox (tidy): an
// object whose records were all claimed is deleted, one with records left
// is replaced by an object of those. Get, Entries and the other reads of
// one file's state check the records against the items (strongly
// consistent reads).
//
// ClaimFiles (state.FileClaimer) writes each file's item with the batch id
// in one conditional UpdateItem (dynamostate.Store.ClaimFile). A file that
// another batch already holds was handed over twice (a redelivered event, a
// repeated listing, a crash between the inbox write and the event's
// acknowledgement): the claim reports it as not owned and the batch drops
// it. The answer never changes for a given item once its batch is set, so
// every replay of a sealed plan agrees.
//
// # The exactly-once argument
//
// Plans are sealed in order (put-if-absent in the checkpoint), plan N+1 is
// built only after batch N is committed, every file of plan N is claimed
// before N's Delta commit and its records leave the inbox then, and a
// file that a plan lists anyway (a record a crash left behind, a
// redelivered event) is owned by exactly one batch (the conditional
// claim); the other batches drop it, whichever replays. See
// docs/state-store.md.
//
// # Relaxed Register
//
// Register does not read the inbox, so it may report a still-pending path
// as new again (state.PendingRepeater): a second record of a pending file
// is harmless. Concurrent Register calls of one new path may all report
// true. Everything else is the state.Store contract.
package inboxstate

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/state"
	"github.com/tributary-io/tributary/infra/dynamostate"
)

// Prefix is the checkpoint prefix of the inbox objects.
const Prefix = "inbox/"

// maxTracked bounds the paths a Store remembers per stream (records seen
// by Pending, paths claimed since): a process that forgets them claims with
// the plan's facts and leaves consumed inbox objects to the next Pending.
const maxTracked = 100000

// readAhead is how many inbox objects Pending reads before checking their
// files' items; the reads run in parallel.
const readAhead = 32

// Store is the inbox state store of one checkpoint location; safe for
// concurrent use.
type Store struct {
	items  *dynamostate.Store
	inbox  objstore.Store
	now    func() time.Time
	logger *slog.Logger
	// allow: the stream's cloudFiles.allowOverwrites, for claims of plan
	// files without a pending record (WithAllowOverwrites).
	allow bool
	// maxAge: the stream's cloudFiles.maxFileAge, for the expiry of plan
	// files claimed without a pending record (WithMaxFileAge).
	maxAge time.Duration

	mu   sync.Mutex
	last time.Time
	objs map[string]*object // immutable inbox objects read, by key
	// seen: the pending candidates of the last scans by stream and path
	// (facts for ClaimFiles).
	seen map[string]map[string]candidate
	// open: by stream, the inbox objects whose files were pending at the
	// last scan, with those paths; claimed: paths claimed since, with the
	// version claimed.
	open    map[string]map[string][]string
	claimed map[string]map[string]claimedVersion
	// migrated: streams whose legacy pending index was read.
	migrated map[string]bool
}

var (
	_ state.Store           = (*Store)(nil)
	_ state.FileClaimer     = (*Store)(nil)
	_ state.PendingRepeater = (*Store)(nil)
)

// Option configures a Store.
type Option func(*Store)

// WithClock makes the store take discovery times from now (forced to
// increase strictly within one Store).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithAllowOverwrites tells the store that the stream allows overwrites
// (cloudFiles.allowOverwrites): a plan file claimed without a pending inbox
// record (a checkpoint's plans registered again in a new table) takes over
// an older, different version's item, as its record would have.
func WithAllowOverwrites(allow bool) Option { return func(s *Store) { s.allow = allow } }

// WithMaxFileAge tells the store the stream's cloudFiles.maxFileAge: a
// plan file claimed without a pending inbox record (a claim replayed by a
// new process, or a checkpoint's plans registered again in a new table)
// gets the expiry its registration would have had, its discovery time
// plus age (0: none).
func WithMaxFileAge(age time.Duration) Option { return func(s *Store) { s.maxAge = age } }

// WithLogger sets the logger of duplicate hand-overs and inbox clean-up.
func WithLogger(l *slog.Logger) Option { return func(s *Store) { s.logger = l } }

// New returns the store whose file items live in items and whose inbox is
// under Prefix in checkpoint (the stream's checkpoint location).
func New(items *dynamostate.Store, checkpoint objstore.Store, opts ...Option) *Store {
	s := &Store{
		items: items, inbox: checkpoint, now: time.Now, logger: slog.Default(),
		objs: map[string]*object{}, seen: map[string]map[string]candidate{},
		open: map[string]map[string][]string{}, claimed: map[string]map[string]claimedVersion{},
		migrated: map[string]bool{},
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// RegisterMayRepeatPending implements state.PendingRepeater: Register does
// not read the inbox.
func (s *Store) RegisterMayRepeatPending() bool { return true }

// object is one inbox object.
type object struct {
	Stream          string      `json:"stream"`
	DiscoveryNanos  int64       `json:"discoveryNanos"`
	AllowOverwrites bool        `json:"allowOverwrites,omitempty"`
	ExpiresAt       int64       `json:"expiresAt,omitempty"`
	Files           []inboxFile `json:"files"`
}

// inboxFile is one file of an inbox object.
type inboxFile struct {
	Path     string `json:"path"`
	Size     int64  `json:"size"`
	ETag     string `json:"etag,omitempty"`
	ModNanos int64  `json:"modNanos,omitempty"`
	// DiscNanos, when set, is the file's own discovery time (files moved
	// from a table's legacy pending index keep theirs).
	DiscNanos int64 `json:"discoveryNanos,omitempty"`
}

// candidate is one inbox record of a file.
type candidate struct {
	key     string // the inbox object
	file    state.File
	disc    int64
	allow   bool
	expires int64
}

// recordOf returns the record of f in the inbox object o at key.
func recordOf(key string, o *object, f inboxFile) candidate {
	c := candidate{key: key, disc: o.DiscoveryNanos, allow: o.AllowOverwrites, expires: o.ExpiresAt,
		file: state.File{Path: f.Path, Size: f.Size, ETag: f.ETag}}
	if f.ModNanos != 0 {
		c.file.ModTime = time.Unix(0, f.ModNanos)
	}
	if f.DiscNanos != 0 {
		c.disc = f.DiscNanos
	}
	return c
}

func (c candidate) entry() state.Entry {
	return state.Entry{File: c.file, DiscoveryTime: time.Unix(0, c.disc), State: state.Pending, BatchID: -1}
}

func (c candidate) claimInput() dynamostate.ClaimInput {
	return dynamostate.ClaimInput{File: c.file, DiscNanos: c.disc, ExpiresAt: c.expires, AllowOverwrites: c.allow}
}

// pendingGiven reports whether the record is still pending given the
// file's item (nil: none): no batch holds the file, or (allowed
// overwrites) the batch holds an older, different version.
func (c candidate) pendingGiven(it *dynamostate.FileFacts) bool {
	switch {
	case it == nil, it.Batch < 0:
		return true
	case c.allow && c.file.ETag != it.ETag && c.disc > it.DiscNanos:
		return true
	}
	return false
}

// discoveryTime returns the clock's time forced past the last one given out.
func (s *Store) discoveryTime() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.now()
	if !t.After(s.last) {
		t = s.last.Add(time.Nanosecond)
	}
	s.last = t
	return t.UnixNano()
}

func newKey(disc int64) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s%020d-%s.json", Prefix, disc, hex.EncodeToString(b[:]))
}

func checkFiles(stream string, files []state.File) error {
	if err := dynamostate.CheckFile(stream, "x"); err != nil {
		return fmt.Errorf("inboxstate: %w", err)
	}
	for _, f := range files {
		if err := dynamostate.CheckFile(stream, f.Path); err != nil {
			return fmt.Errorf("inboxstate: %w", err)
		}
	}
	return nil
}

// Register implements state.Store: the files whose items say they are
// known are dropped (an eventually consistent read; a file claimed a
// moment ago may be recorded again, harmlessly), the others are written in
// one inbox object. No DynamoDB write. With opts.LikelyNew (object-created
// events, keys after an incremental listing's last) the items are not
// read: every file is recorded, and a known one's claim drops it.
func (s *Store) Register(ctx context.Context, stream string, files []state.File, opts state.RegisterOptions) ([]bool, error) {
	if err := checkFiles(stream, files); err != nil {
		return nil, err
	}
	out := make([]bool, len(files))
	if len(files) == 0 {
		return out, nil
	}
	first := map[string]bool{}
	paths := make([]string, 0, len(files))
	for _, f := range files {
		if !first[f.Path] {
			first[f.Path] = true
			paths = append(paths, f.Path)
		}
	}
	items := map[string]dynamostate.FileFacts{}
	if !opts.LikelyNew {
		var err error
		if items, err = s.items.ReadFiles(ctx, stream, paths, false); err != nil {
			return nil, fmt.Errorf("inboxstate: register: %w", err)
		}
	}
	disc := s.discoveryTime()
	if disc < 0 {
		return nil, fmt.Errorf("inboxstate: discovery time %d before 1970", disc)
	}
	obj := object{Stream: stream, DiscoveryNanos: disc, AllowOverwrites: opts.AllowOverwrites}
	if !opts.ExpiresAt.IsZero() {
		obj.ExpiresAt = opts.ExpiresAt.Unix()
	}
	for i, f := range files {
		if !first[f.Path] {
			continue // a second record of a path in this call
		}
		first[f.Path] = false
		if it, ok := items[f.Path]; ok && known(it, f, opts.AllowOverwrites) {
			continue
		}
		out[i] = true
		var mod int64
		if !f.ModTime.IsZero() {
			mod = f.ModTime.UnixNano()
		}
		obj.Files = append(obj.Files, inboxFile{Path: f.Path, Size: f.Size, ETag: f.ETag, ModNanos: mod})
	}
	if len(obj.Files) == 0 {
		return out, nil
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("inboxstate: register: %w", err)
	}
	key := newKey(disc)
	if err := s.inbox.Put(ctx, key, bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("inboxstate: register %d files of stream %q: writing %s: %w", len(obj.Files), stream, key, err)
	}
	// Not cached: the commit function, another process on AWS, reads
	// it back (and tests that run both in one process count that GET).
	return out, nil
}

// known reports whether an item makes a registration of f a no-op: the
// file is held by a batch (with allowOverwrites: in the same version). An
// item without batch (skipped at discovery, or pending in a table written
// by an older release) does not: the file goes to the inbox.
func known(it dynamostate.FileFacts, f state.File, allowOverwrites bool) bool {
	return it.Batch >= 0 && (!allowOverwrites || it.ETag == f.ETag)
}

// listKeys lists the inbox object keys in order and drops cached objects
// that are gone.
func (s *Store) listKeys(ctx context.Context) ([]string, error) {
	var keys []string
	for o, err := range s.inbox.List(ctx, objstore.ListOptions{Prefix: Prefix}) {
		if err != nil {
			return nil, fmt.Errorf("inboxstate: listing the inbox: %w", err)
		}
		if strings.HasSuffix(o.Key, ".json") {
			keys = append(keys, o.Key)
		}
	}
	s.mu.Lock()
	live := make(map[string]bool, len(keys))
	for _, k := range keys {
		live[k] = true
	}
	for k := range s.objs {
		if !live[k] {
			delete(s.objs, k)
		}
	}
	for _, open := range s.open {
		for k := range open {
			if !live[k] {
				delete(open, k)
			}
		}
	}
	s.mu.Unlock()
	return keys, nil
}

// read returns the inbox objects at keys (nil for one deleted meanwhile),
// from the cache or read in parallel.
func (s *Store) read(ctx context.Context, keys []string) ([]*object, error) {
	out := make([]*object, len(keys))
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, k := range keys {
		s.mu.Lock()
		o := s.objs[k]
		s.mu.Unlock()
		if o != nil {
			out[i] = o
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			data, found, err := objstore.ReadAll(ctx, s.inbox, k)
			if err != nil || !found {
				errs[i] = err
				return
			}
			var o object
			if err := json.Unmarshal(data, &o); err != nil {
				errs[i] = fmt.Errorf("inboxstate: inbox object %s is corrupt: %w", k, err)
				return
			}
			s.mu.Lock()
			s.objs[k] = &o
			s.mu.Unlock()
			out[i] = &o
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("inboxstate: reading the inbox: %w", err)
	}
	return out, nil
}

// scanResult is what a scan of the inbox found for one stream.
type scanResult struct {
	// pending: one record per path, in discovery order.
	pending []candidate
	// items: the items read, by path.
	items map[string]dynamostate.FileFacts
	// stale: pending records superseded or duplicated within the result.
	complete bool // every inbox object was read
}

// scan reads the stream's inbox records in key order and returns the
// pending ones, one per path. With check set each record is checked
// against its item (strongly consistent reads: Get, Entries and the other
// rare reads of one file's state); without, a record is pending unless
// this process claimed its file (Pending: a claim takes its files' records
// out of the inbox, see tidy, so the check would cost a read per file to
// find what a claim finds anyway). With only set, only records of those
// paths count. It stops once it holds at least limit pending paths (limit
// < 0: reads everything). Objects none of whose records is pending are
// deleted.
func (s *Store) scan(ctx context.Context, stream string, limit int, only map[string]bool, check bool) (scanResult, error) {
	res := scanResult{items: map[string]dynamostate.FileFacts{}}
	keys, err := s.listKeys(ctx)
	if err != nil {
		return res, err
	}
	var recs []candidate
	openObjs := map[string][]string{}
	for chunk := range slices.Chunk(keys, readAhead) {
		objs, err := s.read(ctx, chunk)
		if err != nil {
			return res, err
		}
		var fresh []string
		type objRecs struct {
			key  string
			recs []candidate
		}
		var group []objRecs
		for i, o := range objs {
			if o == nil || o.Stream != stream {
				continue
			}
			or := objRecs{key: chunk[i]}
			for _, f := range o.Files {
				if only != nil && !only[f.Path] {
					continue
				}
				c := recordOf(chunk[i], o, f)
				or.recs = append(or.recs, c)
				if _, ok := res.items[f.Path]; !ok {
					fresh = append(fresh, f.Path)
					res.items[f.Path] = dynamostate.FileFacts{Batch: -2} // placeholder: read below
				}
			}
			group = append(group, or)
		}
		got := map[string]dynamostate.FileFacts{}
		if check {
			if got, err = s.items.ReadFiles(ctx, stream, fresh, true); err != nil {
				return res, fmt.Errorf("inboxstate: %w", err)
			}
		}
		for _, p := range fresh {
			if it, ok := got[p]; ok {
				res.items[p] = it
			} else {
				delete(res.items, p)
			}
		}
		var empty []string
		s.mu.Lock()
		claimed := s.claimed[stream]
		for _, g := range group {
			var still []string
			for _, c := range g.recs {
				var pending bool
				if check {
					var it *dynamostate.FileFacts
					if f, ok := res.items[c.file.Path]; ok {
						it = &f
					}
					pending = c.pendingGiven(it)
				} else {
					pending = !claimed[c.file.Path].consumes(c)
				}
				if pending {
					recs = append(recs, c)
					still = append(still, c.file.Path)
				}
			}
			if only != nil {
				continue // a partial view of the object
			}
			if len(still) == 0 {
				empty = append(empty, g.key)
			} else {
				openObjs[g.key] = still
			}
		}
		s.mu.Unlock()
		for _, k := range empty {
			_ = s.drop(ctx, stream, k)
		}
		if limit >= 0 && countPaths(recs) >= limit {
			break
		}
	}
	res.pending = dedup(recs)
	s.mu.Lock()
	seen := s.seen[stream]
	if seen == nil || len(seen) > maxTracked {
		seen = map[string]candidate{}
		s.seen[stream] = seen
	}
	for _, c := range res.pending {
		seen[c.file.Path] = c
	}
	if only == nil {
		if s.open[stream] == nil {
			s.open[stream] = map[string][]string{}
		}
		for k, ps := range openObjs {
			s.open[stream][k] = ps
		}
	}
	s.mu.Unlock()
	return res, nil
}

func countPaths(recs []candidate) int {
	seen := map[string]bool{}
	for _, c := range recs {
		seen[c.file.Path] = true
	}
	return len(seen)
}

// dedup orders pending records by (discovery time, path) and keeps one per
// path: the first, unless a later record allows overwrites and names
// another version, which then replaces it (at its own place).
func dedup(recs []candidate) []candidate {
	slices.SortStableFunc(recs, func(a, b candidate) int {
		return cmp.Or(cmp.Compare(a.disc, b.disc), strings.Compare(a.file.Path, b.file.Path))
	})
	at := map[string]int{}
	out := make([]candidate, 0, len(recs))
	dead := make([]bool, 0, len(recs))
	for _, c := range recs {
		i, ok := at[c.file.Path]
		if ok {
			if !c.allow || c.file.ETag == out[i].file.ETag {
				continue
			}
			dead[i] = true
		}
		at[c.file.Path] = len(out)
		out = append(out, c)
		dead = append(dead, false)
	}
	kept := out[:0]
	for i, c := range out {
		if !dead[i] {
			kept = append(kept, c)
		}
	}
	return kept
}

// drop deletes an inbox object whose records are all held by batches; a
// failure is logged and returned (a later scan tries again).
func (s *Store) drop(ctx context.Context, stream, key string) error {
	if err := s.inbox.Delete(ctx, key); err != nil {
		s.logger.WarnContext(ctx, "inboxstate: could not delete a consumed inbox object; a later run retries",
			"stream", stream, "key", key, "error", err.Error())
		return fmt.Errorf("inboxstate: deleting the consumed inbox object %s: %w", key, err)
	}
	s.mu.Lock()
	delete(s.objs, key)
	if o := s.open[stream]; o != nil {
		delete(o, key)
	}
	s.mu.Unlock()
	return nil
}

// Pending implements state.Store.
func (s *Store) Pending(ctx context.Context, stream string, limit int) ([]state.Entry, error) {
	if err := checkFiles(stream, nil); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, nil
	}
	if err := s.migrateLegacy(ctx, stream); err != nil {
		return nil, err
	}
	res, err := s.scan(ctx, stream, limit, nil, false)
	if err != nil {
		return nil, err
	}
	ps := res.pending[:min(limit, len(res.pending))]
	out := make([]state.Entry, len(ps))
	for i, c := range ps {
		out[i] = c.entry()
	}
	return out, nil
}

// ClaimFiles implements state.FileClaimer: one conditional UpdateItem per
// file (dynamostate.Store.ClaimFile) with the facts of its inbox record as
// the last Pending of this process read it (a file this process has not
// seen pending: the inbox is scanned first; without a record: the file's
// facts as given, discovered now). Then the claimed files' records are
// taken out of the inbox (tidy), so that Pending, in any process, no
// longer returns them without reading their items.
func (s *Store) ClaimFiles(ctx context.Context, stream string, batch int64, files []state.File) ([]bool, error) {
	if err := checkFiles(stream, files); err != nil {
		return nil, err
	}
	ins := make([]dynamostate.ClaimInput, len(files))
	versions := make([]claimedVersion, len(files))
	var missing []int
	lookup := func() {
		missing = missing[:0]
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, f := range files {
			c, ok := s.seen[stream][f.Path]
			if ok && c.file.ETag == f.ETag && s.open[stream][c.key] != nil {
				ins[i] = c.claimInput()
				versions[i] = claimedVersion{etag: c.file.ETag, disc: c.disc}
			} else {
				missing = append(missing, i)
			}
		}
	}
	if lookup(); len(missing) > 0 {
		// Files whose inbox records this process has not scanned: a
		// replay in a new process, or a checkpoint's plans registered
		// again in a new table. The inbox is scanned (no item read) so
		// that the records are taken out after the claim (tidy) and
		// their facts are claimed. The discovery and backfill roles may
		// only write the inbox (they claim when they register a
		// checkpoint's plans in a new table): without the scan the files
		// get the plan's facts and their records stay for a later plan,
		// whose claim drops them.
		if _, err := s.scan(ctx, stream, -1, nil, false); err != nil {
			s.logger.WarnContext(ctx, "inboxstate: could not read the inbox before a claim; the claimed files' records stay in it and a later plan's claim drops them",
				"stream", stream, "batchId", batch, "error", err.Error())
		} else {
			lookup()
		}
	}
	for _, i := range missing {
		// No pending record: the item gets the plan's facts (path, size, ETag and
		// modification time), discovered now, expiring maxFileAge after
		// that (WithMaxFileAge). If
		// the file is in this batch already or held by another batch,
		// the facts are not written at all.
		disc := s.discoveryTime()
		ins[i] = dynamostate.ClaimInput{File: files[i], DiscNanos: disc, AllowOverwrites: s.allow}
		if s.maxAge > 0 {
			ins[i].ExpiresAt = time.Unix(0, disc).Add(s.maxAge).Unix()
		}
		versions[i] = claimedVersion{etag: files[i].ETag}
	}
	owned := make([]bool, len(files))
	holders := make([]int64, len(files))
	err := s.items.ForEach(ctx, len(files), func(i int) error {
		var err error
		owned[i], holders[i], err = s.items.ClaimFile(ctx, stream, batch, ins[i])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("inboxstate: %w", err)
	}
	s.mu.Lock()
	if s.claimed[stream] == nil || len(s.claimed[stream]) > maxTracked {
		// Bounded: forgetting claims only leaves records that tidy could
		// not take out to a later plan, whose claim drops them.
		s.claimed[stream] = map[string]claimedVersion{}
	}
	for i, f := range files {
		if old, ok := s.claimed[stream][f.Path]; !ok || old.disc <= versions[i].disc {
			s.claimed[stream][f.Path] = versions[i]
		}
		delete(s.seen[stream], f.Path)
	}
	s.mu.Unlock()
	for i, f := range files {
		if !owned[i] {
			s.logger.WarnContext(ctx, "a file was handed over twice: another batch holds it, this batch drops it",
				"stream", stream, "batchId", batch, "path", f.Path, "heldByBatch", holders[i])
		}
	}
	if err := s.tidy(ctx, stream); err != nil {
		return nil, err
	}
	return owned, nil
}

// Claim implements state.Store: the paths' pending inbox records are
// claimed (ClaimFiles); a path without one is checked against its item (a
// replayed claim is a no-op, a file of another batch or skipped at
// discovery is an error naming it, an unknown path is ignored).
func (s *Store) Claim(ctx context.Context, stream string, batch int64, paths []string) error {
	if err := checkFiles(stream, nil); err != nil {
		return err
	}
	if batch < 0 {
		return fmt.Errorf("inboxstate: claim in stream %q: negative batch id %d", stream, batch)
	}
	only := map[string]bool{}
	for _, p := range paths {
		if dynamostate.CheckFile(stream, p) == nil {
			only[p] = true
		}
	}
	if len(only) == 0 {
		return nil
	}
	res, err := s.scan(ctx, stream, -1, only, true)
	if err != nil {
		return err
	}
	var files []state.File
	inbox := map[string]bool{}
	for _, c := range res.pending {
		files = append(files, c.file)
		inbox[c.file.Path] = true
	}
	var errs []error
	var rest []string
	for p := range only {
		if !inbox[p] {
			rest = append(rest, p)
		}
	}
	slices.Sort(rest)
	facts, err := s.items.ReadFiles(ctx, stream, rest, true)
	if err != nil {
		return fmt.Errorf("inboxstate: %w", err)
	}
	for _, p := range rest {
		it, ok := facts[p]
		switch {
		case !ok:
			// unknown path: ignored
		case it.SkippedAtDiscovery:
			errs = append(errs, fmt.Errorf("inboxstate: claim %q into batch %d in stream %q: skipped at discovery", p, batch, stream))
		case it.Batch < 0:
			// A pending item of a table written before the inbox.
			e, err := s.items.Get(ctx, stream, p)
			if err != nil {
				return fmt.Errorf("inboxstate: %w", err)
			}
			files = append(files, e.File)
			s.mu.Lock()
			if s.seen[stream] == nil {
				s.seen[stream] = map[string]candidate{}
			}
			s.seen[stream][p] = candidate{file: e.File, disc: e.DiscoveryTime.UnixNano()}
			s.mu.Unlock()
		case it.Batch != batch:
			errs = append(errs, fmt.Errorf("inboxstate: claim %q into batch %d in stream %q: already in batch %d", p, batch, stream, it.Batch))
		}
	}
	if len(files) > 0 {
		owned, err := s.ClaimFiles(ctx, stream, batch, files)
		if err != nil {
			return err
		}
		for i, ok := range owned {
			if !ok {
				errs = append(errs, fmt.Errorf("inboxstate: claim %q into batch %d in stream %q: already in another batch", files[i].Path, batch, stream))
			}
		}
	}
	return errors.Join(errs...)
}

// MarkCommitted implements state.Store: the batch item (one write per
// batch), then the inbox objects whose pending records this process has
// seen claimed are deleted.
func (s *Store) MarkCommitted(ctx context.Context, stream string, batch int64, t time.Time) error {
	if err := s.items.MarkCommitted(ctx, stream, batch, t); err != nil {
		return fmt.Errorf("inboxstate: %w", err)
	}
	var done []string
	s.mu.Lock()
	claimed := s.claimed[stream]
	for k, ps := range s.open[stream] {
		all := true
		for _, p := range ps {
			if _, ok := claimed[p]; !ok {
				all = false
				break
			}
		}
		if all {
			done = append(done, k)
		}
	}
	s.mu.Unlock()
	slices.Sort(done)
	for _, k := range done {
		_ = s.drop(ctx, stream, k) // logged; the next scan retries
	}
	s.mu.Lock()
	if len(s.open[stream]) == 0 {
		delete(s.claimed, stream)
	}
	s.mu.Unlock()
	return nil
}

// pendingRecord returns the pending inbox record of path, if any.
func (s *Store) pendingRecord(ctx context.Context, stream, path string) (candidate, bool, error) {
	res, err := s.scan(ctx, stream, -1, map[string]bool{path: true}, true)
	if err != nil || len(res.pending) == 0 {
		return candidate{}, false, err
	}
	return res.pending[0], true, nil
}

// MarkSkipped implements state.Store (dynamostate's conditional update).
func (s *Store) MarkSkipped(ctx context.Context, stream string, batch int64, path, reason string) error {
	if dynamostate.CheckFile(stream, path) == nil {
		// An overwritten version pending again (allowOverwrites) is no
		// longer the old batch's file (one inbox LIST; skips are rare).
		if c, pending, err := s.pendingRecord(ctx, stream, path); err != nil {
			return err
		} else if pending && c.allow {
			if it, err := s.items.ReadFiles(ctx, stream, []string{path}, true); err != nil {
				return fmt.Errorf("inboxstate: %w", err)
			} else if _, ok := it[path]; ok {
				return fmt.Errorf("inboxstate: mark %q skipped by batch %d in stream %q: the file was overwritten since and is pending again", path, batch, stream)
			}
		}
	}
	err := s.items.MarkSkipped(ctx, stream, batch, path, reason)
	if !errors.Is(err, state.ErrNotFound) || dynamostate.CheckFile(stream, path) != nil {
		return err
	}
	_, pending, perr := s.pendingRecord(ctx, stream, path)
	if perr != nil {
		return perr
	}
	if pending {
		return fmt.Errorf("inboxstate: mark %q skipped by batch %d in stream %q: the file is pending", path, batch, stream)
	}
	return err
}

// RegisterSkipped implements state.Store: a path with an item or a pending
// inbox record is known; otherwise the skip record is written to the table
// (one conditional PutItem).
func (s *Store) RegisterSkipped(ctx context.Context, stream string, f state.File, reason string) (bool, error) {
	if err := checkFiles(stream, []state.File{f}); err != nil {
		return false, err
	}
	items, err := s.items.ReadFiles(ctx, stream, []string{f.Path}, true)
	if err != nil {
		return false, fmt.Errorf("inboxstate: %w", err)
	}
	if _, ok := items[f.Path]; ok {
		return false, nil
	}
	if _, pending, err := s.pendingRecord(ctx, stream, f.Path); err != nil || pending {
		return false, err
	}
	return s.items.RegisterSkipped(ctx, stream, f, reason)
}

// Get implements state.Store: a pending inbox record, else the item.
func (s *Store) Get(ctx context.Context, stream, path string) (state.Entry, error) {
	if dynamostate.CheckFile(stream, path) == nil {
		c, pending, err := s.pendingRecord(ctx, stream, path)
		if err != nil {
			return state.Entry{}, err
		}
		if pending {
			return c.entry(), nil
		}
	}
	return s.items.Get(ctx, stream, path)
}

// ExpiresAt returns the expiry recorded for the file at path (zero if
// none); it implements statetest.ExpiryReader.
func (s *Store) ExpiresAt(ctx context.Context, stream, path string) (time.Time, error) {
	if dynamostate.CheckFile(stream, path) == nil {
		c, pending, err := s.pendingRecord(ctx, stream, path)
		if err != nil {
			return time.Time{}, err
		}
		if pending {
			if c.expires == 0 {
				return time.Time{}, nil
			}
			return time.Unix(c.expires, 0), nil
		}
	}
	return s.items.ExpiresAt(ctx, stream, path)
}

// Entries implements state.Store: the pending inbox records merged by path
// with the table's items (a pending record wins over the item of a file
// skipped at discovery or of an overwritten version).
func (s *Store) Entries(ctx context.Context, stream string, states ...state.IngestionState) iter.Seq2[state.Entry, error] {
	return func(yield func(state.Entry, error) bool) {
		if err := checkFiles(stream, nil); err != nil {
			yield(state.Entry{}, err)
			return
		}
		want := func(e state.Entry) bool { return len(states) == 0 || slices.Contains(states, e.State) }
		var pend []state.Entry
		if len(states) == 0 || slices.Contains(states, state.Pending) {
			res, err := s.scan(ctx, stream, -1, nil, true)
			if err != nil {
				yield(state.Entry{}, err)
				return
			}
			for _, c := range res.pending {
				pend = append(pend, c.entry())
			}
			slices.SortFunc(pend, func(a, b state.Entry) int { return strings.Compare(a.Path, b.Path) })
		}
		i := 0
		for e, err := range s.items.Entries(ctx, stream) {
			if err != nil {
				yield(state.Entry{}, err)
				return
			}
			for ; i < len(pend) && pend[i].Path < e.Path; i++ {
				if !yield(pend[i], nil) {
					return
				}
			}
			if i < len(pend) && pend[i].Path == e.Path {
				continue // the pending record wins; yielded next
			}
			if want(e) && !yield(e, nil) {
				return
			}
		}
		for ; i < len(pend); i++ {
			if !yield(pend[i], nil) {
				return
			}
		}
	}
}

// DropStream implements state.Store: the stream's inbox objects, then its
// items (dynamostate.Store.DropStream). It reports the items removed plus
// the pending paths that had none.
func (s *Store) DropStream(ctx context.Context, stream string) (int, error) {
	if err := checkFiles(stream, nil); err != nil {
		return 0, err
	}
	res, err := s.scan(ctx, stream, -1, nil, true)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, c := range res.pending {
		if _, ok := res.items[c.file.Path]; !ok {
			n++
		}
	}
	keys, err := s.listKeys(ctx)
	if err != nil {
		return 0, err
	}
	objs, err := s.read(ctx, keys)
	if err != nil {
		return 0, err
	}
	for i, o := range objs {
		if o != nil && o.Stream == stream {
			if err := s.inbox.Delete(ctx, keys[i]); err != nil {
				return 0, fmt.Errorf("inboxstate: drop stream %q: deleting %s: %w", stream, keys[i], err)
			}
		}
	}
	s.mu.Lock()
	delete(s.seen, stream)
	delete(s.open, stream)
	delete(s.claimed, stream)
	s.mu.Unlock()
	m, err := s.items.DropStream(ctx, stream)
	if err != nil {
		return n + m, fmt.Errorf("inboxstate: %w", err)
	}
	return n + m, nil
}

// StoreID implements state.Store: the table's identity (the inbox belongs
// to the checkpoint, which records the id).
func (s *Store) StoreID(ctx context.Context) (string, error) { return s.items.StoreID(ctx) }
