// Package state defines the file-state port: the cloudFiles state that records
// every file a stream discovered, once, and which batch ingested it.
//
// The state store does not decide what a batch contains: the batch plan
// (Spark's offsets log) is sealed in the stream's checkpoint location by the
// ingest protocol. The store keeps per-file facts (for dedup and for the
// `tributary state` listing), the pending queue in discovery order, and
// per-batch commit times.
package state

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"iter"
	"strings"
	"time"
	"unicode/utf8"
)

// Contract errors. Adapters wrap them (errors.Is must hold).
var (
	// ErrNotFound: the entry asked for does not exist.
	ErrNotFound = errors.New("state: not found")
)

// IngestionState is a file's place in the ingest protocol.
type IngestionState string

// Ingestion states, in protocol order.
const (
	// Pending: discovered, not yet in any batch.
	Pending IngestionState = "PENDING"
	// Claimed: planned into a batch that is not yet known to be committed.
	Claimed IngestionState = "CLAIMED"
	// Committed: its batch is committed to the Delta table.
	Committed IngestionState = "COMMITTED"
	// Skipped: its batch could not read it (corrupt, deleted since
	// discovery, ...) and went on without it, or discovery found it but
	// cannot ingest it (BatchID -1: a dangling link, a name that is not
	// UTF-8, ...); Entry.Error says why. A skipped file stays Skipped when
	// its batch commits.
	Skipped IngestionState = "SKIPPED"
)

// MaxSkipReasonBytes is the most bytes of a skip reason a store keeps;
// SkipReason cuts longer ones.
const MaxSkipReasonBytes = 1000

// SkipReason returns reason as stores record it (MarkSkipped): invalid UTF-8
// replaced by U+FFFD, cut at a rune boundary to at most MaxSkipReasonBytes
// bytes, and "unknown" when empty, so that a skipped entry always carries a
// non-empty, valid reason.
func SkipReason(reason string) string {
	r := strings.ToValidUTF8(reason, "\uFFFD")
	if len(r) > MaxSkipReasonBytes {
		cut := MaxSkipReasonBytes
		for cut > 0 && !utf8.RuneStart(r[cut]) {
			cut--
		}
		r = r[:cut]
	}
	if r == "" {
		return "unknown"
	}
	return r
}

// File is a discovered source file.
type File struct {
	// Path is the file's key relative to the stream's source location.
	Path string
	// Size in bytes.
	Size int64
	// ETag of the discovered version.
	ETag string
	// ModTime is the object's last modification time (zero if unknown).
	ModTime time.Time
}

// Entry is the recorded state of one file of one stream.
type Entry struct {
	File
	// DiscoveryTime is when the file was registered (or re-registered after an
	// allowed overwrite).
	DiscoveryTime time.Time
	// CommitTime is when the file's batch was committed; nil before that.
	CommitTime *time.Time
	// State is the file's ingestion state.
	State IngestionState
	// BatchID is the batch that ingested (or will ingest, or skipped) the
	// file; -1 while pending and for files skipped at discovery.
	BatchID int64
	// Error is why the file was skipped (State Skipped; see SkipReason);
	// empty otherwise.
	Error string
}

// RegisterOptions tune Register.
type RegisterOptions struct {
	// AllowOverwrites (cloudFiles.allowOverwrites): a known path whose ETag
	// differs is reset to pending (its previous batch facts are dropped) and
	// counts as new.
	AllowOverwrites bool
	// ExpiresAt, when non-zero, is stored as the entry's expiry
	// (cloudFiles.maxFileAge): after it, the adapter may forget the entry.
	ExpiresAt time.Time
	// MostlyKnown hints that most of the files are probably registered
	// already (a listing pass over a source whose files are mostly known:
	// backfill, directory listing). An adapter whose writes cost more than
	// its reads may then read first and write only the files that can be
	// new. It changes cost only: results and semantics are exactly those of
	// a call without the hint.
	MostlyKnown bool
	// LikelyNew hints that the files are expected to be new: an
	// object-created event, or a key after the last one an incremental
	// listing saw. A store with the FileClaimer capability may then skip
	// its check of known files and report every file as new: a file that
	// was known after all reaches a batch plan, and its claim reports it
	// held by another batch, so the batch drops it (a duplicate hand-over;
	// it costs the failed claim instead of the check of every file). Other
	// stores ignore the hint.
	LikelyNew bool
}

