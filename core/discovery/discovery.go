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
	"strings"
	"time"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/core/state"
)

// Filter decides which keys of a source location are stream input.
type Filter struct {
	// Glob is the compiled pathGlobFilter; nil accepts every file name.
	Glob *Glob
}

// Accept reports whether key (relative to the source location) is input:
// not a folder marker, not hidden (no path segment starting with '_' or '.',
// as Spark's file index skips them), and, if a glob is set, its file name
// matches it.
func (f Filter) Accept(key string) bool {
	if key == "" || strings.HasSuffix(key, "/") {
		return false
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg[0] == '_' || seg[0] == '.' {
			return false
		}
	}
	if f.Glob != nil {
		name := key[strings.LastIndexByte(key, '/')+1:]
		return f.Glob.Match(name)
	}
	return true
}

// List yields the accepted files under the source store in lexical order.
func List(ctx context.Context, src objstore.Store, f Filter) iter.Seq2[state.File, error] {
	return func(yield func(state.File, error) bool) {
		for info, err := range src.List(ctx, objstore.ListOptions{}) {
			if err != nil {
				yield(state.File{}, fmt.Errorf("listing source: %w", err))
				return
			}
			if !f.Accept(info.Key) {
				continue
			}
			if !yield(fileOf(info), nil) {
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
}

// RegisterAll registers every file the sequence yields and counts the new ones.
func (r *Registrar) RegisterAll(ctx context.Context, files iter.Seq2[state.File, error]) (Result, error) {
	var res Result
	size := r.ChunkSize
	if size <= 0 {
		size = 500
	}
	chunk := make([]state.File, 0, size)
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		n, bytes, err := r.Register(ctx, chunk)
		res.New += n
		res.Bytes += bytes
		chunk = chunk[:0]
		return err
	}
	for f, err := range files {
		if err != nil {
			return res, err
		}
		res.Listed++
		if nb := r.notBefore(); !nb.IsZero() && !f.ModTime.IsZero() && f.ModTime.Before(nb) {
			res.Existing++
			continue
		}
		chunk = append(chunk, f)
		if len(chunk) == size {
			if err := flush(); err != nil {
				return res, err
			}
		}
	}
	return res, flush()
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

// Register records one group of files and returns how many were new and
// their bytes. Files older than NotBefore are left out (not counted as new).
func (r *Registrar) Register(ctx context.Context, files []state.File) (int, int64, error) {
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
	if r.MaxFileAge > 0 {
		opts.ExpiresAt = r.now().Add(r.MaxFileAge)
	}
	reg, err := r.State.Register(ctx, r.Stream, files, opts)
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
