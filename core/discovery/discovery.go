// Package discovery finds source files for a stream and records each one once
// in the file-state store: the directory-listing mode of Auto Loader (initial
// load with includeExistingFiles, useNotifications=false, and backfill).
// Notification-mode discovery parses events elsewhere and calls Register with
// the same Filter.
package discovery

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"runtime/trace"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/state"
)

// Filter decides which keys of a source location are stream input.
type Filter struct {
	// Glob is the compiled pathGlobFilter; nil accepts every file name.
	Glob *Glob
	// ModifiedAfter (modifiedAfter), when set, accepts only files modified
	// strictly after it.
	ModifiedAfter *time.Time
	// ModifiedBefore (modifiedBefore), when set, accepts only files
	// modified strictly before it.
	ModifiedBefore *time.Time
}

// Hidden reports whether one path segment (a file or directory name) is
// never input, as Spark's file listing decides (HadoopFSUtils
// shouldFilterOutPathName): it starts with '.', or with '_' unless it holds
// '=' (a partition directory such as "_year=2024"), or it ends with
// "._COPYING_" (a file being copied by "hadoop fs -put"). Spark keeps
// "_metadata" and "_common_metadata" for Parquet's summary files and never
// reads them as data; Tributary does not list them at all. An empty
// segment (a key with "//") is hidden too.
func Hidden(segment string) bool {
	switch {
	case segment == "":
		return true
	case segment[0] == '.':
		return true
	case segment[0] == '_' && !strings.Contains(segment, "="):
		return true
	}
	return strings.HasSuffix(segment, "._COPYING_")
}

// Accept reports whether key (relative to the source location) is input:
// not a folder marker, no Hidden path segment, and, if a glob is set, its
// file name matches it.
func (f Filter) Accept(key string) bool {
	if key == "" || strings.HasSuffix(key, "/") {
		return false
	}
	if !f.visible(key) {
		return false
	}
	if f.Glob != nil {
		name := key[strings.LastIndexByte(key, '/')+1:]
		return f.Glob.Match(name)
	}
	return true
}

// visible reports whether no segment of key (a trailing '/' aside) is Hidden.
func (f Filter) visible(key string) bool {
	for _, seg := range strings.Split(strings.TrimSuffix(key, "/"), "/") {
		if Hidden(seg) {
			return false
		}
	}
	return true
}

// HasTimeBounds reports whether modifiedAfter or modifiedBefore is set, so
// that a file's modification time must be known to decide.
func (f Filter) HasTimeBounds() bool { return f.ModifiedAfter != nil || f.ModifiedBefore != nil }

// AcceptModTime reports whether a file modified at t passes modifiedAfter
// and modifiedBefore. As in Spark, the comparison is strict and on the
// modification time in milliseconds (Hadoop's FileStatus).
func (f Filter) AcceptModTime(t time.Time) bool {
	ms := t.Truncate(time.Millisecond)
	if f.ModifiedAfter != nil && !ms.After(*f.ModifiedAfter) {
		return false
	}
	if f.ModifiedBefore != nil && !ms.Before(*f.ModifiedBefore) {
		return false
	}
	return true
}

// acceptInfo applies the whole filter to a listed entry. An unreadable
// entry passes when its path is visible, its name matches the glob (for
// files) and, when its time is known, its time passes the bounds: it is
// reported, not ingested.
func (f Filter) acceptInfo(info objstore.ObjectInfo) bool {
	if info.Unreadable != "" {
		if info.Key == "" || !f.visible(info.Key) {
			return false
		}
		if !strings.HasSuffix(info.Key, "/") && f.Glob != nil && !f.Glob.Match(info.Key[strings.LastIndexByte(info.Key, '/')+1:]) {
			return false
		}
		return info.ModTime.IsZero() || !f.HasTimeBounds() || f.AcceptModTime(info.ModTime)
	}
	return f.Accept(info.Key) && (!f.HasTimeBounds() || f.AcceptModTime(info.ModTime))
}

// Found is one entry of a source listing: a file to register, or, when
// Skip is set, an entry discovery found but cannot ingest (recorded as
// SKIPPED with Skip as the reason).
type Found struct {
	state.File
	// Skip says why the entry cannot be ingested ("" for input files).
	Skip string
}

// List yields the accepted files under the source store in lexical order,
// and the entries the store cannot read (ListOptions.Unreadable).
func List(ctx context.Context, src objstore.Store, f Filter) iter.Seq2[Found, error] {
	return func(yield func(Found, error) bool) {
		for info, err := range src.List(ctx, objstore.ListOptions{Unreadable: true}) {
			if err != nil {
				yield(Found{}, fmt.Errorf("listing source: %w", err))
				return
			}
			if !f.acceptInfo(info) {
				continue
			}
			if !yield(foundOf(info), nil) {
				return
			}
		}
	}
}

