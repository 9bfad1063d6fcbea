package state

import "context"

// FileClaimer is an optional capability of a Store whose pending files are
// handed over at least once rather than exactly once (infra/inboxstate:
// pending files live in an inbox of the stream's checkpoint location, and
// a redelivered event or a repeated listing can list a file twice). Its
// Claim of a batch creates the file's entry; a file already held by
// another batch is then not an error but a duplicate hand-over, which the
// batch drops.
//
// Contract (checked by statetest for stores that implement it):
//   - ClaimFiles claims each file into batch, recording the given facts
//     (Path, Size, ETag, ModTime) when the file has no entry yet, and
//     reports owned[i]: true when files[i] is (now or already) in batch,
//     false when another batch holds it (that batch ingests it; this one
//     must not).
//   - The answer is deterministic: a file's batch never changes once it is
//     set (except by an allowed overwrite, which only a later plan can
//     claim), so every replay of a sealed plan sees the same owned set.
//   - Afterwards the owned files are Claimed in batch, exactly as after
//     Claim.
//   - Pending reads its own writes as the Store contract says, with one
//     exception: a claim whose process died before ClaimFiles returned may
//     leave its files' pending records behind, so Pending may return such
//     a file again (without checking each candidate against its claim: that
//     check would cost a read per file). The next plan lists it and its
//     claim reports it held by the other batch, as for any duplicate.
type FileClaimer interface {
	// ClaimFiles claims files into batch and reports which the batch owns.
	ClaimFiles(ctx context.Context, stream string, batch int64, files []File) (owned []bool, err error)
}

// PendingRepeater is an optional capability of a Store whose Register may
// report true again for a path that is still pending (not yet claimed):
// such a store does not read its pending files before recording new ones
// (a second record of a pending file is harmless: Pending returns one
// entry per path and a claim decides once). Only the Register clauses of
// the Store contract about still-pending paths are relaxed: a path that
// is claimed, committed or skipped still reports false, and Pending, Get
// and Entries show one entry per path. The conformance suite accepts
// either answer for such stores.
type PendingRepeater interface {
	// RegisterMayRepeatPending reports whether Register may report a
	// still-pending path as new again.
	RegisterMayRepeatPending() bool
}

// MayRepeatPending reports whether s declares the PendingRepeater
// capability.
func MayRepeatPending(s Store) bool {
	pr, ok := s.(PendingRepeater)
	return ok && pr.RegisterMayRepeatPending()
}

// ClaimFiles claims files into batch on s and reports which files the
// batch owns: through FileClaimer when s implements it, otherwise with
// Claim (whose stores hand each file over once: the batch owns every
// file, and a file of another batch is an error).
func ClaimFiles(ctx context.Context, s Store, stream string, batch int64, files []File) ([]bool, error) {
	if fc, ok := s.(FileClaimer); ok {
		return fc.ClaimFiles(ctx, stream, batch, files)
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	if err := s.Claim(ctx, stream, batch, paths); err != nil {
		return nil, err
	}
	owned := make([]bool, len(files))
	for i := range owned {
		owned[i] = true
	}
	return owned, nil
}