// Store is the file-state port. One Store serves many streams; every method
// is scoped to one stream id and streams never see each other's entries.
//
// Contract (checked by statetest.RunConformanceTests):
//   - Register is idempotent per path: registering a known path (same ETag, or
//     any ETag without AllowOverwrites) changes nothing and reports false.
//     Among concurrent Register calls for one new path exactly one reports
//     true. Each file is registered independently (no all-or-nothing across a
//     call).
//   - Pending returns pending entries in discovery order (DiscoveryTime, then
//     Path), oldest first, at most limit of them. It reads its own writes: a
//     file whose Claim returned before Pending was called is never returned
//     (adapters over eventually consistent indexes re-check candidates with a
//     consistent read). The ingest protocol relies on this.
//   - Claim moves the named files to Claimed with the batch id. It is
//     idempotent: claiming a file already claimed by the same batch is a
//     no-op; paths that are unknown are ignored. After Claim returns, Pending
//     no longer returns the files.
//   - MarkCommitted records the batch's commit time; entries of that batch
//     then report State Committed and that CommitTime. Idempotent: a second
//     call keeps the first time.
//   - MarkSkipped records that a file of batch was skipped, with the reason
//     as SkipReason returns it. The file must be in batch (claimed, or
//     committed in it): an unknown path returns ErrNotFound; a pending file
//     or a file of another batch is left as it is and the error names the
//     path. Idempotent: a second call keeps the first reason. Afterwards Get
//     and Entries report State Skipped, BatchID batch and Error the reason,
//     whether or not the batch is committed later (CommitTime is still
//     reported once it is); Pending never returns the file, and a Claim into
//     another batch fails for it as for a committed file. An allowed
//     overwrite (Register with AllowOverwrites and another ETag) resets it to
//     pending like any entry, clearing Error.
//   - RegisterSkipped records a path that discovery found but will not
//     ingest (a dangling link, a name that is not UTF-8, ...): an unknown
//     path becomes an entry with State Skipped, BatchID -1, Error
//     SkipReason(reason) and a DiscoveryTime, and true is returned. A known
//     path (in any state) is left as it is and false is returned. Pending
//     never returns a file skipped at discovery, Claim fails for it (the
//     error names the path) and MarkSkipped fails for it (it is in no
//     batch). Register of such a path replaces the entry by a pending one
//     and reports true, with or without AllowOverwrites: the file became
//     readable since, and it is ingested once.
//   - Get returns ErrNotFound for an unknown path.
//   - Entries lists the stream's entries ordered by path, filtered by state
//     when states is non-empty.
//   - DropStream forgets everything the store holds for one stream: every
//     file entry (pending, claimed, committed, skipped) and every batch's
//     commit time. Afterwards Entries yields nothing, Get returns
//     ErrNotFound, Pending is empty, a Register of any former path reports
//     true (a new pending file), and a later MarkCommitted of a reused batch
//     id records its own time. Other streams are untouched. It is
//     idempotent: dropping a stream without entries (or dropping twice)
//     succeeds and reports 0. It is not atomic on every adapter (DynamoDB
//     deletes in pages): an interrupted call leaves a subset of the entries,
//     and calling it again completes it. The caller must keep the stream's
//     writers (discovery, commits) stopped meanwhile: an entry registered
//     during the call may or may not survive it. A full refresh
//     (core/refresh) calls it after its truncating commit.
//   - StoreID returns the store's identity: a non-empty string, the same
//     for every call and every process that opens the same store (the same
//     state.db, the same DynamoDB table), and different for a new or
//     replaced store (a new state.db, a table created anew, a
//     point-in-time restore, which is always a new table); DropStream
//     keeps it. Adapters keep a
//     random id inside the store, written on first use (concurrent first
//     calls agree on one id), and may add where the store lives (a
//     DynamoDB table's name). Checkpoints record it (ingest's identity
//     record) to notice a file state that no longer holds what the
//     checkpoint's batches registered. A read-only store that has no id
//     yet returns an error wrapping ErrNotFound.
type Store interface {
	// Register records newly discovered files; registered[i] reports whether
	// files[i] was new (and is now pending).
	Register(ctx context.Context, stream string, files []File, opts RegisterOptions) (registered []bool, err error)
	// Pending returns up to limit pending entries in discovery order.
	Pending(ctx context.Context, stream string, limit int) ([]Entry, error)
	// Claim assigns the files at paths to batch.
	Claim(ctx context.Context, stream string, batch int64, paths []string) error
	// MarkCommitted records that batch was committed at t.
	MarkCommitted(ctx context.Context, stream string, batch int64, t time.Time) error
	// MarkSkipped records that batch skipped the file at path because of
	// reason (stored as SkipReason(reason)).
	MarkSkipped(ctx context.Context, stream string, batch int64, path, reason string) error
	// RegisterSkipped records that discovery found file but will not
	// ingest it because of reason (stored as SkipReason(reason)); it
	// reports whether the path was new.
	RegisterSkipped(ctx context.Context, stream string, file File, reason string) (bool, error)
	// Get returns one file's entry.
	Get(ctx context.Context, stream, path string) (Entry, error)
	// Entries yields entries by path, optionally only those in the given
	// states; iteration stops at the first error.
	Entries(ctx context.Context, stream string, states ...IngestionState) iter.Seq2[Entry, error]
	// DropStream forgets the stream's file entries and batch commit times;
	// it reports how many file entries it removed.
	DropStream(ctx context.Context, stream string) (int, error)
	// StoreID returns the store's identity, creating it on first use.
	StoreID(ctx context.Context) (string, error)
}

// PendingCounter is implemented by stores that count pending files
// without reading their entries. The ingest engine uses it for the backlog
// a batch reports (numFilesOutstanding, numBytesOutstanding), reading only
// the entries the batch takes.
type PendingCounter interface {
	// CountPending counts the pending files that follow the first skip in
	// discovery order (as Pending returns them), at most limit of them,
	// and sums their sizes.
	CountPending(ctx context.Context, stream string, skip, limit int) (files, bytes int64, err error)
}

// NewStoreID returns a random store id part (32 hex digits) for adapters
// that keep their identity inside the store.
func NewStoreID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}