// Result counts what a registration pass saw.
type Result struct {
	// Listed is the number of accepted files seen.
	Listed int
	// Existing counts files ignored because they predate the stream's start
	// (includeExistingFiles=false) or are older than cloudFiles.maxFileAge.
	Existing int
	// New is the number registered for the first time (numNewListedFiles).
	New int
	// Bytes is the total size of the new files.
	Bytes int64
	// Skipped is the number of entries recorded for the first time as
	// SKIPPED at discovery (unreadable: a dangling link, a name that is not
	// UTF-8, ...).
	Skipped int
	// Stopped is set when a bounded pass (PassOptions.StopAt) ran out of
	// time: its position is in the checkpoint and the next run resumes it.
	Stopped bool
	// Parts is the number of key ranges of the pass (Registrar.Pass).
	Parts int
	// PartsLeft is how many of them are not listed to their end yet.
	PartsLeft int
	// PassRuns is how many runs have worked on the pass, this one included.
	PassRuns int
}

// Registrar writes discovered files to the state store in chunks.
type Registrar struct {
	// State is the file-state store.
	State state.Store
	// Stream is the stream id.
	Stream string
	// Options are passed to every Register call.
	Options state.RegisterOptions
	// MaxFileAge (cloudFiles.maxFileAge), when positive, sets each entry's
	// expiry to now+MaxFileAge and ignores files modified longer ago than
	// that: their entries may already have expired, and registering them
	// again would ingest them twice.
	MaxFileAge time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// ChunkSize bounds one Register call (default 500).
	ChunkSize int
	// NotBefore, when set, ignores files modified before it: with
	// cloudFiles.includeExistingFiles=false it is the stream's first start,
	// so files that existed then are never ingested.
	NotBefore time.Time
	// Logger receives a warning for each entry recorded as SKIPPED at
	// discovery (slog.Default when nil).
	Logger *slog.Logger

	// cursorSeen is set once Pass has opened the listing cursor: later
	// passes of a warm process read it without creating it first.
	cursorSeen atomic.Bool
}

// RegisterAll registers every file the sequence yields and counts the new
// ones, telling the store that most of them are probably known
// (state.RegisterOptions.MostlyKnown: a listing mostly sees files it saw
// before, which a store may check with reads instead of failed writes); entries with Skip set are recorded as SKIPPED (RegisterSkipped) and
// logged the first time.
func (r *Registrar) RegisterAll(ctx context.Context, files iter.Seq2[Found, error]) (Result, error) {
	return r.registerAll(ctx, files, true, false, nil)
}

// overlapGrowth is how many times ChunkSize the chunks after the first
// hold when registration overlaps the listing: the first is registered
// early, the later ones commit the state store a quarter as often (each
// boltstate commit is two fdatasyncs, and its own B+tree spill).
const overlapGrowth = 4

// overlapMax is how many times the later chunk size a chunk may grow to
// while the chunk before it is still being registered: the listing then
// goes on into the same chunk instead of waiting, and the registration
// that lags behind it commits fewer, larger chunks (two fdatasyncs each).
// With one processor the registration takes turns with the listing, and
// a chunk grows while it waits for its turn: the CLI registers a listing
// of 10,000 files in two or three chunks (500, then 8,459, or 4,200–6,300
// and the rest; 500, 4,000, 4,000 and 459 with a bound of 2); with two
// processors it is 500, 2,000 and ~3,000 twice either way.
// Larger chunks cost less per file in boltstate since its state files are
// mapped 64 MiB from the start (no remap copying the write transaction's
// nodes as the file grows): BenchmarkFirstRun, 9,000 files, one thread,
// chunks of 500+2,000 against 500+9,000: register CPU 23.9 → 22.7 ms,
// the pending read 7.2 → 5.0 ms (fewer partly filled pages), the claim
// 18.8 → 17.4 ms. In the CLI on 10,000 files of 1 KB the difference is
// within the noise (16 pairs against a bound of 2, one thread: −6 ms
// wall, 14 of 16 lower, then −0 ms, 9 of 16; two threads +1 ms, 7 of
// 16): where a chunk is cut depends on when the scheduler switches. The
// bound keeps a chunk's memory small (16,000 files).
const overlapMax = 8

