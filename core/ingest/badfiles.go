package ingest

import (
	"errors"
	"fmt"
)

// Contract errors of input files that cannot be read. A batch that fails
// with one of them commits nothing; its sealed plan is replayed by the
// next run.
var (
	// ErrCorruptFile: an input file's content cannot be read (bad or
	// truncated compression, unreadable content, a read error that repeats
	// at the same point) and ignoreCorruptFiles is false.
	ErrCorruptFile = errors.New("input file is corrupt")
	// ErrMissingFile: an input file was deleted after it was discovered
	// and ignoreMissingFiles is false.
	ErrMissingFile = errors.New("input file is missing")
	// ErrUnstableRead: reading an input file failed several times, at
	// different points each time (a storage or network problem, not the
	// file's content); the next run tries again.
	ErrUnstableRead = errors.New("input file could not be read reliably")
)

// fault classifies why an input file could not be (fully) read.
type fault int

const (
	// faultCorrupt: the content (or a read error) stopped the read.
	faultCorrupt fault = iota + 1
	// faultMissing: the file is gone since its discovery.
	faultMissing
	// faultUnusable: the file cannot be placed in the table (its path
	// lacks a partition value); it is always skipped with the reason.
	faultUnusable
)

// fileError is why one input file could not be (fully) read.
type fileError struct {
	path  string // the source key
	fault fault
	// rows and rescued count the rows read (and written) before the
	// failure; unknown lists the new columns among them.
	rows, rescued int64
	unknown       []string
	err           error
}

func (f *fileError) Error() string { return f.path + ": " + f.err.Error() }

func (f *fileError) Unwrap() error { return f.err }

// reason is why the file was skipped, as the state, the commit and
// badRecordsPath record it.
func (f *fileError) reason() string {
	switch {
	case f.fault == faultMissing:
		return "deleted since it was discovered"
	case f.fault == faultCorrupt && f.rows > 0:
		return fmt.Sprintf("corrupt: %v; the %d rows read before the corruption were kept", f.err, f.rows)
	case f.fault == faultCorrupt:
		return fmt.Sprintf("corrupt: %v", f.err)
	}
	return f.err.Error()
}

// tolerated reports whether the stream skips such a file (keeping what was
// read) rather than failing its batch.
func (e *Engine) tolerated(fe *fileError) bool {
	r := e.Config.Reader
	switch fe.fault {
	case faultMissing:
		return r.IgnoreMissingFiles || r.BadRecordsPath != ""
	case faultCorrupt:
		return r.IgnoreCorruptFiles || r.BadRecordsPath != ""
	}
	return true
}

// fileFailure is the error that fails a batch (or an inference) because
// of fe, naming the file, the reason and the way out.
func (e *Engine) fileFailure(fe *fileError) error {
	name := e.fullPath(fe.path)
	if fe.fault == faultMissing {
		return fmt.Errorf("%w: %s was deleted since it was discovered (set ignoreMissingFiles=true to skip it, or badRecordsPath to record it)", ErrMissingFile, name)
	}
	return fmt.Errorf("%w: %s: %v (after %d rows; set ignoreCorruptFiles=true to skip it keeping the rows read before the corruption, or badRecordsPath to record it)", ErrCorruptFile, name, fe.err, fe.rows)
}

// maxFileReads bounds how often one batch attempt reads a file whose read
// keeps failing at different points.
const maxFileReads = 3

// readCut is where a failed read of a file stopped.
type readCut struct {
	rows int64
	msg  string
}

// verdict is what a batch does about a file that could not be read.
type verdict int

const (
	// retryBatch: drop the attempt's output and write the batch again (the
	// failure may be the network's: a cut S3 body looks like a truncated
	// file).
	retryBatch verdict = iota + 1
	// keepRead: skip the rest of the file, keeping the rows read before
	// the failure (Spark's ignoreCorruptFiles), and record it skipped.
	keepRead
	// failBatch: fail the batch; nothing of it commits.
	failBatch
)

// readFailures remembers, across the attempts of one batch, where the
// reads of each failing file stopped.
type readFailures map[string][]readCut

// judge decides what the batch does about fe. A read that fails is
// retried; a failure that repeats at the same point (same rows read, same
// error) is the content's, so the cut point a batch keeps is the same on
// every replay; failures that keep moving are the storage's, and fail the
// batch after maxFileReads reads.
func (e *Engine) judge(rf readFailures, fe *fileError) (verdict, error) {
	if fe.fault != faultCorrupt {
		if e.tolerated(fe) {
			return keepRead, nil
		}
		return failBatch, e.fileFailure(fe)
	}
	cut := readCut{rows: fe.rows, msg: fe.err.Error()}
	prev := rf[fe.path]
	rf[fe.path] = append(prev, cut)
	switch {
	case len(prev) == 0:
		return retryBatch, nil
	case prev[len(prev)-1] == cut:
		if e.tolerated(fe) {
			return keepRead, nil
		}
		return failBatch, e.fileFailure(fe)
	case len(prev)+1 >= maxFileReads:
		return failBatch, fmt.Errorf("%w: %s: %d reads failed at different points (last after %d rows: %v); the next run tries again",
			ErrUnstableRead, e.fullPath(fe.path), len(prev)+1, fe.rows, fe.err)
	}
	return retryBatch, nil
}