// registerAll is RegisterAll; mostlyKnown is passed to the store
// (state.RegisterOptions.MostlyKnown), and flushed, when set, is called
// after each chunk is registered (every entry the sequence yielded so far
// is recorded). With overlap, the chunks after the first are overlapGrowth
// times larger, and a full chunk is registered on another
// goroutine while the sequence yields the next one (the store's write and
// its sync overlap the listing); a chunk full while the one before it is
// still being registered takes more files, up to overlapMax times its
// size, rather than wait for it; flushed is then called once a chunk's
// registration is done, when entries of the next chunk may have been
// yielded already, so a caller that records a listing position in
// flushed must not overlap.
func (r *Registrar) registerAll(ctx context.Context, files iter.Seq2[Found, error], mostlyKnown, overlap bool, flushed func() error) (res Result, err error) {
	size := r.ChunkSize
	if size <= 0 {
		size = 500
	}
	later := size // the size of the chunks after the first
	if overlap {
		later *= overlapGrowth
	}
	most := later * overlapMax // the largest chunk (overlap)
	chunk := make([]state.File, 0, size)
	type registered struct {
		n     int
		bytes int64
		err   error
	}
	var inflight chan registered // the chunk being registered (overlap)
	wait := func() error {
		if inflight == nil {
			return nil
		}
		d := <-inflight
		inflight = nil
		res.New += d.n
		res.Bytes += d.bytes
		if d.err == nil && flushed != nil {
			return flushed()
		}
		return d.err
	}
	defer func() {
		if werr := wait(); err == nil {
			err = werr
		}
	}()
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		if overlap {
			if err := wait(); err != nil {
				return err
			}
			size = later
			c, done := chunk, make(chan registered, 1)
			chunk, inflight = make([]state.File, 0, size), done
			go func() {
				n, bytes, err := r.register(ctx, c, mostlyKnown)
				done <- registered{n, bytes, err}
			}()
			return nil
		}
		n, bytes, err := r.register(ctx, chunk, mostlyKnown)
		res.New += n
		res.Bytes += bytes
		chunk = chunk[:0]
		if err == nil && flushed != nil {
			err = flushed()
		}
		return err
	}
	for f, err := range files {
		if err != nil {
			return res, err
		}
		old := false
		if nb := r.notBefore(); !nb.IsZero() && !f.ModTime.IsZero() && f.ModTime.Before(nb) {
			old = true
		}
		if f.Skip != "" {
			if old {
				continue
			}
			n, err := r.skip(ctx, f)
			if err != nil {
				return res, err
			}
			res.Skipped += n
			continue
		}
		res.Listed++
		if old {
			res.Existing++
			continue
		}
		chunk = append(chunk, f.File)
		// With overlap, a full chunk grows on (up to most) while the
		// chunk before it is being registered: the registration's result
		// is sent once, so a buffered one means it is done.
		if len(chunk) >= size && (inflight == nil || len(inflight) > 0 || len(chunk) >= most) {
			if err := flush(); err != nil {
				return res, err
			}
		}
	}
	return res, flush()
}

// skip records an entry discovery cannot ingest; it returns 1 when the
// entry is new (and logs it), 0 when it was known.
func (r *Registrar) skip(ctx context.Context, f Found) (int, error) {
	added, err := r.State.RegisterSkipped(ctx, r.Stream, f.File, f.Skip)
	if err != nil {
		return 0, fmt.Errorf("recording skipped %q of stream %q: %w", f.Path, r.Stream, err)
	}
	if !added {
		return 0, nil
	}
	lg := r.Logger
	if lg == nil {
		lg = slog.Default()
	}
	lg.WarnContext(ctx, "not ingesting a source entry: recorded as SKIPPED", "stream", r.Stream, "path", f.Path, "reason", state.SkipReason(f.Skip))
	return 1, nil
}

func (r *Registrar) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// notBefore is the oldest modification time a file may have to be
// registered: the later of NotBefore and now-MaxFileAge (zero: no bound).
func (r *Registrar) notBefore() time.Time {
	nb := r.NotBefore
	if r.MaxFileAge > 0 {
		if oldest := r.now().Add(-r.MaxFileAge); oldest.After(nb) {
			nb = oldest
		}
	}
	return nb
}

// Register records one group of files (object-created events) and returns
// how many were new and their bytes. Files older than NotBefore are left
// out (not counted as new). The store is told the files are likely new
// (state.RegisterOptions.LikelyNew): a store that then skips its check may
// count a redelivered event's file as new again, and its claim drops it.
func (r *Registrar) Register(ctx context.Context, files []state.File) (int, int64, error) {
	return r.register(ctx, files, false)
}

func (r *Registrar) register(ctx context.Context, files []state.File, mostlyKnown bool) (int, int64, error) {
	if notBefore := r.notBefore(); !notBefore.IsZero() {
		kept := make([]state.File, 0, len(files))
		for _, f := range files {
			if f.ModTime.IsZero() || !f.ModTime.Before(notBefore) {
				kept = append(kept, f)
			}
		}
		files = kept
		if len(files) == 0 {
			return 0, 0, nil
		}
	}
	opts := r.Options
	opts.MostlyKnown = mostlyKnown
	// Anything else is an object-created event or a key after the last
	// one an incremental listing saw: new but for rare repeats.
	opts.LikelyNew = !mostlyKnown
	if r.MaxFileAge > 0 {
		opts.ExpiresAt = r.now().Add(r.MaxFileAge)
	}
	region := trace.StartRegion(ctx, "discovery.register")
	reg, err := r.State.Register(ctx, r.Stream, files, opts)
	region.End()
	if err != nil {
		return 0, 0, fmt.Errorf("registering %d files of stream %q: %w", len(files), r.Stream, err)
	}
	n, bytes := 0, int64(0)
	for i, ok := range reg {
		if ok {
			n++
			bytes += files[i].Size
		}
	}
	return n, bytes, nil
}
